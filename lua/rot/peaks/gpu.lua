-- rot.peaks.gpu: the GPU's ceilings, measured (what `rot measure gpu-peaks` runs, and what
-- gpu-predict runs first when this GPU has none stored): fp64/fp32/fp16/int32 multiply-add,
-- integer add, shared memory, L2, HBM, and the cost of one more kernel launch.
local gpu = require "rot.gpu"
local ceilings = require "rot.machine.ceilings"
local util = require "rot.util"
local M = {}

--[[ Measures the ceilings with `rot` (the rot module). Returns the rows to store (a ceiling
  above its physical limit is a counting error: shown, never stored), the lines to show, the
  names of the impossible ones and the GPU's name. ]]
function M.measure(rot)
  local quick = rot.get("quick")
  local big = quick and (1 << 22) or (1 << 27)
  -- 1024 multiply-adds per element: with fewer the loads and stores take a share of an FMA
  -- ceiling's time
  local tests = {
    { name = "fp64_fma", kind = "compute", spec = { kernel = "gpu_intensity", params = { n = big, fpe = 1024 },
      macros = { GINT_TYPE = 1 } }, theo = "fp64" },
    { name = "fp32_fma", kind = "compute", spec = { kernel = "gpu_intensity", params = { n = big, fpe = 1024 },
      macros = { GINT_TYPE = 0 } }, theo = "fp32" },
    { name = "fp16_fma", kind = "compute", spec = { kernel = "gpu_intensity", params = { n = big // 2, fpe = 1024 },
      macros = { GINT_TYPE = 2 } }, theo = "fp16" },
    { name = "int32_mad", kind = "compute", spec = { kernel = "gpu_intensity", params = { n = big, fpe = 1024 },
      macros = { GINT_TYPE = 3 } }, theo = "int32" },
    { name = "int32_add", kind = "compute", spec = { kernel = "gpu_chain", params = { n = 4096, blocks = 132 * 16,
      threads = 256 }, macros = { GCHAIN_OP = 4 } }, theo = "int32_add" },
    { name = "shared_ldst", kind = "bandwidth", spec = { kernel = "gpu_cache", params = { ws = 65536, rounds = quick
      and 16 or 256 }, macros = { GCACHE_SHARED = 1 } }, theo = "shared" },
    { name = "L2", kind = "bandwidth", spec = { kernel = "gpu_cache", params = { ws = 16 << 20, rounds = quick
      and 8 or 64 } } },
    { name = "HBM_triad", kind = "bandwidth", spec = { kernel = "gpu_triad", params = { n = big } }, theo = "hbm" },
    -- what one more kernel costs in a stream of launches (one block of 32 elements), timed like
    -- every GPU point: gpu-predict's launch term
    { name = "launch", kind = "latency", spec = { kernel = "gpu_triad", params = { n = 32 } } },
  }
  local idx = {}
  for i = 1, #tests do idx[i] = i end
  -- tests with a physical limit also count the SM clock (in their own profiling runs), for the
  -- limit at the clock the GPU really ran at
  local CLOCK = "sm__cycles_elapsed.avg.per_second"
  local results = rot.measure(rot.space { rot.axis("test", idx) }, function(p)
    local t = tests[p.test]
    local spec = util.copy(t.spec)
    if t.theo and t.theo ~= "hbm" then spec.gpuMetrics = { CLOCK } end
    return spec
  end)

  -- a ceiling above its physical limit is a counting error: shown, never stored
  local out, shown, impossible = {}, {}, {}
  for i, r in ipairs(results.rows) do
    local t = tests[i]
    if r.entry then
      local value = t.kind == "compute" and r.gflops or t.kind == "latency" and r.time * 1e6 or r.gbs
      if t.name == "shared_ldst" then
        -- the declared bytes are per block; the kernel says how many ran
        value = value * ((r.report or {}).blocks or rot.fail("gpu_cache did not report how many blocks it ran"))
      end
      local unit = ({ compute = "GFLOP/s", latency = "us" })[t.kind] or "GB/s"
      local line, above = gpu.against_limit(value, t.theo, r.entry.meta, r.gpuMetrics and r.gpuMetrics[CLOCK])
      if above then
        impossible[#impossible + 1] = t.name
      else
        out[#out + 1] = { name = t.name, kind = t.kind, threads = r.entry.meta.gpuSMs or 0, value = value, unit = unit,
          spread = r.spread }
      end
      shown[#shown + 1] = string.format("%-12s %-9s %12.1f %-8s %s%s", t.name, t.kind, value, unit, line,
        above and "  ABOVE THE PHYSICAL LIMIT: not stored" or "")
    end
  end
  local name = results.rows[1].entry and results.rows[1].entry.meta.gpuName or "gpu"
  return out, shown, impossible, name
end

-- Where this GPU model's ceilings are stored: quick ones (small problems, for tests) apart from
-- the real ones, as the CPU's are. The kind is "gpu" or "gpu-quick".
function M.kind(rot) return rot.get("quick") and "gpu-quick" or "gpu" end
function M.file(rot, name) return gpu.machine_file(rot.get("cacheDir"), name, M.kind(rot)) end

-- Stores measured ceilings as this GPU model's (none when nothing was measured: rot build).
function M.store(rot, rows, name)
  if #rows > 0 then ceilings.write_csv(M.file(rot, name), rows) end
end

-- The warning about ceilings above their physical limit, once per measurement.
function M.warn_impossible(impossible)
  if #impossible > 0 then
    io.stderr:write("rot: warning: ", table.concat(impossible, ", "),
      " measured above the physical limit: the kernel's",
      " declared count is wrong; not stored as a ceiling\n")
  end
end

--[[ This GPU's stored ceilings (by its name, from a point's meta), measured first when there are
  none: rows of rot.machine.ceilings.read_csv. ]]
function M.stored(rot, gpu_name)
  local rows = ceilings.read_csv(M.file(rot, gpu_name))
  if rows and #rows > 0 then return rows end
  io.stderr:write("rot: measuring this GPU's ceilings first (once; `rot measure gpu-peaks` redoes it)\n")
  local out, _, impossible, name = M.measure(rot)
  M.warn_impossible(impossible)
  M.store(rot, out, name)
  return out
end

return M
