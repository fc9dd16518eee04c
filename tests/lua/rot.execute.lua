-- Unit tests of the execution half without a real core: the executor contract through
-- rot.measure with a fake executor, the batch (protocol, core restarts, failure words) with a
-- fake core answering in the core's protocol, and the outcome policy.
-- judges no time
local t = require "tap"
local rot = require "rot"
local sys = require "rot.sys"
local cache = require "rot.cache"
local session = require "rot.session"
local execute = require "rot.execute"
local batch = require "rot.execute.batch"
local outcome = require "rot.execute.outcome"

local home, tmp = os.getenv("ROT_HOME"), assert(os.getenv("ROT_TEST_TMP"))
local S = session.current()
rot.set("cacheDir", tmp .. "/cache")

-- every executor has the interface's two fields
for name, e in pairs(execute.executors) do
  t.ok(e.name == name and type(e.measure) == "function", "executor '" .. name
    .. "' has a name and measure(session, items)")
end
t.ok(execute.executors["local"].measures_here and not execute.executors.slurm.measures_here and
  execute.executors.build.builds_only and not execute.executors["local"].builds_only and
  not execute.executors.build.measures_here,
    "what each can do: local measures here, slurm elsewhere, build builds only")
t.is(execute.choose(S.config, true).name, "build", "rot build chooses the build executor")
t.is(execute.choose(S.config, false).name, "local", "the executor key chooses local by default")

-- a fake executor through rot.measure: hits, measurements and failures settle once each
local entry = { description = "x", coreHash = "h", meta = { flops = 2000, bytes = 24000,
  workingSet = 24000, converged = 1 },
  runs = { { ns = 2000, reps = 2 }, { ns = 1000, reps = 1 }, { ns = 1010, reps = 1 } } }
local fake = { name = "fake", items = nil }
function fake.measure(s, items)
  fake.items = items
  local rows = {}
  for i, it in ipairs(items) do
    local row = { point = it.coord, spec = it.spec }
    if it.coord.k == "hit" then row.entry, row.cached = entry, true
    elseif it.coord.k == "new" then row.entry, row.measured = entry, true
    else row.failed = "it broke" end
    s:settle(row)
    rows[i] = row
  end
  return rows
end
S.executor = fake
local r = rot.measure(rot.space { rot.axis("k", { "hit", "new", "bad" }) },
  function(p) return { kernel = "k_" .. p.k } end)
