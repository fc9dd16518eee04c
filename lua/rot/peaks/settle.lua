-- rot.peaks.settle: what the peaks' compute and bandwidth rounds share: when a ceiling's rounds
-- agree, how far they spread, a ceiling from its rounds and when it was measured, a point's
-- median run, points measured together or not at all, and the peaks' progress lines.
local session = require "rot.session"
local plateaus = require "rot.machine.plateaus"
local agreement = require "rot.machine.agreement"

local M = {}

--[[ One bandwidth ceiling from its rounds (per = {[ws] = {rounds={[round] = GB/s}, at={[round] =
  date}}}): per round the median over the level's sizes, or their fastest with `fastest`, of
  each point's fastest run, the ceiling the best of them (STREAM's convention, its best pass,
  and the Empirical Roofline Toolkit's, its best trial: a roof is what the machine can be seen
  to do, and a point counts its fastest runs too); spread how far the third best (the second
  with two rounds) lies below it (one round: how far its samples reach above their median);
  date: when the best round's last size at the level was measured (nil where the cache entries
  do not say). {gbs=, median=, spread=, rounds=, values=, date=, round= (the best one)}. ]]
function M.ceiling(per, sizes, fastest)
  local by, at = {}, {}
  for _, ws in ipairs(sizes) do
    for r, g in pairs(per[ws] and per[ws].rounds or {}) do
      by[r] = by[r] or {}
      table.insert(by[r], g)
      at[r] = M.later(at[r], per[ws].at and per[ws].at[r])
    end
  end
  local v, one, best = {}, nil, nil
  for r, gs in pairs(by) do
    v[#v + 1] = fastest and math.max(table.unpack(gs)) or plateaus.median(gs)
    if not best or v[#v] > best.gbs or (v[#v] == best.gbs and r < best.round) then best = { gbs = v[#v], round = r } end
    one = gs
  end
  if #v == 0 then return nil end
  table.sort(v, function(a, b) return a > b end)
  local spread = agreement.spread(v)
  if #v == 1 then spread = math.max(table.unpack(one)) / plateaus.median(one) - 1 end -- one round: its samples' reach
  return { gbs = v[1], median = plateaus.median(v), spread = spread, rounds = #v, values = v,
    date = at[best.round], round = best.round }
end

-- The later of two dates (UTC, as cache entries record them: measuredAt; nil where unknown).
function M.later(a, b)
  if not (a and b) then return a or b end
  return a > b and a or b
end

-- When the last of samples' points (as M.ceiling's per, every round) was measured; nil where
-- no entry says.
function M.newest(samples)
  local out
  for _, x in pairs(samples) do
    for _, d in pairs(x.at or {}) do out = M.later(out, d) end
  end
  return out
end

--[[ Points that must be measured in the same minutes (a round and the clock readings around
  it): whether they are measured afresh, every one of them, because one is not in the cache
  (rot.cached) or `fresh` says so; then useCachedResults is off until the value returned second
  is closed (to-be-closed: `local fresh, _ <close> = rounds.together(...)`), which restores it.
  Otherwise every one of them comes from the cache, measured together by the run that stored them. ]]
function M.together(rot, specs, fresh)
  if not fresh then
    local seq = {}
    for i = 1, #specs do seq[i] = i end
    fresh = not rot.cached(rot.space { rot.axis("i", seq) }, function(p) return specs[p.i] end)
  end
  local use = rot.get("useCachedResults")
  if fresh then rot.set("useCachedResults", false) end
  return fresh, setmetatable({}, { __close = function() if fresh then rot.set("useCachedResults", use) end end })
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
  if session.shows_progress(rot.get("progress")) then
    session.current():quiet()
    io.stderr:write("rot: peaks: ", line, "\n")
  end
end

return M
