--[[ rot.machine.sweep: the working sets the peaks' bandwidth sweeps measure, what they
  measured at each, stored with the peaks (peaks.csv rows of kind "sweep": per kernel, thread
  count and size, its best round), where they fall from one level's ceiling to the next's (the
  transitions: a level's falling edge, on either side of its effective size, and the step from
  the last cache to DRAM's range), the bandwidth they measured at a working set there, which
  bounds it, and why the sweep stopped where it did. ]]
local util = require "rot.util"
local agreement = require "rot.machine.agreement"
local plateaus = require "rot.machine.plateaus"

local M = {}

local MiB = 1024 * 1024

--[[ Working-set sizes from 4 KiB to top, geometric: two an octave (a plateau needs three
  samples: one an octave is too few for an L3 on a noisy machine), one in quick mode and from
  256 MiB on (each of those takes seconds to touch and to run; DRAM's tail needs three). ]]
function M.sizes(top, per_octave)
  local out, ws = {}, 4096
  while ws <= top do
    out[#out + 1] = ws
    if (per_octave or 2) > 1 and ws < 256 * MiB and ws * 3 // 2 <= top then out[#out + 1] = ws * 3 // 2 end
    ws = ws * 2
  end
  return out
end

-- The families of the sweeps, in the order of rot.peaks.bandwidth's streams.
M.families = { "read", "write", "triad" }

--[[ peaks.csv rows of one stream's samples at t threads ({[ws] = {ws=, rounds={[round] = GB/s},
  at={[round] = when it was measured}}}): per size its best round (each round a point's fastest
  run) and its date, the spread how far the third best round lies below it (the second of two;
  0 with one), unstable when that is above 5%. ]]
function M.rows(samples, t, family, kernel)
  local out = {}
  for ws, x in pairs(samples) do
    local v, best = {}, nil
    for r, g in pairs(x.rounds) do
      v[#v + 1] = g
      if not best or g > x.rounds[best] or (g == x.rounds[best] and r < best) then best = r end
    end
    if #v > 0 then
      table.sort(v, function(a, b) return a > b end)
      local spread = agreement.spread(v)
      out[#out + 1] = { name = family .. "_sweep", kind = "sweep", threads = t, value = v[1],
        unit = "GB/s", spread = spread,
        rounds = #v, median = plateaus.median(v), kernel = kernel, sizes = { ws }, date = x.at and x.at[best],
        unstable = (#v > 1 and spread > agreement.stable) or nil }
    end
  end
  table.sort(out, function(a, b) return a.sizes[1] < b.sizes[1] end)
  return out
end

--[[ Where a sweep (ascending {ws=, gbs=}, each size's best round) falls from each cache level's
  ceiling to the next level's: levels = {{name=, size= (effective), gbs= (its ceiling, of the
  sweep's kernel), upto= (the last cache: where DRAM's range begins, DRAM_from)}, ..., {name =
  "DRAM", gbs=}}. Per cache whose level and the next have ceilings, {from=, to= (the levels),
  lo=, hi=}: lo the largest size swept at or below the cache's size (above the cache before)
  that lies within the plateau tolerance (12 %) of its ceiling, where its plateau ends (the
  cache's size when none does); hi the first size past it within that tolerance of the next
  level's ceiling, no sooner than upto (math.huge when none is). A working set strictly
  between lo and hi is in the transition: on the cache's falling edge, past its effective size,
  or in the step to DRAM's range. ]]
function M.transitions(levels, sw)
  local out, tol = {}, 1 + plateaus.tolerance
  for i = 1, #levels - 1 do
    local l, n, below = levels[i], levels[i + 1], levels[i - 1] and levels[i - 1].size or 0
    if l.size and l.gbs and n.gbs then
      local lo, hi
      for _, x in ipairs(sw or {}) do
        if x.ws <= l.size and x.ws > below and x.gbs * tol >= l.gbs then lo = x.ws end
        if not hi and x.ws > l.size and x.gbs <= n.gbs * tol then hi = x.ws end
      end
      out[#out + 1] = { from = l, to = n, lo = lo or l.size, hi = math.max(hi or math.huge, l.upto or 0) }
    end
  end
  return out
end

--[[ The sizes of samples ({[ws] = {rounds=}}: one kernel's at one thread count) in the
  transitions of levels lv (rot.machine.levels.detect's, each cache's and DRAM's ceiling of
  that kernel as `ceiling`, DRAM's range from `from`), where the sweep bounds the points; ascending. ]]
function M.step(lv, samples)
  local list, levels = {}, {}
  for ws, x in pairs(samples) do
    local v = {}
    for _, g in pairs(x.rounds) do v[#v + 1] = g end
    if #v > 0 then list[#list + 1] = { ws = ws, gbs = math.max(table.unpack(v)) } end
  end
  table.sort(list, function(a, b) return a.ws < b.ws end)
  for i, l in ipairs(lv) do
    levels[i] = { name = l.name, size = l.effective or l.reported, gbs = l.ceiling,
      upto = i == #lv - 1 and lv[#lv].from or nil }
  end
  local out = {}
  for _, x in ipairs(list) do
    for _, t in ipairs(M.transitions(levels, list)) do
      if x.ws > t.lo and x.ws < t.hi then out[#out + 1] = x.ws; break end
    end
  end
  return out
end

--[[ The sweeps among peaks rows at a thread count: {triad = {{ws=, gbs=, spread=, unstable=,
  rounds=}, ...} ascending, read=, write=} (a family the rows lack is left out), or nil when
  they hold no sweep (peaks stored by an older rot, or written by hand). ]]
function M.stored(rows, threads)
  local out, any = {}, false
  for _, r in ipairs(rows) do
    local family = r.kind == "sweep" and r.threads == threads and r.name:match("^(%a+)_sweep$")
    if family and r.sizes and r.sizes[1] then
      out[family] = out[family] or {}
      table.insert(out[family], { ws = r.sizes[1], gbs = r.value, spread = r.spread,
        unstable = r.unstable, rounds = r.rounds,
        isa = r.isa })
      any = true
    end
  end
  if not any then return nil end
  for _, list in pairs(out) do table.sort(list, function(a, b) return a.ws < b.ws end) end
  return out
end

--[[ The bandwidth a sweep (ascending) measured at working set ws: between the sizes swept either
  side, linear in log size; at the nearest one beyond its ends. {gbs=, spread=, unstable=, lo=,
  hi= (the sizes it lies between)}, or nil for an empty sweep. The spread and marking are the
  worse of the two sizes'. ]]
function M.bandwidth_at(sweep, ws)
  if not sweep or #sweep == 0 then return nil end
  local lo, hi = sweep[1], sweep[#sweep]
  for _, x in ipairs(sweep) do
    if x.ws <= ws then lo = x end
    if x.ws >= ws then hi = x; break end
  end
  if ws < lo.ws then hi = lo elseif ws > hi.ws then lo = hi end
  local gbs = lo.gbs
  if hi.ws > lo.ws then
    local f = math.log(ws / lo.ws) / math.log(hi.ws / lo.ws)
    gbs = lo.gbs + f * (hi.gbs - lo.gbs)
  end
  return { gbs = gbs, spread = math.max(lo.spread or 0, hi.spread or 0), unstable = (lo.unstable or hi.unstable) or nil,
    lo = lo.ws, hi = hi.ws, isa = lo.isa == hi.isa and lo.isa or nil } -- isa: the code of both sizes
end

-- The sizes of a sweep (ascending) from lo to hi, both included, and those swept just outside
-- them: the points a plot of the step draws.
function M.between(sweep, lo, hi)
  local out = {}
  for i, x in ipairs(sweep or {}) do
    local next_in = sweep[i + 1] and sweep[i + 1].ws > lo
    local prev_in = sweep[i - 1] and sweep[i - 1].ws < hi
    if (x.ws >= lo and x.ws <= hi) or (x.ws < lo and next_in) or (x.ws > hi and prev_in) then out[#out + 1] = x end
  end
  return out
end

--[[ Why the first round's sweep of a thread count stopped at the size it did (stopped = {top=,
  why=, from=}: "cap", a quarter of the memory, cap bytes; "doublings", its largest size doubled
  that many times; "flat", a tail flat in that round, from `from` where it showed a level above
  it), as a clause for the note on a DRAM tail that is not flat after all rounds; nil where it
  is not known (a recorded sweep). ]]
function M.stop_reason(stopped, cap, doublings)
  if not stopped then return nil end
  local bytes = util.bytes
  if stopped.why == "cap" then return string.format("the sweep stops at a quarter of the memory (%s)", bytes(cap)) end
  if stopped.why == "doublings" then
    return string.format("the sweep doubled its largest size %d times, as far as it goes", doublings)
  end
  return string.format("the sweep stopped doubling at %s because its first round's largest sizes were flat%s; the best "
    .. "of its rounds is not, and rounds after the first measure only the sizes it swept", bytes(stopped.top),
    stopped.from and (" from " .. bytes(stopped.from)) or "")
end

return M
