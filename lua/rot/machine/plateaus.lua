-- rot.machine.plateaus: a bandwidth sweep cut into plateaus (the staircase's steps): samples
-- grouped by their neighbours, smoothed where noise scatters them, and where each step ends.
local median = require("rot.util").median
local M = {}

-- Two samples are on one plateau when their bandwidths differ by less than this.
M.tolerance = 0.12

local group, gap_plateaus, segment, crossing

local function within(a, b, tol) return math.abs(math.log(a / b)) <= math.log(1 + tol) end

local function values(samples)
  local v = {}
  for i, s in ipairs(samples) do v[i] = s.gbs end
  return v
end

-- A segment of samples: its bandwidth (median; the best for a peak), extent and scatter.
function segment(samples, kind)
  local v = values(samples)
  local gbs = kind == "peak" and math.max(table.unpack(v)) or median(v)
  local top = math.max(table.unpack(v))
  return { kind = kind, samples = samples, gbs = gbs, lo = samples[1].ws, hi = samples[#samples].ws,
    n = #samples, spread = (top - gbs) / gbs }
end

-- Working set where the sweep crosses bandwidth `target` between two segments (log-log
-- interpolation between the samples around it); the middle of the gap when it never does.
function crossing(sorted, a, b, target)
  for i = 1, #sorted - 1 do
    local s, t = sorted[i], sorted[i + 1]
    if s.ws >= a.hi and t.ws <= b.lo and s.gbs >= target and t.gbs < target then
      local f = math.log(s.gbs / target) / math.log(s.gbs / t.gbs)
      return math.exp(math.log(s.ws) + f * math.log(t.ws / s.ws))
    end
  end
  return math.sqrt(a.hi * b.lo)
end

-- Pool-adjacent-violators: the decreasing step function nearest (least squares, in log
-- bandwidth) to sorted[from..to]; returns its blocks {mean=, first=, last=}.
local function decreasing(sorted, from, to)
  local blocks = {}
  for i = from, to do
    blocks[#blocks + 1] = { sum = math.log(sorted[i].gbs), n = 1, first = i, last = i }
    while #blocks > 1 and blocks[#blocks - 1].sum / blocks[#blocks - 1].n < blocks[#blocks].sum / blocks[#blocks].n do
      local b = table.remove(blocks)
      local a = blocks[#blocks]
      a.sum, a.n, a.last = a.sum + b.sum, a.n + b.n, b.last
    end
  end
  for _, b in ipairs(blocks) do b.mean = math.exp(b.sum / b.n) end
  return blocks
end

-- Groups of consecutive samples (of sorted[from..to]) within the tolerance of their group's
-- median; with smooth, of consecutive blocks of the decreasing fit within the tolerance of the
-- group's first block. Returns {{samples=, first=}, ...}.
function group(sorted, from, to, tol, smooth)
  local groups, cur, ref = {}, nil, nil
  local units = {}
  if smooth then
    for _, b in ipairs(decreasing(sorted, from, to)) do units[#units + 1] = b end
  else
    for i = from, to do units[#units + 1] = { mean = sorted[i].gbs, first = i, last = i } end
  end
  for k, u in ipairs(units) do
    local med = cur and (smooth and ref or median(values(cur.samples)))
    if cur and within(u.mean, med, tol) then
      for i = u.first, u.last do cur.samples[#cur.samples + 1] = sorted[i] end
      cur.last = u.last
    elseif cur and not smooth and #cur.samples >= 2 and units[k + 1] and within(units[k + 1].mean, med, tol) then
      -- one sample out of line inside a plateau: noise; it does not end the group, and it
      -- counts in the group's median once the group is complete
      cur.last = u.last
      cur.noise = cur.noise or {}
      for i = u.first, u.last do cur.noise[#cur.noise + 1] = sorted[i] end
    else
      cur = { samples = {}, first = u.first, last = u.last }
      for i = u.first, u.last do cur.samples[#cur.samples + 1] = sorted[i] end
      ref = u.mean
      groups[#groups + 1] = cur
    end
  end
  for _, g in ipairs(groups) do
    for _, s in ipairs(g.noise or {}) do g.samples[#g.samples + 1] = s end
    table.sort(g.samples, function(a, b) return a.ws < b.ws end)
  end
  return groups
end

--[[ Plateaus hidden in the gaps of a noisy sweep: where the samples between two plateaus (or
  between the first plateau and the best of the samples before it, the smallest level's peak)
  are three or more that no group took (a quick sweep's level of four sizes, one of them 15 %
  out of line), the decreasing step function nearest to them is grouped; its groups of three
  or more samples are plateaus. found: the plateaus' groups so far, in order (none: the
  samples after the best one are the gap). more (detect, when the machine reports more caches
  than the sweep shows steps): the samples after the last plateau are a gap too (DRAM's tail is
  off the sweep then; its groups must span two octaves), and a gap after a plateau that forms
  no group, five samples or more, is a level that falls too much to be a plateau (a cache
  shared with noisy neighbours): the samples between its first and last (the transitions),
  when their median lies clearly below the plateau before and above the one after (floor:
  DRAM's bandwidth, the level after the last gap), they span three octaves or more and fall by
  less than 40 % of the fall between those two (slope = true). ]]
function gap_plateaus(sorted, found, tol, more, floor)
  local out = {}
  local function try(from, to, span)
    if to - from + 1 < 3 then return end
    for _, g in ipairs(group(sorted, from, to, tol, true)) do
      if #g.samples >= 3 and g.samples[#g.samples].ws >= (span or 1) * g.samples[1].ws then out[#out + 1] = g end
    end
  end
  local function slope(from, to, above, below)
    local a, b = median(values(above.samples)), below and median(values(below.samples)) or floor
    -- a level spans three octaves of sizes or more, and falls by less than 40 % of the fall
    -- from the level above to the one below; the fall from a plateau to the next level (a
    -- transition, an octave or two) falls most of the way: the gap's last sizes may be the
    -- next one's transition, and are dropped until what is left is a level (or too short)
    while to - from + 1 >= 5 and sorted[to - 1].ws >= 8 * sorted[from + 1].ws do
      local mid = { table.unpack(sorted, from + 1, to - 1) }
      local v = values(mid)
      local m, hi, lo = median(v), math.max(table.unpack(v)), math.min(table.unpack(v))
      if not (m * (1 + tol) < a and (not b or m > b * (1 + tol))) then return end
      if not b or math.log(hi / lo) <= 0.4 * math.log(a / b) then
        out[#out + 1] = { samples = mid, first = from + 1, last = to - 1, slope = true }
        return
      end
      to = to - 1
    end
  end
  local before = found[1] and found[1].first - 1 or #sorted -- no plateau at all: the whole sweep
  local best = 0 -- the peak before the first plateau: the best of the samples before it
  for j = 1, before do
    if best == 0 or sorted[j].gbs > sorted[best].gbs then best = j end
  end
  try(best + 1, before)
  for k = 1, #found - 1 do try(found[k].last + 1, found[k + 1].first - 1) end
  if not more then return out end
  local all = { table.unpack(found) }
  for _, g in ipairs(out) do all[#all + 1] = g end
  table.sort(all, function(a, b) return a.first < b.first end)
  local n = #out
  -- after the last plateau, a group of a single octave is DRAM's noise or transition, not a cache
  if #all > 0 then try(all[#all].last + 1, #sorted, 4) end
  if #out > n then return out end
  for k = 1, #all - 1 do slope(all[k].last + 1, all[k + 1].first - 1, all[k], all[k + 1]) end
  if #all > 0 then slope(all[#all].last + 1, #sorted, all[#all]) end
  return out
end

--[[ Segments of one sweep: samples = {{ws=bytes, gbs=GB/s}, ...} in any order.
  Consecutive samples within the tolerance of their group's median form a group; groups of
  three or more (two at the end of the sweep) are plateaus, and so are those gap_plateaus
  finds in what they leave (o.smooth = false turns off only the tail's smoothing below). The samples after the last
  plateau
  (DRAM, whose bandwidth scatters most on a shared machine) are first smoothed by the
  decreasing step function nearest to them, then grouped. Neighbouring plateaus within the
  tolerance merge (an outlier between them is dropped); a plateau below the next one is
  overhead, not a level, and goes. Samples before the first plateau of which at least two beat
  it by more than the tolerance form a "peak" (a level too small to show a plateau, e.g. L1 with
  many threads), whose bandwidth is the best of them. Each segment but the last gets `breakpoint` (the working
  set where bandwidth crosses the geometric mean of the two levels: the effective size) and
  `upper` (where the next plateau starts). ]]
function M.segments(samples, tol, o)
  tol, o = tol or M.tolerance, o or {}
  local sorted = {}
  for _, s in ipairs(samples) do
    if s.gbs and s.gbs > 0 and s.ws and s.ws > 0 then sorted[#sorted + 1] = { ws = s.ws, gbs = s.gbs } end
  end
  table.sort(sorted, function(a, b) return a.ws < b.ws end)
  local plateaus = {}
  local function scatter(samples) -- relative median absolute deviation
    local v, m = values(samples), median(values(samples))
    local d = {}
    for i, x in ipairs(v) do d[i] = math.abs(x - m) / m end
    return median(d) or 0
  end
  local function add(samples, first, slope)
    local last = plateaus[#plateaus]
    -- neighbours merge when they differ by less than the tolerance, or than three times their
    -- own scatter (a noisy machine's plateau breaks into pieces of one level)
    local t = last and math.max(tol, 3 * math.max(scatter(samples), scatter(last.samples)))
    if last and within(median(values(samples)), last.gbs, t) then
      local all = { table.unpack(last.samples) }
      for _, s in ipairs(samples) do all[#all + 1] = s end
      plateaus[#plateaus] = segment(all, "plateau")
      plateaus[#plateaus].first, plateaus[#plateaus].slope = last.first, last.slope or slope
    else
      plateaus[#plateaus + 1] = segment(samples, "plateau")
      plateaus[#plateaus].first, plateaus[#plateaus].slope = first, slope
    end
  end
  local groups = group(sorted, 1, #sorted, tol)
  local stop = #sorted -- the samples after the last plateau: the noisy tail
  local at_end = o.end_plateau or 2 -- the sweep's last plateau may rest on two samples
  local found = {}
  for gi, g in ipairs(groups) do
    if #g.samples >= 3 or (gi == #groups and #g.samples >= at_end) then found[#found + 1] = g end
  end
  for _, g in ipairs(gap_plateaus(sorted, found, tol, o.more, o.floor)) do found[#found + 1] = g end
  table.sort(found, function(a, b) return a.first < b.first end)
  for _, g in ipairs(found) do
    add(g.samples, g.first, g.slope)
    stop = g.last
  end
  if #plateaus == 0 then stop = 0 end
  if o.smooth ~= false and #sorted - stop >= 3 then -- DRAM on a noisy machine: smooth the tail before grouping it
    local tail = group(sorted, stop + 1, #sorted, tol, true)
    for gi, g in ipairs(tail) do
      if #g.samples >= 3 or (gi == #tail and #g.samples >= 2) then add(g.samples, g.first) end
    end
  end
  local i = 1
  while i < #plateaus do -- bandwidth only falls from level to level
    if plateaus[i + 1].gbs > plateaus[i].gbs * (1 + tol) then table.remove(plateaus, i) else i = i + 1 end
  end
  if #plateaus == 0 then return {} end
  local lead, above = {}, 0
  for j = 1, plateaus[1].first - 1 do
    lead[j] = sorted[j]
    if sorted[j].gbs > plateaus[1].gbs * (1 + tol) then above = above + 1 end
  end
  if above >= 2 then -- a level of its own, not one sample out of line
    local best = 1
    for j, s in ipairs(lead) do if s.gbs > lead[best].gbs then best = j end end
    table.insert(plateaus, 1, segment({ table.unpack(lead, 1, best) }, "peak"))
  end
  for k = 1, #plateaus - 1 do
    local a, b = plateaus[k], plateaus[k + 1]
    a.breakpoint = crossing(sorted, a, b, math.sqrt(a.gbs * b.gbs))
    a.upper = b.lo
  end
  return plateaus
end

M.median, M.within, M.values, M.segment, M.crossing = median, within, values, segment, crossing

return M
