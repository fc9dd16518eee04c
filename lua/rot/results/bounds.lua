-- rot.results.bounds: how close each point is to its roof, and which roof: the attainable
-- bound from the stored ceilings, the time bound and its dominant term, and the marking (with
-- a reason) of points above their bound beyond the spreads.
local util = require "rot.util"
local describe = require "rot.describe"
local ceilings = require "rot.machine.ceilings"
local agreement = require "rot.machine.agreement"
local sweep = require "rot.machine.sweep"

local M = {}

-- The thread count whose ceilings bound a row: a marked region's, the threads that entered it
-- (rot.results.regions); else the point's.
function M.threads(row) return row.boundThreads or row.threads or 1 end

-- Whether a row is a GPU point's, or a CUDA program's (its kernels' and NVTX ranges' regions are
-- bounded by the GPU's ceilings; none of its rows by the CPU's peaks, which are never measured for it).
function M.gpu(row)
  return row.desc ~= nil and row.desc.device == "gpu" or describe.cuda_program(row.desc) or row.gpuRegion ~= nil
end

-- Whether any of the rows is bounded by the CPU's peaks (a row not a GPU point's).
function M.any_cpu(rows)
  for _, r in ipairs(rows) do if not M.gpu(r) then return true end end
  return false
end

-- Whether a working set lies in the step from the level (the last cache) to DRAM's flat tail:
-- past the cache's effective size, short of where the tail begins (ceilings.levels' upto).
local function in_step(ws, level)
  return level.upto ~= nil and ws ~= nil and level.size ~= nil and ws > level.size
end

--[[ The name of the level a point's data lives in: the level's, or "L3-DRAM" (the last cache's
  name, whichever it is) for a working set in the step past its effective size and short of
  DRAM's flat tail (ceilings.levels folds the step into the cache: the name says the point is in
  the step, not in the cache). ]]
function M.level_name(row, level)
  if in_step(row.workingSet, level) then return level.name .. "-DRAM" end
  return level.name
end

--[[ The transitions between the levels lv (ceilings.levels) of one kernel family's sweep sw
  (rot.machine.sweep.transitions), by its bandwidth ceilings (by level name: by). ]]
function M.transitions(lv, by, sw)
  local levels = {}
  for i, l in ipairs(lv) do
    levels[i] = { name = l.name, size = l.size, upto = l.upto, gbs = by[l.name] and by[l.name].gbs }
  end
  return sweep.transitions(levels, sw)
end

