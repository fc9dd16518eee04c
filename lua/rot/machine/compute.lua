--[[ rot.machine.compute: the compute ceilings: independent FMA (add) chains in registers per
  ISA class, precision and thread count, measured in rounds spread over the peaks run (the core
  clock of a shared VM moves by 10% on a timescale of seconds), each round bracketed by core
  clock readings and its vector units' clocks; each ceiling the best round, its spread across
  the rounds. ]]
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

--[[ The clock the vector units run at. Intel runs wide vector work at a lower licence clock than
  scalar work (512-bit FMAs on a Sapphire Rapids guest: about 10% below the imul chain's clock),
  so the imul chain is the scalar units' clock only. The classes whose width can lower it
  (M.licensed) get the clock of a dependent FMA chain of their own width: M.chain.chains chains
  side by side, latency-bound on every core rot knows (one 512-bit FMA a cycle on Zen 4 would
  take four), timed just before and just after each round's points. An FMA's latency in cycles
  is the same at every width and, unlike an add's or a multiply's, the same on Zen 3, 4 and 5
  and Intel from Skylake to Golden Cove (4; 5 on Zen 2 and Haswell): rot takes it from the
  scalar chain at the imul clock read beside it (scalar work runs at the imul clock
  everywhere), to the nearest whole cycle (M.fma_latency). ]]
M.licensed = { avx2 = true, avx512 = true }
M.chain = { chains = 2, n = 250000 }
-- How far a licensed class's clock may sit from the imul chain's without a line saying so.
M.moved = 0.03

-- A ceiling whose rounds disagree by more than this gets more rounds, then is unstable (as
-- bandwidth's).
M.stable = rounds.stable
-- Rounds at most: every ceiling gets three (rot.machine.peaks.measure: at the start of the
-- peaks, after the bandwidth sweep, at the end), more only where they disagree: up to four, so
-- three of seven can agree where a neighbour halves the 2-thread points in one round of two
-- (five rounds left 2-thread spreads of 34-171% in quick peaks beside busy neighbours here).
M.max_rounds = 7

-- The core clock in GHz, from a dependent imul chain on CPU 0 (nil when it was not measured);
-- reading: the n-th independent reading of it (nil: the first). Round r is read before at
-- reading r, after at reading M.max_rounds + r.
function M.clock(rot, reading)
  session.current():set_stage("peaks clock") -- on the progress line
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
  return { points = points, skipped = skipped, quick = quick, rounds = 0, readings = {}, steps = {}, values = {},
    spread1 = {}, timer = timer or budget.timer(), spent = 0 }
end

-- The ISA classes whose FMA chain is timed beside the rounds: the scalar one (the FMA latency at
-- the imul clock) and the licensed classes among the points; none without a licensed one.
local function chain_classes(cs)
  local want = {}
  for _, c in ipairs(cs.points) do if M.licensed[c.isa.name] then want[c.isa.name] = true end end
  local out = {}
  for _, isa in ipairs(M.isa) do
    if want[isa.name] or (isa.name == "scalar" and next(want)) then out[#out + 1] = isa end
  end
  return out
end

--[[ The FMA chains of the classes that need them (chain_classes), one point each on CPU 0,
  the n-th timing of them (n: as the clock's readings, M.clock): {[class] = ns an FMA step, or
  false where one failed}, nil when no class needs one. ]]
function M.chains(rot, cs, reading)
  local classes = chain_classes(cs)
  if #classes == 0 then return nil end
  local idx = {}
  for i = 1, #classes do idx[i] = i end
  session.current():set_stage("peaks clock") -- on the progress line
  local res = rot.measure(rot.space { rot.axis("i", idx) }, function(p)
    local isa = classes[p.i]
    return { kernel = "peakflops", params = { n = M.chain.n }, pin = { 0 }, round = reading,
      flags = isa.flags .. " -fno-tree-vectorize -fno-tree-slp-vectorize",
      macros = { PEAK_TYPE = "double", PEAK_LANES = isa.lanes.double, PEAK_OP = M.opcode.fma, PEAK_CHAINS = M.chain.chains } }
  end)
  local out = {}
  for i, r in ipairs(res.rows) do out[classes[i].name] = r.time and r.time / M.chain.n * 1e9 or false end
  return out
end

-- Keeps a round's clock readings and FMA chains' steps (after: nil when the round had no point
-- to read it after).
local function bracket(cs, round, before, after, steps)
  cs.readings[round] = { before or false }
  if after ~= nil then cs.readings[round][2] = after end
  cs.steps[round] = { steps[1] or false, steps[2] or false }
end

-- The highest of these readings and top (nil when none succeeded): a round's clock, so that a
-- ceiling's share of the theoretical peak at it is never flattered by a clock that rose during it.
local function highest(readings, top)
  for _, c in ipairs(readings or {}) do if c and c > (top or 0) then top = c end end
  return top
end

--[[ The FMA latency in whole cycles: the scalar FMA chain's steps at the imul clock read just
  beside them (before a round: the reading, then the chain; after: the chain, then the reading),
  their median to the nearest whole cycle when it lies within 8% of it (a clock that moved
  between a chain and its reading leaves it off a whole number); nil where it does not or
  nothing was timed. Returns that and the median (cycles; nil when none). ]]
function M.fma_latency(cs)
  local c = {}
  for r = 1, cs.rounds do
    local rd, st = cs.readings[r] or {}, cs.steps[r] or {}
    for k = 1, 2 do
      if rd[k] and st[k] and st[k].scalar then c[#c + 1] = st[k].scalar * rd[k] end
    end
  end
  if #c == 0 then return nil end
  local m = levels.median(c)
  local whole = math.floor(m + 0.5)
  return whole >= 1 and math.abs(m / whole - 1) <= 0.08 and whole or nil, m
end

-- The clock (GHz) the class's FMA chain showed at round r's k-th timing (1 before its points, 2
-- after), false where there is none.
local function step_clock(cs, r, k, class, latency)
  local st = (cs.steps[r] or {})[k]
  return st and st[class] and latency / st[class] or false
end

-- The higher of those around round r (as the imul readings', so a ceiling's share of its peak
-- is not flattered); nil without one.
local function unit_clock(cs, r, class, latency)
  return highest({ step_clock(cs, r, 1, class, latency), step_clock(cs, r, 2, class, latency) })
end

-- The licensed classes timed beside the rounds, in M.isa's order.
local function licensed_timed(cs)
  local out = {}
  for _, isa in ipairs(chain_classes(cs)) do if M.licensed[isa.name] then out[#out + 1] = isa.name end end
  return out
end

-- The class's chain clock over the highest imul reading of each round (the median of the
-- rounds), and its chain clock's median (GHz); nil when no round has both.
local function unit_ratio(cs, class, latency)
  local ratios, ghz = {}, {}
  for r = 1, cs.rounds do
    local u, i = unit_clock(cs, r, class, latency), highest(cs.readings[r])
    if u and i then ratios[#ratios + 1], ghz[#ghz + 1] = u / i, u end
  end
  if #ratios == 0 then return nil end
  return levels.median(ratios), levels.median(ghz)
end

-- The reading after a round whose points res holds, measured afresh (a stored one may have been
-- read after other runs of the points), and the FMA chains just before it; false when it
-- failed, and when the points all came from the cache (peaks analysed again: a reading now
-- brackets nothing; the row keeps the one before).
local function after(rot, cs, round, res)
  local fresh = false
  for _, r in ipairs(res.rows) do if r.entry and not r.cached then fresh = true end end
  if not fresh then return false end
  local use = rot.get("useCachedResults")
  rot.set("useCachedResults", false)
  local steps = M.chains(rot, cs, M.max_rounds + round)
  local ghz = M.clock(rot, M.max_rounds + round)
  rot.set("useCachedResults", use)
  return ghz or false, steps
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
  local steps = M.chains(rot, cs, round)
  local idx = which or {}
  if not which then for i = 1, #cs.points do idx[i] = i end end
  if #idx == 0 then
    bracket(cs, round, before, nil, { steps })
    return cs.timer.now() - t0
  end
  local t1 = sys.clock()
  session.current():set_stage("peaks compute, round " .. round) -- on the progress line
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
  local ghz, after_steps = after(rot, cs, round, res)
  bracket(cs, round, before, ghz, { steps, after_steps })
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

--[[ The clock a class's units ran at around round r (GHz), and which: "fma" (a licensed class:
  its FMA chain's, when the FMA latency came out whole), "scalar" (scalar and SSE work, and a
  licensed class otherwise: the higher of the imul readings and the scalar FMA chain's, both the
  scalar units' clock), or "imul" (no chain timed). A licensed chain faster than the scalar one
  would say its width's FMA is quicker, not its clock higher (no licence raises it): the scalar
  units' clock then. Each the higher around the round, so a ceiling's share of its peak at it is
  not flattered by a clock that rose during it. ]]
local function units_clock(cs, class, r, latency)
  local imul = highest(cs.readings[r])
  if not latency then return imul, "imul" end
  if M.licensed[class] and (unit_ratio(cs, class, latency) or 2) <= 1 + M.moved then
    local u = unit_clock(cs, r, class, latency)
    if u then return u, "fma" end
  end
  return highest({ unit_clock(cs, r, "scalar", latency) or false }, imul), "scalar"
end

-- The peaks.csv rows of the ceilings measured: the best round's value and its units' clock
-- (units_clock; clock_by says which), the spread across rounds, unstable when it is above
-- M.stable.
function M.rows(cs)
  local rows, latency = {}, M.fma_latency(cs)
  for i, c in ipairs(cs.points) do
    local v = ranked(cs, i)
    if #v > 0 then
      local s, all = spread(cs, i), {}
      for k, x in ipairs(v) do all[k] = x.gflops end
      local clock, by = units_clock(cs, c.isa.name, v[1].round, latency)
      rows[#rows + 1] = { name = c.prec .. "_" .. c.isa.name .. "_" .. c.op, kind = "compute", threads = c.threads,
        value = v[1].gflops, unit = "GFLOP/s", spread = s, rounds = #v, median = levels.median(all), kernel = "peakflops",
        isa = c.isa.name, clock = clock, clock_by = by, unstable = s > M.stable or nil }
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

--[[ Lines on the vector units' clocks: where the FMA latency did not come out whole (the
  licensed classes keep the imul chain's clock), and each licensed class whose chain clock lies
  more than M.moved from the imul chain's (the median over the rounds): below, its ceilings
  record the chain's clock (a licence clock); above, the scalar units', as no licence raises a
  clock. ]]
function M.unit_notes(cs)
  local classes = licensed_timed(cs)
  local latency, cycles = M.fma_latency(cs)
  if #classes == 0 or not cycles then return {} end
  local names = table.concat(classes, " and ")
  if not latency then
    return { string.format("the scalar FMA chain took %.2f cycles an FMA at the imul chain's clock beside it (median), "
      .. "not a whole number (the clock moved between them): the %s compute ceilings keep the imul chain's clock", cycles, names) }
  end
  local out = {}
  for _, name in ipairs(classes) do
    local m, ghz = unit_ratio(cs, name, latency)
    if m and m < 1 - M.moved then
      out[#out + 1] = string.format("the %s FMA chain ran at %.3f GHz (median of the rounds; an FMA %d cycles, as the scalar "
        .. "chain shows at the imul clock), %.1f%% below the imul chain's clock beside it: %s work runs at a lower clock "
        .. "here (Intel's licence clocks), which the %s compute ceilings record as theirs", name, ghz, latency,
        (1 - m) * 100, name, name)
    elseif m and m > 1 + M.moved then
      out[#out + 1] = string.format("the %s FMA chain ran %.1f%% faster than %d cycles an FMA at the imul chain's clock "
        .. "(the scalar chain's latency): this width's FMA is quicker here, not its clock higher; the %s compute ceilings "
        .. "take the scalar units' clock", name, (m - 1) * 100, latency, name)
    end
  end
  return out
end

-- The FMA chains' clocks before/after each round, one class after another (the scalar one's at
-- the imul clock's side), as a line for the peaks' output ("?" where a chain failed or was not
-- timed); nil when none was timed or the FMA latency did not come out whole.
function M.unit_clocks(cs)
  local latency, cycles = M.fma_latency(cs)
  if not latency then return nil end
  local each = {}
  for _, isa in ipairs(chain_classes(cs)) do
    local per = {}
    for r = 1, cs.rounds do
      per[r] = readings_of({ step_clock(cs, r, 1, isa.name, latency), step_clock(cs, r, 2, isa.name, latency) })
    end
    each[#each + 1] = isa.name .. " " .. table.concat(per, ", ")
  end
  return string.format("vector units' clock (%d dependent FMA chains of each width, CPU 0, an FMA %d cycles: the scalar "
    .. "chain took %.2f at the imul clock) before/after each compute round: %s GHz", M.chain.chains, latency, cycles,
    table.concat(each, "; "))
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
  for _, n in ipairs(M.unit_notes(cs)) do out[#out + 1] = n end
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
