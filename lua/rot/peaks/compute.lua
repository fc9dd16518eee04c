--[[ rot.peaks.compute: the compute ceilings: independent FMA (add) chains in registers per
  ISA class, precision and thread count, measured in rounds spread over the peaks run (the core
  clock of a shared VM moves within seconds), each round bracketed by core clock readings and
  its vector units' clocks (rot.peaks.clocks); each ceiling the best round, its spread across
  the rounds. ]]
local agreement = require "rot.machine.agreement"
local sys = require "rot.sys"
local session = require "rot.session"
local machine = require "rot.machine"
local levels = require "rot.machine.levels"
local rounds = require "rot.peaks.settle"
local budget = require "rot.peaks.budget"
local clocks = require "rot.peaks.clocks"

local M = {}

-- The ISA classes and peakflops' operations (rot.machine.isa).
local isas = require "rot.machine.isa"
M.isa, M.opcode = isas.classes, isas.opcode

-- Rounds at most: every ceiling gets three (rot.peaks.ceilings: at the start of the
-- peaks, after the bandwidth sweep, at the end), more only where they disagree: up to four, so
-- three of seven can agree where a neighbour halves the 2-thread points in one round of two
-- (five rounds are too few beside busy neighbours).
M.max_rounds = 7

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
-- {[round] = GFLOP/s}}, dates = {[point] = {[round] = when it was measured (UTC)}}, spread1 =
-- {[point] = best-k spread of its first round}, fresh (rounds are measured afresh from here on) }.
function M.new(threads, quick, timer)
  local points, skipped = points_of(threads)
  return { points = points, skipped = skipped, quick = quick, rounds = 0, readings = {}, steps = {}, values = {},
    dates = {}, spread1 = {}, timer = timer or budget.timer(), spent = 0 }
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
  return agreement.spread(v)
end

