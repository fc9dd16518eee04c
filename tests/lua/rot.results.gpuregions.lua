-- Unit tests of rot.results.gpuregions on a CUDA program's point recorded here (no device, no
-- program run): its metrics pass's lines built in the test, its kernel and NVTX regions given
-- their flops by precision and bytes per level, placed against made-up gpu-peaks ceilings with
-- hand-computed bounds, the table's columns, the CSV's, the lines under the table; a region
-- without metrics and a GPU without stored ceilings say so.
-- judges no time
local t = require "tap"
local util = require "rot.util"
local gpu = require "rot.gpu"
local regions = require "rot.results.regions"
local format = require "rot.results.format"
local gpuregions = require "rot.results.gpuregions"
local metriclines = require "rot.gpu.metriclines"
local W = require("rot.protocol").cuda

local n = 2 ^ 25 -- elements a launch
local triad, copy = "triad <<<32768, 1024>>>", "copy <<<32768, 1024>>>"
-- a region line of the metrics pass: launches, and per launch its fp64 FMAs and bytes per level
local function line(word, name, launches, fma, l1, l2, hbm)
  local v = {}
  for i, m in ipairs(gpu.roofline_metrics) do
    v[i] = ({ ["sm__sass_thread_inst_executed_op_dfma_pred_on.sum"] = fma, ["l1tex__t_bytes.sum"] = l1,
      ["lts__t_bytes.sum"] = l2, ["dram__bytes.sum"] = hbm, ["sm__cycles_elapsed.avg"] = 2e6,
      ["sm__cycles_elapsed.avg.per_second"] = 1.98e9, ["gpu__time_duration.sum"] = 1e6 })[m] or 0
    v[i] = v[i] * launches
  end
  return word .. " " .. util.escape_token(name) .. " launches=" .. launches .. " " .. table.concat(v, " ")
