-- rot.gpu: GPU results: the CUPTI metrics of the hierarchical roofline (NERSC method) and
-- their evaluation into FLOPs per precision, bytes per level, time and intensities; the
-- theoretical device ceilings from the device's properties.
local M = {}

local function inst(p, op) return "sm__sass_thread_inst_executed_op_" .. p .. op .. "_pred_on.sum" end

-- The metrics a hierarchical roofline needs (pass them as a point's gpuMetrics).
M.roofline_metrics = {
  inst("d", "fma"), inst("d", "mul"), inst("d", "add"),
  inst("f", "fma"), inst("f", "mul"), inst("f", "add"),
  inst("h", "fma"), inst("h", "mul"), inst("h", "add"),
  "l1tex__t_bytes.sum", "lts__t_bytes.sum", "dram__bytes.sum",
  "sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second", "gpu__time_duration.sum",
}

M.levels = { { name = "L1", metric = "l1tex__t_bytes.sum" }, { name = "L2", metric = "lts__t_bytes.sum" },
  { name = "HBM", metric = "dram__bytes.sum" } }

--[[ Evaluates metric values (name -> value, one kernel range) into
  { flops = {double=, single=, half=, total=}, bytes = {L1=, L2=, HBM=}, time = s (cycles/rate),
    timeDuration = s (gpu__time_duration), timeDeviation = relative difference,
    gflops =, intensity = {L1=, L2=, HBM=} }; nil and a message when a metric is missing. ]]
function M.quantities(v)
  for _, m in ipairs(M.roofline_metrics) do
    if v[m] == nil then return nil, "metric '" .. m .. "' was not collected" end
  end
  local q = { flops = {}, bytes = {}, intensity = {} }
  for p, name in pairs({ d = "double", f = "single", h = "half" }) do
    q.flops[name] = 2 * v[inst(p, "fma")] + v[inst(p, "mul")] + v[inst(p, "add")]
  end
  q.flops.total = q.flops.double + q.flops.single + q.flops.half
  for _, l in ipairs(M.levels) do q.bytes[l.name] = v[l.metric] end
  local rate = v["sm__cycles_elapsed.avg.per_second"]
  q.time = rate > 0 and v["sm__cycles_elapsed.avg"] / rate or nil
  q.timeDuration = v["gpu__time_duration.sum"] * 1e-9
  if q.time and q.timeDuration > 0 then q.timeDeviation = q.time / q.timeDuration - 1 end
  local t = q.time or q.timeDuration
  q.gflops = t > 0 and q.flops.total / t / 1e9 or nil
  for _, l in ipairs(M.levels) do
    local b = q.bytes[l.name]
    q.intensity[l.name] = b > 0 and q.flops.total / b or nil
  end
  return q
end

--[[ Time bound of a profiled GPU point (lecture notes, with the hierarchical levels):
  T >= max(FLOPs_p / P_p over precisions, bytes_L / B_L over L1, L2, HBM). q from
  M.quantities; ceilings = { double=, single=, half= (GFLOP/s), L1=, L2=, HBM= (GB/s) }.
  Returns { time_bound = s, dominant = "double compute"|"L2 bandwidth"|..., key = the ceilings'
  key of that term ("double", "L2", ...), fraction = bound / time }. ]]
function M.bound(q, ceilings)
  local best, dominant, key = 0, nil, nil
  for _, p in ipairs({ "double", "single", "half" }) do
    local c = ceilings[p]
    if c and q.flops[p] > 0 then
      local t = q.flops[p] / (c * 1e9)
      if t > best then best, dominant, key = t, p .. " compute", p end
    end
  end
  for _, l in ipairs(M.levels) do
    local b = ceilings[l.name]
    if b and q.bytes[l.name] > 0 then
      local t = q.bytes[l.name] / (b * 1e9)
      if t > best then best, dominant, key = t, l.name .. " bandwidth", l.name end
    end
  end
  if not dominant then return nil end
  local t = q.time or q.timeDuration
  return { time_bound = best, dominant = dominant, key = key, fraction = t and t > 0 and best / t or nil }
end

-- Operations per SM per clock (FMA lanes; integer adds for int32_add) by compute capability,
-- non-tensor units (the CUDA programming guide's throughput table).
M.lanes = {
  ["8.0"] = { fp64 = 32, fp32 = 64, fp16 = 256, int32 = 64, int32_add = 64 },
  ["8.6"] = { fp64 = 2, fp32 = 128, fp16 = 128, int32 = 64, int32_add = 64 },
  ["8.9"] = { fp64 = 2, fp32 = 128, fp16 = 128, int32 = 64, int32_add = 64 },
  ["9.0"] = { fp64 = 64, fp32 = 128, fp16 = 256, int32 = 64, int32_add = 64 },
}

-- Operations one lane does in a clock: 2 for a multiply-add, 1 for an add.
M.ops_per_lane = { int32_add = 1 }

-- Shared memory bytes per SM per clock: 32 banks of 4 bytes (sm_70 and later).
M.shared_bytes_per_clock = 128

-- Theoretical ceilings from a GPU point's metadata: GFLOP/s per precision (2 flops per FMA
-- lane; G adds/s for int32_add), GB/s of shared memory (banks x SMs x clock) and of HBM (memory clock x 2 (double data
-- rate) x bus width).
function M.theoretical(meta)
  local out = {}
  local lanes = M.lanes[tostring(meta.gpuCC)]
  local ghz, sms = (meta.gpuClockKHz or 0) / 1e6, meta.gpuSMs or 0
  if lanes then
    for k, l in pairs(lanes) do out[k] = (M.ops_per_lane[k] or 2) * l * sms * ghz end
  end
  if (tonumber(meta.gpuCC) or 0) >= 7 then out.shared = M.shared_bytes_per_clock * sms * ghz end
  if meta.gpuMemClockKHz and meta.gpuBusWidth then
    out.hbm = meta.gpuMemClockKHz * 1e3 * 2 * meta.gpuBusWidth / 8 / 1e9
  end
  return out
end

-- The theoretical ceilings at an SM clock of hz (measured while a kernel ran) instead of the
-- device's highest.
function M.theoretical_at(meta, hz)
  return M.theoretical(setmetatable({ gpuClockKHz = hz / 1e3 }, { __index = meta }))
end

--[[ One measured GPU ceiling against its physical limit: value (GFLOP/s or GB/s), the
  theoretical key (M.theoretical), the point's metadata and the SM clock measured during it (Hz,
  or nil). Returns the line gpu-peaks prints ("theoretical L (p%); at the measured c GHz L' (p'%)")
  and whether the value is impossible: above the limit at the GPU's highest clock by more than
  2 %, so its count (or kernel) is wrong and it must not bound anything. ]]
