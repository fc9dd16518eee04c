-- Unit tests of rot.results.gpuplaced on hand-worked regions of a CUDA program (records built
-- here, none captured from a device): a point per level at its intensity, the bound each
-- level's bytes over its ceiling or the flops over their precision's, whichever is largest.
-- judges no time
local t = require "tap"
local gpu = require "rot.gpu"
local gpuplaced = require "rot.results.gpuplaced"

-- the metrics of a region: flops by precision {d=, f=, h=} as FMAs, bytes per level
local function metrics(fma, L1, L2, HBM)
  local v = {}
  for _, m in ipairs(gpu.roofline_metrics) do v[m] = 0 end
  for p, n in pairs(fma) do v["sm__sass_thread_inst_executed_op_" .. p .. "fma_pred_on.sum"] = n end
  v["l1tex__t_bytes.sum"], v["lts__t_bytes.sum"], v["dram__bytes.sum"] = L1, L2, HBM
  v["sm__cycles_elapsed.avg"], v["sm__cycles_elapsed.avg.per_second"] = 2e6, 2e9
  v["gpu__time_duration.sum"] = 1e6
  return v
end
local function near(got, want, rel, name) t.ok(math.abs(got - want) <= rel * math.abs(want), name .. " ("
  .. got .. ")") end
-- round ceilings: GFLOP/s and GB/s
local C = { double = 30000, single = 60000, half = 120000, L1 = 30000, L2 = 10000, HBM = 4000 }

-- a triad on 2^27 doubles: 2^27 FMAs (2 flops each), 24 B an element at L1, L2 and HBM, in 1 ms
local n = 2 ^ 27
local p = assert(gpuplaced.place(metrics({ d = n }, 24 * n, 24 * n, 24 * n), 1e-3, C))
t.is(#p.points, 3, "a triad: a point at L1, L2 and HBM")
near(p.points[1].intensity, 2 / 24, 1e-12, "L1's intensity: 2 flops over 24 bytes")
near(p.gflops, 2 * n / 1e-3 / 1e9, 1e-9, "performance: its flops over its measured time")
near(p.points[3].gbs, 24 * n / 1e-3 / 1e9, 1e-9, "HBM's bandwidth: its bytes over the time")
t.is(p.bound.key, "HBM", "a triad is bound by HBM: its bytes over the lowest ceiling")
near(p.bound.time_bound, 24 * n / 4000e9, 1e-15, "the bound: HBM's bytes over HBM's ceiling")
near(p.bound.fraction, 24 * n / 4000e9 / 1e-3, 1e-12, "of bound: the bound over the measured time")

-- the same bytes held in L2 (HBM moves a hundredth): L2 bounds it
local q = assert(gpuplaced.place(metrics({ d = n }, 24 * n, 24 * n, 0.24 * n), 1e-3, C))
t.is(q.bound.key, "L2", "data held in L2: L2's bytes over its ceiling bound it")

-- fp32 compute: 64 FMAs an element over 8 bytes; the single-precision ceiling bounds it, not
-- the double one, and the flops count twice an FMA
local r = assert(gpuplaced.place(metrics({ f = 64 * n }, 8 * n, 8 * n, 8 * n), 1e-2, C))
t.is(r.bound.key, "single", "fp32 FMAs: bound by the fp32 ceiling")
near(r.flops, 128 * n, 1e-6, "an FMA is two flops")
near(r.bound.time_bound, 128 * n / 60000e9, 1e-15, "the bound: flops over the fp32 ceiling")

-- a level that moved nothing gets no point; no time, no placement
local s = assert(gpuplaced.place(metrics({ d = n }, 24 * n, 24 * n, 0), 1e-3, C))
t.is(#s.points, 2, "a level that moved no bytes has no point")
t.ok(not gpuplaced.place(metrics({ d = n }, 1, 1, 1), 0, C), "no measured time: not placed")
local m = metrics({ d = n }, 1, 1, 1)
m["dram__bytes.sum"] = nil
local none, why = gpuplaced.place(m, 1e-3, C)
t.ok(not none and why:find("dram__bytes.sum", 1, true), "a metric missing: not placed, and named")
t.done()
