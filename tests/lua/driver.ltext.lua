-- rot.text (driver/ltext.c) against the Lua code it stands in for: util.serialize (a cache
-- key is its text's hash: one byte off re-measures every point), util.json, csv.text and the
-- reading of a CSV text without quotes, on many random values, to the byte; and what it leaves
-- to that code.
-- judges no time
local t = require "tap"
local util = require "rot.util"
local csv = require "rot.csv"
local text = require "rot.text"

math.randomseed(60)
local CHARS = { "a", "Z", "0", "9", " ", ",", '"', "\\", "\n", "\r", "\t", "\0", "\1", "\31", "\127", "\200",
  "é", "%" }
local function str()
  local s = {}
  for i = 1, math.random(0, 6) do s[i] = CHARS[math.random(#CHARS)] end
  return table.concat(s)
end
local FLOATS = { 0.0, -0.0, 0.1, 1 / 3, 2.5, 1e300, -1e-300, 5e-324, 2 ^ 53, 2 ^ 53 + 2, 1e15,
  123456789012345.0, 1e16, -7.0 }
local function num()
  local r = math.random(4)
  if r == 1 then return math.random(-1000, 1000) end
  if r == 2 then return ({ math.mininteger, math.maxinteger, 0, -1 })[math.random(4)] end
  if r == 3 then return FLOATS[math.random(#FLOATS)] end
  return (math.random() - 0.5) * 10 ^ math.random(-12, 12)
end
local function scalar()
  local r = math.random(5)
  if r == 1 then return str() end
  if r == 2 then return math.random(2) == 1 end
  return num()
end
-- a table of depth up to d: a sequence, or string keys, or number keys
local function value(d)
  if d == 0 or math.random(3) == 1 then return scalar() end
  local v, r = {}, math.random(3)
  for i = 1, math.random(0, 5) do
    if r == 1 then v[i] = value(d - 1)
    elseif r == 2 then v[str() .. "k"] = value(d - 1)
    else v[num()] = value(d - 1) end
  end
  return v
end

local same, tried = { serialize = 0, json = 0, csv = 0 }, 400
for _ = 1, tried do
  local v = { x = value(4), y = value(3) }
  if util.serialize(v) == util.serialize(v, {}) then same.serialize = same.serialize + 1 end -- (seen: the Lua code)
  if util.json(v) == util.json(v, "") then same.json = same.json + 1 end -- (an indent: the Lua code)
  local header, records = {}, {}
  for i = 1, math.random(1, 5) do header[i] = str() end
  for r = 1, math.random(0, 4) do
    records[r] = {}
    for i = 1, #header do records[r][i] = math.random(5) > 1 and scalar() or nil end
  end
  local lines = { csv.line(header) }
  for _, r in ipairs(records) do lines[#lines + 1] = csv.line(r, #header) end
  if csv.text(header, records) == table.concat(lines, "\n") .. "\n" then same.csv = same.csv + 1 end
end
-- split: a text without quotes as rot.csv's quoting reader reads it (a quoted record after it
-- sends the same text through that reader)
same.split = 0
for _ = 1, tried do
  local parts = {}
  for i = 1, math.random(0, 12) do parts[i] = ({ "a", "1", ",", "\n", "\r", "\r\n", "", " ", "\0" })[math.random(9)] end
  local s = table.concat(parts)
  local quoted = csv.parse(s .. '\n"q"')
  table.remove(quoted)
  if util.serialize(text.split(s)) == util.serialize(quoted) then same.split = same.split + 1 end
end
for _, what in ipairs({ "serialize", "json", "csv", "split" }) do
  t.is(same[what], tried, what .. " in C: the Lua code's text for " .. tried .. " random values")
end

-- a frozen table's text is taken as it is; what only the Lua code does is left to it
local fp = util.frozen({ cpu = "X", pus = 2 })
t.is(text.serialize({ m = fp }, setmetatable({ [fp] = "FROZEN" }, { __mode = "k" })), '{["m"]=FROZEN}',
  "a frozen table: its kept text")
local cyc = {}
cyc.self = cyc
t.ok(text.serialize(cyc, {}) == nil and text.serialize({ 0 / 0 }, {}) == nil
  and text.json(setmetatable({ 1 }, {})) == nil
  and text.json({ x = 2, [true] = 3 }) == nil and text.csv({ "a" }, { { {} } }) == nil,
  "a cycle, NaN, a metatable, odd keys, a table as a field: nil (the Lua code says what is wrong)")
t.raises(function() util.serialize(cyc) end, "contains itself", "and the Lua code still refuses a cycle")

t.done()
