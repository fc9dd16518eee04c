-- rot.machine.levels: memory levels found in bandwidth-versus-working-set sweeps (the staircase), as
-- the Empirical Roofline Toolkit finds them: DRAM's flat tail and where its ceiling is read, the
-- plateaus above it (rot.machine.plateaus) named after the reported cache levels, and where the
-- two disagree.
local plateaus = require "rot.machine.plateaus"

local M = {}

--[[ The name of the k-th level measured past the last cache a machine reports (named last):
  "L3+", "L3++": a step between it and DRAM that no reported cache explains. ]]
function M.unreported_name(last, k) return last .. string.rep("+", k) end

-- Two samples are on one plateau when their bandwidths differ by less than this.
M.tolerance = plateaus.tolerance
M.median, M.segments = plateaus.median, plateaus.segments
local median, within, values, segment, crossing = plateaus.median, plateaus.within, plateaus.values, plateaus.segment,
  plateaus.crossing

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
  more steps than reported levels: the first ones carry the reported names and sizes in order,
  each further step (between the last reported cache and DRAM) is a level of its own that the
  machine does not report, named for what it is: past its last cache, "L3+" (then "L3++"), never
  a cache number it does not have (detect drops a first step first when the others fit the
  reported sizes better without it: small sizes timed above L1 by noise). A machine that
  reports no cache gets L1, L2, ... from the steps alone. ]]
