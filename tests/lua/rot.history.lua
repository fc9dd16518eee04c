-- Unit tests of run records and comparisons: the within-run band, records built from
-- a session's rows (bounds only from stored peaks), their size, text and reading back, atomic
-- writes, pruning to historyRuns, what changed between runs, matching and choosing runs.
-- judges no time
local t = require "tap"
local rot = require "rot"
local sys = require "rot.sys"
local util = require "rot.util"
local session = require "rot.session"
local history = require "rot.history"
local record = require "rot.history.record"
local changes = require "rot.history.changes"
local compare = require "rot.compare"

local home, tmp = os.getenv("ROT_HOME"), assert(os.getenv("ROT_TEST_TMP"))
local S = session.current()
rot.set("cacheDir", tmp .. "/cache")

-- the within-run band, (1+sA)(1+sB)(1+eps): a band between runs is never narrower (the rules
-- themselves: tests/lua/rot.compare.lua)
local rule = require "rot.compare.rule"
t.ok(math.abs(rule.within(0.01, 0.02, 0.02) - 1.01 * 1.02 * 1.02) < 1e-15,
  "the within-run band of spreads 1 % and 2 %, eps 2 %")
t.is(rule.within(nil, nil, 0.02), 1.02, "no spreads known: only eps")

-- a session's rows: two points of the shipped triad, one failed
local function entry(ns)
  return { description = "d", coreHash = "h", meta = { flops = 2048, bytes = 24576, workingSet = 24576, converged = 1 },
    runs = { { ns = ns, reps = 1 }, { ns = ns * 1.01, reps = 1 }, { ns = ns * 1.02, reps = 1 } } }
end
local kinfo = { kernels = { { name = "triad", path = home .. "/kernels/cpu/triad.c" } }, macros = {} }
local function rows_of(ns)
  return {
    { point = { n = 1024 }, desc = { flags = "-O2", macros = {}, device = "cpu" }, kinfo = kinfo,
      hash = string.rep("a", 64),
      machine = "m1", entry = entry(ns), measured = true },
    { point = { n = 2048 }, desc = { flags = "-O2", macros = {}, device = "cpu" }, kinfo = kinfo,
      hash = string.rep("b", 64),
      machine = "m1", entry = entry(2 * ns), cached = true },
    { point = { n = 4096 }, desc = { flags = "-O3", macros = { STREAM_UNROLL = "2" }, device = "cpu" }, kinfo = kinfo,
      hash = string.rep("c", 64), machine = "m1", failed = "crashed: Segmentation fault\nmore" },
  }
end
local script = tmp .. "/study.lua"
sys.writefile(script, "-- a study\n")
S.rows, S.axes, S.script = rows_of(1000), {}, "study"
-- the axes of a rot.measure on the side (the peaks measured first) are no part of the record
S:aside(function() S:note_axes({ "x", "i" }) end)
S:note_axes({ "n" })
t.is(table.concat(S.axes, ","), "n", "the record's axes are the script's, not those of the peaks measured on the side")
local output = require "rot.compare.output"
local old = { record = { axes = { "x", "i", "n" }, points = { { point = { n = 1024 } } } } }
t.is(table.concat(output.axes(old, { record = { axes = { "n" }, points = { { point = { n = 1024 } } } } }), ","), "n",
  "a comparison leaves out axes no point has a coordinate on (a record written before, which lists the peaks' axes)")
