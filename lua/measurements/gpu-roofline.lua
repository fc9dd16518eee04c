-- hierarchical GPU roofline: a mixbench-style intensity sweep, triad and GEMM, one dot per level
local rot = require "rot"
local gpu = require "rot.gpu"
local ceilings = require "rot.machine.ceilings"

local quick = rot.get("quick")
local n = quick and (1 << 22) or (1 << 26)
local cases = {}
for _, t in ipairs({ { "fp32", 0 }, { "fp64", 1 } }) do
  for _, fpe in ipairs(quick and { 1, 16, 256 } or rot.geometric(1, 1024, 2)) do
    cases[#cases + 1] = { name = t[1] .. " x" .. fpe, spec = { kernel = "gpu_intensity", params = { n = n,
      fpe = fpe }, macros = { GINT_TYPE = t[2] } } }
  end
end
cases[#cases + 1] = { name = "triad", spec = { kernel = "gpu_triad", params = { n = n } } }
cases[#cases + 1] = { name = "sgemm", spec = { kernel = "gpu_gemm", params = { n = quick and 512 or 2048 } } }
local names, by = {}, {}
for i, c in ipairs(cases) do names[i], by[c.name] = c.name, c end
local results = rot.measure(rot.space { rot.axis("case", names) }, function(p)
  local spec = {}
  for k, v in pairs(by[p.case].spec) do spec[k] = v end
  spec.gpuMetrics = gpu.roofline_metrics
  return spec
end)
local ok = results:ok()
if #ok == 0 then rot.fail("no GPU point could be measured (see the errors above)") end
local meta = ok[1].entry.meta
-- the measured ceilings of this GPU model when `rot measure gpu-peaks` stored them
local c = gpu.ceilings(ceilings.read_csv(require("rot.peaks.gpu").file(rot, meta.gpuName)), meta)
results:gpu_bounds(c.bounds, c.spreads)
io.stdout:write(string.format("# %s, %d SMs, CUDA runtime %s; ceilings: %s\n", tostring(meta.gpuName), meta.gpuSMs or 0,
  tostring(meta.cudaRuntime), c.source == "measured" and "measured (gpu-peaks)"
    or "theoretical (run rot measure gpu-peaks)"))
rot.records(rot.name() .. "-levels", { { "case", function(r) return r.point.case end }, { "time_s", "time", "%.4g" },
  { "GFLOP/s", function(r) return r.gpu and r.gpu.gflops end, "%.1f" },
  { "I_L1", function(r) return r.gpu and r.gpu.intensity.L1 end, "%.3g" },
  { "I_L2", function(r) return r.gpu and r.gpu.intensity.L2 end, "%.3g" },
  { "I_HBM", function(r) return r.gpu and r.gpu.intensity.HBM end, "%.3g" },
  { "time_deviation_pct", function(r) return r.gpu and r.gpu.timeDeviation and r.gpu.timeDeviation * 100 end, "%.1f" },
  { "bound", "dominant" }, { "fraction_of_bound", "fraction", "%.2f" },
  { "above_bound", function(r) return r.fraction and (r.above and 1 or 0) or nil end } }, ok)
results:csv(nil, { bounds = false })
results:gpu_roofline { compute = c.compute, bandwidth = c.bandwidth }