t.is(#fake.items, 3, "the executor gets one item per point")
t.is(fake.items[2].spec.kernel, "k_new", "each item carries the spec the builder returned")
t.is(#r.rows, 3, "and rot.measure returns its rows")
t.ok(math.abs(r.rows[1].time - 1e-6) < 1e-15 and math.abs(r.rows[2].gbs - 24) < 1e-9,
  "quantities are derived from the rows' runs (time 1 us, 24 GB/s)")
t.ok(r.rows[3].time == nil and r.rows[3].failed == "it broke", "a failed row keeps its reason and has no quantities")
t.ok(S:summary():find("^rot: 3 points, cache: 1 hits, 1 measured, 1 failed;") ~= nil,
  "the summary counts what was settled: " .. S:summary())
t.raises(function() S:settle(r.rows[1]) end, "settled twice", "settling a row twice is an error")
local lazy = { name = "lazy", measure = function(_, items) return { { point = items[1].coord } } end }
S.executor = lazy
t.raises(function() rot.measure(rot.space { rot.axis("k", { 1 }) }, function() return {} end) end,
  "executor 'lazy' returned a row it did not settle", "a row the executor did not settle is caught")

-- the batch with a fake core: each result as it comes, a dead core costs its own point only
local log = tmp .. "/core.log"
sys.setenv("FAKE_CORE_LOG", log)
do -- the fake core speaks in the words the protocol declares (rot.protocol), none of its own
  local p = require "rot.protocol"
  local words = { p.framing.point, p.framing.begin, p.framing["end"], p.records[1], p.records[2], p.records[3],
    p.records[4], p.status.ok, p.status.failed, p.meta_key("complete").name, p.meta_key("flops").name,
    p.meta_key("bytes").name, p.meta_key("failure").name, p.failures[3], p.run_keys[1].name,
      p.run_keys[3].name, p.input[1] }
  t.is(table.concat({ p.records[1], p.records[2], p.records[3], p.records[4], p.failures[3], p.run_keys[1].name,
    p.run_keys[3].name, p.input[1] }, " "), "status error meta run signal ns reps workload",
    "the words the fake core is given, by position")
  sys.setenv("FAKE_CORE_WORDS", table.concat(words, " "))
end
local function item(kernel)
  return { need = 3, exact = false, desc = { workloads = { { kernel = kernel, params = { n = 8 },
    threads = 1, pin = {} } },
    measurers = { counters = {} }, gpuMetrics = {}, rules = {}, ignoreDisturbed = false,
      cacheMode = "warm", device = "cpu",
    policy = { k = 3, epsilon = 0.02, maxRuns = 5, minRunTime = 0 } } }
end
local items = { item("ok"), item("crash"), item("die"), item("ok") }
local got = {}
batch.run(S, home .. "/tests/lua/fake/core.sh", items, function(it, res) got[#got + 1] = { it = it, res = res } end)
t.is(#got, 4, "done() is called once for every point")
t.ok(got[1].res.status == "ok" and #got[1].res.runs == 1 and got[1].res.meta.flops == 10,
  "a measured point's records are parsed")
t.ok(got[2].res.status == "failed" and got[2].res.error:find("crashed: Segmentation fault")
  and got[2].res.meta.failure == "signal",
  "a failed point keeps the core's words and failure kind")
t.is(got[3].res.error, "the measuring core ended unexpectedly, exit status 9: fake core: dying",
  "a core that dies fails the point in flight, with how it ended and its last words")
t.is(got[4].res.status, "ok", "a new core measures the rest")
t.is(sys.readfile(log), "start 1\nstart 4\n",
  "the new core's input starts at the point after the one that killed the first")
local stopped = {}
batch.run(S, home .. "/tests/lua/fake/core.sh", { item("crash"), item("ok"), item("ok") }, function(it, res)
  stopped[#stopped + 1] = res or false
  return "stop"
end)
t.ok(#stopped == 3 and stopped[1].status == "failed" and stopped[2] == false and stopped[3] == false,
  "done() returning stop ends the batch: the rest get done(item, nil)")

-- the input it writes: every key of a point, in the core's syntax
local lines = {}
local d = item("triad").desc
d.measurers.counters = { "perf::TASK-CLOCK" }
d.rules = { { on = "runStart", action = "flush", every = 2 } }
batch.point_lines(S, d, 3, true, lines)
local text = table.concat(lines, "\n")
t.ok(text:find("^workload triad threads 1\nparam n 8\ncounter perf::TASK%-CLOCK\nrule runStart flush every=2\n") ~= nil,
  "point lines: workload, parameters, counters and rules in the core's syntax")
t.ok(text:find("\nruns 3\n") and text:find("\nmaxRuns 3\n"),
  "extending a cached entry asks for exactly the missing runs")
t.ok(text:find("\nchild each$") ~= nil, "a CPU point gets a child of its own (pointChild auto)")

-- the protocol is declared once (core/protocol.h): a kernel point and an application point that
-- use every feature write every input key the core reads, and no other (kernel is the core's
-- one-thread shorthand)
local protocol = require "rot.protocol"
local full = item("triad").desc
full.measurers.counters = { "perf::TASK-CLOCK" }
full.gpuMetrics = { "dram__bytes.sum" }
full.rules = { { on = "runStart", action = "flush", every = 2 } }
full.workloads[1].pin = { 0 }
local written, want = {}, {}
lines = {}
batch.point_lines(S, full, 3, false, lines, "shared")
local app = { app = { path = "/bin/a b", args = { "x y", "" }, env = { OMP_NUM_THREADS = "2" }, dir = "/tmp",
  cuda = true, sample = 1000000 },
  measurers = { counters = { "perf::TASK-CLOCK" } }, policy = { k = 3, epsilon = 0.02, maxRuns = 10 }, device = "cpu" }
local app_lines = {}
batch.point_lines(S, app, 3, false, app_lines)
for _, l in ipairs(lines) do written[l:match("^%S+")] = true end
for _, l in ipairs(app_lines) do written[l:match("^%S+")] = true end
t.is(table.concat(app_lines, "\n", 1, 7),
  "app /bin/a%20b\narg x%20y\narg %\nenv OMP_NUM_THREADS=2\ndir /tmp\ncuda 1\nsample 1000000",
  "an application point's lines: its program, arguments (escaped, the empty one a lone %), "
    .. "environment, directory, a CUDA program's library, sampling")
t.ok(table.concat(app_lines, "\n"):find("\nchild each$") ~= nil, "each of its invocations in a child of its own")
for _, k in ipairs(protocol.input) do if k ~= "kernel" then want[k] = true end end
local missing, extra = {}, {}
for k in pairs(want) do if not written[k] then missing[#missing + 1] = k end end
for k in pairs(written) do if not want[k] then extra[#extra + 1] = k end end
t.ok(#missing == 0 and #extra == 0, "the driver writes exactly the input keys core/protocol.h declares (missing: " ..
  table.concat(missing, ",") .. "; extra: " .. table.concat(extra, ",") .. ")")
local describe = require "rot.describe"
t.raises(function() describe.describe(S, { kernel = "triad", rules = { { on = "runEnd", action = "flush" } } }) end,
  "^rule 1: flush works on runStart or workloadStart",
    "a rule the core would refuse is refused when the script describes it, in the core's words")
t.raises(function() describe.describe(S, { kernel = "triad", rules = { { on = "runStrat", action = "flush" } } }) end,
  "unknown event 'runStrat'; did you mean 'runStart'", "an unknown event names the core's nearest one")

-- the outcome policy: only plausible results are cached, written whole
local row = { point = { n = 1 }, text = "{desc}", path = cache.path(S:get("cacheDir"), string.rep("ab", 32)) }
sys.mkdir(S:get("cacheDir") .. "/results/ab")
local before = S.count.failed
local said = t.capture("stderr", function()
  outcome.result(S, row, { status = "ok", meta = { complete = 1 }, runs = { { ns = 0, reps = 1 } } }, "core")
end)
t.ok(row.failed and row.failed:find("^implausible result, not cached: a run took 0 ns")
  and S.count.failed == before + 1,
  "a run of 0 ns is refused and counted as a failure")
t.ok(said:find("^rot: point 'n=1' failed: implausible result, not cached: a run took 0 ns") ~= nil,
  "and said with its coordinates: " .. said)
t.ok(sys.stat(row.path) == nil, "and nothing is cached for it")
row = { point = { n = 2 }, text = "{desc}", path = row.path }
outcome.result(S, row, { status = "ok", meta = { complete = 1, flops = 1, bytes = 8 },
  runs = { { ns = 100, reps = 1 } } }, "core")
local back = cache.read(row.path)
t.ok(row.measured and back and back.coreHash == "core" and back.description == "{desc}",
  "a plausible result is cached with its core's hash")
rot.set("onFailure", "stop")
t.raises(function() outcome.fail(S, { point = { n = 3 } }, "boom", { quiet = true }) end,
  "stopping after a failed point",
  "onFailure=stop stops the run at the first failure")
rot.set("onFailure", "continue")

-- why a point did not come back from Slurm (rot.execute.slurm's words), from a job directory
local slurm = require "rot.execute.slurm"
local jd = tmp .. "/job"
sys.mkdir(jd .. "/result")
assert(sys.writefile(jd .. "/task-1.log", "one\ntwo\nthree\nslurmstepd: error: *** JOB 6 ON n1 CANCELLED ***\n"))
local job = { id = "5", dir = jd, tasks = 2, items = { 1, 2, 3, 4 }, time_limit = "10",
  states = { [0] = { state = "COMPLETED", node = "n0", exit = "0:0" }, [1] = { state = "CANCELLED", node = "n1" } } }
t.ok(slurm.why(job,
  1):find("^Slurm task 0 of job 5 COMPLETED on node n0, but left no result for this point\nits log " ..
  jd .. "/task%-0%.log is empty$") ~= nil, "a task that completed without a point's result says so")
assert(sys.writefile(jd .. "/result/2", "failed kernel 'segv' crashed: Segmentation fault (signal 11)\n"))
t.is(slurm.why(job, 2), "kernel 'segv' crashed: Segmentation fault (signal 11)", "a worker's own words come first")
t.is(slurm.why(job, 3), "Slurm task 1 of job 5 was CANCELLED (scancel, or by an administrator) on node n1 before it " ..
  "measured this point\nits log " .. jd
    .. "/task-1.log ends:\n  | two\n  | three\n  | slurmstepd: error: *** JOB 6 ON n1 CANCELLED ***",
  "a cancelled task: its state, node, and its log's last three lines")
assert(sys.writefile(jd .. "/result/4",
  "failed kernel 'slow' was killed by Terminated (signal 15), sent by process 9 (uid 0)\n"))
t.ok(slurm.why(job,
  4):find("^Slurm task 1 of job 5 was CANCELLED .-%(its worker saw: kernel 'slow' was killed by Terminated") ~= nil,
  "a worker's words that are only Slurm's SIGTERM come after the task's state")
local function words(st) job.states[1] = st; return slurm.why(job, 3):match("^[^\n]*") end
t.is(words({ state = "FAILED", node = "n1", exit = "0:9" }),
  "Slurm task 1 of job 5 FAILED on node n1 before it measured this point: its worker was killed by signal 9 (SIGKILL)",
  "a worker killed: FAILED, with the signal")
t.is(words({ state = "TIMEOUT", node = "n1" }), "Slurm task 1 of job 5 ran past its time limit (TIMEOUT; " ..
  "-slurmTimeLimit=10 is too short for its points) on node n1 before it measured this point",
    "TIMEOUT names the setting")
t.is(words({ state = "NODE_FAIL", node = "n1" }),
  "Slurm task 1 of job 5 lost its node n1, which went down (NODE_FAIL), before it measured this point",
    "NODE_FAIL names the node")
t.is(words({ state = "OUT_OF_MEMORY", node = "n1" }),
  "Slurm task 1 of job 5 ran out of memory (OUT_OF_MEMORY) on node n1 before it measured this point", "OUT_OF_MEMORY")
t.is(words({ state = "CANCELLED", node = "(null)" }),
  "Slurm task 1 of job 5 was CANCELLED (scancel, or by an administrator) before it started",
    "a task cancelled before it ran")
t.ok(words(nil):find("no longer says how") ~= nil, "a job Slurm forgot: says so")
t.ok(slurm.why(job, 3, { kind = "missing", word = "measured", cacheDir = "/c" }):find(
  "reported this point measured, but its cache entry is not in cacheDir '/c' here", 1, true) ~= nil,
  "a point a worker measured into another cache directory")

-- claims (rot.execute.inflight): one holder at a time per point; a stale claim is taken over
local claim = require "rot.execute.inflight"
local pt = { hash = string.rep("cd", 32) }
do
  local a <close> = claim.holder(S, claim.me("worker A"))
  local b <close> = claim.holder(S, claim.me("worker B"))
  t.ok(a:take(pt), "a free point is claimed")
  local ok, owner = b:take(pt)
  t.ok(not ok and owner.who == "worker A", "a point claimed by a live process is busy, and says by whom")
  a:release(pt)
  t.ok(claim.owner(S, pt) == nil and b:take(pt), "once released it can be claimed")
end
t.ok(claim.owner(S, pt) == nil, "closing a holder releases what it still holds")
local dead = claim.me("a worker killed with SIGKILL")
dead.start = "1" -- this pid, but a process that started at another time: gone
local d = tmp .. "/cache/claims/" .. pt.hash
sys.mkdir(d)
assert(sys.writefile(d .. "/owner", require("rot.util").serialize(dead)))
t.ok(not claim.alive(dead) and claim.holder(S, claim.me("worker C")):take(pt),
  "a claim whose owner has ended is taken over")

-- what an executor that runs work elsewhere (Slurm) needs to end it on an interruption
local t0 = sys.clock()
local st, err = sys.run({ "sleep", "5" }, { timeout = 0.3 })
t.ok(st == nil and err:find("'sleep' did not end within 0.3 s and was killed") and sys.clock() - t0 < 2,
  "sys.run with a timeout kills a program that runs past it: " .. tostring(err))
-- sys.shielded: a signal meanwhile stops nothing inside, and is raised when it returns; last
-- here, since this process stays interrupted
local out
local ok, e = pcall(sys.shielded, function()
  sys.run({ "kill", "-INT", tostring(sys.pid()) })
  t0 = sys.clock()
  sys.sleep(0.3)
  st, out = sys.run({ "sh", "-c", "sleep 0.2; echo done" }, { capture = true })
end)
t.ok(st == 0 and out == "done\n" and sys.clock() - t0 >= 0.45,
  "shielded: after a SIGINT, sleeps are slept and a program runs to its end")
t.ok(not ok and type(e) == "table" and e.code == 130 and e.message:find("^interrupted by SIGINT") ~= nil,
  "shielded: the interruption is raised when the shielded function returns")

-- run directories: a dead process's on this host is removed; another host's (a cache folder
-- shared by Slurm nodes) is kept, its pid meaning nothing here
do
  local util = require "rot.util"
  local base = tmp .. "/cache/run"
  sys.mkdir(base)
  local host = util.hostname():gsub("[^%w.-]", "_")
  local dead = tonumber(sys.readfile("/proc/sys/kernel/pid_max") or "") or 4194304 -- no pid reaches pid_max
  local mine, theirs = base .. "/" .. dead .. "-" .. host .. "-abc", base .. "/" .. dead .. "-othernode.example-abc"
  local legacy = base .. "/" .. dead .. "-abc" -- named before run directories held the host
  sys.mkdir(mine); sys.mkdir(theirs); sys.mkdir(legacy)
  local S2 = session.new { home = home, config = session.current().config }
  local dir = S2:run_dir()
  t.ok(sys.stat(mine) == nil and sys.stat(legacy) == nil and sys.stat(theirs) == "dir" and dir:find("/" .. sys.pid()
    .. "%-" .. host:gsub("%p", "%%%0") .. "%-"),
    "a dead run directory of this host (or of the older PID-STAMP form) is removed, another host's kept; ours is named "
      .. "PID-HOST-STAMP: " .. dir)
  S2:cleanup()
  sys.removetree(theirs)
end
t.done()