function M.against_limit(value, key, meta, hz)
  local limit = key and M.theoretical(meta)[key]
  if not limit or limit <= 0 then return "theoretical -", false end
  local line = string.format("theoretical %.1f (%.1f%%)", limit, value / limit * 100)
  if hz and hz > 0 then
    local at = M.theoretical_at(meta, hz)[key]
    line = line .. string.format("; at the measured %.3f GHz %.1f (%.1f%%)", hz / 1e9, at, value / at * 100)
  end
  return line, value > limit * 1.02
end

--[[ Ceilings for the GPU roofline and time bounds: from gpu-peaks rows when there are some
  (measured), else the theoretical ones of a point's metadata. Returns { compute = {{label=,
  gflops=}}, bandwidth = {{label=, gbs=}}, bounds = {double=, single=, half=, L1=, L2=, HBM=},
  spreads = the measured ceilings' spreads by the same keys, source = "measured"|"theoretical" }. ]]
function M.ceilings(rows, meta)
  local by, spread = {}, {}
  for _, r in ipairs(rows or {}) do by[r.name], spread[r.name] = r.value, r.spread end
  local source = next(by) and "measured" or "theoretical"
  if source == "theoretical" then
    local th = M.theoretical(meta or {})
    by = { fp64_fma = th.fp64, fp32_fma = th.fp32, fp16_fma = th.fp16, HBM_triad = th.hbm }
  end
  local out = { compute = {}, bandwidth = {}, source = source,
    bounds = { double = by.fp64_fma, single = by.fp32_fma, half = by.fp16_fma, L1 = by.shared_ldst,
      L2 = by.L2, HBM = by.HBM_triad },
    spreads = { double = spread.fp64_fma, single = spread.fp32_fma, half = spread.fp16_fma, L1 = spread.shared_ldst,
      L2 = spread.L2, HBM = spread.HBM_triad } }
  for _, c in ipairs({ { "fp16_fma", "FP16 FMA" }, { "fp32_fma", "FP32 FMA" }, { "fp64_fma", "FP64 FMA" } }) do
    if by[c[1]] then out.compute[#out.compute + 1] = { label = c[2] .. " (" .. source .. ")", gflops = by[c[1]] } end
  end
  for _, b in ipairs({ { "shared_ldst", "L1/shared" }, { "L2", "L2" }, { "HBM_triad", "HBM" } }) do
    if by[b[1]] then out.bandwidth[#out.bandwidth + 1] = { label = b[2] .. " (" .. source .. ")", gbs = by[b[1]] } end
  end
  return out
end

-- Where rot stores what it measured of a GPU model: cacheDir/machines/NAME.KIND.csv (KIND
-- "gpu" for the ceilings, "atomics" for T(n, e, c)); the directory is created.
function M.machine_file(cache_dir, gpu_name, kind)
  local sys = require "rot.sys"
  sys.mkdir(cache_dir .. "/machines")
  return cache_dir .. "/machines/" .. tostring(gpu_name):gsub("[^%w]+", "_") .. "." .. kind .. ".csv"
end

-- The device a script's first point ran on (its meta: SMs, warps per SM, clock, name); for a
-- point only built, not run (rot build: row.planned), an H100 SXM's values, so the script goes
-- on to every point it would build. Elsewhere a missing device stops the script with `why`.
function M.probe(row, why)
  if row and row.entry then return row.entry.meta end
  if row and row.planned then
    return { gpuSMs = 132, gpuMaxWarpsPerSM = 64, gpuClockKHz = 1980000, gpuName = "NVIDIA H100 80GB HBM3 (rot build)" }
  end
  require("rot.util").fail(why)
end

return M
