-- rot.topology (driver/ltopology.c): this system's topology kept in a memo file between runs,
-- read from it while nothing it depends on changed, loaded afresh when the memo was kept under
-- another key (another boot, other CPUs online, other hwloc settings) or is not whole.
-- judges no time
local t = require "tap"
local sys = require "rot.sys"
local util = require "rot.util"
local topology = require "rot.topology"

local dir = (os.getenv("ROT_TEST_TMP") or (os.tmpname() .. ".d")) .. "/topology"
assert(sys.mkdir(dir))
local memo = dir .. "/topology.memo"
local function info(x) return util.serialize(x:info()) end

if os.getenv("HWLOC_XMLFILE") then
  t.skip("HWLOC_XMLFILE is set: a topology from XML is never kept")
else
  local fresh = info(assert(topology.load()))
  t.ok(info(assert(topology.load(nil, memo))) == fresh and sys.readfile(memo) ~= nil,
    "loaded with a memo: the same topology, and the memo kept")

  -- a memo under the same key is read: one changed byte of its CPU model shows it was
  local kept = assert(sys.readfile(memo))
  local model = topology.load():info().cpu_model
  local m = model ~= "" and kept:find(model, 1, true)
  if m then
    assert(sys.writefile(memo, kept:sub(1, m - 1) .. "#" .. kept:sub(m + 1)))
    t.ok(assert(topology.load(nil, memo)):info().cpu_model == "#" .. model:sub(2),
      "a memo kept under this system's key is read, not loaded again")
  else
    t.skip("hwloc names no CPU model here: no byte of the memo to change")
  end

  -- kept under another key (another boot): loaded afresh, and kept again
  local key_end = kept:find("\0", 1, true)
  assert(sys.writefile(memo, "rot-topology 1 another boot;" .. kept:sub(key_end)))
  t.ok(info(assert(topology.load(nil, memo))) == fresh and sys.readfile(memo) == kept,
    "a memo under another key: loaded afresh and kept anew")

  -- not whole (cut short): loaded afresh
  assert(sys.writefile(memo, kept:sub(1, #kept - 100)))
  t.ok(info(assert(topology.load(nil, memo))) == fresh, "a memo cut short: loaded afresh")

  -- a memo is never written for a topology from XML
  os.remove(memo)
  assert(topology.load("tests/fixtures/topology/" .. assert(sys.listdir("tests/fixtures/topology"))[1], memo))
  t.ok(sys.readfile(memo) == nil, "a topology from an XML file is never kept")
end

sys.removetree(dir)
t.done()
