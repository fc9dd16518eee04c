--[[ rot.csv: the one CSV writer and reader of rot's files (results, peaks, models' records,
  the T(n, e, c) table, profiles): RFC 4180, a field quoted when it holds a comma, a quote or a
  line break, its quotes doubled; numbers in full precision (the shortest text that reads back
  as the same number), booleans as 1 and 0, nil as an empty field. ]]
local M = {}

-- A number as text that reads back as the same number: integers whole, floats in the fewest
-- of 15 to 17 significant digits that do (inf and nan as C prints them).
function M.number(v)
  if math.type(v) == "integer" then return string.format("%d", v) end
  local s = string.format("%.15g", v)
  if tonumber(s) == v then return s end
  s = string.format("%.16g", v)
  if tonumber(s) == v then return s end
  return string.format("%.17g", v)
end

-- One field's text.
function M.field(v)
  local t = type(v)
  if v == nil then return "" end
  if t == "number" then return M.number(v) end
  if t == "boolean" then return v and "1" or "0" end
  if t == "table" then error("a CSV field cannot be a table", 2) end
  local s = tostring(v)
  if s:find('[,"\r\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

-- One record's line (without its line break) from a sequence of n values (nil: empty fields).
function M.line(values, n)
  local out = {}
  for i = 1, n or #values do out[i] = M.field(values[i]) end
  return table.concat(out, ",")
end

--[[ The text of a file: header (a sequence of names) and records (sequences of values, each
  as long as the header), one line each, a line break after the last. ]]
function M.text(header, records)
  local text = require("rot.text").csv(header, records) -- (the same text, written in C)
  if text then return text end
  local lines = { M.line(header) }
  for _, r in ipairs(records) do lines[#lines + 1] = M.line(r, #header) end
  return table.concat(lines, "\n") .. "\n"
end

-- The records of CSV text: a sequence of fields (strings) each; a quoted field may hold commas,
-- doubled quotes and line breaks; CRLF and LF both end a record; empty lines are skipped.
-- Returns the records, or nil and why (an unterminated quote). A text without quotes (most of
-- rot's: peaks, results) is split by lines and commas, in C (rot.text.split): the same records.
function M.parse(text)
  if not text:find('"', 1, true) then return require("rot.text").split(text) end
  local records, fields, i, n = {}, {}, 1, #text
  local function finish()
    if not (#fields == 1 and fields[1] == "") then records[#records + 1] = fields end
    fields = {}
  end
  while i <= n do
    local c = text:sub(i, i)
    if c == '"' then
      local parts, j = {}, i + 1
      while true do
        local q = text:find('"', j, true)
        if not q then return nil, "unterminated quote in record " .. (#records + 1) end
        parts[#parts + 1] = text:sub(j, q - 1)
        if text:sub(q + 1, q + 1) == '"' then parts[#parts + 1] = '"'; j = q + 2 else i = q + 1; break end
      end
      fields[#fields + 1] = table.concat(parts)
      local after = text:match("^[^,\r\n]*", i) -- text after a closing quote is kept, as readers do
      fields[#fields] = fields[#fields] .. after
      i = i + #after
    else
      local s = text:match("^[^,\r\n]*", i)
      fields[#fields + 1] = s
      i = i + #s
    end
    c = text:sub(i, i)
    if c == "," then
      i = i + 1
      if i > n then fields[#fields + 1] = ""; finish() end
    else -- a line break or the end
      i = i + (text:sub(i, i + 1) == "\r\n" and 2 or 1)
      finish()
    end
  end
  return records
end

--[[ The records of CSV text as tables keyed by the header's names (the first record): returns
  them and the header, or nil and why. ]]
function M.parse_named(text)
  local recs, err = M.parse(text)
  if not recs then return nil, err end
  if #recs == 0 then return nil, "no header" end
  local header, out = recs[1], {}
  for k = 2, #recs do
    local r = {}
    for j, name in ipairs(header) do r[name] = recs[k][j] end
    out[#out + 1] = r
  end
  return out, header
end

return M