-- M.transitions of levels lv, bandwidth ceilings bw (by: by level) and sweep sw, made once for
-- the three (every point bounded by one thread count's ceilings shares them; none is changed).
local made = setmetatable({}, { __mode = "k" })
local function transitions_of(lv, bw, by, sw)
  local m = made[bw]
  if not (m and m.lv == lv and m.sw == sw) then
    m = { lv = lv, sw = sw, list = M.transitions(lv, by, sw) }
    made[bw] = m
  end
  return m.list
end

-- The transition a working set ws lies in (M.transitions'): the last one holding it (a deeper
-- level's falling edge before the fall to it), or nil. bw, where given, is the bandwidth list by
-- was made from: the transitions are then made once for it.
function M.transition(ws, lv, by, sw, bw)
  local found
  for _, t in ipairs(bw and transitions_of(lv, bw, by, sw) or M.transitions(lv, by, sw)) do
    if ws > t.lo and ws < t.hi then found = t end
  end
  return found
end

--[[ The bandwidth that bounds a working set ws in transition t from one level (its ceiling by
  name in by) to the next: what the peaks' sweep of the same family measured at ws (its best
  round, interpolated in log size between the sizes swept), never above the faster level's
  ceiling nor below the slower one's (a round that ran slow there says nothing lower; then
  that ceiling's spread and marking count too). As a ceiling {level=, gbs=, family=, spread=,
  unstable=, step= (sweep.bandwidth_at's), name= ("L3-DRAM": the two levels)}. ]]
function M.sweep_ceiling(ws, t, by, sw)
  local at, top, floor = sweep.bandwidth_at(sw, ws), by[t.from.name], by[t.to.name]
  local gbs, spread, unstable = math.min(at.gbs, top.gbs), at.spread, at.unstable
  local row = at.gbs >= top.gbs and top.row or nil -- the faster level's ceiling bounds it
  if gbs <= floor.gbs then
    gbs, spread, unstable = math.min(floor.gbs, top.gbs), math.max(spread or 0, floor.spread or 0),
      unstable or floor.unstable
    row = floor.row -- the slower level's ceiling bounds it
  end
  return { level = top.level, gbs = gbs, family = top.family, spread = spread, unstable = unstable, step = at,
    name = t.from.name .. "-" .. t.to.name, row = row }
end

--[[ Attainable bound of one point (lecture notes: P <= min(P_o, I * P_mB), and the time bound
  T >= max(N_o / P_o, N_B / P_B)). The bytes are those of the level the data lives in
  (ceilings.level_of: the smallest level whose effective size holds the working set, the last
  cache also the step from its effective size to DRAM's flat tail, named after it: "L3-DRAM")
  in warm mode, DRAM in cold mode. compute = {{gflops=, spread=}} (best first), bandwidth = {{level=, gbs=,
  family=, spread=, unstable=}} (one bandwidth kernel's: M.of picks it), lv = ceilings.levels(),
  sw: the same family's sweep (rot.machine.sweep.stored). A warm working set where that sweep falls
  from one level's ceiling to the next's (a transition: sweep.transitions) is bounded by what
  the sweep measured there (sweep_ceiling); without a sweep, one in the step to DRAM by the
  cache's ceiling, the most such a working set can see (step_fallback is then set). Returns
  {bound=GFLOP/s, limiter=, ceiling=, fraction=, time_bound=s, dominant=, level=, above=,
  unstable=, step=, step_fallback=, swept=, code=} or nil (code: the flags of the code that
  reached a bandwidth ceiling, peaks.csv's isa) (step: the sweep bounds it; swept: what the
  sweep measured at the working set over the bandwidth ceiling, within the sizes swept). The limiter names the
  level and, for a read or write ceiling, the family ("L1 read bw", "DRAM bw"), in a transition
  both levels ("L3-DRAM bw", "L1-L2 read bw"); ceiling is the name of the ceiling itself
  ("L3-DRAM bw" for the sweep, "L3 bw" without it, "compute"); the limiter of a ceiling marked
  unstable says so ("DRAM bw (unstable)"). above is set when the point beats its bound by more
  than its own spread, the ceiling's (how far the ceiling's own samples reached) and epsilon
  (the best-k tolerance every time carries). ]]
function M.bound(row, compute, bandwidth, lv, epsilon, sw)
  if not (row.flops and row.bytes and row.time and row.time > 0) then return nil end
  if row.flops == 0 and row.bytes == 0 then return nil end -- no work: nothing bounds it
  local p_o = compute[1] and compute[1].gflops
  local level = lv[#lv]
  if row.cacheMode ~= "cold" and row.workingSet then level = ceilings.level_of(row.workingSet, lv) end
  local b, by = nil, {}
  for _, x in ipairs(bandwidth) do by[x.level] = x end
  b = by[level.name]
  local stepped, fallback = nil, false
  if b and row.cacheMode ~= "cold" and row.workingSet then
    local t = sw and M.transition(row.workingSet, lv, by, sw, bandwidth)
    stepped = t and M.sweep_ceiling(row.workingSet, t, by, sw)
    fallback = not sw and in_step(row.workingSet, level)
    b = stepped or b
  end
  if not p_o and not b then return nil end
  local t_o = p_o and row.flops / (p_o * 1e9) or 0
  local t_b = (b and row.bytes > 0) and row.bytes / (b.gbs * 1e9) or 0
  local out = { time_bound = math.max(t_o, t_b), level = M.level_name(row, level) }
  out.family = b and b.family ~= "triad" and b.family or nil -- the read or write ceilings bound it
  local ceiling
  if t_b > t_o then
    local family = (b.family and b.family ~= "triad") and (b.family .. " ") or ""
    local name = stepped and stepped.name or out.level
    out.dominant, out.limiter, ceiling = name .. " bandwidth", name .. " " .. family .. "bw", b
    out.ceiling = (stepped and name or level.name) .. " " .. family .. "bw"
    out.step_fallback, out.step = fallback or nil, stepped and true or nil
  else
    out.dominant, out.limiter, out.ceiling, ceiling = "compute", "compute", "compute", compute[1]
  end
  local ws = row.workingSet
  if ceiling == b and sw and #sw > 0 and row.cacheMode ~= "cold" and ws and ws >= sw[1].ws and ws <= sw[#sw].ws then
    out.swept = sweep.bandwidth_at(sw, ws).gbs / b.gbs -- what the peaks' sweep measured here, over the ceiling
  end
  out.unstable = ceiling and ceiling.unstable or nil
  -- which code reached it: a level's ceiling's, or in a transition the sweep's at the working set
  local from = ceiling and (ceiling.row or ceiling.step)
  out.code = from and (from.kind == nil or from.kind == "bandwidth") and from.isa or nil
  if out.unstable then out.limiter = out.limiter .. " (unstable)" end -- its ceiling's rounds disagree
  if row.flops > 0 and out.time_bound > 0 then
    out.bound = row.flops / out.time_bound / 1e9
    out.fraction = row.gflops / out.bound
  elseif out.time_bound > 0 then
    out.fraction = out.time_bound / row.time -- no flops: the share of the bandwidth-bound time
  end
  if out.fraction then out.above = M.above(out.fraction, row.spread, ceiling.spread, epsilon) end
  return out
end

--[[ The traffic of a point, from the written bytes its kernels declare: "read" (none
  written), "write" (all of them), nil (a mix, or not declared, or bytes measured by counters,
  which count what the read and write ceilings' declared bytes do not: triad's bound it). ]]
function M.traffic(row)
  local w, total = row.bytesWritten, row.bytesDeclared
  if row.bytesMeasured or not (w and total and total > 0) then return nil end
  if w == 0 then return "read" end
  if w >= total then return "write" end
  return nil
end

-- The bandwidth families other than triad's (a set: {read=true}) that bound some CPU rows a
-- roofline draws (with flops and bytes: a write-only kernel without flops is not on it).
function M.families(rows)
  local out = {}
  for _, r in ipairs(rows) do
    local drawn = (r.gflops or 0) > 0 and (r.intensity or 0) > 0
    local f = drawn and not M.gpu(r) and M.traffic(r)
    if f then out[f] = true end
  end
  return out
end

--[[ A point's bound against c (ceilings.for_threads): at each level, the ceiling of its traffic (M.traffic)
  where the peaks have one, else triad's (peaks from before read and write were measured, or a
  level the read or write sweep left without a ceiling); in the step to DRAM the sweep of its
  traffic where the peaks have read or write ceilings and that sweep, else triad's. ]]
function M.of(row, c, epsilon)
  local family = M.traffic(row)
  local own = family and c.streams and c.streams[family] or {}
  local bw = c.bandwidth
  local sw = c.sweep and (#own > 0 and c.sweep[family] or c.sweep.triad)
  if #own > 0 then
    local by, seen = {}, {}
    for _, x in ipairs(own) do by[x.level] = x end
    bw = {}
    for _, x in ipairs(c.bandwidth) do bw[#bw + 1] = by[x.level] or x; seen[x.level] = true end
    for _, x in ipairs(own) do if not seen[x.level] then bw[#bw + 1] = x end end
  end
  return M.bound(row, c.compute, bw, c.levels, epsilon, sw)
end

-- A point at this fraction of its bound is above it beyond the spread: its own, the ceiling's
-- and best-k's epsilon (each may be nil: none known).
function M.above(fraction, spread, ceiling_spread, epsilon)
  return fraction > (1 + (spread or 0)) * (1 + (ceiling_spread or 0)) * (1 + (epsilon or 0))
end

--[[ Where DRAM begins by rot's own rule (levels lv): where its flat tail begins (DRAM_from; the
  last octave swept where it has none), else, where the peaks do not say, four times the larger
  of the last cache's effective and reported sizes (how far `rot measure peaks` sweeps at
  least); and how it was found. ]]
local function dram_begins(lv)
  local dram, last = lv[#lv], lv[#lv - 1]
  if dram.from then return dram.from, "DRAM_from, where the peaks' sweep found DRAM's range" end
  if not last then return nil end
  return 4 * math.max(last.size or 0, last.reported or 0), string.format("4x the larger of the %s's effective and "
    .. "reported sizes", last.name)
end

-- Why a point beat its bandwidth bound when its working set lies near the level below (l's
-- predecessor): part of it still hits that faster level; nil when it does not, for a bound
-- the peaks' sweep measured at the working set itself (in a transition between two levels),
-- and where that sweep ran within the ceiling there (row.sweptOver <= 1: it met the same
-- levels at that working set, so they are not what lifted the point).
local function attribution(row, ceiling, l, lv)
  local dram = lv[#lv]
  if row.cacheMode == "cold" and row.workingSet and dram.from and row.workingSet < dram.from then
    return string.format("the %s ceiling is the rate of a stream from %s on (DRAM's flat tail), "
      .. "and this cold working set "
      .. "(%s) is a short burst, which can outrun it%s", ceiling, util.bytes(dram.from), util.bytes(row.workingSet),
      M.traffic(row) == "read" and "" or "; what it stores is written back after the timed run")
  end
  if row.stepBound or ceiling:match("^%w+%-%w+ ") or (row.sweptOver and row.sweptOver <= 1) then return nil end
  local prev
  for i, x in ipairs(lv) do if l and x.name == l.name then prev = lv[i - 1] end end
  if not (prev and prev.size and row.workingSet) then return nil end
  if row.workingSet <= 2 * prev.size then
    return string.format("the %s ceiling is probably the wrong one: the working set (%s) lies just above the "
      .. "effective %s size (%s), so part of it still hits %s (wrong level attribution)", ceiling,
        util.bytes(row.workingSet),
      prev.name, util.bytes(prev.size), prev.name)
  end
  local from, how = dram_begins(lv)
  if l.name == "DRAM" and from and row.workingSet < from then
    return string.format("the %s ceiling is probably the wrong one: the working set (%s) is short "
      .. "of where rot takes DRAM "
      .. "to begin, %s (%s): a thrash-resistant cache still serves part of it (wrong level attribution)", ceiling,
      util.bytes(row.workingSet), how, util.bytes(from))
  end
end

--[[ A point of rows that lies within the same ceiling (name) as row at the same working set and
  thread count: the same kernel's other variant (other flags, macros, parameters), or the same
  program's same region at another point; never another kernel or region; or nil. ]]
local function beside(row, rows)
  local function kernel(r) return r.desc and r.desc.workloads and r.desc.workloads[1].kernel end
  local function same(r)
    if row.region or r.region then return r.region == row.region and r.program == row.program end
    return kernel(row) ~= nil and kernel(r) == kernel(row)
  end
  for _, r in ipairs(rows or {}) do
    if r ~= row and r.fraction and not r.above and r.ceiling == row.ceiling and r.workingSet == row.workingSet
      and (r.threads or 1) == (row.threads or 1) and same(r) then
      return r
    end
  end
end

--[[ The DRAM tail rule, where it explains a point above a DRAM ceiling: the ceiling is the rate
  the peaks measured from the smallest of its sizes up (c: ceilings.for_threads; its row's
  sizes), and a working set below them still finds part of itself in the last cache. nil
  where the row has no working set, or the ceiling no sizes, or the working set reaches them. ]]
local function dram_tail(row, ceiling, c)
  local ws = row.workingSet
  if not (ws and c) then return nil end
  local lo
  for _, b in ipairs(c.bandwidth or {}) do
    if b.level == "DRAM" then
      for _, x in ipairs(b.row and b.row.sizes or {}) do lo = math.min(lo or x, x) end
    end
  end
  if not (lo and ws < lo) then return nil end
  return string.format("the DRAM tail rule: the %s ceiling is the rate the peaks measured from %s up, and this working "
    .. "set (%s) lies below those sizes, where the last cache still serves a part of it; the point is not above what "
    .. "DRAM delivers, and no neighbour needs to have slowed the ceiling", ceiling, util.bytes(lo), util.bytes(ws))
end

--[[ Why a counted point (its bound from its counts: rot.results.placed) beat a level's
  ceiling: its traffic there is the simulation's, an LRU cache without prefetching; a real one
  keeps more of a working set past its size. nil for another row. ]]
local function simulated(row, name, l, lv)
  if row.boundSource ~= "counted" or not l or row.dominant == "compute" then return nil end
  local prev
  for i, x in ipairs(lv) do if x.name == l.name then prev = lv[i - 1] end end
  local ws = row.workingSet
  -- (not near its edge)
  if ws and not (prev and prev.size and ws > prev.size and ws <= 2 * prev.size) then return nil end
  return string.format("its %s traffic is the counting pass's simulation (LRU caches, no prefetching): a real cache "
    .. "(adaptive replacement) keeps part of %s that the simulation sends to %s%s", l.name,
    ws and ("its working set (" .. util.bytes(ws) .. ")") or "a working set just past its size", l.name,
    ws and "" or "; declare its working set (rot_region_work) to have the peaks' sweep bound it")
end

--[[ Why a point beat its bound, most likely first: one sentence naming the ceiling (row.ceiling,
  row.boundUnstable: as M.bound set them). An unstable ceiling that another variant of the
  kernel at the same working set lies within (rows: the run's, M.bound's fields set) comes
  first: its rounds ran under a neighbour's load that this point's runs missed (a wrong level
  would lift that variant too). Else the DRAM tail rule (c: the ceilings, for their sizes), a
  working set just above a level's effective size, or short of where rot takes DRAM to begin
  (even under an unstable ceiling: measuring the peaks again does not move where a level ends),
  a counted point's simulated traffic, then an unstable ceiling, then the clock. file: the
  peaks file the user gave (-peaksFile), whose ceilings no measuring of the peaks changes: then
  the file is named. A counted point's bound names its level (its dominant term's) and its
  compute roof ("compute: fp64 scalar"). ]]
function M.why_above(row, lv, file, rows, c)
  local name, unstable = row.ceiling or "bandwidth", row.boundUnstable
  local compute = name:match("^compute") ~= nil or row.dominant == "compute" -- (a counted one's: its peaks row)
  if row.boundThreads and row.programThreads and row.boundThreads < row.programThreads then -- a marked region's
    return string.format("region '%s' is bounded by the ceilings of the %d %s that entered it, of the %d the "
      .. "program ran: other threads probably work during its calls (a parallel loop begun inside it); begin and end "
      .. "it inside the parallel region, in every thread", tostring(row.region), row.boundThreads,
      util.plural(row.boundThreads, "thread"), row.programThreads)
  end
  local l = row.level and ceilings.level_of(row.workingSet or 0, lv)
  if row.boundSource == "counted" and not compute then -- the level of its dominant term (a transition's slower one)
    local at = tostring(row.dominant):match("^(%S+) bandwidth$")
    at = at and (at:match("%-(%w+)$") or at)
    for _, x in ipairs(lv) do if x.name == at then l = x end end
  end
  local stepped = row.stepBound or name:match("^%w+%-%w+ ") ~= nil -- the peaks' sweep in a transition bounds it
  local what = name .. " ceiling" .. (stepped and " (what the peaks' sweep measured at this working set)" or "")
  local tail = not compute and l and l.name == "DRAM" and not stepped and dram_tail(row, name, c)
  if tail then return tail end
  local other = unstable and not compute and beside(row, rows)
  if other then
    return string.format("the %s%s is unstable (its rounds disagreed by more than 5%%, or DRAM showed no flat tail): "
      .. "measured low, under a neighbour's load that this point's runs missed; the same %s's point (%s) at the same "
      .. "working set lies within it (%.0f%%), as it would not if the level were the wrong one; %s", what,
      file and (" in '" .. file .. "' (-peaksFile)") or "", row.region and "region" or "kernel",
        util.coords(other.point or {}),
      other.fraction * 100, file and "measure this machine's peaks instead (rot measure peaks)" or agreement.again)
  end
  local why = not compute and (attribution(row, name, l, lv) or simulated(row, name, l, lv))
  if why then return why .. (unstable and "; the ceiling is also unstable" or "") end
  if file then
    return string.format("the %s in '%s' (-peaksFile) is probably %s for this machine%s; or the kernel's declared "
      .. "%s overstate its work", what, file, compute and "wrong" or "low",
      unstable and " (the file marks it unstable)" or "", compute and "flops" or "bytes")
  end
  if unstable then
    return string.format("the %s is unstable: its rounds disagreed by more than 5%% (a busy machine measures it "
      .. "low); %s", what, agreement.again)
  end
  if compute and row.boundSource == "counted" then
    return string.format("the %s roof is probably low: its %s ceiling was measured at another "
      .. "clock than this point, or "
      .. "on a busier CPU; or its adds and multiplies overlap more than the peaks' add-and-multiply chains did",
      tostring(row.limiter):gsub(" %(unstable%)$", ""), name)
  end
  if compute then
    return "the compute ceiling is probably wrong: measured at another clock (turbo, a governor "
      .. "change) than this point, "
      .. "or the declared flops overstate the work"
  end
  if l and (l.name == "DRAM" or stepped) then
    return string.format("the %s is probably low: its rounds ran while the neighbours of a shared machine (or a "
      .. "DAMON sample) took memory bandwidth that this point had; %s; or the kernel's declared bytes overstate its "
      .. "traffic", what, agreement.again)
  end
  return string.format("the %s is probably low: its rounds ran slower than this point (a busy machine, or a lower "
    .. "core clock then: a cache's bandwidth is bytes a cycle); %s; or the kernel's declared "
      .. "bytes overstate its traffic",
    what, agreement.again)
end

return M
