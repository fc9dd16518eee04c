--[[ rot.machine.compute: the compute ceilings: independent FMA (add) chains in registers per
  ISA class, precision and thread count, measured in rounds spread over the peaks run (the core
  clock of a shared VM moves by 10% on a timescale of seconds), each round bracketed by core
  clock readings; each ceiling the best round, its spread across the rounds. ]]
local sys = require "rot.sys"
local session = require "rot.session"
local machine = require "rot.machine"
local levels = require "rot.machine.levels"
local rounds = require "rot.machine.rounds"
local budget = require "rot.machine.budget"

local M = {}

-- ISA classes: vector lanes per precision, flags, the CPU flag they need, operations measured.
M.isa = {
  { name = "scalar", lanes = { double = 1, float = 1 }, flags = "-O2 -mfma", needs = "fma", ops = { "fma", "add" }, chains = 12 },
  { name = "sse", lanes = { double = 2, float = 4 }, flags = "-O2 -msse4.2 -mno-avx", needs = "sse2", ops = { "add" }, chains = 12 },
  { name = "avx2", lanes = { double = 4, float = 8 }, flags = "-O2 -mavx2 -mfma", needs = "avx2", ops = { "fma", "add" }, chains = 12 },
  { name = "avx512", lanes = { double = 8, float = 16 }, flags = "-O2 -mavx512f -mfma", needs = "avx512f", ops = { "fma", "add" }, chains = 24 },
}
M.opcode = { fma = 0, add = 1, mul = 2 }

