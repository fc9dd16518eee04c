-- rot.machine.rounds: what the peaks' compute and bandwidth rounds share: when a ceiling's rounds
-- agree, how far they spread, a point's median run, and the peaks' progress lines.
local sys = require "rot.sys"
local session = require "rot.session"
local plateaus = require "rot.machine.plateaus"

local M = {}

-- A ceiling whose best rounds disagree by more than this is measured again, then unstable.
M.stable = 0.05

-- What to do about unstable ceilings, as every note says it (a rerun is the cache's: the same
-- points, the same choices of rounds, rot.machine.budget).
M.again = "measure the peaks afresh when it is quieter (rot measure peaks -useCachedResults=false: a plain rerun "
  .. "takes them from the result cache)"

-- How far the third best of rounds' values (best first; the second of two) lies below the best.
function M.spread(v)
  local k = math.min(#v, 3)
  return (v[1] - v[k]) / v[k]
end

-- A measured point's median run, in seconds per invocation (nil when it was not measured): its
-- sustained rate's time.
function M.median_time(row)
  local e = row.entry
  if not (e and row.bytes and #e.runs > 0) then return nil end
  local ov, t = e.meta.timerOverheadNs or 0, {}
  for i, r in ipairs(e.runs) do t[i] = math.max(r.ns - ov, 1) / r.reps * 1e-9 end
  return plateaus.median(t)
end

-- A phase of the peaks on stderr, where progress is shown (a terminal, or -progress=always).
function M.say(rot, line)
  local mode = rot.get("progress")
  if mode == "always" or (mode == "auto" and sys.isatty(2)) then
    session.current():quiet()
    io.stderr:write("rot: peaks: ", line, "\n")
  end
end

return M
