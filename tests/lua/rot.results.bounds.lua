-- Unit tests of rot.results.bounds: the ceilings a point is bounded by (read, write or triad;
-- its thread count's; its level's), bounds on hand-worked examples, when a point is above its
-- bound and why.
-- judges no time
local t = require "tap"
local sys = require "rot.sys"
local bounds = require "rot.results.bounds"
local ceilings = require "rot.machine.ceilings"
local peaks = require "rot.peaks"

-- the peaks the bounds below are drawn from: peaks.csv written and read back
local prow = require("samplepeaks").read_back()

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
t.ok(math.abs(rb.fraction - 0.8) < 1e-9,
  "at 120 GB/s it is at 80% of the 150 GB/s read ceiling, not 60% of triad's 200.5 ("
  .. rb.fraction .. ")")
t.is(rb.ceiling, "L1 read bw", "the ceiling is named for the reasons given when a point beats it")
sum_row.cacheMode = "cold"
t.is(bounds.of(sum_row, pat, 0.02).limiter, "DRAM bw", "a level the read sweep left without a ceiling: triad's there, "
  .. "not the compute peak")
sum_row.cacheMode, sum_row.bytesMeasured = "warm", true
t.is(bounds.of(sum_row, pat, 0.02).limiter, "L1 bw", "bytes measured by counters: triad's ceilings (the read and write "
  .. "ones are in declared bytes)")
sum_row.bytesMeasured, sum_row.bytesWritten = nil, 8e6
t.is(bounds.of(sum_row, pat, 0.02).limiter, "L1 bw",
  "a write-only kernel where the peaks have no write ceilings: triad's")
local _, shown = ceilings.shown(pat, {})
t.is(#shown, 2, "the roofline draws triad's bandwidth ceilings")
local _, shown_read = ceilings.shown(pat, bounds.families({ { bytesDeclared = 8e6, bytesWritten = 0,
  gflops = 1, intensity = 0.125 },
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

-- bounds on hand-worked examples: P = min(P_o, I * B_level), T >= max(N_o/P_o, N_B/B)
local compute = { { gflops = 64 } }
local bw = { { level = "L1", gbs = 200 }, { level = "L2", gbs = 80 }, { level = "DRAM", gbs = 10 } }
local cs = { { name = "L1", size = 48 * 1024 }, { name = "L2", size = 2 * 1024 * 1024 }, { name = "DRAM" } }
-- triad with a 1 MiB working set: it lives in L2
local b = bounds.bound({ flops = 2e6, bytes = 24e6, time = 0.5e-3, gflops = 4, workingSet = 1048576,
  cacheMode = "warm" }, compute, bw, cs)
t.ok(math.abs(b.time_bound - 24e6 / 80e9) < 1e-15, "time bound = bytes / L2 bandwidth = 0.3 ms")
t.is(b.limiter, "L2 bw", "limited by L2 bandwidth")
t.ok(math.abs(b.bound - 2e6 / (24e6 / 80e9) / 1e9) < 1e-9, "bound = I * B_L2 = 6.67 GFLOP/s")
t.ok(math.abs(b.fraction - 4 / b.bound) < 1e-12, "fraction of the bound = 60%")
t.is(b.above, false, "60% is not above the bound")
local cold = bounds.bound({ flops = 2e6, bytes = 24e6, time = 3e-3, gflops = 0.67, workingSet = 1048576,
  cacheMode = "cold" }, compute, bw, cs)
t.is(cold.limiter, "DRAM bw", "cold caches: the bytes come from DRAM")
local dense = bounds.bound({ flops = 2e9, bytes = 24e6, time = 40e-3, gflops = 50, workingSet = 24e6,
  cacheMode = "warm" }, compute, bw, cs)
t.is(dense.limiter, "compute", "high intensity: compute bound")
t.ok(math.abs(dense.time_bound - 2e9 / 64e9) < 1e-15, "time bound = flops / peak")
t.is(dense.dominant, "compute", "the dominant term is named")
-- above the bound: beyond the point's spread, the ceiling's and epsilon
local bw2 = { { level = "L1", gbs = 200, spread = 0.03 }, { level = "L2", gbs = 80 }, { level = "DRAM", gbs = 10 } }
local function at(gbs, spread)
  return bounds.bound({ flops = 1e6, bytes = 12e6, time = 12e6 / (gbs * 1e9),
    gflops = 1e6 / (12e6 / gbs), spread = spread,
    workingSet = 16384, cacheMode = "warm" }, compute, bw2, cs, 0.02)
end
t.is(at(204, 0.001).above, false, "102% of an L1 ceiling whose samples reached +3%: within its spread")
t.is(at(212, 0.001).above, true, "106%: above (1.001 x 1.03 x 1.02 = 1.052)")
t.is(at(212, 0.05).above, false, "106% with a 5% spread of its own: not above")
local why = bounds.why_above({ ceiling = "L2 bw", level = "L2", workingSet = 60 * 1024 }, cs)
t.ok(why:find("wrong level attribution") and why:find("L1"),
  "just above the effective L1: the reason is the level attribution")
t.ok(bounds.why_above({ ceiling = "compute", level = "L1", workingSet = 1024 }, cs):find("another clock"),
  "a compute-bound point above its ceiling: another clock or overstated flops")
t.ok(bounds.why_above({ ceiling = "L2 bw", level = "L2", workingSet = 300 * 1024 }, cs)
  :find("^the L2 bw ceiling is probably low: its rounds ran slower than this point %(a busy "
    .. "machine, or a lower core clock"),
  "a stable cache ceiling beaten well inside its level: its rounds ran slow (a cache's bandwidth follows the clock)")
t.ok(bounds.why_above({ ceiling = "L2 bw", boundUnstable = true, level = "L2", workingSet = 300 * 1024 }, cs)
  :find("^the L2 bw ceiling is unstable: its rounds disagreed"),
    "an unstable ceiling beaten well inside its level: that is the reason")
why = bounds.why_above({ ceiling = "L2 bw", boundUnstable = true, level = "L2", workingSet = 60 * 1024 }, cs)
t.ok(why:find("^the L2 bw ceiling is probably the wrong one") and why:find("also unstable$"),
  "an unstable ceiling beaten just above the level below: the level attribution first (measuring the peaks again "
    .. "would not help), the instability said too")

t.done()