local rec = record.build(S, { path = script, args = { "2.0" }, ok = true })
t.is(#rec.points, 3, "a record holds every settled row")
t.is(rec.counts.measured .. "/" .. rec.counts.hits .. "/" .. rec.counts.failed, "1/1/1",
  "counts: measured, hits, failed")
t.ok(math.abs(rec.points[1].time - 1e-6) < 1e-15, "quantities derived for rows that had none (an interruption)")
t.is(rec.points[3].why, "crashed: Segmentation fault", "a failed point says why, first line")
t.is(rec.points[1].bound, nil, "no stored peaks: no bound, and none measured for a record")
t.is(rec.ceilings, nil, "and no ceilings")
t.is(rec.status, "complete", "a script that ended: complete")
t.is(#rec.builds, 2, "two builds: -O2, and -O3 with a macro")
local files = rec.sources[rec.builds[1].src]
t.ok(files and files["kernels/cpu/triad.c"] ~= nil, "each build's sources by file, named relative to the checkout")
rot.set("peaksFile", home .. "/tests/fixtures/peaks.csv")
local withp = record.build(S, { path = script, ok = false, err = "study.lua:3: boom\ntraceback" })
t.ok(withp.points[1].bound and withp.points[1].limiter and withp.points[1].fraction,
  "stored peaks: bound, limiter, fraction")
t.ok(withp.ceilings and #withp.ceilings.bandwidth > 0, "and the ceilings a compare plot draws")
t.ok(withp.ceilings.bandwidth[1].spread and withp.ceilings.compute[1].spread,
  "with their spreads (the compare plot marks an unstable one, as the roofline does)")
t.ok(withp.status:match("^stopped: "), "a script that failed says so: " .. withp.status)
local ok, interrupted = pcall(util.interrupted, 2)
t.ok(record.build(S, { path = script, ok = ok, err = interrupted }).status:match("^interrupted by SIGINT"),
  "an interruption says so")

-- text: small, read back, no code
local big = { machine = "m1", machines = { "m1" }, points = {}, builds = rec.builds,
  sources = rec.sources, axes = { "f", "n" } }
for i = 1, 300 do
  big.points[i] = { point = { f = "2.0", n = 1000 * i }, desc = string.rep("e", 12), status = "measured", build = 1,
    time = 1.234567891e-6 * i, gbs = 12.3456789, gflops = 1.23456789, intensity = 0.0833333, spread = 0.0123456,
    runs = 17, ws = 24576 * i, bound = 20.1190812, limiter = "L2 bw", fraction = 0.523456789 }
end
big.points[300].gbs, big.points[300].bound = 0 / 0, math.huge
local dir = tmp .. "/history/study-x"
local id = history.write(dir, big, 50)
local packed = 0
for _, f in ipairs(history.files(dir)) do packed = select(2, sys.stat(f.file)) end
t.ok(packed > 0 and packed < 60 * 1024,
  string.format("a 300-point record is well under 100 KiB: %.1f KiB", packed / 1024))
local back = history.list(dir)[1]
t.is(back.id, id, "read back with its id")
t.is(back.points[300].point.n, 300000, "coordinates read back")
t.ok(math.abs(back.points[7].time - 7 * 1.234567891e-6) < 1e-12, "times to 7 digits")
t.is(back.points[2].limiter, "L2 bw", "strings read back")
t.ok(back.points[300].gbs == nil and back.points[300].bound == nil and back.points[300].limiter == "L2 bw",
  "NaN and infinities are left out, the values after them kept")
t.is(history.decode("-- r\n{ id = 1, points = {}, version = 1, x = os.exit(3) }"), nil,
  "a record reaches nothing (empty environment)")
local hang = "-- r\n{ id = (function() while true do end end)(), points = {}, version = 1 }"
t.is(history.decode(hang), nil, "a record that would run forever is refused")
t.is(history.decode("-- r\n{ id = 1, points = {"), nil, "a truncated record is refused")

-- atomic writes, pruning per machine, bad files kept and skipped
local leftovers = 0
for _, f in ipairs(sys.listdir(dir)) do if f:find("%.tmp") then leftovers = leftovers + 1 end end
t.is(leftovers, 0, "no temp file is left beside a record")
sys.writefile(dir .. "/99-deadbeef.run.tmpAbCdEf", "-- half a rec")
sys.writefile(dir .. "/98-deadbeef.run", "-- rot run record\n{ id = 98, points = {")
local said, stderr = {}, io.stderr
io.stderr = { write = function(_, ...) for _, x in ipairs({ ... }) do said[#said + 1] = x end end }
local got = history.list(dir)
io.stderr = stderr
t.is(#got, 1, "a temp file is no record, a truncated one is skipped")
t.ok(table.concat(said):find("warning: skipping run record '.*98%-deadbeef%.run'") ~= nil, "with a warning naming it")
t.is(sys.stat(dir .. "/98-deadbeef.run"), "file", "and kept (bad input loses nothing)")
sys.remove(dir .. "/98-deadbeef.run")
for i = 1, 6 do history.write(dir, { machine = "m1", machines = { "m1" }, points = {} }, 4) end
for i = 1, 2 do history.write(dir, { machine = "m2", machines = { "m2" }, points = {} }, 4) end
local ids, per = {}, {}
for _, r in ipairs(history.list(dir)) do
  ids[#ids + 1] = r.id
  per[r.machines[1]] = (per[r.machines[1]] or 0) + 1
end
t.is(table.concat(ids, ","), "9,8,7,6,5,4", "ids count up; newest first")
t.ok(per.m1 == 4 and per.m2 == 2, "pruned to historyRuns (4) per machine: m1 keeps 4, m2 its 2")
-- a rerun from the cache that repeats the newest record on its machines adds none
local rdir = tmp .. "/repeats"
local function rec(measured, t1, extra)
  local r = { machine = "m1", machines = { "m1" }, status = "complete", points = {
    { point = { n = 1 }, status = measured and "measured" or "hit", time = t1, runs = 5, bound = 2e-3 },
    { point = { n = 2 }, status = measured and "measured" or "hit", time = 0.5, runs = 7, bound = 0.4 } },
    counts = { points = 2, measured = measured and 2 or 0, hits = measured and 0 or 2, failed = 0 } }
  for k, v in pairs(extra or {}) do r[k] = v end
  return r
end
t.is(history.write(rdir, rec(true, 1.23456789e-3), 50), 1, "a measured run is written")
local rid, _, why = history.write(rdir, rec(false, 1.23456789e-3), 50)
t.ok(rid == nil and why == "repeat" and #history.files(rdir) == 1,
  "a rerun all from the cache with the same results (as the record keeps them, to 7 digits) is not: " .. tostring(why))
t.is(history.write(rdir, rec(false, 1.3e-3), 50), 2, "one whose time differs is (the cache entry was replaced)")
local other = rec(false, 1.3e-3)
other.points[2].bound = 0.45
t.is(history.write(rdir, other, 50), 3, "so is one whose bound differs (the peaks were measured again)")
t.is(history.write(rdir, rec(false, 1.3e-3, { status = "interrupted by SIGINT" }), 50), 4,
  "and one that was interrupted")
t.is(history.write(rdir, rec(false, 1.3e-3, { machine = "m2", machines = { "m2" } }), 50), 5,
  "a repeat is judged against the newest record on the same machines")
local nodir, err = history.write("/proc/no/such/dir", { points = {} }, 4)
t.ok(nodir == nil and err ~= nil, "a folder that cannot be written: nil and why")

-- what changed between two runs
local a = record.build(S, { path = script, args = { "2.0" }, ok = true })
local b = util.serialize(a)
b = load("return " .. b)()
b.sources[b.builds[1].src]["kernels/cpu/triad.c"] = "other"
b.builds[2].flags, b.args, b.keys = "-O1", { "3.0" }, { runs = 10 }
local ch = table.concat(changes.changes(a, b), "; ")
t.ok(ch:find("^kernels/cpu/triad.c changed; flags") ~= nil, "the kernel file that changed is named, alone: " .. ch)
t.ok(ch:find("flags -O3 -> -O1", 1, true), "flags")
t.ok(ch:find("arguments '2.0' -> '3.0'", 1, true) and ch:find("-runs=10 (new)", 1, true), "arguments and keys")
t.is(#changes.changes(a, a), 0, "the same run: nothing changed")
local c2 = load("return " .. util.serialize(a))()
c2.keys = { cacheDir = "/tmp/elsewhere", outputDir = "plots", progress = "never" }
t.is(#changes.changes(a, c2), 0, "keys that say where things go or how they show are no change of a run")
-- the ceilings the points were bound by: the machine's peaks measured again in between
local function bound_by(dram, l4_unstable, threads, fma)
  local r = load("return " .. util.serialize(a))()
  r.ceilings = { threads = threads or 1, compute = { { label = "double avx512 fma", gflops = fma or 113.21 } },
    bandwidth = { { label = "L4 triad", gbs = 49.25, unstable = l4_unstable }, { label = "DRAM triad", gbs = dram } } }
  return r
end
t.is(table.concat(changes.changes(bound_by(36.9, true), bound_by(38.1, nil)), "; "),
  "ceilings: DRAM triad 36.9 -> 38.1 GB/s, L4 triad no longer unstable",
    "ceilings that moved or stopped being unstable")
t.is(#changes.changes(bound_by(36.9, true), bound_by(36.9, true)), 0, "the same ceilings: no change")
t.is(#changes.changes(bound_by(36.9), bound_by(36.9, nil, 1, 113.24)), 0,
  "a ceiling that moved within four digits (113.21 -> 113.24): no change said as '113.2 -> 113.2'")
t.is(table.concat(changes.changes(bound_by(36.9), bound_by(72.1, nil, 2, 226.4)), "; "),
  "ceilings: at 2 threads (1 before)",
  "ceilings of another thread count are not compared value by value")
local unbound = bound_by(36.9)
unbound.ceilings = nil
t.is(table.concat(changes.changes(unbound, bound_by(36.9)), "; "), "ceilings: stored peaks now bound the points",
  "ceilings where there were none")

-- what a point is beyond its coordinates: the threads its points ran at (rot profile's
-- -threads, a script's argument that sets them), an application's environment that matters
t.ok(#a.points > 0 and a.points[1].threads == 1, "a kernel point's record keeps the threads it ran at (" ..
  tostring(a.points[1] and a.points[1].threads) .. ")")
local function threaded(n, env)
  local r = load("return " .. util.serialize(a))()
  for _, p in ipairs(r.points) do p.threads = n end
  r.builds[1].env = env
  return r
end
t.is(table.concat(changes.changes(threaded(2), threaded(1)), "; "), "threads 2 -> 1",
  "the points' thread count changed: said, though no coordinate did")
t.is(#changes.changes(threaded(2), threaded(2)), 0, "the same threads: no change")
local old = threaded(nil)
t.is(#changes.changes(old, threaded(2)), 0, "a record from before points kept their threads: nothing said of them")
t.is(table.concat(changes.changes(threaded(1), threaded(1, { OMP_PROC_BIND = "close" })), "; "),
  "environment (none) -> OMP_PROC_BIND=close", "an application's environment that matters: said")

-- every key of a point's description that can change its result is named by what changed: the
-- keys are enumerated from real descriptions (a kernel point with every optional field, an
-- application point with every one), each leaf changed in turn, so that a key added to the
-- description one day is named too (by its path), or said in words of its own (record.SAID)
local describe = require "rot.describe"
local kspec = { kernel = "triad", params = { n = 1024 }, threads = 1, pin = { 0 }, macros = { STREAM_UNROLL = 2 },
  flags = "-O3", cacheMode = "cold", counters = { "perf::TASK-CLOCK" },
    counts = { flops = { ["perf::TASK-CLOCK"] = 1 } },
  rules = { { on = "runStart", action = "flush", every = 2 } }, round = 2, minRunTime = 0.01 }
local input = tmp .. "/input.dat"
util.write_output(input, "x\n")
local aspec = { app = "/bin/true", args = { "-n", 5 }, env = { OMP_PROC_BIND = "close" }, threads = 2, dir = tmp,
  inputs = { input }, counters = { "perf::TASK-CLOCK" }, counts = { bytes = { ["perf::TASK-CLOCK"] = 8 } }, maxRuns = 3,
  round = 2 }
local function leaves(v, path, out)
  if type(v) == "table" and next(v) ~= nil then
    for _, k in ipairs(util.sorted_keys(v)) do
      leaves(v[k], path == "" and tostring(k) or (path .. "." .. tostring(k)), out)
    end
  else
    out[#out + 1] = path
  end
  return out
end
local function changed(v) -- another value of a leaf's type
  if type(v) == "number" then return v + 1 elseif type(v) == "boolean" then return not v
  elseif type(v) == "table" then return { "x" } end
  return tostring(v) .. "x"
end
local function set_leaf(d, path, f)
  local parts = {}
  for p in path:gmatch("[^.]+") do parts[#parts + 1] = tonumber(p) or p end
  local t = d
  for i = 1, #parts - 1 do t = t[parts[i]]; if not t then error("no " .. path) end end
  t[parts[#parts]] = f(t[parts[#parts]])
end
local function record_of(d) -- a record of one point, as record.build keeps a build
  return { builds = { { flags = d.flags, macros = d.macros, described = record.described(d) } },
    points = { { threads = d.threads or (d.workloads and d.workloads[1].threads) } } }
end
local function said_as(path) -- the key history names a leaf by: its SAID entry, else its described key
  local parts = {}
  for p in path:gmatch("[^.]+") do if not (parts[1] == "workloads" and tonumber(p)) then parts[#parts + 1] = p end end
  for n = 1, #parts do
    local key = table.concat(parts, ".", 1, n)
    if record.SAID[key] then return key, true end
  end
  local nested = { policy = true, measurers = true, app = true, workloads = true }
  return table.concat(parts, ".", 1, nested[parts[1]] and 2 or 1), false
end
local enumerated, missed, named_by = 0, {}, {}
for _, spec in ipairs({ kspec, aspec }) do
  local d = describe.describe(S, util.copy(spec))
  local base = record.described(d)
  for _, path in ipairs(leaves(d, "", {})) do
    local key, said = said_as(path)
    if not said then
      enumerated = enumerated + 1
      local d2 = load("return " .. util.serialize(d))()
      set_leaf(d2, path, changed)
      local word = changes.WORDS[key] or key
      local ch = table.concat(changes.changes(record_of(d), record_of(d2)), "; ")
      if not ch:find(word .. " ", 1, true) then
        missed[#missed + 1] = path .. " (" .. (ch ~= "" and ch or "nothing changed") .. ")"
      end
      named_by[word] = true
      if base[key] == nil then missed[#missed + 1] = path .. " (not described as " .. key .. ")" end
    end
  end
end
t.ok(enumerated >= 20 and #missed == 0,
  string.format("each of the %d keys of a kernel's and an application's description that a record does not "
  .. "say in words of its own is named when its value changes (%s)%s", enumerated,
  table.concat(util.sorted_keys(named_by), ", "), #missed > 0 and ("; not named: " .. table.concat(missed, "; "))
  or ""))
for key, words in pairs(record.SAID) do
  if words ~= "machine" and words ~= "flags" and words ~= "macros" and words ~= "threads" and words ~= "environment"
    and not words:find("coordinates") and not words:find("file") then
    t.ok(false, "record.SAID's " .. key .. " is said as " .. words .. ", which what changed does not say")
  end
end
local kd = describe.describe(S, util.copy(kspec))
local counted = util.copy(kd)
counted.measurers = { time = true, counters = {} }
t.is(table.concat(changes.changes(record_of(counted), record_of(kd)), "; "), "counters (none) -> perf::TASK-CLOCK",
  "a run with -counters after one without: counters (none) -> perf::TASK-CLOCK, not nothing changed")
local keyed_a, keyed_b = record_of(kd), record_of(kd)
keyed_b.builds[1].described = record.described(load("return " .. util.serialize(kd):gsub("cold", "warm"))())
keyed_a.keys, keyed_b.keys = { cacheMode = "cold" }, { cacheMode = "warm" }
t.is(table.concat(changes.changes(keyed_a, keyed_b), "; "), "-cacheMode=warm (was cold)",
  "a key given on the command line is said once, as the key it was given as")

-- matching and choosing runs
local function run(id, machine, times, extra)
  local r = { id = id, machine = machine, machines = { machine }, bestEpsilon = 0.02, points = {} }
  for i, tm in ipairs(times) do
    r.points[i] = { point = { n = i }, status = tm and "measured" or "failed", time = tm, spread = 0.01, runs = 5 }
  end
  for _, p in ipairs(extra or {}) do r.points[#r.points + 1] = p end
  return r
end
local r1, r2 = run(1, "m1", { 1, 1, 1, 1 }), run(2, "m1", { 8, 0.125, 1.001, false },
  { { point = { n = 9 }, time = 1 } })
local pairs_, _ = compare.match({ record = r1 }, { record = r2 }, true)
local verdicts = {}
for _, p in ipairs(pairs_) do verdicts[#verdicts + 1] = p.verdict end
t.is(table.concat(verdicts, ","), "slower,faster,inconclusive,failed in B,only in B",
  "verdicts per point, in B's order (x1.001 without reruns: inconclusive, not same)")
t.is(compare.thread_note(pairs_), nil, "points of the same threads: no note")
local r1t, r2t = run(1, "m1", { 1, 1 }), run(2, "m1", { 1, 2 })
for _, p in ipairs(r1t.points) do p.threads = 2 end
for _, p in ipairs(r2t.points) do p.threads = 1 end
t.is(compare.thread_note(compare.match({ record = r1t }, { record = r2t }, true)),
  "2 points ran at another thread count "
  .. "in B than in A (threads 2 -> 1, the first): B/A compares thread counts, and the two % of "
    .. "bound are against different "
  .. "thread counts' ceilings", "points paired by coordinates that ran at other thread counts: never paired silently")
local sum = compare.summary(pairs_)
t.ok(sum.counts.slower == 1 and sum.counts.faster == 1 and sum.matched == 3
  and math.abs(sum.speedup - 1 / 1.001 ^ (1 / 3)) < 1e-9,
  "summary: counts and the geometric-mean speedup of the timed pairs")

-- the terminal table: each side's % of bound marked ^ above its bound, the limiter (A's -> B's
-- when the change moved it) and the lines that explain the marks
r1.points[1].limiter, r1.points[1].fraction = "DRAM bw", 0.5
r2.points[1].limiter, r2.points[1].fraction, r2.points[1].above = "L1 bw (unstable)", 1.3, true
r2.points[2].limiter = "compute"
r1.points[2].limiter = "compute"
r1.points[3].limiter, r2.points[3].limiter = "DRAM bw", "DRAM bw (unstable)"
pairs_ = compare.match({ record = r1 }, { record = r2 }, true)
local shown = t.capture("stdout", function()
  require("rot.compare.output").print("s", { label = "run 1 on m1", record = r1 },
    { label = "run 2 on m1", record = r2 },
    pairs_, compare.summary(pairs_), { "n" }, false, { min_effect = 0.02, default_band = rule.DEFAULT_BAND })
end)
local head = shown:match("\n(n +time A[^\n]*)\n")
local first = shown:match("\n(1 [^\n]*)\n")
t.ok(head and head:find("of bound B +limiter +noise$"),
  "the table has a limiter column, and the noise each verdict was judged against: "
  .. tostring(head))
t.ok(first and first:find("50%% +130%%^ +DRAM bw %-> L1 bw %(unstable%)  +between runs unknown"),
  "A's and B's % of bound, B's marked ^, the limiter moved: "
  .. tostring(first))
t.ok((shown:match("\n(2 [^\n]*)\n") or ""):find(" compute  "), "an unchanged limiter is named once")
local third = shown:match("\n(3 [^\n]*)\n") or ""
t.ok(third:find("  DRAM bw %(unstable%)  ") and not third:find("->", 1, true),
  "a ceiling that only became unstable has not moved: " .. third)
t.ok(shown:find("\n%^ above its bound") and shown:find("\n%(unstable%) the ceiling bounding"),
  "the marks are explained under it")
t.ok(shown:find("\nA %-> B the limiter moved .*: the two %% of bound are of different roofs\n"),
  "and that a moved limiter's two % are of different roofs")
t.is(#compare.offending(pairs_, "slower"), 2, "-failOn=slower: the slower point and the one failing in B")
t.is(#compare.offending(pairs_, "any"), 4, "-failOn=any: every point that is not the same")
local r3 = run(3, "m1", { 8, 0.125, 1.001, false }, { { point = { n = 9 }, time = 1 } })
local A, B = compare.choose("s", { r3, r2, r1 })
t.ok(A.record.id == 1 and B.record.id == 3, "default: the newest run and the newest before it whose results differ")
t.is(A.note, nil, "and no note then")
A, B = compare.choose("s", { r3, r2 })
t.ok(A.record.id == 2 and B.record.id == 3 and (A.note
  or ""):find("no earlier run on m1 has other results: comparing with the run just before %(run 2%)"),
  "no earlier run differs: the run just before, and a note says so (" .. tostring(A.note) .. ")")
A, B = compare.choose("s", { r3, r2, r1 }, "2")
t.ok(A.record.id == 2 and B.record.id == 3, "A given: B is the newest")
t.raises(function() compare.choose("s", { r3 }) end, "only one run", "one run: nothing to compare, said")
t.raises(function() compare.choose("s", { r3, r2 }, "7") end, "no run '7'", "an unknown run id is named")
local r4 = run(4, "m2", { 4, 4, 4, 4 })
A, B = compare.choose("s", { r4, r3, r2, r1 }, nil, nil, { "m1", "m2" })
t.ok(A.record.id == 3 and B.record.id == 4, "-machine=m1,m2: the latest run on each")
t.raises(function() compare.choose("s", { r4 }, nil, nil, { "m1", "m9" }) end, "on machine 'm1'",
  "a machine without runs is named")
t.raises(function() compare.choose("s", { r4, r3 }, nil, nil, { "m1", "m1" }) end, "names 'm1' twice",
  "-machine with one machine twice is refused")
local failed = run(5, "m1", { false, false, false, false })
local fixed = run(6, "m1", { 8, 0.125, 1.001, false }, { { point = { n = 9 }, time = 1 } })
A, B = compare.choose("s", { fixed, failed, r3, r2, r1 })
t.ok(A.record.id == 1 and B.record.id == 6,
  "default: a run whose every point failed (a typo in the kernel) is passed over, as are identical ones ("
    .. A.record.id .. ")")
-- a thread change (the issue's walk: runs 1 and 2 at 1 thread, run 3 at 2, run 4 at 1 again):
-- the newest run and the newest before it that shares points, not the run just before
local function at(id, threads, times)
  local r = run(id, "m1", times)
  for _, p in ipairs(r.points) do p.point.threads = threads end
  return r
end
local t1, t2, t3, t4 = at(1, 1, { 1, 1 }), at(2, 1, { 2, 2 }), at(3, 2, { 1, 1 }), at(4, 1, { 3, 3 })
A, B = compare.choose("s", { t4, t3, t2, t1 })
t.ok(A.record.id == 2 and B.record.id == 4 and (A.note or ""):find("run 3 shares no point with run 4", 1, true),
  "after a thread change: runs 2 and 4, which share points, and a note says why not run 3 (" .. tostring(A.note) .. ")")
A, B = compare.choose("s", { t3, t2, t1 })
t.ok(A.record.id == 1 and B.record.id == 2 and (A.note or ""):find("run 3 shares no point with an earlier run",
  1, true),
  "the newest run shares no point with an earlier one: the newest two that do (" .. tostring(A.note) .. ")")
local x, y = compare.sharing_pair({ t4, t3, t2, t1 }, t3, t4)
t.ok(x == t2 and y == t4, "runs 3 and 4 named: the run that would compare with 4 is named (run 2)")
x = compare.sharing_pair({ t3, at(9, 4, { 1 }) }, t3, nil)
t.is(x, nil, "no two runs share a point: none named")
local line = require("rot.compare.output").summary_line(compare.summary(compare.match({ record = t3 },
  { record = t4 }, true)), nil,
  "rot compare ./lulesh2.0 2 4")
t.ok(line:find("no point timed in both; runs that share points compare: rot compare ./lulesh2.0 2 4", 1, true),
  "the summary line of a pair that shares nothing names the command that compares: " .. line)
local ok, err = pcall(compare.choose, "study", { r3, r2 }, "7", nil, nil, "/x/study.lua")
t.ok(not ok and err.hint:find("`rot history /x/study.lua`", 1, true),
  "hints name the measurement as typed: " .. tostring(err.hint))

-- the survey's loops are paired by source line and function, whatever their depth in each build
local ka = history.keyed({ points = { { point = { command = "mv", region = "mv.c:25 loop in row (depth 3 of 3)" },
  survey = "loop" }, { point = { command = "mv", region = "outer (depth 1 of 2)" } } } })
local kb = history.keyed({ points = { { point = { command = "mv", region = "mv.c:25 loop in row (depth 2 of 2)" },
  survey = "loop" }, { point = { command = "mv", region = "outer (depth 1 of 1)" } } } })
local same, other = 0, 0
for k in pairs(ka) do if kb[k] then same = same + 1 else other = other + 1 end end
t.is(same .. "/" .. other, "1/1",
  "a survey loop is paired across builds that nest it otherwise; a marked region by its name")

t.done()
