-- Tests of a point measured in rounds (rot.execute.rounds): the rules on recorded rounds, and
-- the local executor's rounds with a fake core (tests/lua/fake/core.sh) standing in for the
-- measuring core.
-- judges no time
local t = require "tap"
local rot = require "rot"
local sys = require "rot.sys"
local cache = require "rot.cache"
local session = require "rot.session"
local rounds = require "rot.execute.rounds"
local quantities = require "rot.results.quantities"
local format = require "rot.results.format"

local home, tmp = os.getenv("ROT_HOME"), assert(os.getenv("ROT_TEST_TMP"))
local S = session.current()
rot.set("cacheDir", tmp .. "/cache")

-- An entry of rounds whose fastest runs take these ns (one repetition each; each round two
-- runs, the second 1 % slower), from invocations invs (default: all "a").
local function entry_of(ns, invs)
  local runs = {}
  for i, x in ipairs(ns) do
    for _, f in ipairs({ 1, 1.01 }) do
      runs[#runs + 1] = { ns = x * f, reps = 1, round = i, inv = invs and invs[i] or "a" }
    end
  end
  return { meta = { flops = 100, bytes = 800, timerOverheadNs = 0 }, runs = runs }
end
local P = { min = 2, max = 4, eps = 0.05, again = true }

-- the rules, on recorded rounds
local function near(a, b) return math.abs(a - b) <= 1e-9 * math.abs(b) end
local half = rounds.verdict(rounds.times(rounds.of(entry_of({ 1000, 2000, 1010 }))), 0.05, 2)
t.ok(near(half.value, 1e-6) and half.agree == true and near(half.spread, 1) and near(half.ratio, 2),
  "a round at half speed among three is outvoted: the best is the value, the two best agree; "
    .. "the spread shows it (100 %)")
local two = rounds.verdict(rounds.times(rounds.of(entry_of({ 1000, 2000 }))), 0.05, 2)
t.ok(two.agree == false and near(two.best, 1), "between two rounds, one at half speed is not outvoted: they disagree")
t.is(rounds.wanted(entry_of({ 1000, 1020 }), P, 2), 0, "two rounds that agree within roundsEpsilon want no more")
t.is(rounds.wanted(entry_of({ 1000 }), P, 1), 1, "one round of two wanted: one more")
t.is(rounds.wanted(entry_of({ 1000, 1300 }), P, 2), 1, "rounds that disagree want another, up to maxRounds")
t.is(rounds.wanted(entry_of({ 1000, 1300, 1000 }), P, 3), 0, "a third that agrees with the best outvotes the slow one")
t.is(rounds.wanted(entry_of({ 1000, 1300, 1600, 1900 }), P, 4), 0,
  "rounds whose best two never agree stop at maxRounds, flagged")
t.is(rounds.wanted(entry_of({ 1000, 1300, 1600, 1900 }), P, 0), 1,
  "a flagged cache entry of one invocation is measured again by the next")
t.is(rounds.wanted(entry_of({ 1000, 1300, 1600, 1900 }, { "a", "a", "b", "b" }), P, 0), 0,
  "but not once its rounds come from two invocations")
t.is(rounds.wanted(entry_of({ 1000, 1300 }), { min = 2, max = 4, eps = 0.05, again = false }, 0), 0,
  "nor with remeasureUnstable=false")
t.is(rounds.wanted({ meta = { timerOverheadNs = 0 }, runs = { { ns = 1000, reps = 1 }, { ns = 1001,
  reps = 1 } } }, P, 0), 1,
  "runs without a round stamp are one round: an entry measured in one process wants one more")

-- a neighbour beside a round (rot.execute.neighbour): its runs stamped with the CPUs busy outside
-- rot and the run-queue wait of its threads
local neighbour = require "rot.execute.neighbour"
local function beside(e, figures) -- figures[i] = {nbr, qwait} of round i
  for _, r in ipairs(e.runs) do
    local f = figures[r.round]
    if f then r.nbr, r.qwait = f[1], f[2] end
  end
  return e
end
-- the thresholds against the figures measured on the 2-vCPU guest (docs/usage.md, "A busy
-- machine"): quiet rounds at most 0.10 CPUs and 5.3 % waiting; beside one copier of memory at
-- least 0.90 CPUs, beside two at least 0.83
t.ok(not neighbour.busy(0.10, 0.053) and not neighbour.busy(0.40, 0.04) and not neighbour.busy(nil, nil),
  "quiet rounds, a light background (0.4 CPUs) and rounds nothing judged: no neighbour")
t.ok(neighbour.busy(0.83, 0.02) and neighbour.busy(0.9, nil) and neighbour.busy(0.05, 0.39),
  "beside copiers of memory (0.83 CPUs or more), or a round whose threads waited 39 % for a CPU: a neighbour")
t.is(rounds.wanted(beside(entry_of({ 1000, 1010 }), { { 1.3, 0.02 }, { 1.2, 0.4 } }), P, 2), 1,
  "two rounds that agree, both beside a neighbour (its busy phase spans them): one more round")
t.is(rounds.wanted(beside(entry_of({ 1000, 1010, 980 }), { { 1.3, 0.02 }, { 1.2, 0.4 }, { 0.02, 0.001 } }), P, 3), 0,
  "a quiet round that is the best settles it")
t.is(rounds.wanted(beside(entry_of({ 1000, 1010, 1100 }), { { 1.3, 0.02 }, { 1.2, 0.4 }, { 0.02, 0.001 } }), P, 3), 1,
  "a quiet round slower than the busy best does not: one more")
t.is(rounds.wanted(beside(entry_of({ 1000, 1010, 1000, 1000 }), { { 1.3 }, { 1.2 }, { 1.1 }, { 1.4 } }), P, 4), 0,
  "beside a neighbour through maxRounds: it stops there, flagged")
t.is(rounds.wanted(beside(entry_of({ 1000, 1010 }), { { 1.3 }, { 1.2 } }), P, 0), 1,
  "a flagged cache entry of one invocation is measured again by the next, as one whose rounds disagree")
do
  local row = { entry = beside(entry_of({ 1000, 1010 }), { { 1.25, 0.31 }, { 0.02, 0.001 } }) }
  quantities.derive(row, 2, false, 0.02, P)
  t.ok(row.besideNeighbour == true and row.neighbourCpus == 1.25 and row.queueWait == 0.31,
    "a point whose best round ran beside one is flagged, with that round's figures")
  local cells = {}
  format.table({ row }, { "rounds" }, {}, { write = function(_, ...) cells[#cells + 1] = table.concat({ ... }) end })
  local text = table.concat(cells)
  t.ok(text:find("2 busy", 1, true) and text:find(format.BUSY_NOTE, 1, true),
    "the table says busy, and why in a line under it")
  local csv = tmp .. "/busy.csv"
  format.csv({ row }, csv, {})
  local got = sys.readfile(csv)
  t.ok(got:find("beside_neighbour", 1, true) and got:find("neighbour_cpus", 1, true), "the CSV has its columns")
  t.ok((require("rot.plot.hover").text({ desc = { workloads = {} }, time = 1e-6,
    besideNeighbour = true, neighbourCpus = 1.25,
    queueWait = 0.31 })
      or ""):find("its best round ran beside a busy neighbour: 1.25 CPUs busy outside rot, its threads "
    .. "waited 31% of their time for a CPU", 1, true), "and so does the hover text")
  local quiet = { entry = beside(entry_of({ 1000, 1010 }), { { 0.02, 0.001 }, { 1.2, 0.4 } }) }
  quantities.derive(quiet, 2, false, 0.02, P)
  t.is(quiet.besideNeighbour, false, "a point whose best round was quiet is not")
end

-- the line that ends a run on a busy machine, from the session's tally of its points
do
  local function tallied(n, busy, converged, cpus)
    local s = { memo = {} }
    function s:remember(k, f) self.memo[k] = self.memo[k] or f(); return self.memo[k] end
    for i = 1, n do
      neighbour.stamp(s, { status = require("rot.protocol").status.ok, runs = {},
        meta = { neighbourCpus = i <= busy and 1.2 or cpus,
        converged = i <= converged and 1 or 0, loadavg = "2.10 1.90 1.50 3/120 999" } })
    end
    return neighbour.line(s, 2, true)
  end
  t.is(tallied(32, 0, 30, 0.05), nil, "an idle run: no line")
  local line = tallied(32, 10, 20, 0.05) or ""
  t.ok(line:find("^rot: the machine was busy while measuring: 10 of 32 points ran beside a "
    .. "neighbour %(0%.4%d CPUs busy "
    .. "outside rot on average, load 2%.10 1%.90 1%.50 on 2 CPUs%), 20 of 32 converged")
      and line:find("rot measure peaks", 1, true),
    "a quarter or more beside a neighbour: the line, with the load, the CPUs, how many converged and what to do: "
      .. line)
  t.ok(tallied(32, 0, 10, 0.3) ~= nil and tallied(32, 0, 10, 0.1) == nil,
    "most unconverged: the line where the machine was half a neighbour busy on average, not on a quiet one")
  t.is(tallied(6, 6, 0, 1), nil, "a run of a few points: no line")
end

-- the sampler: the CPUs busy outside rot over a window of at least a quarter second
do
  local smp = neighbour.sampler()
  t.is(smp.sample(nil), nil, "its first sample starts the window")
  local v = smp.sample(nil)
  t.ok(v == nil or (v >= 0 and v <= require("rot.machine").cpuinfo().cpus + 0.5), "the next one reads it, at most the "
    .. "machine's CPUs (" .. tostring(v) .. "; nil without /proc/stat)")
end

do -- the spread a row shows is the one across its rounds, not best-k's within the best one
  local row = { entry = entry_of({ 1000, 1040 }) }
  quantities.derive(row, 2, false, 0.02, P)
  t.ok(row.rounds == 2 and near(row.spread, 0.04) and row.roundsAgree == true and near(row.time, 1e-6),
    "two rounds 4 % apart: value the best round, spread 4 % (best-k's within it was 1 %)")
  local flagged = { entry = entry_of({ 1000, 2000 }) }
  quantities.derive(flagged, 2, false, 0.02, P)
  t.ok(flagged.roundsAgree == false and near(flagged.roundsRatio, 2) and near(flagged.spread, 1),
    "rounds x2 apart: flagged, spread 100 %")
  local cells = {}
  format.table({ flagged }, { "rounds" }, {}, { write = function(_,
    ...) cells[#cells + 1] = table.concat({ ... }) end })
  local text = table.concat(cells)
  t.ok(text:find("2 ~x2.00", 1, true) and text:find(format.ROUNDS_NOTE, 1, true),
    "the table says how far apart a flagged point's rounds were, and why in a line under it")
end

do -- the measurement's pooled spread raises the spreads of points whose own rounds agree by chance
  local rows = {}
  for i, gap in ipairs({ 1000, 1001, 1010, 1020, 1030, 1040 }) do
    rows[i] = { entry = entry_of({ 1000, gap }) }
    quantities.derive(rows[i], 2, false, 0.02, P)
  end
  rows[7] = { entry = entry_of({ 1000, 3000 }) }
  quantities.derive(rows[7], 2, false, 0.02, P)
  quantities.pool(rows)
  t.ok(math.abs(rows[1].pooledSpread - 0.04) < 1e-12 and math.abs(rows[2].spread - 0.04) < 1e-12,
    "pooled over the agreeing points (the largest spread of their best rounds: 4 %): a point 0.1 % apart states 4 %")
  t.ok(rows[7].pooledSpread == nil and near(rows[7].spread, 2), "a flagged point keeps its own spread")
end

do -- the order of a round
  local o1, o2, o3, o3b = rounds.order(5, 1), rounds.order(5, 2), rounds.order(5, 3), rounds.order(5, 3)
  t.is(table.concat(o1, ","), "1,2,3,4,5", "round 1 visits the points in order")
  t.is(table.concat(o2, ","), "5,4,3,2,1", "round 2 in reverse")
  t.ok(table.concat(o3, ",") ~= table.concat(o1, ",") and table.concat(o3, ",") ~= table.concat(o2, ",") and
    table.concat(o3, ",") == table.concat(o3b, ","),
      "round 3 in a shuffled order of its own, the same in every invocation")
  local seen = {}
  for _, i in ipairs(o3) do seen[i] = true end
  t.ok(#o3 == 5 and seen[1] and seen[2] and seen[3] and seen[4] and seen[5], "which visits every point once")
end

-- the local executor's rounds, with a fake core and no build
local build, keys, executor = require "rot.build", require "rot.build.keys", require "rot.execute.local"
local fake_core = home .. "/tests/lua/fake/core.sh"
local builds = 0
build.core = function() builds = builds + 1; return fake_core, string.rep("ab", 32) end
-- (this machine's neighbours, whatever they do now, are not the test's: no figures)
require("rot.execute.batch").sampler = function() return { sample = function() return nil end } end
build.measuring = function() return nil end
build.lock = function() return nil end
keys.rekey = function() end
local log = tmp .. "/core.log"
sys.setenv("FAKE_CORE_LOG", log)
do
  local p = require "rot.protocol"
  sys.setenv("FAKE_CORE_WORDS", table.concat({ p.framing.point, p.framing.begin, p.framing["end"],
    p.records[1], p.records[2],
    p.records[3], p.records[4], p.status.ok, p.status.failed, p.meta_key("complete").name, p.meta_key("flops").name,
    p.meta_key("bytes").name, p.meta_key("failure").name, p.failures[3], p.run_keys[1].name, p.run_keys[3].name,
    p.input[1] }, " "))
end
local function rows_of(kernels)
  local rows = {}
  for i, k in ipairs(kernels) do
    local desc = { workloads = { { kernel = k, params = { n = i }, threads = 1, pin = {} } },
      measurers = { counters = {} },
      gpuMetrics = {}, rules = {}, ignoreDisturbed = false, cacheMode = "warm", device = "cpu",
      policy = { k = 1, epsilon = 0.02, maxRuns = 1, minRunTime = 0 } }
    local text = k .. i .. tostring(os.time()) .. tostring(sys.clock())
    rows[i] = { point = { k = k, i = i }, spec = {}, desc = desc, text = text, key = "one core",
      path = cache.path(tmp .. "/cache", sys.sha256(text)), kinfo = {} }
  end
  return rows
end
rot.set("runs", 1)
local function measured(rows)
  sys.writefile(log, "")
  S:begin(#rows)
  executor.measure_pending(S, rows)
  local starts = select(2, sys.readfile(log):gsub("start", ""))
  for _, r in ipairs(rows) do quantities.derive(r, 1, false, 0.02, rounds.policy(S)) end
  return starts
end

local quiet = rows_of({ "ok", "ok", "ok" })
t.is(measured(quiet), 2, "points whose rounds agree: two rounds, each in a core process of its own (rounds=2)")
t.ok(quiet[1].measured and quiet[1].rounds == 2 and quiet[1].roundsAgree and quiet[3].rounds == 2,
  "every point measured in both, and settled once, measured")
local stored = cache.read(quiet[2].path)
t.ok(stored and #stored.runs == 2 and stored.runs[1].round == 1 and stored.runs[2].round == 2 and
  stored.runs[1].inv == S:invocation(),
    "its cache entry keeps the rounds, each run stamped with its round and invocation")

local once = rows_of({ "half", "ok" })
t.is(measured(once), 3, "a point with a round at half speed in the first process gets a third round")
t.ok(once[1].roundsAgree == true and near(once[1].time, 1e-6) and once[1].rounds == 3 and near(once[1].spread, 1)
  and once[2].rounds == 2, "which outvotes the slow one: its value the best, not flagged, its spread showing the slow "
  .. "round (100 %); its neighbour took two")

local noisy = rows_of({ "noisy" })
t.is(measured(noisy), 4, "rounds that never agree go on to maxRounds (4)")
t.ok(noisy[1].roundsAgree == false and noisy[1].roundsRatio > 1.3, "then it is flagged, its rounds x" ..
  string.format("%.2f", noisy[1].roundsRatio or 0) .. " apart")

t.is(builds, 1, "three sweeps of one build key (three rot.measure calls of a script) build its core once, "
  .. "then measure with the run's copy of it")

-- a flagged entry in the cache is measured again on the next run (another invocation), once
S:cleanup() -- a run directory, and with it an invocation name, of its own
local again = rows_of({ "noisy" })
again[1].text, again[1].path = noisy[1].text, noisy[1].path
again[1].cached_entry = cache.read(noisy[1].path)
t.is(measured(again), 4, "the next run measures the flagged point again, up to maxRounds more")
t.ok(again[1].rounds == 8, "its rounds are added to the ones its entry kept")
t.is(builds, 2, "a new run directory (the copy removed with the old one) builds the core again")
local lookup = require "rot.execute.lookup"
again[1].cached_entry = cache.read(noisy[1].path)
t.ok(lookup.serves(S, again[1], again[1].cached_entry, string.rep("ab", 32)),
  "once its rounds come from two invocations, the flagged entry serves: a rerun takes it from the cache")

t.done()