local function name_levels(segs, reported, tail)
  local levels = {}
  if #reported == 0 or #segs > #reported then
    local last = reported[#reported]
    for i, g in ipairs(segs) do
      local r = reported[i]
      levels[i] = { name = r and r.name or last and M.unreported_name(last.name, i - #reported) or ("L" .. i),
        reported = r and r.size, seg = g, unreported = #reported > 0 and not r or nil }
    end
    return levels
  end
  local bps = {}
  for i, g in ipairs(segs) do bps[i] = g.breakpoint end
  local seg_of, cover = {}, 1
  for i, j in ipairs(match(bps, reported)) do seg_of[j] = i end
  for j, r in ipairs(reported) do
    levels[#levels + 1] = { name = r.name, reported = r.size, seg = segs[seg_of[j] or cover] or tail,
      own = seg_of[j] ~= nil }
    if seg_of[j] then cover = seg_of[j] + 1 end
  end
  return levels
end

local function sizes_of(samples)
  local out = {}
  for i, x in ipairs(samples) do out[i] = x.ws end
  return out
end

-- A plateau's sizes and those after it up to its level's effective size (upto): they lie in
-- the level too, and one measured faster than the plateau says the plateau's rounds ran slow
-- (a roof the points at those sizes would pass); the transition's sizes near upto lie below.
local function level_sizes(sorted, samples, upto)
  local out = sizes_of(samples)
  local last = out[#out]
  for _, x in ipairs(sorted) do
    if last and upto and x.ws > last and x.ws <= upto then out[#out + 1] = x.ws end
  end
  return out
end

-- How far the segments from skip + 1 on lie from the reported levels they would be named
-- after (in order): the sum of |log(breakpoint / reported size)|.
local function misfit(segs, reported, skip)
  local sum = 0
  for j, r in ipairs(reported) do
    local g = segs[j + skip]
    if g and g.breakpoint then sum = sum + math.abs(math.log(g.breakpoint / r.size)) end
  end
  return sum
end

--[[ Levels of one sweep: samples = {{ws=, gbs=, rounds={gbs per round}}, ...} (the best of
  each size over its rounds), reported = {{name="L1", size=bytes}, ...} ascending (the cache the
  measuring threads can use; empty when the machine reports none).
  DRAM is measured where it is DRAM: on the flat tail of the largest sizes (flat_tail); a
  plateau just above it within the level tolerance is DRAM's transition (counted in DRAM's
  range, never in its value); a further step above the tail is a level of its own. Returns
  { {name=, gbs=, spread=, effective=, reported=, upper=, n=, kind=, sizes=, unreported=,
  flat= (false: its sizes fall too much to be a plateau; their median is its value), range=
  {fastest, slowest of its sizes} then}, ...,
  {name="DRAM", gbs=, n=, from=, sizes=, tolerance=, flat=} }, or nil, reason, "tail" when the
  largest sizes are not flat yet (the sweep must go further) / "plateau" when no cache level
  shows. o.final: the sweep can go no further; a tail that is not flat is then its last
  octave, with flat = false, and a sweep with no cache plateau is DRAM's alone (alone = true:
  its ceiling bounds every size). ]]
function M.detect(samples, reported, o)
  reported, o = reported or {}, o or {}
  local sorted = {}
  for _, x in ipairs(samples) do
    if x.gbs and x.gbs > 0 and x.ws and x.ws > 0 then
      sorted[#sorted + 1] = { ws = x.ws, gbs = x.gbs, rounds = x.rounds }
    end
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
      more = more, floor = tail.gbs })
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
  if #reported > 0 and #segs > #reported and misfit(segs, reported, 0) > misfit(segs, reported, 1) then
    table.remove(segs, 1) -- the smallest sizes timed above L1 (noise): nothing lies below L1
  end
  for _, l in ipairs(name_levels(segs, reported, tail)) do
    local g = l.seg
    out[#out + 1] = { name = l.name, reported = l.reported, gbs = g.gbs, spread = g.spread, kind = g.kind, n = g.n,
      effective = (l.own ~= false) and g.breakpoint or nil, upper = (l.own ~= false) and g.upper or nil,
      sizes = g.slope and sizes_of(g.samples) or level_sizes(sorted, g.samples, g.breakpoint), -- a level sharing it too
      plateau = #g.samples, unreported = l.unreported }
    if g.slope then -- no plateau: unstable, also for a level that shares it; how far its sizes fall
      local v = values(g.samples)
      out[#out].flat = false
      if l.own ~= false then out[#out].range = { math.max(table.unpack(v)), math.min(table.unpack(v)) } end
    end
  end
  out[#out + 1] = { name = "DRAM", gbs = tail.gbs, n = tail.n, from = tail.lo, kind = "tail", spread = tail.spread,
    sizes = sizes_of(tail.samples), tolerance = tail.tolerance, flat = tail.flat ~= false, alone = #segs == 0 or nil }
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
        .. "%.1f GB/s up to %s (a cache it does not report, or its last cache keeping part of working sets larger than "
        .. "it, as an adaptive replacement policy does; named %s, past %s, since this machine reports no cache there)",
        pre, l.name, l.ceiling or l.gbs, util.bytes(l.effective), l.name, l.name:match("^(.-)%+*$"))
    elseif l.effective and l.reported and (l.effective > 2 * l.reported or l.effective < l.reported / 2) then
      lines[#lines + 1] = string.format("%s%s reported %s, bandwidth drops at %s", pre, l.name,
        util.bytes(l.reported), util.bytes(l.effective))
    elseif l.reported and not l.effective and l.name ~= "DRAM" then
      lines[#lines + 1] = string.format("%s%s reported %s, no bandwidth step of its own", pre,
        l.name, util.bytes(l.reported))
    end
    if l.range then
      lines[#lines + 1] = string.format("%s%s shows no plateau (%s-%s: triad falls from %.0f to %.0f GB/s): "
        .. "its ceiling is their median, unstable", pre, l.name, util.bytes(l.sizes[1]),
        util.bytes(l.sizes[#l.sizes]), l.range[1], l.range[2])
    end
  end
  return lines
end

-- DRAM's ceiling is read at working sets at least this many times the largest cache.
M.beyond = 4

--[[ The sizes DRAM's ceiling is read at (lv: levels.detect's levels, DRAM's last; reported: the
  caches the threads can use): its tail's sizes at or beyond M.beyond times the largest cache
  (the largest of every level's effective size and the last reported one: a guest's reported L3
  can be its host's, and the guest can use it), the three largest of them. A flat tail can
  begin near such a cache: a cyclic sweep of 1-2x an L3 still hits it while the neighbours
  leave it alone, and the fastest round there is that cache's, not DRAM's. Where the sweep
  reaches no such size (a quarter of the memory bounds it), its largest size, and the cache's
  size as the second value (the note says so). ]]
function M.dram_sizes(lv, reported)
  local d, cache = lv[#lv], 0
  for i = 1, #lv - 1 do cache = math.max(cache, lv[i].effective or 0, lv[i].reported or 0) end
  for _, r in ipairs(reported or {}) do cache = math.max(cache, r.size) end
  local out = {}
  for _, ws in ipairs(d.sizes) do if ws >= M.beyond * cache then out[#out + 1] = ws end end
  if #out == 0 then return { d.sizes[#d.sizes] }, cache end
  return { table.unpack(out, math.max(1, #out - 2), #out) }, nil
end

--[[ The notes on DRAM's range (what: "1 thread"; lv: the levels, DRAM's last, its sizes read at
  from its `from` on) appended to notes: no cache plateau above its tail; its ceiling read short
  of M.beyond times the largest cache (short: that cache's size, as M.dram_sizes gives it); no
  flat tail (why: why the sweep stopped there, or nil). ]]
function M.dram_notes(notes, lv, what, short, why)
  local util, again = require "rot.util", require("rot.machine.agreement").again
  local d = lv[#lv]
  if d.alone then
    notes[#notes + 1] = string.format("%s: the staircase shows no cache plateau above DRAM's tail after its rounds (a "
      .. "noisy machine?): DRAM's ceiling bounds every working set; %s", what, again)
  end
  if short then
    notes[#notes + 1] = string.format("%s: DRAM's ceiling is read at %s, the largest size swept, short of %dx the "
      .. "largest cache (%s): that cache may still help it", what, util.bytes(d.from), M.beyond, util.bytes(short))
  end
  if d.flat == false then
    notes[#notes + 1] = string.format("%s: DRAM shows no flat tail up to %s: its ceiling is the fastest of the last "
      .. "octave swept, %dx beyond the caches (from %s, stored as DRAM_from: where DRAM's range begins), unstable%s",
      what, util.bytes(d.sizes[#d.sizes]), M.beyond, util.bytes(d.from), why and ("; " .. why) or "")
  end
end

return M
