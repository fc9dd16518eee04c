-- Unit tests of rot.results.regions on recorded application results (no program runs): the
-- program's row and a row per region, best-k over invocations, what an empty region measures
-- subtracted, share, work declared or measured, counters never 0 where they did not count, a
-- failed point's rows kept and marked.
-- judges no time
local t = require "tap"
local regions = require "rot.results.regions"
local format = require "rot.results.format"

local desc = { app = { path = "/x/solver", args = {}, env = {}, inputs = {} }, threads = 2,
  policy = { k = 2, epsilon = 0.05, maxRuns = 10 }, counts = {} }
local function rec(run, ns, extra)
  local r = { run = run, name = "solve", calls = 10, callsTotal = 10, threads = 1, ns = ns, nsSum = ns, minNs = ns / 12,
    maxNs = ns / 8, open = 0, flops = 2e6, bytes = 24e6, written = 8e6, workingSet = 0,
      workCalls = 10, writtenCalls = 10,
    countedCalls = 10, multiplexedCalls = 0, e0 = 5e6 }
  for k, v in pairs(extra or {}) do r[k] = v end
  return r
end
local entry = { meta = { markerEmptyNs = 10, markerPairNs = 30, event0 = "perf::TASK-CLOCK", event1 = "INSTRUCTIONS",
  eventError1 = "event 'INSTRUCTIONS' cannot be counted: the machine has no counter for it", markersAttached = 1 },
  runs = { { ns = 3e6, utimeNs = 2e6, stimeNs = 1e6, threads = 2 }, { ns = 2e6, utimeNs = 3e6,
    stimeNs = 1e6, threads = 2 },
    { ns = 2.1e6, threads = 2 } },
  regions = { rec(0, 1.5e6), rec(1, 1e6), rec(2, 1.02e6), rec(1, 5e5, { name = "%30warm", calls = 2, callsTotal = 4,
    threads = 2, workCalls = 0, flops = 0, bytes = 0, countedCalls = 3, open = 1, e0 = false }) } }
