-- Unit tests of rot.results.quantities: a row's quantities from raw runs (time, spread,
-- bandwidth, performance, intensity), best-k's verdict, disturbed runs, measured counts.
-- judges no time
local t = require "tap"
local quantities = require "rot.results.quantities"

-- quantities from raw runs
local row = quantities.derive({ entry = {
  meta = { flops = 2000, bytes = 24000, workingSet = 24000, converged = 1 },
  runs = { { ns = 4000, reps = 4, tsc = 8000 }, { ns = 1100, reps = 1, tsc = 2200 }, { ns = 1020,
    reps = 1, tsc = 2040 } },
} }, 3)
t.ok(math.abs(row.time - 1000e-9) < 1e-18, "time is the fastest run per invocation")
t.is(row.runs, 3, "runs counted")
t.ok(math.abs(row.spread - 0.1) < 1e-12, "spread of the 3 fastest: (1100-1000)/1000")
t.ok(math.abs(row.gbs - 24) < 1e-9, "bandwidth = bytes / time")
t.ok(math.abs(row.gflops - 2) < 1e-9, "performance = flops / time")
t.ok(math.abs(row.intensity - 2000 / 24000) < 1e-15, "intensity = flops / bytes")
t.ok(math.abs(row.tscHz - 2e9) < 1, "TSC rate from all runs")

-- the one rule of rates, for a point, a region or an adopted count: no bytes, no bandwidth
local compute = { time = 1e-6, flops = 4000, bytes = 0 }
quantities.rates(compute)
t.ok(math.abs(compute.gflops - 4) < 1e-12 and compute.gbs == nil and compute.intensity == nil,
  "a row of 0 bytes: its GFLOP/s, no GB/s (not 0) and no intensity")
local untimed = { flops = 4000, bytes = 8000, gflops = 1, gbs = 1 }
quantities.rates(untimed)
t.ok(untimed.gflops == nil and untimed.gbs == nil and untimed.intensity == 0.5,
  "a row without time: no rates (none left over), its intensity still")
t.is(row.counts, "declared", "counts are labelled declared")

-- best-k's verdict is the runs' as they are (a cached entry's runs merged with new ones), not
-- the last batch's flag: 0.37% within epsilon 2% is converged whatever the core said
local merged = { meta = { flops = 1, bytes = 1, converged = 0 },
  runs = { { ns = 1000, reps = 1 }, { ns = 1003, reps = 1 }, { ns = 1004, reps = 1 }, { ns = 2000, reps = 1 } } }
t.is(quantities.derive({ entry = merged }, 3, false, 0.02).converged, true,
  "k fastest within epsilon: converged, though the last batch said not")
t.is(quantities.derive({ entry = merged, desc = { policy = { k = 4, epsilon = 0.02 } } }, 3, false,
  0.02).converged, false,
  "the point's own k (4 runs: 100% apart) is the one that counts")
merged.meta.converged = 1
t.is(quantities.derive({ entry = merged }, 3, false, 0.001).converged, false,
  "beyond epsilon: not converged, though the last batch said so")
t.is(quantities.derive({ entry = { meta = merged.meta, runs = { { ns = 1000, reps = 1 } } } }, 3,
  false, 0.02).converged, false,
  "fewer runs than k: not converged")

-- ignoreDisturbed: the fastest undisturbed run counts; timer overhead is subtracted
local entry = { meta = { flops = 1, bytes = 1, timerOverheadNs = 100, converged = 1 },
  runs = { { ns = 600, reps = 1, disturbed = 1 }, { ns = 1100, reps = 1, disturbed = 0 }, { ns = 1200,
    reps = 1, disturbed = 0 } } }
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

t.done()
