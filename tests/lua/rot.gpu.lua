-- Unit tests of rot.gpu: recorded metric values evaluated into roofline quantities, the GPU
-- time bound, a GPU point above its ceiling (flagged, warned, ringed in the plot), theoretical
-- ceilings, stored GPU ceilings and their files.
-- judges no time
local t = require "tap"
local rot = require "rot"
local sys = require "rot.sys"
local ceilings = require "rot.machine.ceilings"
local peaks = require "rot.peaks"

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
local gc = gpu.ceilings({ { name = "shared_ldst", value = 800, spread = 0.01 }, { name = "HBM_triad",
  value = 3000, spread = 0.02 } }, {})
t.ok(gc.bounds.L1 == 800 and gc.spreads.L1 == 0.01 and gc.spreads.HBM == 0.02,
  "gpu.ceilings keeps each ceiling's spread")
local peaks_m = require "rot.results.bounds"
local gb2 = gpu.bound(g, gc.bounds) -- L1: 8e9 B at 800 GB/s = 10 ms, the measured time
t.ok(gb2.key == "L1" and math.abs(gb2.fraction - 1) < 1e-12, "a point exactly at its L1 ceiling")
t.ok(not peaks_m.above(1.0, 0.01, gc.spreads.L1, 0.02), "at its ceiling: not above")
t.ok(peaks_m.above(1.06, 0.01, gc.spreads.L1, 0.02), "6% above with 1% + 1% spreads and 2% epsilon: above")
t.ok(not peaks_m.above(1.04, 0.01, gc.spreads.L1, 0.02), "4% above: within the spreads")
-- the same through results:gpu_bounds and the hierarchical plot: a row 10% faster than its L1
-- roof is flagged, and only its L1 dot is ringed
local grow = { gpu = g, spread = 0.01, desc = { workloads = { { kernel = "k" } }, device = "gpu" },
  point = { case = "k" } }
local gres = rot.results({ grow })
local l1 = 8e9 / 1.1e-2 / 1e9 -- GB/s at which the row's 8e9 L1 bytes take 11 ms: it took 10
local said = t.capture("stderr", function()
  gres:gpu_bounds({ double = 60000, single = 60000, half = 120000, L1 = l1, L2 = 5000, HBM = 3000 }, gc.spreads)
end)
t.ok(grow.above and grow.dominant == "L1 bandwidth" and math.abs(grow.fraction - 1.1) < 1e-9,
  "results:gpu_bounds flags a GPU row 10% above its L1 roof")
t.ok(said:find("^rot: warning: 1 GPU point is above its bound beyond the spread %(up to 110%%, "
  .. "marked %^%); the L1 bandwidth "
  .. "ceiling is too low") ~= nil, "and warns once, naming the ceiling: " .. said)
local out0, pdir = rot.get("outputDir"), (os.getenv("TMPDIR") or "/tmp") .. "/rot-unit-gpuplot-" .. os.time()
rot.set("outputDir", pdir)
gres:gpu_roofline { name = "gpuflag", compute = { { label = "FP64", gflops = 60000 } },
  bandwidth = { { label = "L1", gbs = l1 } } }
local gp = assert(sys.readfile(rot.get("outputDir") .. "/gpuflag.gp"))
local ringed = gp:match("%$above << EOD\n(.-)EOD")
t.ok(ringed and select(2, ringed:gsub("\n", "")) == 1 and ringed:find(string.format("^%.9g ", g.intensity.L1)),
  "the plot rings the L1 dot only: " .. tostring(ringed))
-- a title, a ceiling's and a point's name with a backquoted command and a newline: drawn, never run
local marker = pdir .. "/ran"
grow.desc.workloads[1].kernel = "k`touch " .. marker .. "`"
gres:gpu_roofline { name = "gpuquote", title = "a `touch " .. marker .. "` b\nc",
  compute = { { label = "FP64 `touch " .. marker .. "`", gflops = 60000 } },
    bandwidth = { { label = "L1", gbs = l1 } } }
t.ok(sys.stat(pdir .. "/gpuquote.svg") == "file" and sys.stat(marker) == nil,
  "text with a backquoted command is drawn and never run by gnuplot")

for _, f in ipairs(sys.listdir(pdir) or {}) do sys.remove(pdir .. "/" .. f) end
sys.remove(pdir)
rot.set("outputDir", out0)
-- theoretical ceilings of an H100 SXM from its properties
local th = gpu.theoretical({ gpuCC = "9.0", gpuSMs = 132, gpuClockKHz = 1980000,
  gpuMemClockKHz = 2619000, gpuBusWidth = 5120 })
