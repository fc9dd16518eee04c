-- rot.execute.plausible: the check every result passes before it is cached: timed runs that
-- took time, and rates within ten times this machine's fastest stored ceilings.
local machine = require "rot.machine"
local ceilings = require "rot.machine.ceilings"

local M = {}

-- The fastest stored bandwidth and compute ceilings of this machine (0 when none are stored).
local function limits(s)
  return s:remember("limits", function()
    local l = { gbs = 0, gflops = 0 }
    for _, quick in ipairs({ false, true }) do
      for _, r in ipairs(ceilings.read_csv(ceilings.stored_path(s:get("cacheDir"),
        machine.fingerprint(s.config), quick)) or {}) do
        if r.kind == "bandwidth" then l.gbs = math.max(l.gbs, r.value) end
        if r.kind == "compute" then l.gflops = math.max(l.gflops, r.value) end
      end
    end
    return l
  end)
end

--[[ Why a result cannot be true, or nil: a run of 0 ns (or none), or, where this machine's
  ceilings are stored, a bandwidth or flop rate ten times beyond the fastest of them (the
  kernel's declared counts may overstate its work a little; a tenfold excess is not a
  measurement). res: the core's result {meta=, runs=}. ]]
function M.why_not(s, row, res)
  local m, best = res.meta, nil
  for _, r in ipairs(res.runs) do
    local ns, reps = tonumber(r.ns), tonumber(r.reps)
    if not ns or not reps or reps < 1 or ns <= 0 then
      return string.format("a run took %s ns for %s invocation(s)", tostring(r.ns), tostring(r.reps))
    end
    local t = math.max(ns - (m.timerOverheadNs or 0), 1) / reps * 1e-9
    if not best or t < best then best = t end
  end
  if not best then return "no timed run" end
  if row.kinfo and row.kinfo.gpu then return nil end -- a GPU's limits are not the CPU's
  local l = limits(s)
  local gbs, gflops = (m.bytes or 0) / best / 1e9, (m.flops or 0) / best / 1e9
  if l.gbs > 0 and gbs > 10 * l.gbs then
    return string.format("%.4g GB/s is more than ten times this machine's fastest measured bandwidth (%.4g GB/s)",
      gbs, l.gbs)
  end
  if l.gflops > 0 and gflops > 10 * l.gflops then
    return string.format("%.4g GFLOP/s is more than ten times this machine's fastest "
      .. "measured compute (%.4g GFLOP/s)", gflops, l.gflops)
  end
  return nil
end

return M
