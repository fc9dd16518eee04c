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

local group

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

--[[ Segments of one sweep: samples = {{ws=bytes, gbs=GB/s}, ...} in any order.
  Consecutive samples within the tolerance of their group's median form a group; groups of
  three or more (two at the end of the sweep) are plateaus. The samples after the last plateau
  (DRAM, whose bandwidth scatters most on a shared machine) are first smoothed by the
  decreasing step function nearest to them, then grouped. Neighbouring plateaus within the
  tolerance merge (an outlier between them is dropped); a plateau below the next one is
  overhead, not a level, and goes. Samples before the first plateau that beat it by more than
  the tolerance form a "peak" (a level too small to show a plateau, e.g. L1 with many threads),
  whose bandwidth is the best of them. Each segment but the last gets `breakpoint` (the working
  set where bandwidth crosses the geometric mean of the two levels: the effective size) and
  `upper` (where the next plateau starts). ]]
function M.segments(samples, tol)
  tol = tol or M.tolerance
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
  local function add(samples, first)
    local last = plateaus[#plateaus]
    -- neighbours merge when they differ by less than the tolerance, or than three times their
    -- own scatter (a noisy machine's plateau breaks into pieces of one level)
    local t = last and math.max(tol, 3 * math.max(scatter(samples), scatter(last.samples)))
    if last and within(median(values(samples)), last.gbs, t) then
      local all = { table.unpack(last.samples) }
      for _, s in ipairs(samples) do all[#all + 1] = s end
      plateaus[#plateaus] = segment(all, "plateau")
      plateaus[#plateaus].first = last.first
    else
      plateaus[#plateaus + 1] = segment(samples, "plateau")
      plateaus[#plateaus].first = first
    end
  end
  local groups = group(sorted, 1, #sorted, tol)
  local stop = #sorted -- the samples after the last plateau: the noisy tail
  for gi, g in ipairs(groups) do
    if #g.samples >= 3 or (gi == #groups and #g.samples >= 2) then
      add(g.samples, g.first)
      stop = g.last
    end
  end
  if #plateaus == 0 then stop = 0 end
  if #sorted - stop >= 3 then -- DRAM on a noisy machine: smooth the tail before grouping it
    local tail = group(sorted, stop + 1, #sorted, tol, true)
    for gi, g in ipairs(tail) do
      if #g.samples >= 3 or (gi == #tail and #g.samples >= 2) then add(g.samples, g.first) end
    end
  end
  -- just above DRAM, after a big step: the last cache's thrash-resistant tail (a working set a
  -- few times the cache still hits in it), not a level of its own
  while #plateaus >= 3 and plateaus[#plateaus - 1].gbs < 1.4 * plateaus[#plateaus].gbs
    and plateaus[#plateaus - 2].gbs > 1.5 * plateaus[#plateaus - 1].gbs do
    table.remove(plateaus, #plateaus - 1)
  end
  local i = 1
  while i < #plateaus do -- bandwidth only falls from level to level
    if plateaus[i + 1].gbs > plateaus[i].gbs * (1 + tol) then table.remove(plateaus, i) else i = i + 1 end
  end
  if #plateaus == 0 then return {} end
  local lead = {}
  for j = 1, plateaus[1].first - 1 do lead[j] = sorted[j] end
  if #lead > 0 then
    local best = 1
    for j, s in ipairs(lead) do if s.gbs > lead[best].gbs then best = j end end
    if lead[best].gbs > plateaus[1].gbs * (1 + tol) then
      table.insert(plateaus, 1, segment({ table.unpack(lead, 1, best) }, "peak"))
    end
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

-- Joins segment k with k+1 (a breakpoint that is no level of its own).
local function join(segs, k)
  local a, b = segs[k], segs[k + 1]
  local all = {}
  for _, s in ipairs(a.samples) do all[#all + 1] = s end
  for _, s in ipairs(b.samples) do all[#all + 1] = s end
  local m = segment(all, "plateau")
  m.breakpoint, m.upper = b.breakpoint, b.upper
  segs[k] = m
  table.remove(segs, k + 1)
end

-- DRAM: the last plateau, on its samples beyond twice the last effective size (all of them
-- beyond it when the plateau has fewer than two there).
function M.dram(segs)
  local from = 2 * segs[#segs - 1].breakpoint
  local v = {}
  for _, s in ipairs(segs[#segs].samples) do if s.ws >= from then v[#v + 1] = s.gbs end end
  if #v < 2 then
    v = {}
    for _, seg in ipairs(segs) do
      for _, s in ipairs(seg.samples) do if s.ws >= from then v[#v + 1] = s.gbs end end
    end
  end
  local d = median(v)
  return { name = "DRAM", gbs = d, n = #v, from = from, kind = "plateau",
    spread = d and (math.max(table.unpack(v)) - d) / d or nil }
end

--[[ Levels of one sweep: reported = {{name="L1", size=bytes}, ...} ascending (the cache
  capacity the measuring threads can use; empty when the machine reports none).
  Returns { {name=, gbs=, spread=, effective=, reported=, upper=, n=, kind=}, ..., {name="DRAM",
  gbs=, n=} }: the last level is DRAM, measured on the samples beyond twice the last effective
  size; a reported level without a step of its own has no `effective` and shares the bandwidth
  of the plateau that covers it. nil, reason when the sweep shows no plateau at all. ]]
function M.detect(samples, reported)
  reported = reported or {}
  local segs = M.segments(samples)
  if #segs == 0 then return nil, "no plateau in the sweep" end
  if #segs == 1 then return nil, "one plateau only: the sweep shows no step to a slower level" end
  -- more steps than reported levels: keep the steepest
  while #reported > 0 and #segs - 1 > #reported do
    local k, worst = 1, math.huge
    for i = 1, #segs - 1 do
      local r = segs[i].gbs / segs[i + 1].gbs
      if r < worst then k, worst = i, r end
    end
    join(segs, k)
  end
  local bps = {}
  for i = 1, #segs - 1 do bps[i] = segs[i].breakpoint end
  local levels = {}
  if #reported == 0 then
    for i = 1, #bps do levels[i] = { name = "L" .. i, seg = segs[i] } end
  else
    local owner = match(bps, reported)
    local seg_of = {}
    for i, j in ipairs(owner) do seg_of[j] = i end
    local cover = 1
    for j, r in ipairs(reported) do
      levels[#levels + 1] = { name = r.name, reported = r.size, seg = segs[seg_of[j] or cover], own = seg_of[j] ~= nil }
      if seg_of[j] then cover = seg_of[j] + 1 end
    end
  end
  local out = {}
  for _, l in ipairs(levels) do
    local s = l.seg
    out[#out + 1] = { name = l.name, reported = l.reported, gbs = s.gbs, spread = s.spread, kind = s.kind, n = s.n,
      effective = (l.own ~= false) and s.breakpoint or nil, upper = (l.own ~= false) and s.upper or nil }
  end
  out[#out + 1] = M.dram(segs)
  return out
end

--[[ The bandwidth another sweep (read, write) reaches in each level of `levels` (from detect
  on the reference sweep): the value of its own segment that covers the middle of the level's
  range; DRAM from its samples beyond twice the last effective size. Returns {name -> {gbs=,
  spread=}}. ]]
function M.values(samples, levels)
  local segs = M.segments(samples)
  local out, lo = {}, nil
  for _, l in ipairs(levels) do
    if l.name == "DRAM" then
      local d = #segs > 1 and M.dram(segs)
      if d and d.gbs then out[l.name] = { gbs = d.gbs, spread = d.spread, n = d.n } end
    elseif l.effective then
      local mid = lo and math.sqrt(lo * l.effective) or l.effective / 2
      for k, s in ipairs(segs) do
        if k == #segs or mid <= s.breakpoint then
          if k < #segs or #segs == 1 then out[l.name] = { gbs = s.gbs, spread = s.spread, n = s.n } end
          break
        end
      end
      lo = l.effective
    end
  end
  for _, l in ipairs(levels) do -- levels without a step of their own: the next level's plateau value
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
  for _, l in ipairs(levels) do
    if l.effective and l.reported and (l.effective > 2 * l.reported or l.effective < l.reported / 2) then
      lines[#lines + 1] = string.format("%s%s reported %s, bandwidth drops at %s",
        what and (what .. ": ") or "", l.name, util.bytes(l.reported), util.bytes(l.effective))
    elseif l.reported and not l.effective and l.name ~= "DRAM" then
      lines[#lines + 1] = string.format("%s%s reported %s, no bandwidth step of its own",
        what and (what .. ": ") or "", l.name, util.bytes(l.reported))
    end
  end
  return lines
end

return M