-- The points measured so far whose rounds still disagree by more than agreement.stable.
function M.spreading(cs)
  local out = {}
  for i = 1, #cs.points do
    if cs.values[i] and spread(cs, i) > agreement.stable then out[#out + 1] = i end
  end
  return out
end

-- The point of a compute ceiling: c = {isa= (a class of rot.machine.isa), prec=, op=, threads=},
-- in a round (quick: peaks' quick mode's iterations).
function M.spec(c, round, quick)
  return { kernel = "peakflops", params = { n = quick and 20000 or 200000 }, threads = c.threads,
    pin = machine.pins(c.threads), flags = c.isa.flags .. " -fno-tree-vectorize -fno-tree-slp-vectorize",
    round = round,
    macros = { PEAK_TYPE = c.prec, PEAK_LANES = c.isa.lanes[c.prec], PEAK_OP = M.opcode[c.op],
      PEAK_CHAINS = isas.chains(c.isa, c.op) } }
end

-- The point of compute point c in a round of cs.
local function point_spec(cs, c, round) return M.spec(c, round, cs.quick) end

-- Every point of a round: the clock and the FMA chains just before it, the compute points idx,
-- the chains and the clock just after it (after: only with points to read it after).
local function round_specs(cs, round, idx)
  local out = {}
  local function readings(after)
    out[#out + 1] = clocks.clock_spec(clocks.reading(cs.quick, round, after))
    for _, isa in ipairs(clocks.timed(cs)) do
      out[#out + 1] = clocks.chain_spec(isa, clocks.reading(cs.quick, round, after))
    end
  end
  readings(false)
  for _, i in ipairs(idx) do out[#out + 1] = point_spec(cs, cs.points[i], round) end
  if #idx > 0 then readings(true) end
  return out
end

--[[ One round: the given points (all when nil) between two readings of the core clock and the
  FMA chains, all from the cache or all measured afresh (rot.peaks.settle.together: a ceiling's
  clock is read in the minutes its value was measured in), each point's sustained rate
  (its median run: a run in registers lasts a millisecond, its median is the round's clock).
  Returns the round's time on the peaks' timer (rot.peaks.budget), in seconds (also kept as
  cs.last). ]]
function M.round(rot, cs, which)
  local t0 = cs.timer.now()
  cs.rounds = cs.rounds + 1
  local round = cs.rounds
  local idx = which or {}
  if not which then for i = 1, #cs.points do idx[i] = i end end
  -- all from the cache, or all measured afresh, and so every round after one that was (a later
  -- round's points follow from the earlier rounds' values: a cache whose rounds all hit holds
  -- the rounds of one run)
  local fresh, restore <close> = rounds.together(rot, round_specs(cs, round, idx), cs.fresh)
  cs.fresh = fresh
  local before = clocks.clock(rot, clocks.reading(cs.quick, round))
  local steps = clocks.chains(rot, cs, clocks.reading(cs.quick, round))
  if #idx == 0 then
    clocks.bracket(cs, round, before, nil, { steps })
    return cs.timer.now() - t0
  end
  local t1 = sys.clock()
  session.current():set_step("peaks compute, round " .. round) -- on the progress line
  local res = rot.measure(rot.space { rot.axis("i", idx) }, function(p) return point_spec(cs,
    cs.points[p.i], round) end)
  cs.timer.count(res.rows)
  for j, r in ipairs(res.rows) do
    local i, t = idx[j], rounds.median_time(r)
    if r.gflops and t then
      cs.values[i] = cs.values[i] or {}
      cs.values[i][round] = r.flops / t / 1e9
      cs.dates[i] = cs.dates[i] or {}
      cs.dates[i][round] = r.entry.meta.measuredAt
      cs.spread1[i] = cs.spread1[i] or r.spread
    end
  end
  local after_steps = clocks.chains(rot, cs, clocks.reading(cs.quick, round, true))
  clocks.bracket(cs, round, before, clocks.clock(rot, clocks.reading(cs.quick, round, true)) or false,
    { steps, after_steps })
  rounds.say(rot, string.format("compute ceilings, round %d: %d points, %.0f s", round, #idx, sys.clock() - t1))
  cs.last = cs.timer.now() - t0
  cs.spent = cs.spent + cs.last
  return cs.last
end

--[[ The seconds of the peaks' timer the compute rounds may take together (quick or not): a
  budget of their own, not what the bandwidth rounds leave of the peaks' (rot.peaks.bandwidth
  .budget), which a slow sweep can spend before the compute rounds past the planned three are
  due (a round of every compute point takes 1-3 s, one of those that disagree less). ]]
function M.budget(quick)
  return quick and 20 or 60
end

-- Rounds past the planned ones for the points whose rounds disagree, up to M.max_rounds, each
-- begun only when the compute rounds' time so far and the last round's (a full round's at
-- first: more than a partial one takes) stays within budget (seconds on cs.timer: M.budget);
-- cs.cut = the round left out for it.
function M.extra_rounds(rot, cs, budget)
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

-- The peaks.csv rows of the ceilings measured: the best round's value, its units' clock
-- (rot.peaks.clocks.units_clock; clock_by says which) and when it was measured (nil where its
-- cache entry does not say), the spread across rounds, unstable when it is above agreement.stable.
function M.rows(cs)
  local rows, latency = {}, clocks.fma_latency(cs)
  for i, c in ipairs(cs.points) do
    local v = ranked(cs, i)
    if #v > 0 then
      local s, all = spread(cs, i), {}
      for k, x in ipairs(v) do all[k] = x.gflops end
      local clock, by = clocks.units_clock(cs, c.isa.name, v[1].round, latency)
      rows[#rows + 1] = { name = c.prec .. "_" .. c.isa.name .. "_" .. c.op, kind = "compute", threads = c.threads,
        value = v[1].gflops, unit = "GFLOP/s", spread = s, rounds = #v,
          median = levels.median(all), kernel = "peakflops",
        isa = c.isa.name, clock = clock, clock_by = by, date = (cs.dates[i] or {})[v[1].round],
        unstable = s > agreement.stable or nil }
    end
  end
  return rows
end

-- What the user should know of the compute rounds: the clock's moves, a round left out.
function M.notes(cs, rows)
  local out = { clocks.clock_note(cs, rows) }
  for _, n in ipairs(clocks.unit_notes(cs)) do out[#out + 1] = n end
  if cs.cut then
    out[#out + 1] = string.format("compute round %d was not measured: it would pass the compute rounds' time budget "
      .. "(%d s); the ceilings it was for keep the rounds they have, unstable where those disagree; %s", cs.cut,
      M.budget(cs.quick), agreement.again)
  end
  return out
end

return M
