--[[ rot.peaks.clocks: the clocks around the compute ceilings' rounds: the core clock (a
  dependent imul chain) and the vector units' (dependent FMA chains of each licensed width) read
  just before and just after each round, the FMA latency that turns a chain's steps into a
  clock, the clock each class's ceiling records, and the lines that say them. ]]
local util = require "rot.util"
local session = require "rot.session"
local levels = require "rot.machine.levels"
local isas = require "rot.machine.isa"

local M = {}

--[[ The clock the vector units run at. Intel runs wide vector work at a lower licence clock than
  scalar work, so the imul chain is the scalar units' clock only. The classes whose width can lower it
  (M.licensed) get the clock of a dependent FMA chain of their own width: M.chain.chains chains
  side by side, latency-bound on every core rot knows (one 512-bit FMA a cycle on Zen 4 would
  take four), timed just before and just after each round's points. An FMA's latency in cycles
  is the same at every width and, unlike an add's or a multiply's, the same on Zen 3, 4 and 5
  and Intel from Skylake to Golden Cove (4; 5 on Zen 2 and Haswell): rot takes it from the
  scalar chain at the imul clock read beside it (scalar work runs at the imul clock
  everywhere), to the nearest whole cycle (M.fma_latency). ]]
M.licensed = isas.licensed
M.chain = { chains = 2, n = 250000 }
-- How far a licensed class's clock may sit from the imul chain's without a line saying so.
M.moved = 0.03

--[[ The number in its description (its round) of the clock reading (and the FMA chains' timing)
  just before round r of the compute ceilings, or just after it: each round's own, quick peaks'
  apart from full ones' (101, 102 for round 1 of full peaks, 201, 202 of quick ones), so that a
  reading comes from the cache exactly when its round's points do (rot.peaks.compute.round
  measures them together), never from another run's round: a round measured again is never
  paired with a reading another run stored. ]]
function M.reading(quick, r, after)
  return (quick and 200 or 100) + 2 * r - (after and 0 or 1)
end

-- The round a reading number brackets, whether it is the one after it, and whether it is quick
-- peaks' (M.reading's inverse; tests replay recorded rounds by it).
function M.reading_of(n)
  local quick = n > 200
  local k = n - (quick and 200 or 100)
  return (k + 1) // 2, k % 2 == 0, quick
end

-- The point of a clock reading (M.reading) on CPU 0.
function M.clock_spec(reading)
  return { kernel = "clock", params = { n = 1000000 }, pin = { 0 }, flags = "-O2", round = reading }
end

-- The core clock in GHz, from a dependent imul chain on CPU 0 (nil when it was not measured);
-- reading: the number of this reading (M.reading).
function M.clock(rot, reading)
  session.current():set_step("peaks clock") -- on the progress line
  local r = rot.measure(rot.space { rot.axis("x", { 1 }) }, function() return M.clock_spec(reading) end).rows[1]
  return r.time and r.flops / r.time / 1e9 or nil
end

