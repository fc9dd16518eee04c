--[[ rot.results.gpuregions: a CUDA program's regions with what its metrics pass profiled
  (rot.count.cuda): each kernel region's and NVTX range's flops by precision and bytes at L1,
  L2 and HBM (its launches' in the profiled invocation), its rates over its timed time, and its
  place on the hierarchical GPU roofline against the stored gpu-peaks ceilings
  (rot.results.gpuplaced): a point per level, the bound the largest term. Every field is
  declared in core/vocabulary.h (RESULT_ROW, side gpuregions). ]]
local util = require "rot.util"
local describe = require "rot.describe"
local gpu = require "rot.gpu"
local metriclines = require "rot.gpu.metriclines"
local quantities = require "rot.results.quantities"
local gpuplaced = require "rot.results.gpuplaced"
local bounds = require "rot.results.bounds"

local M = {}

M.PROGRAM = "(program)"

-- The metrics pass of a row's point (its record), and whether that point is a CUDA program's.
local function point_of(r)
  local p = r.appPoint
  return p and p.cudaRecord, p and describe.cuda_program(p.desc)
end

-- A row's region in the record: its sums and its kind (kernel, nvtx), or nil.
local function region_of(rec, name)
  if rec and rec.kernels[name] then return rec.kernels[name], "kernel" end
  if rec and rec.ranges[name] then return rec.ranges[name], "nvtx" end
  return nil
end

--[[ The metrics of a kernel region as its timed invocation ran it: where the profiled invocation
  launched it another number of times than the timed one called it (a program that does not do
  the same each run), the counts scaled by calls over launches (rates as they are), and a note. ]]
local function scaled(r, reg, kind)
  local v = metriclines.values(reg)
  local calls = r.calls or 0
  if kind ~= "kernel" or calls == 0 or calls == reg.launches or reg.launches == 0 then return v, nil end
  local f = calls / reg.launches
  for m, x in pairs(v) do if not metriclines.averaged(m) then v[m] = x * f end end
  return v, string.format("profiled %d launches, timed %d calls: its metrics scaled by %.4g", reg.launches, calls, f)
end

--[[ apply(r): a CUDA program's region row gets its metrics: gpuRegion, gpuMetrics (each
  metric's value), gpuFlops, gpuBytes, gpuIntensity, gpuLaunches; flops (all precisions) and
  bytes (HBM's: the roofline's DRAM point), source profiled, and the rates; gpuNote where it has
  none (the pass failed, or no launch of it was profiled). Other rows are left as they are. ]]
function M.apply(r)
  local rec, cuda = point_of(r)
  if not cuda or not r.region or r.region == M.PROGRAM or r.survey then return r end
  local reg, kind = region_of(rec, r.region)
  if not reg then
    if not r.region:match(" <<<.*>>>$") and not rec then return r end
    r.gpuRegion = r.region:match(" <<<.*>>>$") and "kernel" or "nvtx"
    r.gpuNote = rec and "no launch of it was profiled in the metrics pass"
      or ("no metrics: " .. tostring(r.appPoint.cudaFailed or "the metrics pass did not run"))
    return r
  end
  local v, note = scaled(r, reg, kind)
  local q, why = gpu.quantities(v)
  r.gpuRegion, r.gpuLaunches, r.gpuNote = kind, reg.launches, note or why
  if not q then return r end
  r.gpuMetrics = v
  r.gpuFlops = { double = q.flops.double, single = q.flops.single, half = q.flops.half }
  r.gpuBytes, r.gpuIntensity = q.bytes, q.intensity
  r.flops, r.bytes, r.flopsSource, r.bytesSource, r.counts = q.flops.total, q.bytes.HBM, "profiled", "profiled",
    "profiled"
  quantities.rates(r)
  return r
end

-- Whether any row has a CUDA program's region (the table's GPU columns, the GPU roofline).
function M.any(rows)
  for _, r in ipairs(rows) do if r.gpuRegion then return true end end
  return false
end

-- Whether any row has a CUDA program's region with metrics (the GPU roofline draws them).
function M.profiled(rows)
  for _, r in ipairs(rows) do if r.gpuMetrics and r.gpuRegion then return true end end
  return false
end

-- The GPU a row's point ran on, by the name gpu-peaks stores its ceilings under (nil: none).
function M.gpu_name(r)
  local line = r.desc and r.desc.machine and r.desc.machine.gpu
  return type(line) == "string" and line:match("^(.-), %d+ SMs") or nil
end

