-- rot.results.gpuplaced: a CUDA program's region placed on the hierarchical GPU roofline, as
-- rot.results.placed places a counted CPU region: a point per level against gpu-peaks' ceilings.
local gpu = require "rot.gpu"

local M = {}

--[[ place(metrics, time, ceilings) -> { points = {{level=, intensity=, gflops=, gbs=}, ...},
  flops =, bytes = {L1=, L2=, HBM=}, gflops =, bound = rot.gpu.bound's {time_bound=,
  dominant=, key=, fraction=} }, or nil and why. metrics: the region's CUPTI values (name ->
  value, summed over its calls in the profiled invocation: rot.gpu.roofline_metrics); time: its
  measured time in seconds over the same calls (the timed invocations', never the profiled
  one's); ceilings: rot.gpu.ceilings' bounds {double=, single=, half= GFLOP/s, L1=, L2=, HBM=
  GB/s}. Each level's point has the region's performance at that level's intensity; a level
  that moved no bytes has none. The bound is the largest of each level's bytes over its ceiling
  and each precision's flops over its own; fraction: that bound over the time. ]]
function M.place(metrics, time, ceilings)
  if not (time and time > 0) then return nil, "no measured time" end
  local q, err = gpu.quantities(metrics)
  if not q then return nil, err end
  q.time = time -- the timed invocations' (the profiled one replays every kernel)
  local out = { points = {}, flops = q.flops.total, bytes = q.bytes, gflops = q.flops.total / time / 1e9 }
  for _, l in ipairs(gpu.levels) do
    local b = q.bytes[l.name]
    if b > 0 then
      out.points[#out.points + 1] = { level = l.name, intensity = q.flops.total / b, gflops = out.gflops,
        gbs = b / time / 1e9 }
    end
  end
  out.bound = gpu.bound(q, ceilings)
  return out
end

return M
