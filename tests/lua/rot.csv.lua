-- Unit tests of rot.csv, the one CSV writer and reader: RFC 4180 quoting, numbers that read
-- back the same.
-- judges no time
local t = require "tap"

-- rot.csv: the one writer and reader: RFC 4180 quoting, numbers that read back the same
do
  local csv = require "rot.csv"
  local text = csv.text({ "a", "b,c", "d" }, { { 'say "hi"', 0.1, nil }, { "two\nlines", 1 / 3, true }, { 16.0,
    7, false } })
  t.is(text, 'a,"b,c",d\n"say ""hi""",0.1,\n"two\nlines",0.3333333333333333,1\n16,7,0\n',
    "csv.text: a comma, a quote and a line break quoted, quotes doubled, numbers in full, nil empty, booleans 1 and 0")
  local back = csv.parse(text)
  t.ok(#back == 4 and back[1][2] == "b,c" and back[2][1] == 'say "hi"' and back[2][3] == ""
    and back[3][1] == "two\nlines"
    and tonumber(back[3][2]) == 1 / 3, "csv.parse reads it back: fields whole, the third of one exactly")
  local crlf = csv.parse('x,y\r\n1,"2\r\n3"\r\n\r\nlast,\r\n')
  t.ok(#crlf == 3 and crlf[2][2] == "2\r\n3" and crlf[3][2] == "",
    "CRLF ends records, not inside quotes; empty lines skipped")
  -- a text without quotes (split by lines and commas) reads as the general reader reads it: a
  -- quoted record after it sends the same text through that reader
  local util = require "rot.util"
  local same = true
  for _, text in ipairs({ "a,b\n1,2\n", "a,,\r\n\r\n,\n", "x\ry\r\nz", "last,", "\n\n", "", "1,2,3\n4" }) do
    local quoted = csv.parse(text .. '\n"q"')
    table.remove(quoted)
    same = same and util.serialize(csv.parse(text)) == util.serialize(quoted)
  end
  t.ok(same, "a text without quotes: the same records (CR, LF, CRLF, empty lines and fields, a trailing comma)")
  local none, why = csv.parse('a,"open\n')
  t.ok(none == nil and why:find("unterminated quote"), "an unterminated quote: nil and why")
  for _, v in ipairs({ 0.1 + 0.2, 1e-300, 123456789.123, 2 / 3, 1e21 }) do
    t.is(tonumber(csv.number(v)), v, "csv.number(" .. csv.number(v) .. ") reads back the same")
  end
end

t.done()
