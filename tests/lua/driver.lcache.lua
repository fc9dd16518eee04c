-- rot.cache (driver/lcache.c, driver/cache.c): an entry's runs read back as they were written,
-- each value as Lua's own tonumber reads a decimal text (an integer, else a float to the bit:
-- a value that reads differently moves every rate), any other text as it is; on many random
-- values and records of keys in changing order.
-- judges no time
local t = require "tap"
local cache = require "rot.cache"

math.randomseed(60)
local tmp = assert(os.getenv("ROT_TEST_TMP"))

-- What a stored value must read as: a text of decimal characters that tonumber reads is that
-- number (integer or float), anything else stays text.
local function want(v)
  local n = v:match("^[%d+%-.eE]+$") and tonumber(v)
  if n then return n end
  return v
end

local CHARS = { "0", "1", "5", "9", "0", "7", ".", "-", "+", "e", "E", "x", "n" }
local function value()
  local r = math.random(6)
  if r == 1 then return tostring(math.random(-10 ^ 6, 10 ^ 6)) end
  if r == 2 then return string.format("%.17g", (math.random() - 0.5) * 10 ^ math.random(-8, 8)) end
  if r == 3 then -- up to 20 digits, a point anywhere (or none), a sign
    local d = {}
    for i = 1, math.random(1, 20) do d[i] = tostring(math.random(0, 9)) end
    local at = math.random(0, #d + 1)
    if at <= #d then table.insert(d, at + 1, ".") end
    return (math.random(3) == 1 and "-" or "") .. table.concat(d)
  end
  if r == 4 then return ({ "0", "-0", "-0.0", "0.", ".5", "-.5", ".", "-", "+5", "1e5", "1.5e-3", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "123456789012345678", "1234567890123456789", "0.30570000000000003",
    "1.2.3", "1-2", "inf", "nan", "0x10", "22502-vm-383d4f" })[math.random(23)] end
  local s = {}
  for i = 1, math.random(1, 8) do s[i] = CHARS[math.random(#CHARS)] end
  return table.concat(s)
end

local KEYS = { "ns", "reps", "round", "inv", "nbr", "qwait", "at", "mig" }
local runs, texts = {}, {}
for i = 1, 400 do
  local run, text = {}, {}
  for _, k in ipairs(KEYS) do
    if math.random(5) > 1 then -- keys left out now and then: a record's keys move up
      local v = value()
      run[k], text[k] = v, v
    end
  end
  if math.random(10) == 1 then local v = value(); run["extra" .. i % 3], text["extra" .. i % 3] = v, v end
  runs[i], texts[i] = run, text
end
local path = tmp .. "/entry"
assert(cache.write(path, { description = "d", coreHash = "abc", meta = { note = "a b", n = "5" }, runs = runs }))
local e = assert(cache.read(path))
t.is(#e.runs, #runs, "every run read back")
local bad, checked = {}, 0
local function same(a, b)
  if math.type(a) ~= math.type(b) then return false end
  if type(a) == "number" then return string.pack("n", a) == string.pack("n", b) end
  return a == b
end
for i, text in ipairs(texts) do
  local got = e.runs[i]
  for k, v in pairs(text) do
    checked = checked + 1
    if not same(got[k], want(v)) then
      bad[#bad + 1] = string.format("%s=%s read as %s (%s)", k, v, tostring(got[k]), math.type(got[k]) or type(got[k]))
    end
  end
  for k in pairs(got) do
    if text[k] == nil then bad[#bad + 1] = "run " .. i .. " gained key " .. k end
  end
end
t.ok(#bad == 0 and checked > 2000, "every value reads as tonumber reads its text, to the bit ("
  .. checked .. " values)")
for i = 1, math.min(#bad, 5) do io.write("#   ", bad[i], "\n") end
t.is(e.meta.note, "a b", "a metadata value with spaces reads back")
t.is(math.type(e.meta.n), "integer", "a metadata number reads as one")
t.done()