t.ok(math.abs(th.fp64 - 2 * 64 * 132 * 1.98) < 1e-9, "FP64: 64 FMA lanes x 2 x 132 SMs x 1.98 GHz = 33.5 TFLOP/s")
t.ok(math.abs(th.fp32 - 2 * th.fp64) < 1e-9, "FP32 twice FP64 on Hopper")
t.ok(math.abs(th.hbm - 3352.32) < 1e-6, "HBM: 2.619 GHz x 2 x 5120 bit / 8 = 3352 GB/s")
t.ok(math.abs(th.shared - 128 * 132 * 1.98) < 1e-9, "shared memory: 128 B/clk/SM x 132 SMs x 1.98 GHz = 33.4 TB/s")
t.ok(math.abs(th.int32_add - 64 * 132 * 1.98) < 1e-9,
  "integer adds: 64 a clock an SM (one op each, not two) = 16.7 T adds/s")
t.ok(select(2, gpu.against_limit(194705, "int32_add", { gpuCC = "9.0", gpuSMs = 132, gpuClockKHz = 1980000 })),
  "195 T adds/s on an H100 (the folded chain an H100 showed) is impossible: not stored")
local h100 = { gpuCC = "9.0", gpuSMs = 132, gpuClockKHz = 1980000 }
local line, above = gpu.against_limit(63600, "shared", h100, 1.755e9)
t.ok(above, "63.6 TB/s of shared memory on an H100 (190 % of its limit) is impossible")
t.ok(line:find("theoretical 33454.1 (190.1%); at the measured 1.755 GHz 29652.5", 1, true) ~= nil,
  "the limit is stated beside the value, also at the measured clock")
line, above = gpu.against_limit(32900, "fp64", h100, nil)
t.ok(not above and line == "theoretical 33454.1 (98.3%)", "FP64 at 98 % of its limit is a ceiling")
t.ok(select(2, gpu.against_limit(34000, "fp64", h100)) == false, "within 2 % above the limit: clock rounding, accepted")
t.is(gpu.against_limit(1000, "L2", h100), "theoretical -", "no published limit: said so")
local gc = gpu.ceilings(ceilings.read_csv(os.getenv("ROT_HOME") .. "/tests/fixtures/gpu-peaks.csv"))
t.ok(gc.source == "measured" and #gc.compute == 3 and #gc.bandwidth == 3 and gc.bounds.L1 == 20000
  and gc.bounds.HBM == 1000
  and gc.bounds.double == 10000,
    "GPU ceilings from gpu-peaks.csv: three precisions, shared/L2/HBM, and the bound inputs")
local gt2 = gpu.ceilings(nil, { gpuCC = "9.0", gpuSMs = 132, gpuClockKHz = 1980000,
  gpuMemClockKHz = 2619000, gpuBusWidth = 5120 })
t.ok(gt2.source == "theoretical" and math.abs(gt2.bounds.double - th.fp64) < 1e-9
  and gt2.compute[1].label:find("theoretical"),
  "without measured ceilings: the theoretical ones, labelled so")
local mdir = (os.getenv("TMPDIR") or "/tmp") .. "/rot-unit-m-" .. os.time()
t.is(gpu.machine_file(mdir, "NVIDIA H100 80GB HBM3", "atomics"), mdir .. "/machines/NVIDIA_H100_80GB_HBM3.atomics.csv",
  "a GPU model's stored file: its name made safe, the kind, in cacheDir/machines (created)")
t.is(sys.stat(mdir .. "/machines"), "dir", "the machines directory exists")
local gpupeaks = require "rot.peaks.gpu"
local function conf(quick) return { get = function(k) return ({ quick = quick, cacheDir = mdir })[k] end } end
t.ok(gpupeaks.file(conf(false), "NVIDIA H100 80GB HBM3") == mdir .. "/machines/NVIDIA_H100_80GB_HBM3.gpu.csv" and
  gpupeaks.file(conf(true), "NVIDIA H100 80GB HBM3") == mdir .. "/machines/NVIDIA_H100_80GB_HBM3.gpu-quick.csv",
  "a GPU's quick ceilings are stored apart from its real ones")
sys.remove(mdir .. "/machines")
sys.remove(mdir)

t.done()
