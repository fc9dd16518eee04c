--[[ rot.peaks.bandwidth: the bandwidth ceilings, measured against noise: read, write and
  triad swept over working sets in interleaved rounds (sizes, kernels and thread counts
  scrambled within a round, each code its own batch in it, rounds one after another, never a
  point's runs back to back), extended until DRAM shows a flat tail beyond four times the last
  cache; each ceiling the best value over its rounds (each point's fastest run, of the faster
  code, rot.peaks.widths: STREAM's and the Empirical Roofline Toolkit's convention, and the
  points' own), with the rounds' spread, more rounds where that spread is above 5%, and marked
  unstable where it stays so; and the sweep itself, each size's best round, which bounds a
  working set where it falls from one level to the next (rot.machine.sweep). ]]
local agreement = require "rot.machine.agreement"
local sys = require "rot.sys"
local util = require "rot.util"
local session = require "rot.session"
local machine = require "rot.machine"
local levels = require "rot.machine.levels"
local budget = require "rot.peaks.budget"
local rounds = require "rot.peaks.settle"
local sweep = require "rot.machine.sweep"
local codes = require "rot.peaks.widths"
local contradictions = require "rot.peaks.contradictions"

local M = {}

local MiB = 1024 * 1024

-- Bandwidth kernels: read, write, triad (names as in peaks.csv). Triad's staircase decides
-- where the levels are; the others are read at the same sizes. Built into one core, so one
-- batch and one child measure a round of all three.
M.streams = { { name = "read", kernel = "sum", arrays = 1 }, { name = "write", kernel = "fill", arrays = 1 },
  { name = "triad", kernel = "triad", arrays = 3 } }
local ALONGSIDE = { "fill", "sum", "triad" }

-- Rounds: at first, and at most (quick: fewer, for tests); best-k runs per point (rounds, not
-- runs, fight the noise here: a DRAM run of gigabytes is long enough to be one sample).
-- Rounds past the planned ones are spent only while the peaks' points (rot.peaks.budget's
-- timer: builds and the driver's work left out, about 10 s of a fresh run) stay within budget
-- seconds: rot measure peaks is meant to take under 3 minutes on a 2-core VM.
local function plan(quick)
  return quick and { rounds = 2, max_rounds = 3, runs = 3, max_runs = 5, per_octave = 1,
    first = 256 * MiB, budget = 45 }
    or { rounds = 3, max_rounds = 6, runs = 3, max_runs = 6, per_octave = 2, first = 512 * MiB, budget = 150 }
end

-- The seconds of the peaks' timer within which rounds past the planned ones are begun.
function M.budget(quick)
  return plan(quick).budget
end

-- The runs a point of the sweeps takes at first and at most (best-k's runs and maxRuns).
function M.runs(quick)
  local p = plan(quick)
  return p.runs, p.max_runs
end

-- How often round 1's sweep doubles its top at most while DRAM has no flat tail (512 MiB-8 GiB).
M.doublings = 4

-- The last cache reported for t threads (their summed instances), 0 when none is.
function M.llc_reported(t)
  local rep = machine.reported(machine.pins(t))
  return rep[#rep] and rep[#rep].size or 0
end

-- One point of the sweeps, x = {stream= (index into M.streams), threads=, ws= (its arrays'
-- bytes), code= (index into codes.list), round=}: pinned, the three streams in one core.
function M.spec(x)
  local s = M.streams[x.stream]
  return { kernel = s.kernel, params = { n = math.max(64 * x.threads, x.ws // (8 * s.arrays)) }, threads = x.threads,
    pin = machine.pins(x.threads), flags = codes.list[x.code].flags, round = x.round, alongside = ALONGSIDE,
    pointChild = "shared", macros = { STREAM_UNROLL = 4 } } -- unrolled: the loop's overhead is no cache's limit
end

--[[ The samples so far: samples[t][stream][ws] = {ws=, rounds={[round] = GB/s, the faster
  code's}, at={[round] = when it was measured (UTC)}, code={[round] = which code that was},
  by={[round] = {[code] = GB/s}}} (codes: rot.peaks.widths). Measures points (M.spec's x;
  several rounds of a point may be among them: a round is the n-th independent measurement, in
  its description) in one batch of one core and one shared child per code (rot.execute runs a
  build's points together), so each array is faulted in once a code; returns how many were
  measured. Keeps what each point's runs took (cost_by[code], its last round's) and the batch's
  time beyond them on the peaks' timer (st.timer, which counts hits as they were measured): per
  byte of its arrays where they are large (st.per_byte: faulting gigabytes in takes seconds on
  a VM), else per point. ]]
local function measure(rot, st, points, what)
  st.calls = (st.calls or 0) + 1
  local t0, v0 = sys.clock(), st.timer.now()
  local list = util.scramble(points, st.calls) -- a disturbance of a few seconds scatters over
  -- sizes, kernels, thread counts and rounds instead of drawing a plateau
  local idx = {}
  for i = 1, #list do idx[i] = i end
  session.current():set_step("peaks bandwidth, " .. (what:match("rounds? [%d-]+") or what)) -- on the progress line
  local res = rot.measure(rot.space { rot.axis("i", idx) }, function(p) return M.spec(list[p.i]) end)
  st.timer.count(res.rows)
  local known = 0
  for i, row in ipairs(res.rows) do
    local x = list[i]
    local per = st.samples[x.threads][x.stream]
    per[x.ws] = per[x.ws] or { ws = x.ws, rounds = {}, at = {}, by = {}, code = {}, cost_by = {} }
    local smp = per[x.ws]
    smp.by[x.round] = smp.by[x.round] or {}
    smp.by[x.round][x.code] = row.gbs -- its fastest run
    if row.gbs and not (smp.rounds[x.round] and smp.rounds[x.round] >= row.gbs) then -- the round's: the faster code's
      smp.rounds[x.round], smp.code[x.round] = row.gbs, x.code
      smp.at[x.round] = row.entry and row.entry.meta.measuredAt
    end
    local cost = budget.cost(row)
    smp.cost_by[x.code] = cost
    known = known + cost
    st.rows[#st.rows + 1] = row
    row.point = { stream = x.stream, threads = x.threads, ws = row.workingSet or x.ws, round = x.round, code = x.code }
    st.rounds = math.max(st.rounds, x.round)
  end
  budget.learn(st, list, st.timer.now() - v0, known)
  rounds.say(rot, string.format("%s: %d points, %.0f s", what, #list, sys.clock() - t0))
  return #res:ok()
end

-- The best of each size over its rounds, as levels.detect reads a sweep.
local function best_of(per)
  local out = {}
  for _, x in pairs(per) do
    local v = {}
    for _, g in pairs(x.rounds) do v[#v + 1] = g end
    if #v > 0 then out[#out + 1] = { ws = x.ws, gbs = math.max(table.unpack(v)), rounds = v } end
  end
  table.sort(out, function(a, b) return a.ws < b.ws end)
  return out
end

--[[ The levels and ceilings of t threads from the samples so far: triad's staircase (the best
  of each size over its rounds) says where the levels are; each stream's ceiling per level
  comes from its rounds at that level's sizes; every size's best round is a sweep row
  (rot.machine.sweep). Returns {levels=, rows=, notes=, step= (triad's sizes in the transitions
  between levels: sweep.step)}, or nil, why and what ("tail": the largest sizes are not flat
  yet). st.final: the sweep goes no further (a DRAM tail that is not flat is then its last
  octave, unstable). ]]
function M.analyse(st, t, reported)
  local lv, why, what = levels.detect(best_of(st.samples[t][3]), reported, { final = st.final })
  if not lv then return nil, why, what end
  local rows, date = {}, rounds.newest(st.samples[t][3]) -- the sizes: from triad's rounds, all of them
  local dram, short = levels.dram_sizes(lv, reported)
  local d = lv[#lv]
  d.tail, d.from = d.from, dram[1] -- DRAM's range: where its ceiling is read; before it, the step to it
  for _, l in ipairs(lv) do
    if l.name ~= "DRAM" then
      if l.effective then
        rows[#rows + 1] = { name = l.name .. "_effective", kind = "size", threads = t,
          value = math.floor(l.effective), unit = "B", date = date }
      end
      if l.reported then
        rows[#rows + 1] = { name = l.name .. "_reported", kind = "size", threads = t, value = l.reported,
          unit = "B", date = date }
      end
    else
      rows[#rows + 1] = { name = "DRAM_from", kind = "size", threads = t, value = math.floor(l.from),
        unit = "B", date = date }
    end
  end
  for si, s in ipairs(M.streams) do
    for _, l in ipairs(lv) do
      -- a cache: the fastest of its plateau's sizes and those after it within the level (a
      -- roof: the points at its sizes reach it), DRAM the fastest of its tail's sizes beyond the
      -- caches (levels.dram_sizes; no flat tail: of the last octave's, unstable); a cache without a
      -- plateau: their median
      local sizes, fastest = l.name == "DRAM" and dram or l.sizes, l.flat ~= false or l.name == "DRAM"
      local c = rounds.ceiling(st.samples[t][si], sizes, fastest)
      if c then
        local code = codes.winner(st.samples[t][si], sizes, c.round, fastest)
        rows[#rows + 1] = { name = s.name .. "_" .. l.name, kind = "bandwidth", threads = t, value = c.gbs,
          unit = "GB/s", spread = c.spread, median = c.median, rounds = c.rounds, sizes = sizes,
          plateau = l.plateau, kernel = s.kernel, stream = si, level = l.name, unflat = l.flat == false or nil,
          date = c.date, isa = code and codes.list[code].flags }
        if s.name == "triad" then l.ceiling = c.gbs end -- the notes quote the ceiling, not the staircase
        rows[#rows].narrow = codes.faster_narrow(st.samples[t][si], sizes, fastest) -- M.notes says so
      end
    end
  end
  local notes = levels.disagreements(lv, util.count(t, "thread"))
  for si, s in ipairs(M.streams) do
    local swept = codes.label_sweep(st.samples[t][si], sweep.rows(st.samples[t][si], t, s.name, s.kernel))
    for _, r in ipairs(swept) do rows[#rows + 1] = r end
  end
  local stop = d.flat == false and st.stopped and sweep.stop_reason(st.stopped[t], machine.sweep_cap(), M.doublings)
  levels.dram_notes(notes, lv, util.count(t, "thread"), short, stop or nil)
  return { levels = lv, rows = rows, notes = notes, step = sweep.step(lv, st.samples[t][3]) }
end

-- The points of every stream at sizes (a set), for t threads, in a round, in each code measured
-- there (codes.measured_at); with `has`, those for which has(stream, ws, code) is false.
local function points_at(t, sizes, round, has)
  local out, llc = {}, M.llc_reported(t)
  for si = 1, #M.streams do
    for ws in pairs(sizes) do
      for _, code in ipairs(codes.measured_at(ws, llc)) do
        if not (has and has(si, ws, code)) then
          out[#out + 1] = { stream = si, threads = t, ws = ws, round = round, code = code }
        end
      end
    end
  end
  return out
end

-- An analysis whose levels are found: a cache plateau above DRAM's tail (not DRAM's alone).
local function settled(a)
  return a ~= nil and not a.levels[#a.levels].alone
end

--[[ Every thread count's analysis (nil where the staircase shows no levels yet) and the thread
  counts not settled yet, {[t] = why} (why: nil when DRAM's tail is all it shows), or nil. ]]
local function analyse_all(st, threads)
  local out, missing = {}, nil
  for _, t in ipairs(threads) do
    local a, why = M.analyse(st, t, machine.reported(machine.pins(t)))
    out[t] = a
    if not settled(a) then
      missing = missing or {}
      missing[t] = why or false
    end
  end
  return out, missing
end

--[[ Round 1: the sweep from 4 KiB up to 4x the largest reported last-level cache (at least
  512 MiB, 256 MiB quick), extended (doubling) while the largest sizes are not flat yet or 4x
  the effective last cache lies beyond them, never past a quarter of the memory. The largest
  sizes (a third of the top and up), where DRAM's tail is expected, get their later rounds in
  the same batch: their gigabytes are faulted in once a code. ]]
local function staircase(rot, st, threads, p)
  local cap, top, done, open = machine.sweep_cap(), {}, {}, {}
  for _, t in ipairs(threads) do
    local want = math.max(p.first, 4 * M.llc_reported(t))
    local pow = 4096
    while pow < want do pow = pow * 2 end -- the sweep's sizes are powers of two up there
    top[t], done[t], open[t] = math.min(pow, cap), {}, true
    if want > cap then st.bounded = { want = want, cap = cap } end
  end
  st.stopped = {}
  for batch = 1, M.doublings + 1 do
    local pts = {}
    for _, t in ipairs(threads) do
      for _, ws in ipairs(open[t] and sweep.sizes(top[t], p.per_octave) or {}) do
        if not done[t][ws] then
          done[t][ws] = true
          for r = 1, ws * 3 >= top[t] and p.rounds or 1 do
            for _, x in ipairs(points_at(t, { [ws] = true }, r)) do pts[#pts + 1] = x end
          end
        end
      end
    end
    if #pts == 0 then break end
    if measure(rot, st, pts, "bandwidth sweep, round 1") == 0 then return end -- nothing measured (rot build)
    local any = false
    for _, t in ipairs(threads) do
      local a, _, what = M.analyse(st, t, machine.reported(machine.pins(t)))
      local last = a and a.levels[#a.levels - 1]
      local was = open[t]
      open[t] = was and ((what == "tail") or (last ~= nil and levels.beyond * math.max(last.effective or 0,
        last.reported or 0) > top[t]))
      if was then st.stopped[t] = { top = top[t], why = "flat", from = a and a.levels[#a.levels].tail } end
      if open[t] and top[t] >= cap then
        st.bounded, open[t], st.stopped[t].why = st.bounded or { flat = true, cap = cap }, false, "cap"
      elseif open[t] and batch > M.doublings then
        st.stopped[t].why = "doublings"
      elseif open[t] then
        top[t], any = math.min(2 * top[t], cap), true
      end
    end
    if not any then break end
  end
  st.final = true
end

--[[ The sizes that define ceilings and bounds (every level's plateau, the DRAM tail, the
  transitions between levels, whose sweep bounds the working sets in them), per thread
  count; only those in `which` ({[t] = {[level] = true, step = true}}) when given. A thread
  count whose staircase shows no levels yet (one noisy round can hide a plateau) gets every
  size of its sweep: the best of more rounds is what the levels are read from. ]]
local function defining(an, st, threads, which)
  local out = {}
  for _, t in ipairs(threads) do
    local set = {}
    if settled(an[t]) then
      for _, l in ipairs(an[t].levels) do
        if not which or (which[t] and which[t][l.name]) then
          for _, ws in ipairs(l.sizes or {}) do set[ws] = true end
        end
      end
      for _, ws in ipairs((not which or (which[t] and which[t].step)) and an[t].step or {}) do set[ws] = true end
    else
      for ws in pairs(st.samples[t][3]) do set[ws] = true end
    end
    out[t] = set
  end
  return out
end

-- The rows of an analysis whose spread asks for another round: {[t] = {[level] = true, step =
-- true (a size in a transition: its sweep bounds points as a ceiling does)}}, or nil.
local function spreading(an)
  local out, any = {}, false
  for t, a in pairs(an) do
    local step = {}
    for _, ws in ipairs(a.step) do step[ws] = true end
    for _, r in ipairs(a.rows) do
      local key = r.kind == "bandwidth" and r.level or (r.kind == "sweep" and step[r.sizes[1]] and "step")
      if key and r.rounds and r.spread > agreement.stable then
        out[t] = out[t] or {}
        out[t][key] = true
        any = true
      end
    end
  end
  return any and out or nil
end

--[[ The rounds up to `upto` the given sizes ({[t] = set}) do not have yet, in one batch. With a
  deadline (seconds on st.timer), only when the batch's guessed time ends before it, else false. ]]
local function rounds_upto(rot, st, sizes, upto, deadline)
  local pts = {}
  for t, set in pairs(sizes) do
    for r = 2, upto do
      local function has(si, ws, code)
        local x = st.samples[t][si][ws]
        return x ~= nil and x.by ~= nil and x.by[r] ~= nil and x.by[r][code] ~= nil
      end
      for _, x in ipairs(points_at(t, set, r, has)) do pts[#pts + 1] = x end
    end
  end
  if #pts == 0 then return true end
  local g = budget.guess(st, pts)
  if deadline and st.timer.now() + g > deadline then return false end
  measure(rot, st, pts, deadline
    and string.format("round %d where a ceiling's rounds still disagree (guessed %.0f s)", upto, g)
    or ((upto == 2 and "round 2" or "rounds 2-" .. upto) .. " at the sizes that define ceilings"))
  return true
end

--[[ Measures the bandwidth ceilings of every thread count: returns the analyses per thread
  count (rows marked unstable where the rounds still disagree by more than 5%), the state (its
  rows for the staircase plot, rounds, bounded) and notes for the user. timer: the peaks' timer
  (rot.peaks.budget; default a new one), whose budget for extra rounds counts from its start;
  between: called after the sweep, before the later rounds (the peaks measure their compute
  ceilings' second round there, so that rounds of both lie minutes apart). ]]
function M.measure(rot, threads, quick, timer, between)
  local p = plan(quick)
  local st = { samples = {}, rows = {}, rounds = 0, timer = timer or budget.timer() }
  local deadline = p.budget
  for _, t in ipairs(threads) do st.samples[t] = { {}, {}, {} } end
  local saved = { runs = rot.get("runs"), max_runs = rot.get("maxRuns") }
  local function use(s) rot.set("runs", s.runs); rot.set("maxRuns", s.max_runs) end
  use(p)
  staircase(rot, st, threads, p)
  if between then use(saved); between(); use(p) end -- under the caller's settings
  local an, missing = analyse_all(st, threads)
  rounds_upto(rot, st, defining(an, st, threads), p.rounds) -- every ceiling's sizes, one batch
  an, missing = analyse_all(st, threads)
  for r = p.rounds + 1, p.max_rounds do -- more rounds where a spread asks, read is below triad, or no levels yet
    local which = spreading(an) or {}
    for t, a in pairs(an) do
      if contradictions.contradiction(a) then which[t] = which[t] or {}; which[t].DRAM = true end
      for _, v in ipairs(contradictions.inversions(a)) do which[t] = which[t] or {}; which[t][v.row.level] = true end
    end
    if next(which) == nil and not missing then break end
    if not rounds_upto(rot, st, defining(an, st, threads, which), r, deadline) then
      st.budget = { round = r, seconds = p.budget }
      break
    end
    an, missing = analyse_all(st, threads)
  end
  use(saved)
  return an, st, contradictions.notes(an, st, missing)
end

return M