--[[ bound(rows, ceilings_of, epsilon): each region row with metrics and a time placed
  (rot.results.gpuplaced) against ceilings_of(row) (rot.gpu.ceilings' of its GPU's stored
  gpu-peaks, or nil and why where none are stored): gpu (its point per level: rot.gpu's
  quantities at its timed time, as Results:gpu_roofline draws them), and, against ceilings,
  timeBound, dominant, limiter, fraction, bound (GFLOP/s: its flops over the time bound),
  boundKey, boundSource profiled, above (beyond its spread and the ceiling's). Where none are
  stored, gpuNote says so. Returns the rows above their bound. An NVTX range is never above:
  its time is the host's, from push to pop, while its work is its kernels', launched
  asynchronously; a range that returns before its kernels end looks faster than they are. ]]
function M.bound(rows, ceilings_of, epsilon)
  local above = {}
  for _, r in ipairs(rows) do
    if r.gpuMetrics and r.time and r.time > 0 then
      local c, why = ceilings_of(r)
      local p = gpuplaced.place(r.gpuMetrics, r.time, c and c.bounds or {})
      if p then
        local intensity = {}
        for _, pt in ipairs(p.points) do intensity[pt.level] = pt.intensity end
        r.gpu = { gflops = p.gflops, intensity = intensity, flops = r.gpuFlops, bytes = r.gpuBytes }
      end
      local b = p and p.bound
      if not c then
        r.gpuNote = why
      elseif b then
        r.timeBound, r.dominant, r.limiter, r.fraction, r.boundKey = b.time_bound, b.dominant, b.dominant, b.fraction,
          b.key
        r.bound = (r.flops or 0) > 0 and r.flops / b.time_bound / 1e9 or nil
        r.boundSource = "profiled"
        r.above = r.gpuRegion ~= "nvtx" and b.fraction and bounds.above(b.fraction, r.spread, c.spreads[b.key], epsilon)
          or nil
        if r.above then above[#above + 1] = r end
      end
    end
  end
  return above
end

-- Flops in a few characters: "2.68e+08".
local function num(x) return string.format("%.3g", x) end

-- The table's columns of a CUDA program's regions: flops by precision, bytes per level.
M.columns = {
  ["GPU flops"] = { "GPU flops", function(r)
    if not r.gpuFlops then return r.gpuRegion and "-" or "" end
    local parts = {}
    for _, p in ipairs({ { "double", "fp64" }, { "single", "fp32" }, { "half", "fp16" } }) do
      if (r.gpuFlops[p[1]] or 0) > 0 then parts[#parts + 1] = p[2] .. " " .. num(r.gpuFlops[p[1]]) end
    end
    return #parts > 0 and table.concat(parts, " ") or "0"
  end, function(r) return r.gpuFlops and r.flops end },
  ["GPU bytes"] = { "GPU bytes", function(r)
    if not r.gpuBytes then return r.gpuRegion and "-" or "" end
    local parts = {}
    for _, l in ipairs(gpu.levels) do parts[#parts + 1] = l.name .. " " .. util.bytes(r.gpuBytes[l.name]) end
    return table.concat(parts, " ")
  end, function(r) return r.gpuBytes and r.gpuBytes.HBM end },
}

--[[ The lines under a table of a CUDA program's regions: how the metrics were taken (once a
  table), the losses the library counted (launches not profiled, ranges not attributed, ranges
  named unlike their kernel), that an NVTX range's time is the host's, each row's note (no
  metrics and why, no gpu-peaks, scaled). ]]
function M.legend(rows, out)
  local said = {}
  local function say(l) if not said[l] then said[l] = true; out:write(l, "\n") end end
  for _, r in ipairs(rows) do
    local rec = r.gpuRegion and r.appPoint and r.appPoint.cudaRecord
    if rec then
      say(string.format("GPU metrics: CUPTI's range profiler in one more invocation, untimed, each launch replayed %s; "
        .. "an FMA two flops; bytes: L1 l1tex__t_bytes, L2 lts__t_bytes, HBM dram__bytes; rates over the timed time",
        rec.passes and rec.passes > 0 and ("for its " .. rec.passes .. " passes") or "for every pass its metrics need"))
      local who = "application '" .. tostring(r.program) .. "'"
      if rec.unprofiled > 0 then
        say(string.format("%s: %d kernel %s not profiled (another context, or after profiling stopped%s)", who,
          rec.unprofiled, util.plural(rec.unprofiled, "launch", "launches"),
          #rec.errors > 0 and (": " .. rec.errors[1]) or ""))
      end
      if rec.unattributed > 0 then
        say(string.format("%s: %d profiled %s dropped: the profiler's ranges did not match the launches", who,
          rec.unattributed, util.plural(rec.unattributed, "range")))
      end
      if rec.mismatched > 0 and rec.mismatch then
        say(string.format("%s: %d %s named unlike the launch they were attributed to (first: range '%s', kernel '%s')",
          who, rec.mismatched, util.plural(rec.mismatched, "range"), rec.mismatch.range, rec.mismatch.kernel))
      end
    end
    if r.gpuRegion == "nvtx" and r.gpuMetrics then
      say("NVTX ranges: their time is the host's, from push to pop, their work their kernels'; "
        .. "kernels launched asynchronously may end after it, so a range is never marked above its bound")
    end
    if r.gpuNote then say("region '" .. r.region .. "': " .. r.gpuNote) end
  end
end

--[[ The hierarchical GPU roofline's ceilings for rows: rot.gpu.ceilings of the first placed
  row's GPU (ceilings_of's), else none; and the rows it draws: Results:gpu_roofline's. ]]
function M.roofline_ceilings(rows, ceilings_of)
  for _, r in ipairs(rows) do
    if r.gpu and r.gpuRegion then
      local c = ceilings_of(r)
      return c and c.compute or {}, c and c.bandwidth or {}
    end
  end
  return {}, {}
end

return M