-- The ISA classes whose FMA chain is timed beside the rounds: the scalar one (the FMA latency at
-- the imul clock) and the licensed classes among the points; none without a licensed one.
function M.timed(cs)
  local want = {}
  for _, c in ipairs(cs.points) do if M.licensed[c.isa.name] then want[c.isa.name] = true end end
  local out = {}
  for _, isa in ipairs(isas.classes) do
    if want[isa.name] or (isa.name == "scalar" and next(want)) then out[#out + 1] = isa end
  end
  return out
end

-- The point of a class's FMA chain on CPU 0 at a reading (M.reading).
function M.chain_spec(isa, reading)
  return { kernel = "peakflops", params = { n = M.chain.n }, pin = { 0 }, round = reading,
    flags = isa.flags .. " -fno-tree-vectorize -fno-tree-slp-vectorize",
    macros = { PEAK_TYPE = "double", PEAK_LANES = isa.lanes.double, PEAK_OP = isas.opcode.fma,
      PEAK_CHAINS = M.chain.chains } }
end

--[[ The FMA chains of the classes that need them (M.timed), one point each on CPU 0,
  timed at a reading (M.reading, as the clock's): {[class] = ns an FMA step, or false where one
  failed}, nil when no class needs one. ]]
function M.chains(rot, cs, reading)
  local classes = M.timed(cs)
  if #classes == 0 then return nil end
  local idx = {}
  for i = 1, #classes do idx[i] = i end
  session.current():set_step("peaks clock") -- on the progress line
  local res = rot.measure(rot.space { rot.axis("i", idx) }, function(p) return M.chain_spec(classes[p.i], reading) end)
  local out = {}
  for i, r in ipairs(res.rows) do out[classes[i].name] = r.time and r.time / M.chain.n * 1e9 or false end
  return out
end

-- Keeps a round's clock readings and FMA chains' steps (after: nil when the round had no point
-- to read it after).
function M.bracket(cs, round, before, after, steps)
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

-- The licensed classes timed beside the rounds, in rot.machine.isa's order.
local function licensed_timed(cs)
  local out = {}
  for _, isa in ipairs(M.timed(cs)) do if M.licensed[isa.name] then out[#out + 1] = isa.name end end
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


--[[ The clock a class's units ran at around round r (GHz), and which: "fma" (a licensed class:
  its FMA chain's, when the FMA latency came out whole), "scalar" (scalar and SSE work, and a
  licensed class otherwise: the higher of the imul readings and the scalar FMA chain's, both the
  scalar units' clock), or "imul" (no chain timed). A licensed chain faster than the scalar one
  would say its width's FMA is quicker, not its clock higher (no licence raises it): the scalar
  units' clock then. Each the higher around the round, so a ceiling's share of its peak at it is
  not flattered by a clock that rose during it. ]]
function M.units_clock(cs, class, r, latency)
  local imul = highest(cs.readings[r])
  if not latency then return imul, "imul" end
  if M.licensed[class] and (unit_ratio(cs, class, latency) or 2) <= 1 + M.moved then
    local u = unit_clock(cs, r, class, latency)
    if u then return u, "fma" end
  end
  return highest({ unit_clock(cs, r, "scalar", latency) or false }, imul), "scalar"
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
      .. "not a whole number (the clock moved between them): the %s compute ceilings keep the imul chain's clock",
        cycles, names) }
  end
  local out = {}
  for _, name in ipairs(classes) do
    local m, ghz = unit_ratio(cs, name, latency)
    if m and m < 1 - M.moved then
      out[#out + 1] = string.format("the %s FMA chain ran at %.3f GHz (median of the rounds; an FMA "
        .. "%d cycles, as the scalar "
        .. "chain shows at the imul clock), %.1f%% below the imul chain's clock beside it: %s "
          .. "work runs at a lower clock "
        .. "here (Intel's licence clocks), which the %s compute ceilings record as theirs", name, ghz, latency,
        (1 - m) * 100, name, name)
    elseif m and m > 1 + M.moved then
      out[#out + 1] = string.format("the %s FMA chain ran %.1f%% faster than %d cycles an FMA "
        .. "at the imul chain's clock "
        .. "(the scalar chain's latency): this width's FMA is quicker here, not its clock higher; "
          .. "the %s compute ceilings "
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
  for _, isa in ipairs(M.timed(cs)) do
    local per = {}
    for r = 1, cs.rounds do
      per[r] = readings_of({ step_clock(cs, r, 1, isa.name, latency), step_clock(cs, r, 2, isa.name, latency) })
    end
    each[#each + 1] = isa.name .. " " .. table.concat(per, ", ")
  end
  return string.format("vector units' clock (%d dependent FMA chains of each width, CPU 0, an "
    .. "FMA %d cycles: the scalar "
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
    table.concat(each, ", "), unstable > 0 and string.format(": %d compute %s unstable", unstable,
      util.plural(unstable, "ceiling stays", "ceilings stay")) or "")
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
