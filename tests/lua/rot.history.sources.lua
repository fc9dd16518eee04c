-- Unit tests of the source store (rot.history.sources): one copy per content, read back
-- checked, the files a record's builds read kept with it, pruned with the records.
-- judges no time
local t = require "tap"
local rot = require "rot"
local sys = require "rot.sys"
local session = require "rot.session"
local history = require "rot.history"
local sources = require "rot.history.sources"
local record = require "rot.history.record"

local tmp = assert(os.getenv("ROT_TEST_TMP"))
rot.set("cacheDir", tmp .. "/cache")
local cache = tmp .. "/cache"
local text = "int x;\n"
local sha = sys.sha256(text)
t.ok(sources.put(cache, sha, text) and sources.put(cache, sha, text), "a file is stored (twice: once)")
t.is(sources.get(cache, sha), text, "and read back")
sys.writefile(sources.path(cache, sha), "int y;\n")
local got, why = sources.get(cache, sha)
t.ok(got == nil and why:find("changed"),
  "a stored file whose content no longer matches its name is refused: " .. tostring(why))
-- records written by rot.history.record keep the sources their builds read
local S = session.current()
local kfile = tmp .. "/study/kernels/k1.c"
sys.mkdir(tmp .. "/study/kernels")
sys.writefile(kfile, "/* k1 v1 */\n")
local kinfo = { kernels = { { name = "k1", path = kfile } }, macros = {} }
local function rows(ns)
  return { { point = { n = 1 }, desc = { flags = "-O2", macros = {}, device = "cpu",
    workloads = { { kernel = "k1", params = { n = 1 },
    threads = 1, pin = {} } }, policy = { k = 3 } }, kinfo = kinfo, hash = string.rep("a", 64),
      key = string.rep("b", 64),
    machine = "m1", entry = { meta = { flops = 1, bytes = 8, workingSet = 8 }, runs = { { ns = ns,
      reps = 1 } } }, measured = true } }
end
local script = tmp .. "/study/study.lua"
sys.writefile(script, "-- study\n")
rot.set("historyRuns", 2)
local function stored()
  local n = 0
  for _, d in ipairs(sys.listdir(sources.dir(cache)) or {}) do
    n = n + #(sys.listdir(sources.dir(cache) .. "/" .. d) or {})
  end
  return n
end
S.rows, S.axes, S.script = rows(1000), { "n" }, "study"
local r1 = record.save(S, { path = script, ok = true })
local tree = r1.trees[r1.builds[1].tree]
local k1 = tree.kernels[1]
t.ok(k1.name == "k1" and k1.file == "@study/kernels/k1.c"
  and k1.files["@study/kernels/k1.c"] == sys.sha256("/* k1 v1 */\n"),
  "a record names its build's files, tagged by root, with their SHA-256")
t.is(sources.get(cache, sys.sha256("/* k1 v1 */\n")), "/* k1 v1 */\n", "and the store keeps the kernel as it was")
t.ok(r1.hows and r1.points[1].how == 1 and r1.points[1].params == "n=1", "and how to measure each point again")
local ps = record.params("n=1000,x=0.1;m=3")
t.ok(ps and ps[1].n == 1000 and ps[1].x == 0.1 and ps[2].m == 3 and math.type(ps[1].n) == "integer",
  "a point's parameters read back exactly, one table per workload")
local n1 = stored()
S.rows = rows(1100)
record.save(S, { path = script, ok = true })
t.is(stored(), n1, "a second record of the same files stores nothing more")
sys.writefile(kfile, "/* k1 v2 */\n")
S.memo = {}
S.rows = rows(1200)
record.save(S, { path = script, ok = true })
t.is(stored(), n1 + 1, "the kernel edited: its new content is stored beside the old")
S.memo = {}
S.rows = rows(1300)
record.save(S, { path = script, ok = true })
t.ok(sources.get(cache, sys.sha256("/* k1 v1 */\n")) == nil and sources.get(cache, sys.sha256("/* k1 v2 */\n")),
  "once the records that named the old content are pruned (historyRuns 2), it goes too; the new stays")
t.is(#history.list(history.dir(cache, S.home, script)), 2, "(two records kept)")

t.done()
