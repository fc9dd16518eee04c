-- rot.machine.agreement: when a ceiling's rounds agree: how far they spread, the spread past
-- which a ceiling is unstable, and what every note says to do about an unstable one.
local M = {}

-- A ceiling whose best rounds disagree by more than this is measured again, then unstable.
M.stable = 0.05

-- What to do about unstable ceilings, as every note says it (a rerun is the cache's: the same
-- points, the same choices of rounds, rot.peaks.budget).
M.again = "measure the peaks afresh when it is quieter (rot measure peaks -useCachedResults=false: a plain rerun "
  .. "takes them from the result cache)"

-- How far the third best of rounds' values (best first; the second of two) lies below the best.
function M.spread(v)
  local k = math.min(#v, 3)
  return (v[1] - v[k]) / v[k]
end

return M
