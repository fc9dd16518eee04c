-- Unit tests of rot.util: canonical serialization (and the hash of what it writes), reading it
-- back safely, and why a directory cannot be written.
-- judges no time
local t = require "tap"
local util = require "rot.util"
local sys = require "rot.sys"

-- canonical serialization: insertion order does not matter, types do
local a, b = {}, {}
a.x = 1; a.y = { 2, 3 }; a.z = "s"
b.z = "s"; b.y = { 2, 3 }; b.x = 1
t.is(util.serialize(a), util.serialize(b), "same table, different insertion order: same text")
t.ok(util.serialize({ n = 1 }) ~= util.serialize({ n = 1.0 }), "integer 1 and float 1.0 differ")
t.ok(util.serialize({ f = "-O2" }) ~= util.serialize({ f = "-O3" }), "different values differ")
t.is(util.serialize({ 0.1 }), "{[1]=0.10000000000000001}", "floats keep full precision")
t.is(util.serialize({ s = "a\nb" }), '{["s"]="a\\\nb"}', "strings are quoted and escaped")
local fp = { cpu = "X", pus = 2, caches = "L1d:49152*2" }
local plain = util.serialize({ machine = { cpu = "X", pus = 2, caches = "L1d:49152*2" }, n = 1 })
t.is(util.serialize({ machine = util.frozen(fp), n = 1 }), plain,
  "a frozen table (a fingerprint) serializes as before, inside others too")
local cyc = {}; cyc.self = cyc
t.raises(function() util.serialize(cyc) end, "contains itself", "cycles are refused")
t.is(util.deserialize(util.serialize({ n = 1, s = "a\nb" })).s, "a\nb", "deserialize reads back what serialize wrote")
local v, why = util.deserialize("(function() while true do end end)()", "claim")
t.ok(v == nil and why:find("too long to read"), "a text that would run forever is stopped: " .. tostring(why))
v, why = util.deserialize("os.exit(1)", "job")
t.ok(v == nil and why ~= nil, "one that calls out reaches nothing: " .. tostring(why))
v, why = util.deserialize('("x"):rep(2^31-1)', "job")
t.ok(v == nil and why ~= nil and ("ab"):upper() == "AB",
  "nor the string methods (a 2 GB rep), which stay ours: " .. tostring(why))
t.is(sys.sha256(util.serialize(a)), sys.sha256(util.serialize(b)), "equal descriptions hash equal")
t.is(#sys.sha256("x"), 64, "hash is 64 hex digits")
-- the exact text (a cache key hashes it: another text re-measures every point), keys of mixed
-- types ordered by type, the same key in many tables (its text made once)
t.is(util.serialize({ [1] = "one", [2.5] = true, x = { y = { 1, 2.0, "z" } }, ["w k"] = false }),
  '{[1]="one",[2.5]=true,["w k"]=false,["x"]={["y"]={[1]=1,[2]=2.0,[3]="z"}}}', "serialize's text, to the byte")
t.is(util.serialize({ { x = 1 }, { x = 2 } }), '{[1]={["x"]=1},[2]={["x"]=2}}', "a key repeated in every table")

-- JSON: objects with sorted keys, arrays, numbers in full, strings escaped, an empty table as []
t.is(util.json({ a = { 1, 2.5, 't"x\n\1' }, b = {}, c = { d = { e = true } }, [3] = "n", z = 1e300 }),
  '{\n  "3": "n",\n  "a": [\n    1,\n    2.5,\n    "t\\"x\\n\\u0001"\n  ],\n  "b": [],\n  "c": {\n    "d": {\n'
  .. '      "e": true\n    }\n  },\n  "z": 1.0000000000000001e+300\n}', "json's text, to the byte")
t.is(util.json({ { k = 1 }, { k = 0.1 } }), '[\n  {\n    "k": 1\n  },\n  {\n    "k": 0.10000000000000001\n  }\n]',
  "an array of objects sharing a key")

-- a directory that cannot be written: why in lower case, the path said once, a hint that fits
do
  local mkdir, writable = sys.mkdir, sys.writable
  local function why(mk, wr)
    sys.mkdir, sys.writable = mk, wr
    local ok, err = pcall(util.ensure_dir, "/ro/out", "output directory", "outputDir")
    sys.mkdir, sys.writable = mkdir, writable
    return not ok and err.message:gsub(" %(rot%.util%.lua:%d+%)$", "") or "", not ok and err.hint or ""
  end
  local m, h = why(function() return true end, function() return false, "Read-only file system" end)
  t.is(m, "cannot write output directory '/ro/out': read-only file system", "a read-only file system is said as such")
  t.ok(h:find("outputDir=DIR") and h:find("read%-only") and not h:find("permissions"),
    "its hint names the setting, not permissions: " .. h)
  m, h = why(function() return nil, "/ro/out: Permission denied" end, writable)
  t.is(m, "cannot write output directory '/ro/out': permission denied", "mkdir's refusal: the path once")
  t.ok(h:find("fix its permissions") ~= nil, "and a hint at the permissions")
  t.ok(util.reason("/c", "/c: Permission denied", "unreadable") == "permission denied" and
    util.reason("/c", nil, "unreadable") == "unreadable",
      "the reason a cache directory cannot be read: the path once, lower case")
end

-- grouping by key: keys in the order first seen, items in list order, nil keys left out
do
  local rows = { { k = "b", v = 1 }, { k = "a", v = 2 }, { v = 3 }, { k = "b", v = 4 } }
  local g, order = util.group_by(rows, function(r) return r.k end)
  t.is(table.concat(order, " "), "b a", "group_by: the keys in the order first seen, a nil key none")
  t.ok(#g.b == 2 and g.b[1] == rows[1] and g.b[2] == rows[4] and #g.a == 1 and g.a[1] == rows[2],
    "group_by: each group's items in list order")
  local v = util.group_by(rows, function(r) return r.k, r.v * 10 end)
  t.is(table.concat(v.b, " "), "10 40", "group_by: a second value is kept instead of the item")
  t.ok(util.unescape_token(util.escape_token("")) == "" and util.unescape_token(util.escape_token("a b%")) == "a b%",
    "an escaped token reads back, the empty one too")
end

t.done()
