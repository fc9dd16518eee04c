-- rot.results.backdrop: what a plot of results draws of the machine beside its points: where the
-- peaks' sweep falls between two levels (a staircase's reference curves), the cache sizes of
-- each thread count (its marks), and which thread count's ceilings a roofline draws.
local util = require "rot.util"
local ceilings = require "rot.machine.ceilings"
local sweep = require "rot.machine.sweep"
local bounds = require "rot.results.bounds"

local M = {}

-- The thread counts of the stored ceilings that bound the measured CPU rows with a point
-- (each one's nearest stored count to the threads it is bounded by: a marked region's, those
-- that entered it), ascending, and that of a row.
local function thread_counts(self)
  self:ceilings()
  local function of(r) return self:nearest(bounds.threads(r)) end
  local seen, out = {}, {}
  for _, r in ipairs(self.rows) do
    local t = r.entry and r.intensity and not bounds.gpu(r) and of(r)
    if t and not seen[t] then seen[t], out[#out + 1] = true, t end
  end
  table.sort(out)
  return out, of
end

--[[ The roofs that bound the rows of thread count t other than the drawn ones, as plot.roofline
  draws them (own_roofs): the bandwidth (what the row's bound over its intensity says) or the
  compute ceiling of each limiter, capped at that count's top compute ceiling (c.compute); a
  bound the peaks' sweep sets is marked alone (no roof draws it). ]]
local function own_roofs(self, t, of)
  local c = self:ceilings(nil, t)
  local group = { label = util.count(t, "thread"), peak = c.compute[1] and c.compute[1].gflops,
    bandwidth = {}, compute = {} }
  local seen = {}
  for _, r in ipairs(self.rows) do
    if r.entry and r.intensity and r.bound and not r.stepBound and not bounds.gpu(r) and of(r) == t and r.limiter
      and not seen[r.limiter] and r.boundSource ~= "counted" then -- (a counted point's roof: M.counted_roofs)
      seen[r.limiter] = true
      local name = r.limiter:gsub(" %(unstable%)$", "")
      if r.dominant == "compute" then
        group.compute[#group.compute + 1] = { label = name, gflops = r.bound }
      else
        group.bandwidth[#group.bandwidth + 1] = { label = name, gbs = r.bound / r.intensity }
      end
    end
  end
  return (#group.bandwidth + #group.compute > 0) and group or nil
end

--[[ A roofline drawing the ceilings of `drawn` threads over points bounded by other counts'
  (the table's: a marked region's, the threads that entered it): a key note saying which are
  drawn, each such point's own roofs drawn dotted (own_roofs) and its bound marked, as a bound
  the peaks' sweep sets is (extra: plot.roofline's options). ]]
function M.own_bounds(self, drawn, extra)
  local counts, of = thread_counts(self)
  local others = {}
  extra.own_roofs = {}
  for _, t in ipairs(counts) do
    if t ~= drawn then
      others[#others + 1] = util.count(t, "thread")
      extra.own_roofs[#extra.own_roofs + 1] = own_roofs(self, t, of)
    end
  end
  if #others == 0 then return end
  extra.notes = { string.format("ceilings of %s; the points at %s are bounded by their own "
    .. "(marked, their roofs dotted)",
    util.count(drawn, "thread"), table.concat(others, ", ")) }
  extra.bound_mark = function(r) return r.boundSource ~= "counted" and (r.stepBound or of(r) ~= drawn)
    and r.bound or nil end
  extra.bound_title = "bound no ceiling drawn shows (peaks' sweep; another thread count's)"
end

-- At most this many points are named after a counted roof in the key; more are counted ("9
-- points"): the key stays short.
M.NAMED = 3

--[[ The roofs that limit counted points (rot.results.placed), for plot.roofline's own_roofs (a
  group with a title): each point's limiter at its level, a memory level's ceiling in the
  simulation's bytes (its bytes there over its time bound: the line that level's point sits
  under at its fraction), a compute mix's roof at its bound (every level's point at its
  height); equal roofs once, each with the points it limits (name(row)). peak: where the
  bandwidth roofs end. nil where no counted point is drawn. ]]
function M.counted_roofs(self, name, peak)
  local group = { title = "counted roofs (dotted; simulated GB/s)", peak = peak, compute = {}, bandwidth = {} }
  local found = {}
  for _, r in ipairs(self.rows) do
    if r.entry and r.boundSource == "counted" and (r.flopsCounted or 0) > 0 and (r.timeBound or 0) > 0
      and not bounds.gpu(r) then
      local label, list, value, key = (r.limiter:gsub(" %(unstable%)$", "")), nil, nil, nil
      if r.dominant == "compute" then
        list, value = group.compute, r.bound
      else
        local lv = tostring(r.dominant):match("^(%S+) bandwidth$")
        local bytes = lv == "L1" and r.bytesCounted or (r.traffic or {})[lv]
        list, value = group.bandwidth, bytes and bytes / r.timeBound / 1e9
      end
      if value and value > 0 then
        key = label .. string.format(" %.3g", value)
        if not found[key] then
          found[key] = { label = label, names = {} }
          found[key][list == group.compute and "gflops" or "gbs"] = value
          list[#list + 1] = found[key]
        end
        table.insert(found[key].names, name(r))
      end
    end
  end
  if #group.compute + #group.bandwidth == 0 then return nil end
  table.sort(group.compute, function(a, b) return a.gflops > b.gflops end)
  table.sort(group.bandwidth, function(a, b) return a.gbs > b.gbs end)
  for _, list in ipairs({ group.compute, group.bandwidth }) do
    for _, x in ipairs(list) do
      local seen, names = {}, {}
      for _, n in ipairs(x.names) do
        if not seen[n] then seen[n], names[#names + 1] = true, n end
      end
      x.limits = #names <= M.NAMED and #names == #x.names and table.concat(names, ", ") or util.count(#x.names, "point")
      x.count = #x.names
    end
  end
  return group
end

--[[ A roofline of an application's regions whose ceilings (those of the threads its regions
  ran in) are not those of the threads the program was told to use: a key note says which
  (extra.notes first), so a plot of a program that ran 1 thread of the 2 asked is not read as
  2 threads'. ]]
function M.asked_note(self, drawn, extra)
  local asked
  for _, r in ipairs(self.rows) do
    local t = r.region and r.intensity and r.appPoint and r.appPoint.desc and r.appPoint.desc.threads
    if t and t ~= drawn then asked = t end
  end
  if not asked then return end
  extra.notes = extra.notes or {}
  table.insert(extra.notes, 1, string.format("ceilings of %s, the threads its regions ran in (the program was told %d)",
    util.count(drawn, "thread"), asked))
end

--[[ Where the peaks' sweep falls between two levels (bounds.transitions), as it measured it, for
  the staircase of rows: the sweep of their traffic (read or write where every row has it and
  the peaks that sweep, else triad's) at c's thread count, over each transition that holds a
  warm working set of the rows, from the size swept before it to the first after it; {} where
  there is none or no sweep. ]]
function M.step_curves(c, rows)
  local family
  for _, r in ipairs(rows) do
    if r.entry then
      local f = bounds.traffic(r) or "triad"
      if family and f ~= family then family = "triad" else family = f end
    end
  end
  family = c.sweep and c.sweep[family or "triad"] and family or "triad"
  local by = {}
  for _, x in ipairs(c.bandwidth) do by[x.level] = x end
  for _, x in ipairs(family ~= "triad" and c.streams[family] or {}) do by[x.level] = x end
  local sw, out = c.sweep and c.sweep[family], {}
  for _, t in ipairs(sw and bounds.transitions(c.levels, by, sw) or {}) do
    local held = false
    for _, r in ipairs(rows) do
      held = held or (r.entry and r.cacheMode ~= "cold" and r.workingSet and r.workingSet > t.lo
        and r.workingSet < t.hi)
    end
    local points = {}
    for _, x in ipairs(held and sweep.between(sw, t.lo, t.hi) or {}) do
      points[#points + 1] = { x = x.ws, y = x.gbs }
    end
    if #points >= 2 then
      out[#out + 1] = { label = string.format("%s-%s step: peaks' %s sweep, %s", t.from.name, t.to.name, family,
        util.count(c.threads, "thread")), points = points }
    end
  end
  return out
end

--[[ The cache-size marks of a staircase: each level's effective size (its reported one where the
  peaks have none), and its reported one where they differ by more than a factor of two, at
  each thread count of the rows (thread_counts; c: the highest's ceilings, whose count stands
  for none). A level whose sizes lie within a quarter of each other at every count gets one
  mark (the highest count's); else one a count that has it, which its label names. ]]
function M.size_marks(self, c)
  local counts, out = thread_counts(self), {}
  if #counts == 0 then counts = { c.threads } end
  local function mark(sizes, name, what)
    local lo, hi = math.huge, 0
    for _, x in ipairs(sizes) do lo, hi = math.min(lo, x.size), math.max(hi, x.size) end
    local agree = hi <= 1.25 * lo and #sizes == #counts -- then the highest count's alone
    for i, x in ipairs(sizes) do
      if not agree or i == #sizes then
        out[#out + 1] = { x = x.size, label = string.format("%s %s (%s%s)", name, util.bytes(x.size), what,
          agree and "" or ", " .. util.count(x.t, "thread")) }
      end
    end
  end
  local names, seen = {}, {} -- every count's levels (1 thread's L3+ where 2 threads show none)
  for _, t in ipairs(counts) do
    for _, x in ipairs(self:ceilings(nil, t).levels) do
      if x.size and not seen[x.name] then seen[x.name], names[#names + 1] = true, x.name end
    end
  end
  table.sort(names, function(a, b) return ceilings.rank(a) < ceilings.rank(b) end)
  for _, name in ipairs(names) do
    local eff, rep, measured = {}, {}, false
    for _, t in ipairs(counts) do
      for _, x in ipairs(self:ceilings(nil, t).levels) do
        if x.name == name and x.size then
          eff[#eff + 1], measured = { size = x.size, t = t }, measured or x.effective ~= nil
          local far = x.effective and x.reported and (x.reported > 2 * x.effective or x.reported < x.effective / 2)
          if far then rep[#rep + 1] = { size = x.reported, t = t } end
        end
      end
    end
    mark(eff, name, measured and "effective" or "reported")
    if #rep > 0 then mark(rep, name, "reported") end
  end
  return out
end

return M