end
local text = { W.magic }
for i, m in ipairs(gpu.roofline_metrics) do text[#text + 1] = "metric " .. (i - 1) .. " " .. m end
for _, l in ipairs({ "chip GH100", "passes 14", line("kernel", triad, 10, n, 32 * n, 24 * n, 24 * n),
  line("kernel", copy, 10, 0, 16 * n, 16 * n, 16 * n), line("range", "iteration", 20, n / 2, 24 * n, 20 * n, 20 * n),
  "unprofiled 3", "end" }) do text[#text + 1] = l end
local rec = assert(metriclines.parse(table.concat(text, "\n") .. "\n", gpu.roofline_metrics))

-- the point: its regions as the CUDA library records them, 10 ms for triad's 10 calls
local function region(name, calls, ns) return { run = 0, name = util.escape_token(name), calls = calls,
  callsTotal = calls, threads = 1, ns = ns, nsSum = ns, minNs = ns / calls, maxNs = ns / calls, open = 0 } end
local desc = { app = { path = "/x/stream", args = {}, env = {}, inputs = {}, cuda = true }, threads = 1,
  policy = { k = 1, epsilon = 0.05, maxRuns = 10 }, counts = {},
  machine = { gpu = "NVIDIA H200, 132 SMs, cc 9.0, driver 13000, chip GH100" } }
local entry = { meta = { markersAttached = 1 }, runs = { { ns = 50e6, threads = 1 } },
  regions = { region(triad, 10, 10e6), region(copy, 5, 4e6), region("iteration", 20, 30e6), region("io", 1, 1e6) } }
local point = { point = { command = "stream" }, desc = desc, entry = entry, measured = true, cudaRecord = rec }
local rows = regions.rows(point, 1, 0.05)
for _, r in ipairs(rows) do gpuregions.apply(r) end
local by = {}
for _, r in ipairs(rows) do by[r.region] = r end
local tr, cp, it = by[triad], by[copy], by.iteration

local odd = {}
for _, r in ipairs(rows) do for _, k in ipairs(require("rot.results.row").undeclared(r)) do odd[#odd + 1] = k end end
t.is(table.concat(odd, " "), "", "every field a CUDA region's row carries is declared (core/vocabulary.h: RESULT_ROW)")
t.ok(not require("rot.results.bounds").any_cpu(rows),
  "no row of a CUDA program is bounded by the CPU's peaks, its (program) row neither: none are measured for it")
t.is(tr.gpuRegion, "kernel", "a kernel region is one")
t.is(it.gpuRegion, "nvtx", "an NVTX range is one")
t.is(tr.gpuFlops.double, 20 * n, "its fp64 flops: an FMA two, over its 10 launches")
t.is(tr.gpuBytes.L1, 320 * n, "its L1 bytes")
t.is(tr.bytes, 240 * n, "its bytes on the roofline: HBM's")
t.is(tr.counts, "profiled", "its work is profiled")
t.ok(math.abs(tr.gflops - 20 * n / 10e-3 / 1e9) < 1e-9, "its performance: profiled flops over its timed time")
t.ok(math.abs(tr.gpuIntensity.L2 - 20 / 240) < 1e-12, "its L2 intensity: flops over L2's bytes")
t.is(it.gpuLaunches, 20, "an NVTX range carries the launches made inside it")
t.is(cp.gpuBytes.HBM, 16 * n * 10 * 5 / 10, "profiled 10 launches, timed 5 calls: its counts scaled by a half")
t.ok(cp.gpuNote and cp.gpuNote:find("scaled", 1, true), "and a note says so")
t.ok(by.io.gpuRegion == "nvtx" and by.io.gpuNote:find("no launch", 1, true) and not by.io.gpuMetrics,
  "a range the pass saw no launch in: no metrics, and why")
t.ok(not rows[1].gpuRegion, "the program's own row is no GPU region")

-- placed against made-up ceilings (GFLOP/s, GB/s): triad is bound by HBM
local C = gpu.ceilings({ { name = "fp64_fma", value = 30000 }, { name = "fp32_fma", value = 60000 },
  { name = "shared_ldst", value = 30000 }, { name = "L2", value = 10000 }, { name = "HBM_triad", value = 4000,
    spread = 0.01 } }, {})
local above = gpuregions.bound(rows, function() return C end, 0.02)
t.is(tr.boundKey, "HBM", "triad: HBM's bytes over its ceiling are the largest term")
t.ok(math.abs(tr.timeBound - 240 * n / 4000e9) < 1e-15, "its time bound: 240n B over 4000 GB/s")
t.ok(math.abs(tr.fraction - 240 * n / 4000e9 / 10e-3) < 1e-12, "of its bound: the time bound over its time")
t.ok(math.abs(tr.bound - 4000 * 20 / 240) < 1e-9, "its bound: 4000 GB/s x 20/240 flop/B = 333.3 GFLOP/s")
t.is(tr.limiter, "HBM bandwidth", "its limiter")
t.is(tr.gpu.intensity.L1, 20 / 320, "its L1 point: flops over L1's bytes")
t.ok(math.abs(tr.gpu.intensity.HBM - 20 / 240) < 1e-12, "its HBM point: flops over HBM's bytes")
t.is(#above, 0, "nothing above its bound")
t.is(cp.boundKey, "HBM", "copy: no flops, bound by HBM all the same")
t.is(cp.bound, nil, "and with no flops no GFLOP/s bound")

-- faster than the bound: a kernel is above it; an NVTX range is not (its time is the host's,
-- its kernels' may run on after its pop), and a line under the table says why
local fast_entry = { meta = entry.meta, runs = entry.runs,
  regions = { region(triad, 10, 1e5), region("iteration", 20, 1e5) } }
local fast = regions.rows({ point = point.point, desc = desc, entry = fast_entry, measured = true, cudaRecord = rec },
  1, 0.05)
local fby = {}
for _, r in ipairs(fast) do gpuregions.apply(r); fby[r.region] = r end
local fast_above = gpuregions.bound(fast, function() return C end, 0.02)
t.ok(fby[triad].above and fby[triad].fraction > 1 and #fast_above == 1 and fast_above[1] == fby[triad],
  "a kernel faster than its bound is above it, and the only row returned")
t.ok(fby.iteration.fraction > 1 and not fby.iteration.above,
  "an NVTX range as fast is not above its bound (fraction " .. string.format("%.3g", fby.iteration.fraction) .. ")")
local fast_out = t.capture("stdout", function() gpuregions.legend(fast, io.stdout) end)
t.ok(fast_out:find("NVTX ranges: their time is the host's", 1, true),
  "under the table: an NVTX range's time is the host's")

-- no stored ceilings: placed, not bounded, said so
local again = regions.rows(point, 1, 0.05)
for _, r in ipairs(again) do gpuregions.apply(r) end
gpuregions.bound(again, function() return nil, "no gpu-peaks stored for GPU 'NVIDIA H200'" end, 0.02)
t.ok(again[2].gpu and not again[2].bound and again[2].gpuNote:find("no gpu-peaks", 1, true),
  "without stored gpu-peaks a region keeps its metrics and point, no bound, and says why")
t.is(gpuregions.gpu_name(again[2]), "NVIDIA H200", "its GPU's name, as gpu-peaks stores it")

-- what a user sees: the table's columns, the CSV's, the lines under the table
local out = t.capture("stdout", function()
  format.table(rows, nil, { "command", "region" })
  gpuregions.legend(rows, io.stdout)
end)
t.ok(out:find("GPU flops", 1, true) and out:find("fp64 6.71e+08", 1, true), "the table: flops by precision")
t.ok(out:find("L1 10.0 GiB L2 7.50 GiB HBM 7.50 GiB", 1, true), "the table: bytes per level")
t.ok(out:find("each launch replayed for its 14 passes", 1, true), "under it: how the metrics were taken")
t.ok(out:find("3 kernel launches not profiled", 1, true), "and the launches not profiled")
t.ok(out:find("region 'io': no launch of it was profiled", 1, true), "and a region without metrics, why")
local path = os.getenv("ROT_TEST_TMP") .. "/gpu.csv"
format.csv(rows, path, { "command", "region" })
local head = require("rot.sys").readfile(path):match("^[^\n]*")
for _, col in ipairs({ "gpu_flops:double", "gpu_bytes:HBM", "gpu_intensity:L2", "gpu_launches_profiled", "gpu_note",
  "gpu:dram__bytes.sum", "bound_GFLOPs" }) do
  t.ok(("," .. head .. ","):find("," .. col .. ",", 1, true), "the CSV has " .. col)
end

-- through the results object: its GPU's ceilings read from the stored gpu-peaks by its name
local rot = require "rot"
rot.set("cacheDir", os.getenv("ROT_TEST_TMP") .. "/cache")
rot.set("outputDir", os.getenv("ROT_TEST_TMP"))
local results = require "rot.results"
local gpurows = { { name = "fp64_fma", kind = "compute", threads = 132, value = 30000, unit = "GFLOP/s" },
  { name = "L2", kind = "bandwidth", threads = 132, value = 10000, unit = "GB/s" },
  { name = "HBM_triad", kind = "bandwidth", threads = 132, value = 4000, unit = "GB/s" } }
local kernel_rows = regions.rows(point, 1, 0.05)
for _, r in ipairs(kernel_rows) do gpuregions.apply(r) end
table.remove(kernel_rows, 1) -- (the program's own row is bounded by the CPU's peaks: none here)
local res = results.new(kernel_rows, { "command", "region" }, function() return {} end)
local _, why = res:gpu_stored(kernel_rows[1])
t.ok(why and why:find("no gpu-peaks stored for GPU 'NVIDIA H200'", 1, true), "no stored gpu-peaks: said, by GPU")
require("rot.machine.ceilings").write_csv(gpu.machine_file(os.getenv("ROT_TEST_TMP") .. "/cache", "NVIDIA H200", "gpu"),
  gpurows)
res = results.new(kernel_rows, { "command", "region" }, function() return {} end)
res:bounds()
t.ok(kernel_rows[1].boundKey == "HBM" and math.abs(kernel_rows[1].bound - 4000 * 20 / 240) < 1e-9,
  "the stored gpu-peaks of the point's GPU bound its regions")
local json = res:json("gpu")
local doc = require("rot.sys").readfile(json)
t.ok(doc:find("\"gpuBytes\"", 1, true) and doc:find("\"gpuRegion\": \"kernel\"", 1, true), "the JSON carries them")
t.done()
