-- rot.machine.levels: memory levels found in bandwidth-versus-working-set sweeps (the staircase), as
-- the Empirical Roofline Toolkit finds them: plateaus, the breakpoints between them (effective
-- sizes), names matched with the reported cache levels, and where the two disagree.
local M = {}

-- Two samples are on one plateau when their bandwidths differ by less than this.
M.tolerance = 0.12

local function median(v)
  local s = {}
  for i, x in ipairs(v) do s[i] = x end
  table.sort(s)
  local n = #s
  if n == 0 then return nil end
  if n % 2 == 1 then return s[(n + 1) // 2] end
  return (s[n // 2] + s[n // 2 + 1]) / 2
end
M.median = median

local group, gap_plateaus

local function within(a, b, tol) return math.abs(math.log(a / b)) <= math.log(1 + tol) end

local function values(samples)
  local v = {}
  for i, s in ipairs(samples) do v[i] = s.gbs end
  return v
end

-- A segment of samples: its bandwidth (median; the best for a peak), extent and scatter.
local function segment(samples, kind)
  local v = values(samples)
  local gbs = kind == "peak" and math.max(table.unpack(v)) or median(v)
  local top = math.max(table.unpack(v))
  return { kind = kind, samples = samples, gbs = gbs, lo = samples[1].ws, hi = samples[#samples].ws,
    n = #samples, spread = (top - gbs) / gbs }
end

-- Working set where the sweep crosses bandwidth `target` between two segments (log-log
-- interpolation between the samples around it); the middle of the gap when it never does.
local function crossing(sorted, a, b, target)
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
  off the sweep then), and a gap after a plateau that forms no group, five samples or more, is
  a level that falls too much to be a plateau (a cache shared with noisy neighbours): the
  samples between its first and last (the transitions), when they lie clearly below the
  plateau before and above the one after (slope = true; detect drops it if it is not clearly
  above DRAM). ]]
function gap_plateaus(sorted, found, tol, more)
  local out = {}
  local function try(from, to)
    if to - from + 1 < 3 then return end
    for _, g in ipairs(group(sorted, from, to, tol, true)) do
      if #g.samples >= 3 then out[#out + 1] = g end
    end
  end
  local function slope(from, to, above, below)
    if to - from + 1 < 5 then return end
    local mid = { table.unpack(sorted, from + 1, to - 1) }
    local m = median(values(mid))
    if m * (1 + tol) < median(values(above.samples)) and (not below or m > median(values(below.samples)) * (1 + tol)) then
      out[#out + 1] = { samples = mid, first = from + 1, last = to - 1, slope = true }
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
  if #all > 0 then try(all[#all].last + 1, #sorted) end
  if #out > n then return out end
  for k = 1, #all - 1 do slope(all[k].last + 1, all[k + 1].first - 1, all[k], all[k + 1]) end
  if #all > 0 then slope(all[#all].last + 1, #sorted, all[#all]) end
  return out
end

--[[ Segments of one sweep: samples = {{ws=bytes, gbs=GB/s}, ...} in any order.
  Consecutive samples within the tolerance of their group's median form a group; groups of
  three or more (two at the end of the sweep) are plateaus, and so are those gap_plateaus
  finds in what they leave (o.smooth = false turns off only the tail's smoothing below). The samples after the last plateau
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
  for _, g in ipairs(gap_plateaus(sorted, found, tol, o.more)) do found[#found + 1] = g end
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

-- Chooses which reported levels the breakpoints belong to: in order, each breakpoint to a
-- distinct level, minimizing the summed |log(breakpoint / reported size)|. Returns, per
-- breakpoint, the index of its reported level.
local function match(bps, reported)
  local nb, nr = #bps, #reported
  local cost, from = {}, {}
  for i = 0, nb do cost[i], from[i] = {}, {} end
  for j = 0, nr do cost[0][j] = 0 end
  for i = 1, nb do
    for j = 0, nr do
      cost[i][j] = math.huge
      if j >= i then
        local skip = cost[i][j - 1]
        local take = cost[i - 1][j - 1] + math.abs(math.log(bps[i] / reported[j].size))
        if take <= skip then cost[i][j], from[i][j] = take, true else cost[i][j], from[i][j] = skip, false end
      end
    end
  end
  local out, j = {}, nr
  for i = nb, 1, -1 do
    while not from[i][j] do j = j - 1 end
    out[i] = j
    j = j - 1
  end
  return out
end

-- The flat DRAM tail's tolerance: the largest sizes lie within 5% of their median (or more on
-- a noisy sweep: flat_tail).
M.tail_tolerance = 0.05

-- Least squares of log(bandwidth) on log2(size): the slope (log change an octave) and the
-- relative median absolute residual of samples.
local function fit(samples)
  local n, sx, sy, sxx, sxy = #samples, 0, 0, 0, 0
  for _, x in ipairs(samples) do
    local u, v = math.log(x.ws, 2), math.log(x.gbs)
    sx, sy, sxx, sxy = sx + u, sy + v, sxx + u * u, sxy + u * v
  end
  local den = n * sxx - sx * sx
  local b = den > 0 and (n * sxy - sx * sy) / den or 0
  local a = (sy - b * sx) / n
  local r = {}
  for i, x in ipairs(samples) do r[i] = math.abs(math.log(x.gbs) - (a + b * math.log(x.ws, 2))) end
  return b, math.exp(median(r)) - 1
end

--[[ The flat DRAM tail of a sweep (sorted by size): the largest sizes, at least `min` spanning
  at least an octave, that fall by less than half the tolerance an octave (a line fitted
  through them: a gentle slope of a few percent an octave is not flat, noise both ways is) and
  lie within the tolerance of their median; grown downward while they stay so. The tolerance
  is 5%, or three times their scatter about the fitted line where that is larger, at most the
  level tolerance (12%: noisier than that, the ceiling is unstable anyway); the slope allowed,
  half of it an octave. Returns {first= index, samples=, gbs= median, lo=, hi=, n=,
  spread=, tolerance=, slope=} or nil when the largest sizes are not flat yet. ]]
function M.flat_tail(sorted, min)
  min = min or 3
  local n, found = #sorted, nil
  for first = n - min + 1, 1, -1 do
    if sorted[n].ws >= 2 * sorted[first].ws then
      local c = { table.unpack(sorted, first, n) }
      local slope, scatter = fit(c)
      local tol = math.min(math.max(M.tail_tolerance, 3 * scatter), M.tolerance)
      local m, ok = median(values(c)), -slope <= math.log(1 + tol / 2)
      for _, x in ipairs(c) do ok = ok and within(x.gbs, m, tol) end
      if ok then found = { first = first, tol = tol, slope = slope } elseif found then break end
    end
  end
  if not found then return nil end
  local tail = segment({ table.unpack(sorted, found.first, n) }, "tail")
  tail.first, tail.tolerance, tail.slope = found.first, found.tol, math.exp(found.slope) - 1
  return tail
end

--[[ The named cache levels of the segments: matched to the reported levels in size (a
  reported level without a step of its own shares the plateau that covers it, or DRAM's tail);
  more steps
  than reported levels: the first ones carry the reported names and sizes in order, each
  further step (between the last reported cache and DRAM) is a level of its own, L4, ...,
  that the machine does not report. ]]
local function name_levels(segs, reported, tail)
  local levels = {}
  if #reported == 0 or #segs > #reported then
    for i, g in ipairs(segs) do
      local r = reported[i]
      levels[i] = { name = r and r.name or ("L" .. i), reported = r and r.size, seg = g,
        unreported = #reported > 0 and not r or nil }
    end
    return levels
  end
  local bps = {}
  for i, g in ipairs(segs) do bps[i] = g.breakpoint end
  local seg_of, cover = {}, 1
  for i, j in ipairs(match(bps, reported)) do seg_of[j] = i end
  for j, r in ipairs(reported) do
    levels[#levels + 1] = { name = r.name, reported = r.size, seg = segs[seg_of[j] or cover] or tail, own = seg_of[j] ~= nil }
    if seg_of[j] then cover = seg_of[j] + 1 end
  end
  return levels
end

local function sizes_of(samples)
  local out = {}
  for i, x in ipairs(samples) do out[i] = x.ws end
  return out
end

--[[ Levels of one sweep: samples = {{ws=, gbs=, rounds={gbs per round}}, ...} (the best of
  each size over its rounds), reported = {{name="L1", size=bytes}, ...} ascending (the cache the
  measuring threads can use; empty when the machine reports none).
  DRAM is measured where it is DRAM: on the flat tail of the largest sizes (flat_tail); a
  plateau just above it within the level tolerance is DRAM's transition (counted in DRAM's
  range, never in its value); a further step above the tail is a level of its own. Returns
  { {name=, gbs=, spread=, effective=, reported=, upper=, n=, kind=, sizes=, unreported=,
  flat= (false: its sizes fall too much to be a plateau; their median is its value)}, ...,
  {name="DRAM", gbs=, n=, from=, sizes=, tolerance=, flat=} }, or nil, reason, "tail" when the
  largest sizes are not flat yet (the sweep must go further) / "plateau" when no cache level
  shows. o.final: the sweep can go no further; a tail that is not flat is then its last
  octave, with flat = false, and a sweep with no cache plateau is DRAM's alone (alone = true:
  its ceiling bounds every size). ]]
function M.detect(samples, reported, o)
  reported, o = reported or {}, o or {}
  local sorted = {}
  for _, x in ipairs(samples) do
    if x.gbs and x.gbs > 0 and x.ws and x.ws > 0 then sorted[#sorted + 1] = { ws = x.ws, gbs = x.gbs, rounds = x.rounds } end
  end
  table.sort(sorted, function(a, b) return a.ws < b.ws end)
  local tail = M.flat_tail(sorted)
  if not tail and o.final and #sorted >= 3 then -- the sweep can go no further: its last octave
    local first = #sorted - 2
    while first > 1 and sorted[first - 1].ws * 2 > sorted[#sorted].ws do first = first - 1 end
    tail = segment({ table.unpack(sorted, first, #sorted) }, "tail")
    tail.first, tail.tolerance, tail.flat = first, M.tolerance, false
  end
  if not tail then return nil, "the largest sizes are not flat yet: no DRAM tail", "tail" end
  local function caches(more)
    local segs = M.segments({ table.unpack(sorted, 1, tail.first - 1) }, nil, { smooth = false, end_plateau = 3,
      more = more })
    -- a last plateau within the tolerance of DRAM is its transition; one below it, noise
    while #segs > 0 and (within(segs[#segs].gbs, tail.gbs, M.tolerance) or segs[#segs].gbs < tail.gbs) do
      table.remove(segs)
    end
    return segs
  end
  local segs = caches(false)
  if #segs < #reported then -- a reported cache shows no step: is it in what the last plateau left?
    local more = caches(true)
    if #more > #segs then segs = more end
  end
  if #segs == 0 and not o.final then return nil, "no cache plateau before the DRAM tail", "plateau" end
  local out = {}
  if #segs > 0 then
    local last = segs[#segs]
    last.breakpoint = crossing(sorted, last, tail, math.sqrt(last.gbs * tail.gbs))
    last.upper = tail.lo
  end
  for _, l in ipairs(name_levels(segs, reported, tail)) do
    local g = l.seg
    out[#out + 1] = { name = l.name, reported = l.reported, gbs = g.gbs, spread = g.spread, kind = g.kind, n = g.n,
      effective = (l.own ~= false) and g.breakpoint or nil, upper = (l.own ~= false) and g.upper or nil,
      sizes = sizes_of(g.samples), unreported = l.unreported }
    if l.own ~= false and g.slope then out[#out].flat = false end
  end
  out[#out + 1] = { name = "DRAM", gbs = tail.gbs, n = tail.n, from = tail.lo, kind = "tail", spread = tail.spread,
    sizes = sizes_of(tail.samples), tolerance = tail.tolerance, flat = tail.flat ~= false, alone = #segs == 0 or nil }
  return out
end

--[[ The bandwidth another sweep (read, write) reaches in each level of `levels` (from detect
  on the reference sweep): the median of its samples at the sizes of that level's plateau (or
  DRAM's tail). Returns {name -> {gbs=, spread=, n=}}; levels without sizes of their own share
  the value of the level that covers them. ]]
function M.values(samples, levels)
  local at = {}
  for _, x in ipairs(samples) do if x.gbs and x.gbs > 0 then at[x.ws] = x end end
  local out = {}
  for _, l in ipairs(levels) do
    local got = {}
    for _, ws in ipairs(l.sizes or {}) do if at[ws] then got[#got + 1] = at[ws] end end
    if #got > 0 and (l.effective or l.name == "DRAM") then
      local g = segment(got, "plateau")
      out[l.name] = { gbs = g.gbs, spread = g.spread, n = g.n }
    end
  end
  for _, l in ipairs(levels) do -- levels without a step of their own: the next level's value
    if not out[l.name] and l.name ~= "DRAM" then
      for _, m in ipairs(levels) do
        if m.effective and (not l.reported or (m.reported or 0) >= l.reported) and out[m.name] then
          out[l.name] = out[m.name]
          break
        end
      end
    end
  end
  return out
end

-- One line for each level whose effective size and reported size differ by more than a factor
-- of two (or that the machine does not report), else nothing.
function M.disagreements(levels, what)
  local util = require "rot.util"
  local lines = {}
  local pre = what and (what .. ": ") or ""
  for _, l in ipairs(levels) do
    if l.unreported and l.effective then
      lines[#lines + 1] = string.format("%s%s is a step the machine does not report, between its last cache and DRAM: "
        .. "%.3g GB/s up to %s", pre, l.name, l.gbs, util.bytes(l.effective))
    elseif l.effective and l.reported and (l.effective > 2 * l.reported or l.effective < l.reported / 2) then
      lines[#lines + 1] = string.format("%s%s reported %s, bandwidth drops at %s", pre, l.name,
        util.bytes(l.reported), util.bytes(l.effective))
    elseif l.reported and not l.effective and l.name ~= "DRAM" then
      lines[#lines + 1] = string.format("%s%s reported %s, no bandwidth step of its own", pre, l.name, util.bytes(l.reported))
    end
  end
  return lines
end

return M
