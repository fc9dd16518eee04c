--[[ rot.compare.work: where both runs of a pair were counted (rot.count: their flops and bytes
  counted under Valgrind, kept in the run records), a change of time split into a change of
  work, a fact (the counts are exact, no noise), and a change of rate: B/A's time = work / rate.
  "slower x2.0: work x2.00, rate x1.00" against "slower x1.9: work x1.00, rate x0.53". ]]
local M = {}

-- The work of one side: its counted flops, or its counted bytes where it does no flops.
local function work_of(x, flops)
  if not x then return nil end
  return flops and x.cflops or x.cbytes
end

--[[ split(p) -> work, rate: B over A of the pair's counted work (flops where both sides count
  some, else bytes) and of its rate (work per second); nil where either side was not counted
  or timed. ]]
function M.split(p)
  if not (p.a and p.b and p.ratio and p.ratio > 0) then return nil end
  local flops = (p.a.cflops or 0) > 0 and (p.b.cflops or 0) > 0
  local wa, wb = work_of(p.a, flops), work_of(p.b, flops)
  if not (wa and wb and wa > 0 and wb > 0) then return nil end
  local work = wb / wa
  return work, work / p.ratio
end

--[[ The verdict with its split: "slower x2.0: work x2.00, rate x1.00" (the verdict's factor: B/A
  of the time when slower or the same, A/B when faster), or nil without one. ]]
function M.text(p)
  local work, rate = M.split(p)
  if not work then return nil end
  local f = p.verdict == "faster" and 1 / p.ratio or p.ratio
  return string.format("%s x%.1f: work x%.2f, rate x%.2f", p.verdict, f, work, rate)
end

return M
