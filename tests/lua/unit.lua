-- Lua-level unit tests: parameter-space iteration, canonical serialization and hashing,
-- measurement descriptions, derived quantities, CSV quoting. Run by tests/lua.t.
local t = require "tap"
local rot = require "rot"
local util = require "rot.util"
local sys = require "rot.sys"
local report = require "rot.results.format"
local quantities = require "rot.results.quantities"
local bounds = require "rot.results.bounds"

-- parameter space: every combination, first axis outermost
local s = rot.space { rot.axis("a", { 1, 2 }), rot.axis("b", { "x", "y", "z" }) }
t.is(s:size(), 6, "space size is the product of axis lengths")
local seen = {}
for p in s:points() do seen[#seen + 1] = p.a .. p.b end
t.is(table.concat(seen, ","), "1x,1y,1z,2x,2y,2z", "points iterate all combinations, last axis fastest")
local s2 = rot.space { { "n", { 10 } } }
local count = 0
for p in s2:points() do count = count + 1; t.is(p.n, 10, "shorthand axis {name, values}") end
t.is(count, 1, "single-point space")
t.raises(function() rot.space { rot.axis("a", { 1 }), rot.axis("a", { 2 }) } end, "given twice", "duplicate axis refused")
t.raises(function() rot.axis("a", {}) end, "non%-empty", "empty axis refused")
t.is(table.concat(rot.geometric(256, 4096, 2), ","), "256,512,1024,2048,4096", "geometric sizes")

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
t.is(util.serialize({ machine = util.frozen(fp), n = 1 }), plain, "a frozen table (a fingerprint) serializes as before, inside others too")
local cyc = {}; cyc.self = cyc
t.raises(function() util.serialize(cyc) end, "contains itself", "cycles are refused")
t.is(util.deserialize(util.serialize({ n = 1, s = "a\nb" })).s, "a\nb", "deserialize reads back what serialize wrote")
local v, why = util.deserialize("(function() while true do end end)()", "claim")
t.ok(v == nil and why:find("too long to read"), "a text that would run forever is stopped: " .. tostring(why))
v, why = util.deserialize("os.exit(1)", "job")
t.ok(v == nil and why ~= nil, "one that calls out reaches nothing: " .. tostring(why))
v, why = util.deserialize('("x"):rep(2^31-1)', "job")
t.ok(v == nil and why ~= nil and ("ab"):upper() == "AB", "nor the string methods (a 2 GB rep), which stay ours: " .. tostring(why))
t.is(sys.sha256(util.serialize(a)), sys.sha256(util.serialize(b)), "equal descriptions hash equal")
t.is(#sys.sha256("x"), 64, "hash is 64 hex digits")

-- descriptions: what the cache key hashes
local describe = require "rot.describe"
local S = require("rot.session").current()
local d1 = describe.describe(S, { kernel = "triad", params = { n = 1024 }, flags = "-O3" })
local d2 = describe.describe(S, { flags = "-O3", params = { n = 1024 }, kernel = "triad" })
t.is(util.serialize(d1), util.serialize(d2), "same point, same description")
local d3 = describe.describe(S, { kernel = "triad", params = { n = 1024 }, flags = "-O3", macros = { STREAM_UNROLL = 4 } })
t.ok(util.serialize(d1) ~= util.serialize(d3), "a macro changes the description")
t.ok(d1.compiler:find("gcc") ~= nil, "the compiler and its version are part of it: " .. d1.compiler)
t.is(d1.policy.k, rot.get("bestK"), "the run policy is part of it")
t.raises(function() describe.describe(S, { kernel = "triadd" }) end, "did you mean 'triad'", "unknown kernel names the nearest")
t.raises(function() describe.describe(S, { kernel = "triad", macros = { NOPE = 1 } }) end, "no macro 'NOPE'", "unknown macro")
t.raises(function() describe.describe(S, { kernel = "triad", macros = { ["1X"] = 1 } }) end, "not a C identifier", "bad macro name")
t.raises(function() describe.describe(S, { kernel = "triad", macros = { STREAM_UNROLL = "2\n#error" } }) end, "newline", "macro value with newline")
t.raises(function() describe.describe(S, { kernel = "triad", flags = "-O2 `id`" }) end, "not an option", "flag that is not an option")
t.raises(function() describe.describe(S, { kernel = "triad", parms = {} }) end, "did you mean 'params'", "misspelled field")
t.raises(function() describe.describe(S, { kernel = "triad", params = { n = "big" } }) end, "must be a number", "non-numeric parameter")

-- quantities from raw runs
local row = quantities.derive({ entry = {
  meta = { flops = 2000, bytes = 24000, workingSet = 24000, converged = 1 },
  runs = { { ns = 4000, reps = 4, tsc = 8000 }, { ns = 1100, reps = 1, tsc = 2200 }, { ns = 1020, reps = 1, tsc = 2040 } },
} }, 3)
t.ok(math.abs(row.time - 1000e-9) < 1e-18, "time is the fastest run per invocation")
t.is(row.runs, 3, "runs counted")
t.ok(math.abs(row.spread - 0.1) < 1e-12, "spread of the 3 fastest: (1100-1000)/1000")
t.ok(math.abs(row.gbs - 24) < 1e-9, "bandwidth = bytes / time")
t.ok(math.abs(row.gflops - 2) < 1e-9, "performance = flops / time")
t.ok(math.abs(row.intensity - 2000 / 24000) < 1e-15, "intensity = flops / bytes")
t.ok(math.abs(row.tscHz - 2e9) < 1, "TSC rate from all runs")
t.is(row.counts, "declared", "counts are labelled declared")

-- best-k's verdict is the runs' as they are (a cached entry's runs merged with new ones), not
-- the last batch's flag: 0.37% within epsilon 2% is converged whatever the core said
local merged = { meta = { flops = 1, bytes = 1, converged = 0 },
  runs = { { ns = 1000, reps = 1 }, { ns = 1003, reps = 1 }, { ns = 1004, reps = 1 }, { ns = 2000, reps = 1 } } }
t.is(quantities.derive({ entry = merged }, 3, false, 0.02).converged, true,
  "k fastest within epsilon: converged, though the last batch said not")
t.is(quantities.derive({ entry = merged, desc = { policy = { k = 4, epsilon = 0.02 } } }, 3, false, 0.02).converged, false,
  "the point's own k (4 runs: 100% apart) is the one that counts")
merged.meta.converged = 1
t.is(quantities.derive({ entry = merged }, 3, false, 0.001).converged, false,
  "beyond epsilon: not converged, though the last batch said so")
t.is(quantities.derive({ entry = { meta = merged.meta, runs = { { ns = 1000, reps = 1 } } } }, 3, false, 0.02).converged, false,
  "fewer runs than k: not converged")

-- ignoreDisturbed: the fastest undisturbed run counts; timer overhead is subtracted
local entry = { meta = { flops = 1, bytes = 1, timerOverheadNs = 100, converged = 1 },
  runs = { { ns = 600, reps = 1, disturbed = 1 }, { ns = 1100, reps = 1, disturbed = 0 }, { ns = 1200, reps = 1, disturbed = 0 } } }
local plain = quantities.derive({ entry = entry }, 2, false)
t.ok(math.abs(plain.time - 500e-9) < 1e-18, "without ignoreDisturbed the disturbed fastest run counts (600-100 ns)")
t.is(plain.disturbed, 1, "disturbed runs are counted")
local ign = quantities.derive({ entry = entry }, 2, true)
t.ok(math.abs(ign.time - 1000e-9) < 1e-18, "with ignoreDisturbed the fastest undisturbed run counts (1100-100 ns)")
t.is(ign.runs, 3, "all runs are still reported")

-- measured counts from counters, and their ratio to the declared ones
local mrow = quantities.derive({ desc = { counts = { flops = { A = 2, B = 1 } } }, entry = {
  meta = { flops = 100, bytes = 50, event0 = "A", event1 = "B", converged = 1 },
  runs = { { ns = 1000, reps = 2, e0 = 80, e1 = 60 } } } }, 1, false)
t.is(mrow.flops, 110.0, "measured flops = 2*A + B per invocation (2*40 + 30)")
t.is(mrow.counts, "flops measured, bytes declared", "each quantity says where it came from")
t.ok(math.abs(mrow.flopsRatio - 1.1) < 1e-12, "measured/declared ratio")
t.is(mrow.counters.A, 40.0, "counter values are per invocation")
t.is(table.concat(require("rot.results.row").undeclared(mrow), " "), "",
  "every field quantities sets is declared (core/vocabulary.h: RESULT_ROW)")

local ceilings = require "rot.machine.ceilings"
local peaks = require "rot.machine.measure"
-- which stored file readers that never measure use: the newest analysis's, else an older one's
do
  local cdir = (os.getenv("TMPDIR") or "/tmp") .. "/rot-unit-stored-" .. sys.pid()
  local fp = { cpu = "Test CPU", pus = 2 }
  sys.mkdir(cdir); sys.mkdir(cdir .. "/machines")
  t.is(ceilings.stored_path(cdir, fp, false), ceilings.path(cdir, fp, false), "no stored peaks: the current analysis's file")
  sys.writefile(ceilings.path(cdir, fp, false, 1), "name,kind,threads,value,unit\n")
  t.is(ceilings.stored_path(cdir, fp, false), ceilings.path(cdir, fp, false, 1),
    "only an older rot's: that one, until peaks are measured again")
  t.ok(not ceilings.path(cdir, fp, false, 1):find("%.a%d") and ceilings.path(cdir, fp, true):find("%.a%d+%-quick%.csv$"),
    "version 1 has no suffix; quick peaks are .aN-quick.csv")
  sys.writefile(ceilings.path(cdir, fp, false), "name,kind,threads,value,unit\n")
  t.is(ceilings.stored_path(cdir, fp, false), ceilings.path(cdir, fp, false), "and the current one once it is there")
  sys.removetree(cdir)
end
-- peaks.csv: written, read back, ceilings picked per thread count and precision
local pdir = (os.getenv("TMPDIR") or "/tmp") .. "/rot-unit-peaks-" .. sys.pid() .. ".csv"
ceilings.write_csv(pdir, {
  { name = "double_avx512_fma", kind = "compute", threads = 1, value = 65.5, unit = "GFLOP/s" },
  { name = "double_scalar_add", kind = "compute", threads = 1, value = 4.25, unit = "GFLOP/s" },
  { name = "float_avx512_fma", kind = "compute", threads = 1, value = 131, unit = "GFLOP/s" },
  { name = "double_avx512_fma", kind = "compute", threads = 2, value = 130, unit = "GFLOP/s" },
  { name = "triad_L1", kind = "bandwidth", threads = 1, value = 200.5, unit = "GB/s" },
  { name = "read_L1", kind = "bandwidth", threads = 1, value = 150, unit = "GB/s" },
  { name = "triad_DRAM", kind = "bandwidth", threads = 1, value = 12, unit = "GB/s" },
})
local prow = ceilings.read_csv(pdir)
sys.remove(pdir)
t.is(#prow, 7, "peaks.csv reads back every row")
t.is(prow[5].value, 200.5, "values keep their decimals")
t.is(prow[4].threads, 2, "thread counts are integers")
local pc, pb = ceilings.ceilings(prow, 1, "double")
t.is(#pc, 2, "compute ceilings: the double ones for 1 thread")
t.is(pc[1].gflops, 65.5, "sorted, highest first")
t.is(#pb, 2, "bandwidth ceilings: the triad ones, per level")
t.is(pb[1].level, "L1", "named by level")
t.is(ceilings.nearest_threads(prow, 4), 2, "a 4-thread run uses the 2-thread peaks (the most measured)")
t.is(ceilings.nearest_threads(prow, 1), 1, "a 1-thread run uses the 1-thread peaks")
t.is(ceilings.read_csv("/nonexistent/peaks.csv"), nil, "no file, no peaks")

-- the read, write or triad ceilings: by the written share of the bytes a kernel declares
t.is(bounds.traffic({ bytesDeclared = 8000, bytesWritten = 0 }), "read", "nothing written: a read-only kernel")
t.is(bounds.traffic({ bytesDeclared = 8000, bytesWritten = 8000 }), "write", "all written: a write-only kernel")
t.is(bounds.traffic({ bytesDeclared = 24000, bytesWritten = 8000 }), nil, "a mix (triad's): triad's ceilings")
t.is(bounds.traffic({ bytesDeclared = 24000 }), nil, "nothing declared: triad's ceilings")
local pat = ceilings.for_threads(prow, 1)
t.is(#pat.streams.read, 1, "ceilings.for_threads: the read ceilings beside triad's")
t.is(#pat.streams.write, 0, "and none where the peaks have none")
local sum_row = { flops = 1e6, bytes = 8e6, bytesDeclared = 8e6, bytesWritten = 0, time = 8e6 / 120e9,
  gflops = 1e6 / (8e6 / 120e9) / 1e9, workingSet = 16384, cacheMode = "warm" }
local rb = bounds.of(sum_row, pat, 0.02)
t.is(rb.limiter, "L1 read bw", "a read-only kernel in L1 is bounded by L1's read ceiling, and says so")
t.ok(math.abs(rb.fraction - 0.8) < 1e-9, "at 120 GB/s it is at 80% of the 150 GB/s read ceiling, not 60% of triad's 200.5 ("
  .. rb.fraction .. ")")
t.is(rb.ceiling, "L1 read bw", "the ceiling is named for the reasons given when a point beats it")
sum_row.cacheMode = "cold"
t.is(bounds.of(sum_row, pat, 0.02).limiter, "DRAM bw", "a level the read sweep left without a ceiling: triad's there, "
  .. "not the compute peak")
sum_row.cacheMode, sum_row.bytesMeasured = "warm", true
t.is(bounds.of(sum_row, pat, 0.02).limiter, "L1 bw", "bytes measured by counters: triad's ceilings (the read and write "
  .. "ones are in declared bytes)")
sum_row.bytesMeasured, sum_row.bytesWritten = nil, 8e6
t.is(bounds.of(sum_row, pat, 0.02).limiter, "L1 bw", "a write-only kernel where the peaks have no write ceilings: triad's")
local _, shown = ceilings.shown(pat, {})
t.is(#shown, 2, "the roofline draws triad's bandwidth ceilings")
local _, shown_read = ceilings.shown(pat, bounds.families({ { bytesDeclared = 8e6, bytesWritten = 0, gflops = 1, intensity = 0.125 },
  { bytesDeclared = 8e6, bytesWritten = 8e6, gflops = 0, intensity = 0 } }))
t.ok(#shown_read == 3 and shown_read[3].label == "L1 read", "and the read ones where a read-only kernel is on it")

-- one measurement over 1 and 2 threads: each point bounded by its own thread count's ceilings
-- and levels (a 1-thread point at 64 KiB is past the 1-thread L1, inside the 2-thread one)
local mixed = ceilings.parse_csv(table.concat({ "name,kind,threads,value,unit,spread",
  "double_avx512_fma,compute,1,100,GFLOP/s,", "double_avx512_fma,compute,2,200,GFLOP/s,",
  "L1_effective,size,1,50000,B,", "L2_effective,size,1,1000000,B,", "L1_effective,size,2,100000,B,",
  "L2_effective,size,2,2000000,B,", "triad_L1,bandwidth,1,400,GB/s,0.01", "triad_L2,bandwidth,1,150,GB/s,0.01",
  "triad_DRAM,bandwidth,1,30,GB/s,0.01", "triad_L1,bandwidth,2,800,GB/s,0.01", "triad_L2,bandwidth,2,300,GB/s,0.01",
  "triad_DRAM,bandwidth,2,50,GB/s,0.01" }, "\n"))
local function mrow(threads, gbs)
  local bytes = 24 * 1024
  return { threads = threads, workingSet = 64 * 1024, cacheMode = "warm", flops = bytes / 12, bytes = bytes,
    time = bytes / (gbs * 1e9), gflops = gbs / 12, spread = 0.01 }
end
local res = require("rot.results").new({ mrow(1, 120), mrow(2, 240) }, {}, function() return mixed end):bounds()
t.ok(res.rows[1].limiter == "L2 bw" and math.abs(res.rows[1].fraction - 0.8) < 1e-9,
  "the 1-thread point: past its L1, at 80% of the 1-thread L2 ceiling (" .. tostring(res.rows[1].limiter) .. ")")
t.ok(res.rows[2].limiter == "L1 bw" and math.abs(res.rows[2].fraction - 0.3) < 1e-9,
  "the 2-thread point: inside the 2-thread L1, at 30% of its ceiling (" .. tostring(res.rows[2].limiter) .. ")")
t.is(res:ceilings().threads, 2, "the plots draw the highest thread count's ceilings")
t.is(table.concat(require("rot.results.row").undeclared(res.rows[1]), " "), "", "and every field the bounds set")

-- peaks.csv with sizes: the levels at a thread count, effective sizes first
local lrows = ceilings.parse_csv(table.concat({
  "name,kind,threads,value,unit,spread",
  "L1_effective,size,1,40000,B,", "L1_reported,size,1,32768,B,", "L2_effective,size,1,1200000,B,",
  "L2_reported,size,1,1048576,B,", "L3_reported,size,1,532676608,B,", "L3_effective,size,1,26000000,B,",
  "triad_L1,bandwidth,1,250,GB/s,0.02", "triad_L2,bandwidth,1,117,GB/s,0.03", "triad_L3,bandwidth,1,97,GB/s,0.01",
  "triad_DRAM,bandwidth,1,25,GB/s,0.1", "L1_effective,size,2,80000,B,", "old_style,compute,1,5,GFLOP/s" }, "\n"))
t.is(#lrows, 12, "peaks.csv rows with and without the spread column parse")
t.is(lrows[7].spread, 0.02, "the spread is read back")
t.is(lrows[12].spread, nil, "a row without it has none")
local lv = ceilings.levels(lrows, 1)
t.is(#lv, 4, "three cache levels and DRAM")
t.is(lv[3].size, 26000000, "a level's size is its effective size")
t.is(lv[3].reported, 532676608, "the reported one is kept beside it")
t.is(lv[4].name, "DRAM", "DRAM last")
t.is(lv[4].gbs, 25, "with its bandwidth")
t.is(ceilings.level_of(36000, lv).name, "L1", "36 KiB lives in L1 (effective 40000 B)")
t.is(ceilings.level_of(48 * 1024, lv).name, "L2", "48 KiB is past the effective L1: L2")
t.is(ceilings.level_of(100e6, lv).name, "DRAM", "100 MB: DRAM, not the reported 508 MiB L3")
t.is(ceilings.levels(lrows, 2)[1].size, 80000, "levels are per thread count")

-- bounds on hand-worked examples: P = min(P_o, I * B_level), T >= max(N_o/P_o, N_B/B)
local compute = { { gflops = 64 } }
local bw = { { level = "L1", gbs = 200 }, { level = "L2", gbs = 80 }, { level = "DRAM", gbs = 10 } }
local cs = { { name = "L1", size = 48 * 1024 }, { name = "L2", size = 2 * 1024 * 1024 }, { name = "DRAM" } }
-- triad with a 1 MiB working set: it lives in L2
local b = bounds.bound({ flops = 2e6, bytes = 24e6, time = 0.5e-3, gflops = 4, workingSet = 1048576, cacheMode = "warm" }, compute, bw, cs)
t.ok(math.abs(b.time_bound - 24e6 / 80e9) < 1e-15, "time bound = bytes / L2 bandwidth = 0.3 ms")
t.is(b.limiter, "L2 bw", "limited by L2 bandwidth")
t.ok(math.abs(b.bound - 2e6 / (24e6 / 80e9) / 1e9) < 1e-9, "bound = I * B_L2 = 6.67 GFLOP/s")
t.ok(math.abs(b.fraction - 4 / b.bound) < 1e-12, "fraction of the bound = 60%")
t.is(b.above, false, "60% is not above the bound")
local cold = bounds.bound({ flops = 2e6, bytes = 24e6, time = 3e-3, gflops = 0.67, workingSet = 1048576, cacheMode = "cold" }, compute, bw, cs)
t.is(cold.limiter, "DRAM bw", "cold caches: the bytes come from DRAM")
local dense = bounds.bound({ flops = 2e9, bytes = 24e6, time = 40e-3, gflops = 50, workingSet = 24e6, cacheMode = "warm" }, compute, bw, cs)
t.is(dense.limiter, "compute", "high intensity: compute bound")
t.ok(math.abs(dense.time_bound - 2e9 / 64e9) < 1e-15, "time bound = flops / peak")
t.is(dense.dominant, "compute", "the dominant term is named")
-- above the bound: beyond the point's spread, the ceiling's and epsilon
local bw2 = { { level = "L1", gbs = 200, spread = 0.03 }, { level = "L2", gbs = 80 }, { level = "DRAM", gbs = 10 } }
local function at(gbs, spread)
  return bounds.bound({ flops = 1e6, bytes = 12e6, time = 12e6 / (gbs * 1e9), gflops = 1e6 / (12e6 / gbs), spread = spread,
    workingSet = 16384, cacheMode = "warm" }, compute, bw2, cs, 0.02)
end
t.is(at(204, 0.001).above, false, "102% of an L1 ceiling whose samples reached +3%: within its spread")
t.is(at(212, 0.001).above, true, "106%: above (1.001 x 1.03 x 1.02 = 1.052)")
t.is(at(212, 0.05).above, false, "106% with a 5% spread of its own: not above")
local why = bounds.why_above({ ceiling = "L2 bw", level = "L2", workingSet = 60 * 1024 }, cs)
t.ok(why:find("wrong level attribution") and why:find("L1"), "just above the effective L1: the reason is the level attribution")
t.ok(bounds.why_above({ ceiling = "compute", level = "L1", workingSet = 1024 }, cs):find("another clock"),
  "a compute-bound point above its ceiling: another clock or overstated flops")
t.ok(bounds.why_above({ ceiling = "L2 bw", level = "L2", workingSet = 300 * 1024 }, cs)
  :find("^the L2 bw ceiling is probably low: its rounds ran slower than this point %(a busy machine, or a lower core clock"),
  "a stable cache ceiling beaten well inside its level: its rounds ran slow (a cache's bandwidth follows the clock)")
t.ok(bounds.why_above({ ceiling = "L2 bw", boundUnstable = true, level = "L2", workingSet = 300 * 1024 }, cs)
  :find("^the L2 bw ceiling is unstable: its rounds disagreed"), "an unstable ceiling beaten well inside its level: that is the reason")
why = bounds.why_above({ ceiling = "L2 bw", boundUnstable = true, level = "L2", workingSet = 60 * 1024 }, cs)
t.ok(why:find("^the L2 bw ceiling is probably the wrong one") and why:find("also unstable$"),
  "an unstable ceiling beaten just above the level below: the level attribution first (measuring the peaks again would not help), the instability said too")

-- GPU: recorded metric values (a DGEMM-like range) evaluated into roofline quantities
local gpu = require "rot.gpu"
local v = {}
for _, m in ipairs(gpu.roofline_metrics) do v[m] = 0 end
v["sm__sass_thread_inst_executed_op_dfma_pred_on.sum"] = 1e9
v["sm__sass_thread_inst_executed_op_dadd_pred_on.sum"] = 2e8
v["sm__sass_thread_inst_executed_op_ffma_pred_on.sum"] = 5e7
v["sm__sass_thread_inst_executed_op_hmul_pred_on.sum"] = 1e6
v["l1tex__t_bytes.sum"], v["lts__t_bytes.sum"], v["dram__bytes.sum"] = 8e9, 2e9, 1e8
v["sm__cycles_elapsed.avg"], v["sm__cycles_elapsed.avg.per_second"] = 1.98e7, 1.98e9
v["gpu__time_duration.sum"] = 1.01e7 -- ns
local g = gpu.quantities(v)
t.is(g.flops.double, 2.2e9, "double FLOPs = 2*dfma + dmul + dadd")
t.is(g.flops.single, 1e8, "single FLOPs = 2*ffma")
t.is(g.flops.half, 1e6, "half FLOPs count hmul once")
t.ok(math.abs(g.time - 0.01) < 1e-15, "time = cycles / cycles per second = 10 ms")
t.ok(math.abs(g.timeDeviation - (0.01 / 0.0101 - 1)) < 1e-12, "cross-checked with gpu__time_duration (-1%)")
t.ok(math.abs(g.gflops - 230.1) < 1e-9, "GFLOP/s from all precisions over the cycle time")
t.ok(math.abs(g.intensity.HBM - 23.01) < 1e-12 and math.abs(g.intensity.L1 - 0.287625) < 1e-12,
  "one intensity per level: HBM 23.01, L1 0.2876 flop/B")
v["dram__bytes.sum"] = nil
t.ok(gpu.quantities(v) == nil, "a missing metric gives no quantities")
-- time bound of the profiled range: 2.2e9 double FLOPs at 60 TFLOP/s = 36.7 us; L1 8e9 B at
-- 20 TB/s = 400 us; L2 2e9 B at 5 TB/s = 400 us... L1 set to 10 TB/s: 800 us dominates
local gb = gpu.bound(g, { double = 60000, single = 60000, half = 120000, L1 = 10000, L2 = 5000, HBM = 3000 })
t.ok(math.abs(gb.time_bound - 8e-4) < 1e-15, "GPU time bound = max over precisions and levels = 800 us")
t.is(gb.dominant, "L1 bandwidth", "the dominant term is named")
t.ok(math.abs(gb.fraction - 0.08) < 1e-12, "the bound is 8% of the measured 10 ms")
t.is(gb.key, "L1", "and the ceiling it comes from, by its key")
-- a GPU point above its ceiling is flagged by the CPU points' rule: beyond its spread, the
-- ceiling's and epsilon
local gc = gpu.ceilings({ { name = "shared_ldst", value = 800, spread = 0.01 }, { name = "HBM_triad", value = 3000, spread = 0.02 } }, {})
t.ok(gc.bounds.L1 == 800 and gc.spreads.L1 == 0.01 and gc.spreads.HBM == 0.02, "gpu.ceilings keeps each ceiling's spread")
local peaks_m = require "rot.results.bounds"
local gb2 = gpu.bound(g, gc.bounds) -- L1: 8e9 B at 800 GB/s = 10 ms, the measured time
t.ok(gb2.key == "L1" and math.abs(gb2.fraction - 1) < 1e-12, "a point exactly at its L1 ceiling")
t.ok(not peaks_m.above(1.0, 0.01, gc.spreads.L1, 0.02), "at its ceiling: not above")
t.ok(peaks_m.above(1.06, 0.01, gc.spreads.L1, 0.02), "6% above with 1% + 1% spreads and 2% epsilon: above")
t.ok(not peaks_m.above(1.04, 0.01, gc.spreads.L1, 0.02), "4% above: within the spreads")
-- the same through results:gpu_bounds and the hierarchical plot: a row 10% faster than its L1
-- roof is flagged, and only its L1 dot is ringed
local grow = { gpu = g, spread = 0.01, desc = { workloads = { { kernel = "k" } }, device = "gpu" }, point = { case = "k" } }
local gres = rot.results({ grow })
local l1 = 8e9 / 1.1e-2 / 1e9 -- GB/s at which the row's 8e9 L1 bytes take 11 ms: it took 10
local said = t.capture("stderr", function()
  gres:gpu_bounds({ double = 60000, single = 60000, half = 120000, L1 = l1, L2 = 5000, HBM = 3000 }, gc.spreads)
end)
t.ok(grow.above and grow.dominant == "L1 bandwidth" and math.abs(grow.fraction - 1.1) < 1e-9,
  "results:gpu_bounds flags a GPU row 10% above its L1 roof")
t.ok(said:find("^rot: warning: 1 GPU point is above its bound beyond the spread %(up to 110%%, marked %^%); the L1 bandwidth "
  .. "ceiling is too low") ~= nil, "and warns once, naming the ceiling: " .. said)
local out0, pdir = rot.get("outputDir"), (os.getenv("TMPDIR") or "/tmp") .. "/rot-unit-gpuplot-" .. os.time()
rot.set("outputDir", pdir)
gres:gpu_roofline { name = "gpuflag", compute = { { label = "FP64", gflops = 60000 } }, bandwidth = { { label = "L1", gbs = l1 } } }
local gp = assert(sys.readfile(rot.get("outputDir") .. "/gpuflag.gp"))
local ringed = gp:match("%$above << EOD\n(.-)EOD")
t.ok(ringed and select(2, ringed:gsub("\n", "")) == 1 and ringed:find(string.format("^%.9g ", g.intensity.L1)),
  "the plot rings the L1 dot only: " .. tostring(ringed))
-- a title, a ceiling's and a point's name with a backquoted command and a newline: drawn, never run
local marker = pdir .. "/ran"
grow.desc.workloads[1].kernel = "k`touch " .. marker .. "`"
gres:gpu_roofline { name = "gpuquote", title = "a `touch " .. marker .. "` b\nc",
  compute = { { label = "FP64 `touch " .. marker .. "`", gflops = 60000 } }, bandwidth = { { label = "L1", gbs = l1 } } }
t.ok(sys.stat(pdir .. "/gpuquote.svg") == "file" and sys.stat(marker) == nil,
  "text with a backquoted command is drawn and never run by gnuplot")
-- labels = "all" without a label function: each point is labelled by its working set
local lrows = {}
for i, ws in ipairs({ 24576, 3145728 }) do
  lrows[i] = { point = { n = ws / 24 }, desc = { workloads = { { kernel = "triad" } } }, intensity = 1 / 12,
    gflops = 2 / i, gbs = 24 / i, workingSet = ws, time = 1e-6, spread = 0 }
end
rot.results(lrows, { "n" }):roofline { name = "alllabels", labels = "all", compute = { { label = "FMA", gflops = 100 } },
  bandwidth = { { label = "L1", gbs = 300 } } }
local ldat = sys.readfile(pdir .. "/alllabels.dat") or ""
t.ok(ldat:find("\"24.0 KiB\"", 1, true) and ldat:find("\"3.00 MiB\"", 1, true),
  "labels=\"all\" without label=: the points are labelled by their working sets: " .. ldat:gsub("\n", " | "))
for _, f in ipairs(sys.listdir(pdir) or {}) do sys.remove(pdir .. "/" .. f) end
sys.remove(pdir)
rot.set("outputDir", out0)
-- theoretical ceilings of an H100 SXM from its properties
local th = gpu.theoretical({ gpuCC = "9.0", gpuSMs = 132, gpuClockKHz = 1980000, gpuMemClockKHz = 2619000, gpuBusWidth = 5120 })
t.ok(math.abs(th.fp64 - 2 * 64 * 132 * 1.98) < 1e-9, "FP64: 64 FMA lanes x 2 x 132 SMs x 1.98 GHz = 33.5 TFLOP/s")
t.ok(math.abs(th.fp32 - 2 * th.fp64) < 1e-9, "FP32 twice FP64 on Hopper")
t.ok(math.abs(th.hbm - 3352.32) < 1e-6, "HBM: 2.619 GHz x 2 x 5120 bit / 8 = 3352 GB/s")
t.ok(math.abs(th.shared - 128 * 132 * 1.98) < 1e-9, "shared memory: 128 B/clk/SM x 132 SMs x 1.98 GHz = 33.4 TB/s")
t.ok(math.abs(th.int32_add - 64 * 132 * 1.98) < 1e-9, "integer adds: 64 a clock an SM (one op each, not two) = 16.7 T adds/s")
t.ok(select(2, gpu.against_limit(194705, "int32_add", { gpuCC = "9.0", gpuSMs = 132, gpuClockKHz = 1980000 })),
  "195 T adds/s on an H100 (the folded chain an H100 showed) is impossible: not stored")
local h100 = { gpuCC = "9.0", gpuSMs = 132, gpuClockKHz = 1980000 }
local line, above = gpu.against_limit(63600, "shared", h100, 1.755e9)
t.ok(above, "63.6 TB/s of shared memory on an H100 (190 % of its limit) is impossible")
t.ok(line:find("theoretical 33454.1 (190.1%); at the measured 1.755 GHz 29652.5", 1, true) ~= nil, "the limit is stated beside the value, also at the measured clock")
line, above = gpu.against_limit(32900, "fp64", h100, nil)
t.ok(not above and line == "theoretical 33454.1 (98.3%)", "FP64 at 98 % of its limit is a ceiling")
t.ok(select(2, gpu.against_limit(34000, "fp64", h100)) == false, "within 2 % above the limit: clock rounding, accepted")
t.is(gpu.against_limit(1000, "L2", h100), "theoretical -", "no published limit: said so")
local gc = gpu.ceilings(ceilings.read_csv(os.getenv("ROT_HOME") .. "/tests/fixtures/gpu-peaks.csv"))
t.ok(gc.source == "measured" and #gc.compute == 3 and #gc.bandwidth == 3 and gc.bounds.L1 == 20000 and gc.bounds.HBM == 1000
  and gc.bounds.double == 10000, "GPU ceilings from gpu-peaks.csv: three precisions, shared/L2/HBM, and the bound inputs")
local gt2 = gpu.ceilings(nil, { gpuCC = "9.0", gpuSMs = 132, gpuClockKHz = 1980000, gpuMemClockKHz = 2619000, gpuBusWidth = 5120 })
t.ok(gt2.source == "theoretical" and math.abs(gt2.bounds.double - th.fp64) < 1e-9 and gt2.compute[1].label:find("theoretical"),
  "without measured ceilings: the theoretical ones, labelled so")
local mdir = (os.getenv("TMPDIR") or "/tmp") .. "/rot-unit-m-" .. os.time()
t.is(gpu.machine_file(mdir, "NVIDIA H100 80GB HBM3", "atomics"), mdir .. "/machines/NVIDIA_H100_80GB_HBM3.atomics.csv",
  "a GPU model's stored file: its name made safe, the kind, in cacheDir/machines (created)")
t.is(sys.stat(mdir .. "/machines"), "dir", "the machines directory exists")
local gpupeaks = require "rot.gpu.ceilings"
local function conf(quick) return { get = function(k) return ({ quick = quick, cacheDir = mdir })[k] end } end
t.ok(gpupeaks.file(conf(false), "NVIDIA H100 80GB HBM3") == mdir .. "/machines/NVIDIA_H100_80GB_HBM3.gpu.csv" and
  gpupeaks.file(conf(true), "NVIDIA H100 80GB HBM3") == mdir .. "/machines/NVIDIA_H100_80GB_HBM3.gpu-quick.csv",
  "a GPU's quick ceilings are stored apart from its real ones")
sys.remove(mdir .. "/machines")
sys.remove(mdir)

-- where cores are built: the key buildDir, absolute or from the working directory, else build/core
local session = require "rot.session"
local function bconf(d) return { get = function(_, k) return ({ buildDir = d })[k] end } end
t.is(session.builddir("/h", bconf("")), "/h/build/core", "no buildDir: the checkout's build/core")
t.is(session.builddir("/h", bconf("/tmp/x/../b")), "/tmp/b", "an absolute buildDir, normalised")
t.is(session.builddir("/h", bconf("b/c")), sys.realpath(".") .. "/b/c", "a relative buildDir is taken from the working directory")

-- pipeline model: the simulator reproduces equation (1) for one pipeline over a grid
local pipeline = require "rot.models.pipeline_model"
local bad, cases = 0, 0
for _, N in ipairs({ 1, 3, 16 }) do
  for _, W in ipairs({ 1, 2, 3, 5, 8, 13, 24 }) do
    for _, lat in ipairs({ { 1, 4 }, { 1, 24 }, { 2, 8 }, { 4, 20 }, { 3, 7 } }) do
      local sim = pipeline.simulate { graph = pipeline.chain("alu", N), pipelines = { alu = { issue = lat[1], completion = lat[2] } },
        warps = W, groups = 1, concurrent = 1, units = 1 }
      cases = cases + 1
      if sim.cycles ~= pipeline.closed_form(N, W, lat[1], lat[2]) then
        bad = bad + 1
        io.write(string.format("#   N=%d W=%d λ=%d Λ=%d: simulated %d, closed form %d\n", N, W, lat[1], lat[2], sim.cycles,
          pipeline.closed_form(N, W, lat[1], lat[2])))
      end
    end
  end
end
t.is(bad, 0, "simulated cycles equal t = NΛ + (W-1)λ or Λ + (NW-1)λ in all " .. cases .. " cases")
-- groups: N_total groups over P units, M at once: 2 rounds of one group each double the time
local one = pipeline.simulate { graph = pipeline.chain("alu", 10), pipelines = { alu = { issue = 1, completion = 4 } },
  warps = 1, groups = 1, concurrent = 1, units = 1, frequency = 1e9 }
local two = pipeline.simulate { graph = pipeline.chain("alu", 10), pipelines = { alu = { issue = 1, completion = 4 } },
  warps = 1, groups = 4, concurrent = 1, units = 2, frequency = 1e9 }
t.is(two.cycles, 2 * one.cycles, "ceil(N_total / P) groups run one after the other when M = 1")
t.ok(math.abs(one.seconds - 40e-9) < 1e-18, "seconds = cycles / f")
-- two pipelines work in parallel; dependences across them serialize
local g = pipeline.graph { { loop = 4, body = { { name = "a", class = "alu", deps = { "a" } }, { name = "m", class = "mem", deps = { "m" } } } } }
local par = pipeline.simulate { graph = g, pipelines = { alu = { issue = 1, completion = 4 }, mem = { issue = 1, completion = 4 } } }
t.is(par.cycles, 16, "independent alu and mem chains overlap: 4 x 4 cycles")
local dep = pipeline.graph { { loop = 4, body = { { name = "m", class = "mem", deps = { "a" } }, { name = "a", class = "alu", deps = { "m" } } } } }
local ser = pipeline.simulate { graph = dep, pipelines = { alu = { issue = 1, completion = 4 }, mem = { issue = 1, completion = 10 } } }
t.is(ser.cycles, 4 * (10 + 4), "a load feeding an add feeding the next load: 4 x (10 + 4)")
local lim = pipeline.simulate { graph = g, pipelines = { alu = { issue = 1, completion = 1 }, mem = { issue = 1, completion = 1 } }, warps = 4, issue_limit = 1 }
t.is(lim.cycles, 32, "an issue limit of 1 per cycle serializes two pipelines: 32 instructions, 32 cycles")
-- real-valued latencies (ns from a measurement) follow the same closed form
local fr = 0
for _, W in ipairs({ 1, 2, 3, 8, 16 }) do
  local sim = pipeline.simulate { graph = pipeline.chain("fpu", 50), pipelines = { fpu = { issue = 0.25, completion = 2.02 } }, warps = W }
  if math.abs(sim.cycles - pipeline.closed_form(50, W, 0.25, 2.02)) > 1e-9 then fr = fr + 1 end
end
t.is(fr, 0, "fractional latencies (λ=0.25, Λ=2.02) simulate to the closed form too")
-- latencies back from a boat hull made with the closed form
local hull = {}
for _, W in ipairs({ 1, 2, 4, 8, 16 }) do hull[#hull + 1] = { w = W, t = pipeline.closed_form(100, W, 2, 8) } end
local li, lc = pipeline.latencies(hull, 100)
t.ok(math.abs(li - 2) < 0.01 and math.abs(lc - 8) < 0.1, string.format("boat hull gives back λ=2, Λ=8 (%.3f, %.3f)", li, lc))
local v = pipeline.validate(hull, 100, 100)
t.ok(#v.points == 5 and v.mean < 0.02, string.format("validate: a closed-form hull is simulated back within 2%% (mean |error| %.2f%%)", v.mean * 100))
hull[3].t = hull[3].t * 1.5 -- one measurement 50% off
local v2 = pipeline.validate(hull, 100, 100)
t.ok(math.abs(v2.points[3].err + 1 / 3) < 0.02 and v2.mean > 0.05 and v2.deviation > 0.05, "validate: a sample off the model shows in its error, the mean and the deviation")
-- λ from the hull's best rate, not its most concurrent sample: one slowed at the end (registers
-- spilled, a neighbour) would set it
hull = {}
for _, W in ipairs({ 1, 2, 4, 8, 12, 16 }) do hull[#hull + 1] = { w = W, t = pipeline.closed_form(100, W, 0.5, 4) } end
hull[#hull].t = hull[#hull].t * 1.26
li, lc = pipeline.latencies(hull, 100)
t.ok(math.abs(li - 0.5) < 0.01 and math.abs(lc - 4) < 0.01, string.format(
  "a slow most concurrent sample does not set λ: 0.5 and 4 back (%.3f, %.3f)", li, lc))
-- recorded hulls (tests/fixtures/pipeline: op,chains,measured_ns,clock_GHz)
local function recorded(name)
  local rows = {}
  for line in assert(sys.readfile(os.getenv("ROT_HOME") .. "/tests/fixtures/pipeline/" .. name)):gmatch("[^\n]+") do
    local op, w, ns, g = line:match("^(%a+),(%d+),([%d.]+),([%d.]+)$")
    if op then rows[#rows + 1] = { op = op, point = { chains = tonumber(w) }, time = tonumber(ns) * 1e-9, ghz = tonumber(g) } end
  end
  return rows
end
local function by_class(rows, clock)
  local names, index = {}, {}
  for _, r in ipairs(rows) do
    if not index[r.op] then names[#names + 1] = r.op; index[r.op] = #names end
    r.point.op = index[r.op]
  end
  local _, classes = pipeline.hulls(rows, names, 200000, "chains", clock)
  local out = {}
  for _, c in ipairs(classes) do out[c.op] = c end
  return out
end
-- a recorded sweep whose 16-chain points spilled: their hull's end is 26% slow, the rest fits
local spill = by_class(recorded("epyc-zen4-spill.csv"), 3.612)
t.ok(math.abs(spill.fma.issue_cycles - 0.5) < 0.02 and spill.fma.mean < 8 and spill.add.mean < 8 and spill.mul.mean < 8,
  string.format("EPYC hull with spilled 16-chain points: FMA λ %.2f cycles (0.63 from the spilled point), mean errors "
    .. "fma %.1f%%, add %.1f%%, mul %.1f%% (10.5, 25.6, 21.8 before)", spill.fma.issue_cycles, spill.fma.mean, spill.add.mean,
    spill.mul.mean))
-- a Golden Cove hull reconstructed from a report's figures: one imul reading for every point
-- gives the report's latencies; each point's own clock gives the published ones
local glc = recorded("intel-glc-reconstructed.csv")
local one = by_class(glc, 2.996)
t.ok(math.abs(one.fma.completion_cycles - 5.03) < 0.02 and math.abs(one.mul.completion_cycles - 4.64) < 0.02
  and math.abs(one.add.completion_cycles - 2.08) < 0.02, string.format("Golden Cove, one clock reading for the sweep: fma "
    .. "%.2f, mul %.2f, add %.2f cycles (the issue's 5.03, 4.64, 2.08)", one.fma.completion_cycles,
    one.mul.completion_cycles, one.add.completion_cycles))
local own = by_class(glc, function(r) return r.ghz end)
local published = { fma = 4, add = 2, mul = 4, div = 15, load = 5 }
local worst, said = 0, {}
for op, cyc in pairs(published) do
  worst = math.max(worst, math.abs(own[op].completion_cycles / cyc - 1), own[op].mean / 100)
  said[#said + 1] = string.format("%s %.2f", op, own[op].completion_cycles)
end
table.sort(said)
t.ok(worst < 0.01, "Golden Cove, each point at the clock read beside it: the published latencies within 1% and the model "
  .. "within 1%: " .. table.concat(said, ", "))
t.ok(one.fma.issue and own.fma.issue and math.abs(own.fma.issue - own.fma.issue_cycles / 2.3825) < 1e-9,
  "with a clock per point, ns are at the points' median clock")
-- a recorded Zen 4 sweep, each point at its own clock; Zen 4's published latencies (FMA
-- 4, FADD and FMUL 3, DIVSD 13, L1 load 4) within 10%, the model within Table II's 0.19-11.59%
local zen4 = by_class(recorded("epyc-zen4.csv"), function(r) return r.ghz end)
local zen4_published = { fma = 4, add = 3, mul = 3, div = 13, load = 4 }
worst, said = 0, {}
local worst_err = 0
for op, cyc in pairs(zen4_published) do
  worst = math.max(worst, math.abs(zen4[op].completion_cycles / cyc - 1))
  worst_err = math.max(worst_err, zen4[op].mean)
  said[#said + 1] = string.format("%s %.2f (%.1f%%)", op, zen4[op].completion_cycles, zen4[op].mean)
end
table.sort(said)
t.ok(worst < 0.10 and worst_err < 11.59, "EPYC (Zen 4) recorded with a clock per point: latencies within 10% of the "
  .. "published, mean errors within Table II's range: " .. table.concat(said, ", "))
local measured = {}
for op, c in pairs(zen4) do measured[#measured + 1] = op .. " " .. c.issue_is end
table.sort(measured)
t.is(table.concat(measured, ", "), "add measured, div measured, fma measured, load measured, mul measured",
  "the full sweep (up to 14 chains) fills every pipe: each issue rate measured")
-- an issue rate from chains that never filled the pipe is an upper bound, not a measurement:
-- a quick pipeline's load, 8 chains 22952 ns against one chain's 21614 (N = 20000), gives no
-- measured 'issue 0.53 cycles'
local quick_load = { { w = 1, t = 21614 }, { w = 2, t = 21650 }, { w = 8, t = 22952 } }
local _, _, filled = pipeline.latencies(quick_load, 20000)
t.ok(filled == false, "quick load (8 chains 1.06 times one chain's time): the issue latency is an upper bound")
local _, q = pipeline.hulls({ { point = { op = "load", chains = 1 }, time = 21614e-9 },
  { point = { op = "load", chains = 2 }, time = 21650e-9 }, { point = { op = "load", chains = 8 }, time = 22952e-9 } },
  { "fma", "load" }, 20000, "chains", 3.69)
t.ok(#q == 1 and q[1].op == "load" and q[1].issue_is == "at most", "hulls over rows named by op (pipeline.csv's op is "
  .. "the name): load's issue marked 'at most'")
hull = {}
for _, W in ipairs({ 1, 2, 8 }) do hull[#hull + 1] = { w = W, t = pipeline.closed_form(100, W, 0.5, 4) } end
t.ok(select(3, pipeline.latencies(hull, 100)) == false, "an FMA hull ending at its knee (8 chains, Λ/λ = 8): an upper bound")
hull = {}
for _, W in ipairs({ 1, 2, 8, 10, 12, 14 }) do hull[#hull + 1] = { w = W, t = pipeline.closed_form(100, W, 0.5, 4) } end
t.ok(select(3, pipeline.latencies(hull, 100)) == true, "the same hull on to 14 chains, past the knee: measured")

-- quantitative roofline prediction on hand-worked numbers (formulas 2-19)
local dir0 = os.getenv("TMPDIR") or "/tmp"
local predict = require "rot.models.predict"
local prof = assert(predict.read_ncu_csv(assert(sys.readfile(os.getenv("ROT_HOME") .. "/tests/fixtures/ncu-raw.csv"))))
t.is(#prof, 1, "ncu raw CSV: one kernel row (header, units and notes skipped)")
t.is(prof[1].kernel, "saxpy(int, float, float*, float*)", "the kernel name, commas and all")
t.is(prof[1].metrics["dram__sectors_read.sum"], 1e8, "numbers with thousands separators")
local kp = assert(predict.kernel(prof[1].metrics))
t.is(kp.type, "fp32", "K_type: fp32 (no fp64 instructions)")
t.is(kp.W_comp, 1.6e9, "W_comp = M_fp32 + M_fma32")
t.is(kp.W_traf, 4.8e9, "W_traf = 32 x (read + write sectors)")
t.ok(math.abs(kp.E_mix - 0.8) < 1e-12, "E_mix = (M_fp32 + M_fma32) / (2 M_fp32) = 80%")
t.ok(math.abs(kp.D_ops - 0.3125) < 1e-12 and math.abs(kp.D_ldst - 0.125) < 1e-12 and math.abs(kp.D_other - 0.5625) < 1e-12,
  "densities over I_total = 32 x M_inst: 31.25%, 12.5%, 56.25%")
local dev = { T_SP = 20000, T_DP = 10000, T_int = 10000, T_add = 15000, T_ldst = 5000, B_mem = 1000 }
local pr = predict.predict(kp, dev)
t.ok(pr.W_ldst == 2 and math.abs(pr.W_other - 2 / 3) < 1e-12, "weights: W_ldst = T_SP/2 / T_ldst = 2, W_other = 2/3")
t.ok(math.abs(pr.E_instr - 1 / 3) < 1e-12, "E_instr = C_op / (C_op + C_ldst + C_other) = 1/3")
t.ok(math.abs(pr.T_op_adj - 16000 / 3) < 1e-9, "T'_op = E_mix x E_instr x T_SP = 5333 GFLOP/s")
t.is(pr.bound, "memory", "O_krn = 1/3 < O_dev = 5.33: memory bound")
t.ok(math.abs(pr.gops - 1000 / 3) < 1e-9 and math.abs(pr.time - 4.8e-3) < 1e-12, "predicted 333 GFLOP/s, 4.8 ms")
t.ok(math.abs(predict.ape(4.8e-3, 6e-3) - 20) < 1e-9, "absolute percentage error")
t.is(predict.kernel({}), nil, "missing metrics give no parameters")
t.is(pr.time_launch, nil, "a device file without a launch row: the paper's model only")
-- the launch term and the per-kernel account (which term misses)
local devl = {}
for k, v in pairs(dev) do devl[k] = v end
devl.t_launch = 2e-3 -- hand-worked: a 4.8 ms kernel with a 2 ms launch cost, measured 7 ms
local pl = predict.predict(kp, devl)
t.ok(math.abs(pl.time_launch - 6.8e-3) < 1e-12 and pl.time == pr.time, "with the launch term: t_launch + W/P = 6.8 ms; the paper's time unchanged")
t.ok(predict.account(kp, pl, devl, 7e-3):match("^launch: 2e%+03 us of the 7e%+03 us measured is the launch cost"),
  "account: a launch cost of a quarter or more of the time is named: " .. predict.account(kp, pl, devl, 7e-3))
t.ok(predict.account(kp, pr, dev, 14.4e-3):match("^memory term: its DRAM traffic moved at 33%% of B_mem %(latency"),
  "account: 3x slower than memory bound: the DRAM traffic moved at a third of B_mem: " .. predict.account(kp, pr, dev, 14.4e-3))
t.ok(predict.account(kp, pr, dev, 2.4e-3):match("^memory term: its DRAM traffic moved at 200%% of B_mem %(the triad"),
  "account: faster than the memory bound says the triad's B_mem underrates it")
t.is(predict.account(kp, pr, dev, 5e-3), "memory-bound prediction within 25%", "account: within 25% nothing is blamed")
local kc = { type = "fp32", W_comp = 1e9, W_traf = 1e6, E_mix = 1, D_ops = 1, D_ldst = 0, D_other = 0 }
local pc = predict.predict(kc, dev) -- compute bound at T_op_adj = 20000 GFLOP/s: 50 us
t.ok(pc.bound == "compute" and predict.account(kc, pc, dev, 200e-6):match("^compute term: 25%% of T_op_adj = E_mix 1%.00 x E_instr 1%.00"),
  "account: 4x slower than compute bound: 25% of T_op_adj, with its factors")
local recs, sum = predict.report({ { kernel = "k", metrics = prof[1].metrics } }, devl, { { kernel = "k", time = 7e-3 } })
t.ok(math.abs(recs[1].ape - 31.428571) < 1e-4 and math.abs(recs[1].ape_launch - 2.857143) < 1e-4 and
  math.abs(sum.mean_launch - recs[1].ape_launch) < 1e-12, "report: both APEs (31.4% and 2.9%) and their means")
t.ok(predict.summary(sum):match("mean APE 31%.43%% over 1 kernel .*; with the launch term 2%.86%%"), "summary line names both")

-- Nsight Compute units are scaled to base units; a rot CSV of GPU points reads back as a profile
t.ok(predict.unit_scale("usecond") == 1e-6 and predict.unit_scale("Mbyte") == 1e6 and predict.unit_scale("sector") == 1
  and predict.unit_scale("%") == 1, "ncu units: usecond, Mbyte scaled; sector and % as they are")
local gpath = dir0 .. "/rot-unit-gpu-" .. os.time() .. ".csv"
report.csv({ { point = { n = 4096 }, desc = { workloads = { { kernel = "gpu_triad" } } }, time = 2e-3,
  gpuMetrics = { ["dram__sectors_read.sum"] = 1e6, ["smsp__inst_executed.sum"] = 5e5 },
  entry = { meta = { gpuName = "NVIDIA H100", gpuSMs = 132, gpuMaxWarpsPerSM = 64 } } } }, gpath, { "n" })
local back_rows = assert(predict.read_profile(assert(sys.readfile(gpath))))
t.ok(#back_rows == 1 and back_rows[1].kernel == "gpu_triad n=4096" and back_rows[1].time == 2e-3,
  "rot CSV profile: the kernel named with its axes, its time")
t.ok(back_rows[1].metrics["dram__sectors_read.sum"] == 1e6 and back_rows[1].sms == 132 and back_rows[1].warps_per_sm == 64,
  "rot CSV profile: every gpu: column, the SM count and warps per SM")
sys.remove(gpath)

-- shared-memory atomics: T(n, e, c) interpolation and utilization on hand-made values
local atomics = require "rot.models.atomics"
local rows = {}
for n = 1, 4 do
  for _, e in ipairs({ 1, 32 }) do
    for c = 0, n do rows[#rows + 1] = { n = n, e = e, c = c, t = 10 * n + (e == 32 and 100 or 0) + 5 * c } end
  end
end
local tab = atomics.table(rows)
t.is(atomics.T(tab, 2, 1, 0), 20.0, "a sampled point is returned as measured")
t.is(atomics.T(tab, 0, 1, 0), 0, "n = 0: no time (equation 1)")
t.ok(math.abs(atomics.T(tab, 2.5, 1, 0) - 25) < 1e-12, "interpolated in n: T(2.5, 1, 0) = 25")
t.ok(math.abs(atomics.T(tab, 2, 16.5, 0) - (20 + 50)) < 1e-12, "interpolated in e between the sampled e=1 and e=32: halfway")
t.ok(math.abs(atomics.T(tab, 3, 1, 1.5) - (30 + 7.5)) < 1e-12, "interpolated in c")
t.ok(math.abs(atomics.S(tab, 2.5, 1, 0) - 10) < 1e-12, "S = T / n (equation 3)")
t.raises(function() atomics.T(tab, 5, 1, 0) end, "outside the measured", "n beyond the table is an error, not an extrapolation")
local u = atomics.utilization(tab, { warps_per_sm = 4, ops = 1600, sms = {
  { fao = 30, cas = 10, occupancy = 0.5, cycles = 500 }, { fao = 10, cas = 0, occupancy = 0.25, cycles = 100 } } })
t.ok(math.abs(u.e - 32) < 1e-12, "e = operations / jobs = 1600 / 50")
local s1 = u.sms[1]
t.ok(s1.N == 40 and s1.n == 2 and math.abs(s1.c - 0.5) < 1e-12, "SM 1: N = 40 jobs, n = 0.5 x 4 warps, c = n x CAS share")
t.ok(math.abs(s1.S - (20 + 100 + 2.5) / 2) < 1e-12, "S(2, 32, 0.5) from the table")
t.ok(math.abs(s1.B - 40 * s1.S) < 1e-9 and math.abs(s1.U - s1.B / 500) < 1e-12, "B = N x S, U = B / T")
t.ok(math.abs(u.sms[2].U - 10 * (10 + 100) / 100) < 1e-12, "SM 2: one warp, e = 32, no CAS: U = 10 x 110 / 100")
-- a sampled grid, as rot's micro-benchmark measures it: n in {4, 8}, c in {0, n/2, n}
local grid = {}
for _, n in ipairs({ 4, 8 }) do
  for _, c in ipairs({ 0, n // 2, n }) do grid[#grid + 1] = { n = n, e = 32, c = c, t = 100 * n + 10 * c } end
end
local gt = atomics.table(grid)
t.ok(math.abs(atomics.T(gt, 6, 32, 0) - 600) < 1e-12, "sparse n: T(6) halfway between the samples at 4 and 8")
t.ok(math.abs(atomics.T(gt, 2, 32, 0) - 200) < 1e-12, "below the smallest sampled n: between T(0) = 0 and T(4)")
t.ok(math.abs(atomics.T(gt, 8, 32, 2) - 820) < 1e-12, "sparse c: T(8, 32, 2) halfway between c = 0 and c = 4")
t.ok(math.abs(atomics.T(gt, 8, 1, 0) - 800) < 1e-12, "e below the sampled e is clamped, never extrapolated")
local back = assert(atomics.read_csv(atomics.csv(grid)))
t.ok(#back == #grid and back[4].n == 8 and back[4].c == 0 and back[4].t == 800, "the T(n, e, c) table survives its CSV")
t.ok(select(2, atomics.read_csv("x,y\n1,2\n")):find("not a T"), "a file that is no T(n, e, c) table is refused")
-- from metric values (aggregated, as CUPTI and Nsight Compute give them): 2 SMs, 64 warps each
local o = assert(atomics.from_metrics({ [atomics.metrics.bytes] = 4 * 6400, [atomics.metrics.fao] = 150,
  [atomics.metrics.cas] = 50, [atomics.metrics.occupancy] = 6.25, [atomics.metrics.cycles] = 1000,
  device__attribute_multiprocessor_count = 2, device__attribute_max_warps_per_multiprocessor = 64 }))
t.ok(o.per_sm == false and o.ops == 3200 and o.sms[1].fao == 75 and o.sms[1].cas == 25 and o.sms[1].occupancy == 0.0625,
  "metrics: per-SM averages, O from 4-byte atomic bytes, occupancy from percent")
local ua = atomics.utilization(gt, o)
t.ok(math.abs(ua.e - 32) < 1e-12 and ua.sms[1].n == 4 and not ua.per_sm, "e = O / N = 32, n = 6.25% of 64 warps; marked aggregated")
t.ok(math.abs(ua.sms[1].c - 1) < 1e-12 and math.abs(ua.sms[1].U - 100 * (400 + 10 * 1) / 4 / 1000) < 1e-12,
  "c = n x CAS share = 1; U = N x T(4, 32, 1) / 4 / cycles")
o.sms[1].occupancy = 0.25
t.raises(function() atomics.utilization(gt, o) end, "outside the measured", "n = 16 beyond a table measured to 8: an error")
t.ok(select(2, atomics.from_metrics({})):find("missing"), "missing metrics are named")

-- quadrant split: a device above a kernel's line is memory bound for it
local quadrant = require "rot.models.quadrant"
local cpu = assert(quadrant.device("cpu", ceilings.read_csv(os.getenv("ROT_HOME") .. "/tests/fixtures/peaks.csv")))
t.ok(cpu.gbs > 0 and cpu.gflops > 0, "a device from peaks.csv: DRAM triad bandwidth and the best double ceiling")
local gpu_dev = assert(quadrant.device("h100", { { name = "fp64_fma", kind = "compute", threads = 132, value = 60000 },
  { name = "HBM_triad", kind = "bandwidth", threads = 132, value = 3000 } }))
local cls = quadrant.classify({ gpu_dev }, { { name = "triad", intensity = 1 / 12 }, { name = "dgemm", intensity = 100 } })
t.is(cls[1].bound, "memory", "triad (I = 1/12) on a 60 TFLOP/s, 3 TB/s GPU: memory bound (line at 250 GFLOP/s)")
t.ok(math.abs(cls[1].attainable - 250) < 1e-9, "attainable = I x B = 250 GFLOP/s")
t.is(cls[2].bound, "compute", "dgemm (I = 100): compute bound")
t.is(cls[2].attainable, 60000, "attainable = the compute ceiling")

-- CSV quoting
local dir = os.getenv("TMPDIR") or "/tmp"
local path = report.csv({ { point = { name = 'a,"b"' }, desc = { workloads = { { kernel = "k" } }, flags = "-O2" } } },
  dir .. "/rot-unit-" .. os.time() .. ".csv", { "name" })
local text = sys.readfile(path)
t.ok(text:find('"a,""b"""', 1, true) ~= nil, "CSV quotes commas and quotes")
sys.remove(path)

-- a model's records: an aligned table and a CSV with full numbers, missing values as "-" and ""
local recs = { { name = "a", x = 1 / 3 }, { name = "longer", x = nil } }
local cols = { { "kernel", "name" }, { "x", "x", "%.2f" }, { "twice", function(r) return r.x and 2 * r.x end } }
local tmp = dir .. "/rot-unit-rec-" .. os.time()
local f = assert(io.open(tmp, "w"))
report.records(recs, cols, f)
f:close()
t.is(sys.readfile(tmp), "kernel     x   twice\na       0.33  0.6667\nlonger     -       -\n", "records: aligned, formatted, '-' when missing")
report.records_csv(recs, cols, tmp)
t.is(sys.readfile(tmp), "kernel,x,twice\na,0.3333333333333333,0.6666666666666666\nlonger,,\n",
  "records CSV: numbers in full (the shortest text that reads back the same), empty when missing")
sys.remove(tmp)

-- rot.csv: the one writer and reader: RFC 4180 quoting, numbers that read back the same
do
  local csv = require "rot.csv"
  local text = csv.text({ "a", "b,c", "d" }, { { 'say "hi"', 0.1, nil }, { "two\nlines", 1 / 3, true }, { 16.0, 7, false } })
  t.is(text, 'a,"b,c",d\n"say ""hi""",0.1,\n"two\nlines",0.3333333333333333,1\n16,7,0\n',
    "csv.text: a comma, a quote and a line break quoted, quotes doubled, numbers in full, nil empty, booleans 1 and 0")
  local back = csv.parse(text)
  t.ok(#back == 4 and back[1][2] == "b,c" and back[2][1] == 'say "hi"' and back[2][3] == "" and back[3][1] == "two\nlines"
    and tonumber(back[3][2]) == 1 / 3, "csv.parse reads it back: fields whole, the third of one exactly")
  local crlf = csv.parse('x,y\r\n1,"2\r\n3"\r\n\r\nlast,\r\n')
  t.ok(#crlf == 3 and crlf[2][2] == "2\r\n3" and crlf[3][2] == "", "CRLF ends records, not inside quotes; empty lines skipped")
  local none, why = csv.parse('a,"open\n')
  t.ok(none == nil and why:find("unterminated quote"), "an unterminated quote: nil and why")
  for _, v in ipairs({ 0.1 + 0.2, 1e-300, 123456789.123, 2 / 3, 1e21 }) do
    t.is(tonumber(csv.number(v)), v, "csv.number(" .. csv.number(v) .. ") reads back the same")
  end
  local p = ceilings.parse_csv("# written by hand, with a note\nname,kind,threads,value,unit,spread\nL1_triad,bandwidth,1,100.5,GB/s,\n")
  t.ok(p and #p == 1 and p[1].value == 100.5 and p[1].spread == nil, "peaks.csv: comments, the six columns of older files")
end

-- a directory that cannot be written: why in lower case, the path said once, a hint that fits
do
  local mkdir, writable = sys.mkdir, sys.writable
  local function why(mk, wr)
    sys.mkdir, sys.writable = mk, wr
    local ok, err = pcall(util.ensure_dir, "/ro/out", "output directory", "outputDir")
    sys.mkdir, sys.writable = mkdir, writable
    return not ok and err.message:gsub(" %(unit%.lua:%d+%)$", "") or "", not ok and err.hint or ""
  end
  local m, h = why(function() return true end, function() return false, "Read-only file system" end)
  t.is(m, "cannot write output directory '/ro/out': read-only file system", "a read-only file system is said as such")
  t.ok(h:find("outputDir=DIR") and h:find("read%-only") and not h:find("permissions"), "its hint names the setting, not permissions: " .. h)
  m, h = why(function() return nil, "/ro/out: Permission denied" end, writable)
  t.is(m, "cannot write output directory '/ro/out': permission denied", "mkdir's refusal: the path once")
  t.ok(h:find("fix its permissions") ~= nil, "and a hint at the permissions")
  t.ok(util.reason("/c", "/c: Permission denied", "unreadable") == "permission denied" and
    util.reason("/c", nil, "unreadable") == "unreadable", "the reason a cache directory cannot be read: the path once, lower case")
end


-- a table's marks are explained under it only where it shows the column that carries them
local function printed(columns)
  local buf = {}
  local out = { write = function(_, ...) for _, x in ipairs({ ... }) do buf[#buf + 1] = x end end }
  report.table({ { point = { n = 1 }, time = 1e-3, spread = 0.09, converged = false, fraction = 1.3, above = true,
    limiter = "L2 bw (unstable)", boundUnstable = true } }, columns, { "n" }, out)
  return table.concat(buf)
end
local all, few = printed(nil), printed({ "time" })
t.ok(all:find("! best-k did not converge", 1, true) and all:find("\n%^ above its bound") and all:find("\n%(unstable%)"),
  "the default table: the lines for '!', '^' and '(unstable)'")
t.ok(not few:find("!", 1, true) and not few:find("^", 1, true) and not few:find("unstable", 1, true),
  "a table of the time alone: none of them (" .. few:gsub("\n", " | ") .. ")")

-- a kernel without flops (stream's copy) has its bound in GB/s, said with its unit, beside its
-- % of it (its bound column said '-' next to 'of bound 77%'); a bandwidth table's bound GB/s
local copy = { point = { n = 1 }, time = 86.4e-9, bytes = 16384, flops = 0, gbs = 189.6, gflops = 0, timeBound = 16384 / 245.5e9,
  fraction = 0.772, limiter = "L1 bw" }
local function cells(columns)
  local buf = {}
  report.table({ copy }, columns, nil, { write = function(_, ...) for _, x in ipairs({ ... }) do buf[#buf + 1] = x end end })
  return table.concat(buf)
end
t.ok(cells({ "bound", "limiter", "fraction" }):find("246 GB/s%s+L1 bw%s+77%%"), "a copy row: bound 246 GB/s, of bound 77%: "
  .. cells({ "bound", "fraction" }):gsub("\n", " | "))
t.ok(cells({ "GB/s", "bound GB/s" }):find("189.60%s+245.5"), "the bound GB/s column: the bandwidth its bound allows")

-- the line that says a first run measures the peaks: once, what it costs, what else to do
local full, quick = peaks.first_notice(false), peaks.first_notice(true)
local c = peaks.FIRST_COST
t.ok(full:find("^rot: measuring this machine's peaks first: once") and full:find(c.full .. " on " .. c.machine, 1, true) and
  full:find("-quick=true", 1, true) and full:find("-peaksFile=FILE", 1, true), "the full peaks' notice: " .. full)
t.ok(quick:find("quick peaks first: once") and quick:find(c.quick, 1, true) and quick:find("-peaksFile=FILE", 1, true),
  "the quick peaks' notice: " .. quick)
-- one figure for the first peaks' cost: the notice's is README's, with the machine it was measured on
local readme = assert(require("rot.sys").readfile("README.md")):gsub("%s+", " ")
local full_s, points = c.full:match("^(%d+ s) and (%d+) points$")
local quick_s, qpoints = c.quick:match("^(%d+ s) and (%d+) points$")
t.ok(readme:find(full_s .. " and " .. points .. " points (`the machine's ceilings: " .. points .. " points", 1, true)
  and readme:find("KVM guest with a 32 MiB L3", 1, true) and readme:find(quick_s .. " and " .. qpoints .. " points there", 1, true)
  and not readme:find("about three minutes", 1, true) and not readme:find("39-54 s", 1, true),
  "README states the first peaks' cost as the notice does, one figure with its machine (" .. c.full .. ", " .. c.quick .. ")")

dofile("tests/lua/plots.lua") -- label placement and its checker
dofile("tests/lua/regions.lua") -- an application point's rows
dofile("tests/lua/counted.lua") -- what the counting pass makes of a row

t.done()