-- A ceiling whose rounds disagree by more than this gets more rounds, then is unstable (as
-- bandwidth's).
M.stable = rounds.stable
-- Rounds at most: every ceiling gets three (rot.machine.peaks.measure: at the start of the
-- peaks, after the bandwidth sweep, at the end), more only where they disagree.
M.max_rounds = 5

-- The core clock in GHz, from a dependent imul chain on CPU 0 (nil when it was not measured);
-- reading: the n-th independent reading of it (nil: the first). Round r is read before at
-- reading r, after at reading M.max_rounds + r.
function M.clock(rot, reading)
  session.current().stage = "peaks clock" -- on the progress line
  local r = rot.measure(rot.space { rot.axis("x", { 1 }) }, function()
    return { kernel = "clock", params = { n = 1000000 }, pin = { 0 }, flags = "-O2", round = reading }
  end).rows[1]
  return r.time and r.flops / r.time / 1e9 or nil
end

-- The compute points: every ISA class the CPU has, per precision, operation and thread count;
-- and the classes skipped (the CPU lacks their flag), as "name (why)".
local function points_of(threads)
  local info, points, skipped = machine.cpuinfo(), {}, {}
  for _, isa in ipairs(M.isa) do
    if info.flags[isa.needs] then
      for _, prec in ipairs({ "double", "float" }) do
        for _, op in ipairs(isa.ops) do
          for _, t in ipairs(threads) do points[#points + 1] = { isa = isa, prec = prec, op = op, threads = t } end
        end
      end
    else
      skipped[#skipped + 1] = isa.name .. " (the CPU has no " .. isa.needs .. ")"
    end
  end
  return points, skipped
end

-- A new measurement of the compute ceilings at these thread counts: { points, skipped, rounds,
-- readings = {[round] = {before, after}} (GHz, false where a reading failed), values = {[point] =
-- {[round] = GFLOP/s}}, spread1 = {[point] = best-k spread of its first round} }.
function M.new(threads, quick, timer)
  local points, skipped = points_of(threads)
  return { points = points, skipped = skipped, quick = quick, rounds = 0, readings = {}, values = {}, spread1 = {},
    timer = timer or budget.timer(), spent = 0 }
end

-- Keeps a round's clock readings (after: nil when the round had no point to read it after).
local function bracket(cs, round, before, after)
  cs.readings[round] = { before or false }
  if after ~= nil then cs.readings[round][2] = after end
end

-- The highest of these readings and top (nil when none succeeded): a round's clock, so that a
-- ceiling's share of the theoretical peak at it is never flattered by a clock that rose during it.
local function highest(readings, top)
  for _, c in ipairs(readings or {}) do if c and c > (top or 0) then top = c end end
  return top
end

-- The reading after a round whose points res holds, measured afresh (a stored one may have been
-- read after other runs of the points); false when it failed, and when the points all came from
-- the cache (peaks analysed again: a reading now brackets nothing; the row keeps the one before).
local function after(rot, round, res)
  local fresh = false
  for _, r in ipairs(res.rows) do if r.entry and not r.cached then fresh = true end end
  if not fresh then return false end
  local use = rot.get("useCachedResults")
  rot.set("useCachedResults", false)
  local ghz = M.clock(rot, M.max_rounds + round)
  rot.set("useCachedResults", use)
  return ghz or false
end

-- A point's values over its rounds, best first, each {gflops=, round=}.
local function ranked(cs, i)
  local v = {}
  for r, g in pairs(cs.values[i] or {}) do v[#v + 1] = { gflops = g, round = r } end
  table.sort(v, function(a, b) return a.gflops > b.gflops end)
  return v
end

-- How far the third best round (the second with two) lies below the best; with one round,
-- its best-k spread.
local function spread(cs, i)
  local v = {}
  for k, x in ipairs(ranked(cs, i)) do v[k] = x.gflops end
  if #v < 2 then return cs.spread1[i] or 0 end
  return rounds.spread(v)
end

-- The points measured so far whose rounds still disagree by more than M.stable.
function M.spreading(cs)
  local out = {}
  for i = 1, #cs.points do
    if cs.values[i] and spread(cs, i) > M.stable then out[#out + 1] = i end
  end
  return out
end

--[[ One round: the given points (all when nil) between two readings of the core clock, each
  point's sustained rate (its median run: a run in registers lasts a millisecond, its median is
  the round's clock). Returns the round's time on the peaks' timer (rot.machine.budget), in
  seconds (also kept as cs.last). ]]
function M.round(rot, cs, which)
  local t0 = cs.timer.now()
  cs.rounds = cs.rounds + 1
  local round = cs.rounds
  local before = M.clock(rot, round) -- reading 1 is described as no round (rot.describe)
  local idx = which or {}
  if not which then for i = 1, #cs.points do idx[i] = i end end
  if #idx == 0 then
    bracket(cs, round, before)
    return cs.timer.now() - t0
  end
  local t1 = sys.clock()
  session.current().stage = "peaks compute, round " .. round -- on the progress line
  local res = rot.measure(rot.space { rot.axis("i", idx) }, function(p)
    local c = cs.points[p.i]
    return { kernel = "peakflops", params = { n = cs.quick and 20000 or 200000 }, threads = c.threads,
      pin = machine.pins(c.threads), flags = c.isa.flags .. " -fno-tree-vectorize -fno-tree-slp-vectorize",
      round = round,
      macros = { PEAK_TYPE = c.prec, PEAK_LANES = c.isa.lanes[c.prec], PEAK_OP = M.opcode[c.op], PEAK_CHAINS = c.isa.chains } }
  end)
  cs.timer.count(res.rows)
  for j, r in ipairs(res.rows) do
    local i, t = idx[j], rounds.median_time(r)
    if r.gflops and t then
      cs.values[i] = cs.values[i] or {}
      cs.values[i][round] = r.flops / t / 1e9
      cs.spread1[i] = cs.spread1[i] or r.spread
    end
  end
  bracket(cs, round, before, after(rot, round, res))
  rounds.say(rot, string.format("compute ceilings, round %d: %d points, %.0f s", round, #idx, sys.clock() - t1))
  cs.last = cs.timer.now() - t0
  cs.spent = cs.spent + cs.last
  return cs.last
end

--[[ The seconds of the peaks' timer the compute rounds may take together (quick or not): a
  budget of their own, not what the bandwidth rounds leave of the peaks' (rot.machine.bandwidth
  .budget), which a slow sweep can spend before the compute rounds past the planned three are
  due (a round of every compute point takes 1-3 s, one of those that disagree less). ]]
function M.budget(quick)
  return quick and 20 or 60
end

-- Rounds past the planned ones for the points whose rounds disagree, up to M.max_rounds, each
-- begun only when the compute rounds' time so far and the last round's (a full round's at
-- first: more than a partial one takes) stays within budget (seconds on cs.timer: M.budget);
-- cs.cut = the round left out for it.
function M.more(rot, cs, budget)
  while cs.rounds < M.max_rounds do
    local which = M.spreading(cs)
    if #which == 0 then return end
    if cs.spent + (cs.last or 0) > budget then
      cs.cut = cs.rounds + 1
      return
    end
    M.round(rot, cs, which)
  end
end

-- The peaks.csv rows of the ceilings measured: the best round's value and clock (the higher of
-- the readings around it), the spread across rounds, unstable when it is above M.stable.
function M.rows(cs)
  local rows = {}
  for i, c in ipairs(cs.points) do
    local v = ranked(cs, i)
    if #v > 0 then
      local s, all = spread(cs, i), {}
      for k, x in ipairs(v) do all[k] = x.gflops end
      rows[#rows + 1] = { name = c.prec .. "_" .. c.isa.name .. "_" .. c.op, kind = "compute", threads = c.threads,
        value = v[1].gflops, unit = "GFLOP/s", spread = s, rounds = #v, median = levels.median(all), kernel = "peakflops",
        isa = c.isa.name, clock = highest(cs.readings[v[1].round]), unstable = s > M.stable or nil }
    end
  end
  return rows
end

-- A round's readings as "before/after" (GHz; "?" where one failed).
local function readings_of(c)
  local two = {}
  for k = 1, #c do two[k] = c[k] and string.format("%.3f", c[k]) or "?" end
  return table.concat(two, "/")
end

-- A line for the user when the clock readings moved by more than 3%, between or within rounds
-- (rows: compute.rows'; how many of them that left unstable), or nil.
function M.clock_note(cs, rows)
  local lo, hi, n, each = math.huge, 0, 0, {}
  for r = 1, cs.rounds do
    for _, c in ipairs(cs.readings[r] or {}) do
      if c then lo, hi, n = math.min(lo, c), math.max(hi, c), n + 1 end
    end
    each[r] = readings_of(cs.readings[r] or {})
  end
  if n < 2 or hi / lo - 1 <= 0.03 then return nil end
  local unstable = 0
  for _, r in ipairs(rows) do if r.kind == "compute" and r.unstable then unstable = unstable + 1 end end
  return string.format("the core clock moved over the compute rounds (before/after each: %s GHz)%s; each compute "
    .. "ceiling is its best round's, and records the higher of the clock readings just before and after that round",
    table.concat(each, ", "), unstable > 0 and string.format(": %d compute ceiling%s unstable", unstable,
      unstable == 1 and " stays" or "s stay") or "")
end

-- What the user should know of the compute rounds: the clock's moves, a round left out.
function M.notes(cs, rows)
  local out = { M.clock_note(cs, rows) }
  if cs.cut then
    out[#out + 1] = string.format("compute round %d was not measured: it would pass the compute rounds' time budget "
      .. "(%d s); the ceilings it was for keep the rounds they have, unstable where those disagree; %s", cs.cut,
      M.budget(cs.quick), rounds.again)
  end
  return out
end

-- The clock readings around the rounds, in order, each round's as "before/after" (GHz; "?"
-- where a reading failed or brackets nothing; a round with no point has no after).
function M.clocks(cs)
  local out = {}
  for r = 1, cs.rounds do out[r] = readings_of(cs.readings[r] or {}) end
  return out
end

-- The highest clock reading of the peaks run (nil when none succeeded): the bandwidth rows'
-- clock, since their rounds spread over the run and their best ran at no higher clock.
function M.top_clock(cs)
  local top
  for r = 1, cs.rounds do top = highest(cs.readings[r], top) end
  return top
end

return M