entry.regions[4].e0 = nil -- the core writes no count where a call was not counted
local rows = regions.rows({ point = { n = 1 }, desc = desc, entry = entry, measured = true }, 3, 0.02)
t.is(#rows, 3, "an application point: its program's row and one per region")
local prog, solve, warm = rows[1], rows[2], rows[3]
local odd = {}
for _, r in ipairs(rows) do for _, k in ipairs(require("rot.results.row").undeclared(r)) do odd[#odd + 1] = k end end
t.is(table.concat(odd, " "), "", "every field of an application's rows is declared (core/vocabulary.h: RESULT_ROW)")
t.ok(prog.region == "(program)" and prog.point.region == "(program)" and prog.point.n == 1,
  "the program's row: the region a coordinate beside the point's own")
t.ok(math.abs(prog.time - 2e-3) < 1e-12 and math.abs(prog.spread - 0.05) < 1e-9 and prog.runs == 3,
  "its time: the fastest invocation, spread over the policy's k = 2")
t.ok(math.abs(prog.busyThreads - 2) < 1e-9, "busy threads: CPU time over time (4 ms over 2 ms)")
t.ok(math.abs(solve.time - (1e6 - 10 * 10) * 1e-9) < 1e-15,
  "a region's time: its fastest invocation's, less an empty region's time a call")
t.ok(math.abs(solve.share - solve.time / 2e-3) < 1e-12, "its share: of the program's time in the same invocation")
t.ok(math.abs(solve.bestCall - (1e6 / 12 - 10) * 1e-9) < 1e-15, "its best call: the shortest call of any invocation")
t.ok(math.abs(solve.gbs - 24e6 / solve.time / 1e9) < 1e-9 and solve.bytesSource == "declared"
  and solve.counts == "declared",
  "its work is declared: GB/s from the declared bytes, the source named")
t.is(solve.bytesWritten, 8e6, "written bytes declared in every call: its traffic's mix known")
t.is(solve.threads, 2, "its thread count: the one the point set (CSV and record)")
t.is(require("rot.results.bounds").threads(solve), 1,
  "its bound: the ceilings of the 1 thread that entered it, not the point's 2 (a region begun outside a parallel loop)")
t.is(require("rot.results.bounds").threads(rows[3]), 2, "a region 2 threads entered: bounded by 2 threads' ceilings")
t.is(prog.markedThreads, 2, "the program's 'in threads': the threads it ran")
do -- a serial program told 2 threads: its own row bounded by 1 thread's ceilings, as it ran
  local one = { meta = entry.meta, runs = { { ns = 2e6, threads = 1 }, { ns = 2.1e6, threads = 1 } }, regions = {} }
  local r1 = regions.rows({ point = { n = 1 }, desc = desc, entry = one, measured = true }, 2, 0.02)[1]
  t.ok(r1.threads == 2 and require("rot.results.bounds").threads(r1) == 1,
    "a program told 2 threads that ran 1: its row bounded by 1 thread's ceilings, its coordinate still 2")
end
t.is(solve.counters["perf::TASK-CLOCK"], 5e6, "a counter that counted: its count in that invocation")
t.ok(solve.counters.INSTRUCTIONS == nil and solve.notCounted.INSTRUCTIONS:find("no counter for it") ~= nil,
  "one the machine cannot count: no value, and why")
t.is(warm.region, "0warm", "a name escaped by the core (a leading digit) read back")
t.ok(warm.flops == nil and warm.intensity == nil and warm.counts == "none",
  "a region that declares no work: no intensity")
t.ok(warm.notCounted["perf::TASK-CLOCK"]:find("ran in 3 of the region's 4 calls") ~= nil,
  "a counter that did not run through every call: not counted, and why")
t.is(warm.neverClosed, 1, "its calls never closed")
local col = format.columns["per call"]
t.is(col[1], "per call", "an application's table columns are format's, by title")
local ccol
for _, c in ipairs({ "perf::TASK-CLOCK" }) do ccol = c end
local out = {}
format.table({ warm }, { "calls", ccol }, { "region" }, { write = function(_, ...) for _,
  x in ipairs({ ... }) do out[#out + 1] = x end end })
t.ok(table.concat(out):find("not counted") ~= nil and not table.concat(out):find(" 0\n"),
  "the table shows 'not counted', never 0")

local failed = regions.rows({ point = {}, desc = desc,
  failed = "application 'solver' exited with status 3 in invocation 1",
  partial = { meta = entry.meta, runs = { entry.runs[1] }, regions = { rec(0, 1.5e6) } } }, 3, 0.02)
t.ok(#failed == 2 and failed[2].time and failed[2].failedInvocation:find("exited with status 3") and failed[2].failed,
  "a failed point keeps what its invocations completed, each row marked with why")
t.is(#regions.rows({ point = {}, desc = desc, failed = "cannot start" }, 3, 0.02), 1,
  "one that never ran: its program's row alone")
local expanded, any = regions.expand({ { desc = { workloads = {} } }, { point = {}, desc = desc,
  entry = entry } }, 3, 0.02)
t.ok(any and #expanded == 4, "expand: a kernel's row as it is, an application's as its rows")

-- flops measured by counters where the machine counts them (a weighted sum, as for kernels),
-- bytes still declared: each column's source named
local mdesc = { app = desc.app, threads = 1, policy = desc.policy, counts = { flops = { ["perf::TASK-CLOCK"] = 0.5 } } }
local m = regions.rows({ point = {}, desc = mdesc, entry = entry }, 3, 0.02)[2]
t.ok(m.flops == 2.5e6 and m.flopsSource == "measured" and m.bytesSource == "declared" and
  m.counts == "flops measured, bytes declared" and math.abs(m.flopsRatio - 1.25) < 1e-12,
  "flops measured by a weighted counter, bytes declared: each source named, measured over declared")
local udesc = { app = desc.app, threads = 1, policy = desc.policy, counts = { flops = { INSTRUCTIONS = 1 } } }
local u = regions.rows({ point = {}, desc = udesc, entry = entry }, 3, 0.02)[2]
t.ok(u.flopsSource == "declared" and u.flops == 2e6,
  "a measure from a counter that did not count: the declared flops stay")

-- a region that declares flops and no bytes has no bandwidth ("-", not 0.00), no intensity, and
-- the roofline says why it is not drawn
local nob = regions.rows({ point = {}, desc = desc, entry = { meta = entry.meta, runs = { entry.runs[2] },
  regions = { rec(0, 1e6, { bytes = 0, written = 0, writtenCalls = 0 }) } } }, 3, 0.02)[2]
t.ok(nob.gbs == nil and nob.bestCallGbs == nil and nob.gflops > 0 and nob.intensity == nil,
  "0 bytes declared: no GB/s, no best-call bandwidth, GFLOP/s from its flops")
t.is(format.columns["GB/s"][2](nob), "-", "the table shows '-' for its GB/s")
t.is(regions.not_drawn(nob), "no bytes", "the roofline's key says why it has no point")
t.is(regions.not_drawn(solve), nil, "a region with flops and bytes is drawn")
t.is(regions.not_drawn(prog), nil, "the program's row is never on it, and never said to be missing")

-- a failed point: its rows are not judged by best-k (no '!', no note), whatever they spread
t.ok(failed[2].converged == nil and failed[1].converged == nil, "a failed point's rows: best-k not judged")
t.is(format.columns.spread[2](failed[2]), "0.00%", "its spread shown without '!'")
local failed_note = t.capture("stdout", function() format.table(failed, nil, { "region" }) end)
t.ok(not failed_note:find("did not converge", 1, true), "and no 'best-k did not converge' under its table")
t.is(regions.not_drawn(failed[2]), "its point failed", "its regions are not on the roofline: the key says so")

-- the marker-cost line: worded by the share (6% is no 'mostly'), its pair cost the one its own
-- point's program calibrated, which the header's range holds
local function marker_rows(pair, per_call_ns, n)
  local e = { meta = { markerEmptyNs = 10, markerPairNs = pair, markersAttached = 1 },
    runs = { { ns = 1e7, threads = 1 } },
    regions = { rec(0, per_call_ns * 10 + 100, { threads = 1 }) } }
  return regions.rows({ point = { n = n }, desc = desc, entry = e }, 1, 0.02)
end
local two = {}
for _, r in ipairs(marker_rows(2120, 34600, 1)) do two[#two + 1] = r end
for _, r in ipairs(marker_rows(2240, 30000, 2)) do two[#two + 1] = r end
local lines = t.capture("stdout", function() regions.legend(two, io.stdout) end)
t.ok(lines:find("region 'solve' (n=1): a begin/end pair costs 2.12 us, 6% of its 34.60 us a call: the markers add that",
  1, true) ~= nil, "a 6% marker cost: said as what it adds, for its own point with its own calibration: " .. lines)
t.ok(not lines:find("mostly", 1, true), "and never 'mostly the markers''")
t.is(regions.pair_cost(two), "a marker pair 2.12 us to 2.24 us (each point's program calibrates its own)",
  "the header: the range of the points' calibrations, so each line's cost is in it")
t.is(regions.pair_cost(marker_rows(2120, 34600, 1)), "a marker pair 2.12 us", "one point: its cost alone")
lines = t.capture("stdout", function() regions.legend(marker_rows(30, 5, 1), io.stdout) end)
t.ok(lines:find("region 'solve': a begin/end pair costs 30.0 ns, more than its 5.0 ns a call "
  .. "(600%): the time its calls "
  .. "take the program is mostly the markers'", 1, true) ~= nil,
    "markers costing more than the region: mostly theirs: " .. lines)

-- a region fewer threads entered than the program ran: its bound and counters are theirs, said
lines = t.capture("stdout", function() regions.legend(rows, io.stdout) end)
t.ok(lines:find("region 'solve': 1 of the 2 threads the program ran entered it: it is bounded by 1 thread's ceilings, "
  .. "its counters count that thread only; if other threads work during its calls (a parallel "
    .. "loop inside it), begin and "
  .. "end it inside the parallel region", 1, true) ~= nil, "a region begun outside a parallel loop: said: " .. lines)
t.ok(not lines:find("region '0warm': 2 of", 1, true), "one every thread entered: nothing said")

t.done()
