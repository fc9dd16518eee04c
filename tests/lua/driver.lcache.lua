-- rot.cache (driver/lcache.c, driver/cache.c): an entry's runs read back as they were written,
-- each value as Lua's own tonumber reads a decimal text (an integer, else a float to the bit:
-- a value that reads differently moves every rate), any other text as it is; on many random
-- values and records of keys in changing order. A read gives what the C entry gives (a merge's),
-- and a damaged entry is corrupt, its bad line quoted as it stands in the file.
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

-- A read goes from the file's lines into Lua tables; a merge goes through the C entry: both
-- must give the same tables (runs, regions, sampled records, counted lines, meta, core).
local function deep(a, b, at, out)
  if type(a) ~= "table" or type(b) ~= "table" then
    if not same(a, b) then out[#out + 1] = at .. ": " .. tostring(a) .. " against " .. tostring(b) end
    return
  end
  for k, v in pairs(a) do deep(v, b[k], at .. "." .. tostring(k), out) end
  for k, v in pairs(b) do if a[k] == nil then out[#out + 1] = at .. "." .. tostring(k) .. " only in the merge's" end end
end
local WORDS = { "sampled", "object", "sample" }
local full = { description = "line one\nline two", coreHash = "c0ffee", meta = { a = "1", b = "x y", c = "0.25" },
  runs = {}, regions = {}, samples = {}, counted = { "flops 12", "bytes 40 at L1", "a line = with spaces" } }
for i = 1, 30 do
  full.runs[i] = { ns = value(), reps = tostring(i), round = "1" }
  full.regions[i] = { run = tostring(i), name = "r" .. i % 4, ns = value() }
  full.samples[i] = { record = WORDS[i % 3 + 1], run = tostring(i), pc = value() }
end
local fpath = tmp .. "/full"
assert(cache.write(fpath, full))
local read = assert(cache.read(fpath))
local merged = cache.merge(full, { description = "", runs = {} })
local diffs = {}
deep(read, merged, "entry", diffs)
t.is(#diffs, 0, "a read gives the tables the C entry gives (" .. (diffs[1] or "all alike") .. ")")
t.is(read.description, full.description, "the description reads back, its line break too")
t.is(read.coreHash, "c0ffee", "the core hash reads back")
t.is(#read.counted, 3, "every counted line reads back")
t.is(read.samples[2].record, WORDS[3], "a sampled record reads back with its word")

-- A damaged entry is corrupt, and says why; the file is never changed.
local text = assert(io.open(fpath)):read("a")
local function damaged(name, body)
  local f = assert(io.open(tmp .. "/" .. name, "w"))
  f:write(body)
  f:close()
  local got, err, kind = cache.read(tmp .. "/" .. name)
  return got, err, kind
end
local function resum(body) -- a body with a checksum line that holds: only its lines are wrong
  return body .. "checksum " .. require("rot.sys").sha256(body) .. "\n"
end
local body = text:match("^(.*\n)checksum %x+\n$")
local got, err, kind = damaged("flipped", text:gsub("ns=", "nz=", 1))
t.ok(got == nil and kind == "corrupt" and err:find("checksum mismatch", 1, true), "a changed byte: " .. tostring(err))
got, err, kind = damaged("cut", text:sub(1, #text // 2))
t.ok(got == nil and kind == "corrupt" and err:find("truncated", 1, true), "a cut entry: " .. tostring(err))
for _, case in ipairs({ { "run a=1 b=2=3", "a second '='" }, { "run a=1 =2", "an empty key" },
  { "run a=1 b=", "an empty value" }, { "run a=1 b", "no '='" }, { "region", "a region without pairs" },
  { "what is this", "an unknown line" } }) do
  got, err, kind = damaged("bad", resum(body .. case[1] .. "\n"))
  t.ok(got == nil and kind == "corrupt" and err:find("bad line '" .. case[1] .. "'", 1, true),
    case[2] .. " is a bad line, said as it stands in the file: " .. tostring(err))
end
got, err, kind = cache.read(tmp .. "/none")
t.ok(got == nil and kind == "missing" and err == "no cache entry '" .. tmp .. "/none'", "no entry: missing, said so")
got, err, kind = cache.read(tmp)
t.ok(got == nil and kind == "corrupt" and err == "cannot read cache entry '" .. tmp .. "': is a directory",
  "an entry the system will not read: its reason, never called corrupted (" .. tostring(err) .. ")")
got = damaged("twice", resum(body .. "meta a 2\n"))
t.is(got and got.meta.a, 2, "a metadata key met twice: its last value")
t.done()
