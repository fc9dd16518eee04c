-- the GPU's ceilings, measured: fp64/fp32/fp16/int32 multiply-add, integer add, shared memory, L2, HBM
local rot = require "rot"
local gpu = require "rot.gpu"
local peaks = require "rot.peaks"
local sys = require "rot.sys"

local quick = rot.get("quick")
local big = quick and (1 << 22) or (1 << 27)
local tests = {
  { name = "fp64_fma", kind = "compute", spec = { kernel = "gpu_intensity", params = { n = big, fpe = 256 }, macros = { GINT_TYPE = 1 } }, theo = "fp64" },
  { name = "fp32_fma", kind = "compute", spec = { kernel = "gpu_intensity", params = { n = big, fpe = 256 }, macros = { GINT_TYPE = 0 } }, theo = "fp32" },
  { name = "fp16_fma", kind = "compute", spec = { kernel = "gpu_intensity", params = { n = big // 2, fpe = 256 }, macros = { GINT_TYPE = 2 } }, theo = "fp16" },
  { name = "int32_mad", kind = "compute", spec = { kernel = "gpu_intensity", params = { n = big, fpe = 256 }, macros = { GINT_TYPE = 3 } }, theo = "int32" },
  { name = "int32_add", kind = "compute", spec = { kernel = "gpu_chain", params = { n = 4096, blocks = 132 * 16, threads = 256 }, macros = { GCHAIN_OP = 4 } } },
  { name = "shared_ldst", kind = "bandwidth", spec = { kernel = "gpu_cache", params = { ws = 65536, rounds = quick and 16 or 256 }, macros = { GCACHE_SHARED = 1 } } },
  { name = "L2", kind = "bandwidth", spec = { kernel = "gpu_cache", params = { ws = 16 << 20, rounds = quick and 8 or 64 } } },
  { name = "HBM_triad", kind = "bandwidth", spec = { kernel = "gpu_triad", params = { n = big } }, theo = "hbm" },
}
local idx = {}
for i = 1, #tests do idx[i] = i end
-- compute tests also count the SM clock (in their own profiling runs), for the theoretical
-- value at the clock the GPU really ran at
local CLOCK = "sm__cycles_elapsed.avg.per_second"
local results = rot.measure(rot.space { rot.axis("test", idx) }, function(p)
  local t, spec = tests[p.test], {}
  for k, v in pairs(t.spec) do spec[k] = v end
  if t.kind == "compute" then spec.gpuMetrics = { CLOCK } end
  return spec
end)

local out, shown = {}, {}
for i, r in ipairs(results.rows) do
  local t = tests[i]
  if r.entry then
    local value = t.kind == "compute" and r.gflops or r.gbs
    if t.name == "shared_ldst" then
      value = value * 4 * (r.entry.meta.gpuSMs or 1) -- the declared bytes are per block, 4 blocks per SM
    end
    local theo = t.theo and gpu.theoretical(r.entry.meta)[t.theo]
    local hz = r.gpuMetrics and r.gpuMetrics[CLOCK]
    local at_clock = theo and hz and t.kind == "compute" and
      gpu.theoretical(setmetatable({ gpuClockKHz = hz / 1e3 }, { __index = r.entry.meta }))[t.theo]
    out[#out + 1] = { name = t.name, kind = t.kind, threads = r.entry.meta.gpuSMs or 0, value = value,
      unit = t.kind == "compute" and "GFLOP/s" or "GB/s" }
    shown[#shown + 1] = string.format("%-12s %-9s %12.1f %-8s theoretical %s%s%s", t.name, t.kind, value, out[#out].unit,
      theo and string.format("%.1f", theo) or "-", theo and string.format(" (%.1f%%)", value / theo * 100) or "",
      at_clock and string.format("; at the measured %.3f GHz %.1f (%.1f%%)", hz / 1e9, at_clock, value / at_clock * 100) or "")
  end
end
if #out == 0 then rot.fail("no GPU ceiling could be measured (see the errors above)") end
for _, l in ipairs(shown) do io.stdout:write(l, "\n") end
local dir = rot.get("outputDir")
sys.mkdir(dir)
peaks.write_csv(dir .. "/gpu-peaks.csv", out)
local name = results.rows[1].entry and results.rows[1].entry.meta.gpuName or "gpu"
if not rot.building() then peaks.write_csv(gpu.machine_file(rot.get("cacheDir"), name, "gpu"), out) end
