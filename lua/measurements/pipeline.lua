-- pipeline model on this CPU: add/mul/FMA/div/load latencies from boat hulls, simulated vs measured
local rot = require "rot"
local pipeline = require "rot.models.pipeline_model"
local rounds = require "rot.peaks.settle"

local quick = rot.get("quick")
-- at most 14 chains: with its two constants 14 fill the 16 vector registers of a -mfma build, and
-- 14 pointers and the loop's counter the 15 general ones; a 16th chain spills, and its points
-- time the stack, not the FMA units
local chains = quick and { 1, 2, 8 } or { 1, 2, 3, 4, 5, 6, 8, 10, 12, 14 }
local n = quick and 20000 or 200000
local scalar = "-O2 -mfma -fno-tree-vectorize -fno-tree-slp-vectorize"
-- one instruction class per op: a dependent chain per thread, `chains` of them side by side
local ops = {
  { name = "fma", kernel = "peakflops", macros = { PEAK_OP = 0 } },
  { name = "add", kernel = "peakflops", macros = { PEAK_OP = 1 } },
  { name = "mul", kernel = "peakflops", macros = { PEAK_OP = 2 } },
  { name = "div", kernel = "peakflops", macros = { PEAK_OP = 3 } },
  { name = "load", kernel = "chase", params = { ws = 16384 }, chains = "CHASE_CHAINS" }, -- L1-resident ring
}

-- The point of op (an entry of ops) with c chains in a round.
local function spec(op, c, round)
  local macros, params = {}, { n = n }
  for k, v in pairs(op.macros or {}) do macros[k] = v end
  for k, v in pairs(op.params or {}) do params[k] = v end
  if op.kernel == "peakflops" then
    macros.PEAK_TYPE, macros.PEAK_LANES = "double", 1
  end
  macros[op.chains or "PEAK_CHAINS"] = c
  return { kernel = op.kernel, params = params, flags = scalar, macros = macros, pin = { 0 },
    round = round } -- the script's own rounds (one core process each); round 1 describes as unnumbered
end

-- The core clock (GHz; nil when it failed), from a dependent imul chain (3 cycles each) on the
-- same CPU. A shared VM's clock wanders over the seconds a sweep takes, so one reading
-- for all points would put the points measured far from it at the wrong clock: each point gets
-- its own two, just before and just after it (reading: their number, below).
local function clock_spec(reading)
  return { kernel = "clock", params = { n = 3000000 }, pin = { 0 }, flags = "-O2", round = reading }
end
local function clock(reading)
  local r = rot.measure(rot.space { rot.axis("clock", { 1 }) }, function() return clock_spec(reading) end).rows[1]
  return r.flops and r.time and r.flops / r.time / 1e9
end

-- The number of the reading just before (after: just after) op i's point with c chains in a
-- round: each point's own, quick runs' apart from full ones', so that they come from the cache
-- exactly when their point does (measured together below), never from another run's sweep.
local function reading(round, i, c, after)
  return (quick and 10000 or 0) + 1000 * round + 100 * i + 2 * c + (after and 1 or 0)
end

-- Rounds of every point, each between two clock readings of its own, the three from the cache
-- or measured afresh together (rot.peaks.settle.together; each point is its own core: a space
-- would measure every clock reading in one batch after the points). A point's clock is the
-- higher of its two readings (a neighbour that takes the CPU during a reading makes it read low;
-- the clock itself moves by a percent or two over a point), and each point's fastest round is
-- kept: a neighbour that takes the CPU through all of a point's runs in one round rarely does
-- in three.
local ghz, rows = {}, {}
for round = 1, quick and 1 or 3 do
  for i, op in ipairs(ops) do
    for j, c in ipairs(chains) do
      local _, restore <close> = rounds.together(rot, { clock_spec(reading(round, i, c)), spec(op, c, round),
        clock_spec(reading(round, i, c, true)) })
      local before = clock(reading(round, i, c))
      local r = rot.measure(rot.space { rot.axis("op", { op.name }), rot.axis("chains", { c }) }, function()
        return spec(op, c, round)
      end).rows[1]
      local after = clock(reading(round, i, c, true))
      ghz[r] = (before or after) and math.max(before or 0, after or 0)
      local at = (i - 1) * #chains + j
      if not (rows[at] and rows[at].time) or (r.time and r.time < rows[at].time) then rows[at] = r end
    end
  end
end
local lo, hi = math.huge, 0
for _, g in pairs(ghz) do lo, hi = math.min(lo, g), math.max(hi, g) end
local results = rot.results(rows, { "op", "chains" })

-- per class: the hull in cycles of each point's own clock, its latencies, and every point
-- simulated (Table II of the paper)
local names = {}
for i, op in ipairs(ops) do names[i] = op.name end
local points, classes = pipeline.hulls(rows, names, n, "chains", function(r) return ghz[r] end)
rot.records(rot.name() .. "-model", pipeline.point_columns("chains", true), points)
io.stdout:write(string.format("\nper instruction, one thread on %s, in cycles of the core clock read around each point "
  .. "(imul chain: %s; ns at the median clock):\n", rot.machine.cpuinfo().model,
  hi > 0 and string.format("%.3f-%.3f GHz", lo, hi) or "unknown"))
rot.records(rot.name() .. "-latencies", pipeline.class_columns, classes)
io.stdout:write("compare with the published latency and reciprocal throughput of this core "
  .. "(uops.info, Agner Fog's tables)\n")

-- an issue rate from chains that may never have filled the pipe (the most concurrent hardly
-- past the knee where issuing, not latency, limits) is only an upper bound: said
for _, c in ipairs(classes) do
  local least, most = nil, nil -- its least and most concurrent points
  for _, p in ipairs(points) do
    if p.op == c.op and (not least or p.w < least.w) then least = p end
    if p.op == c.op and (not most or p.w > most.w) then most = p end
  end
  if c.issue_is ~= "measured" and least and most ~= least then
    io.stdout:write(string.format("%s: issue %.2f cycles is an upper bound, not a measured rate: "
      .. "%d chains took %.2f times "
      .. "the time of %d, less than %.0f%% past the hull's knee (%.1f chains), so issuing may never "
        .. "have limited them (%s)\n",
      c.op, c.issue_cycles, most.w, most.measured / least.measured, least.w, pipeline.filled * 100,
      c.completion_cycles / c.issue_cycles, quick and "-quick=true measures 1, 2 and 8 chains; without it up to 14"
      or "more would spill registers"))
  end
end

-- pipeline.csv: the points; no bounds (a dependent scalar chain has no roof among the
-- machine's ceilings, and the peaks are not measured for it)
results:csv(nil, { bounds = false })
results:xy { title = "boat hull: time per instruction vs independent chains", logx = false,
  x = function(r) return r.point.chains end, y = function(r) return r.time and r.time * 1e9 / (n * r.point.chains) end,
  xlabel = "independent chains per thread", ylabel = "time per instruction [ns]",
  series = function(r) return r.point.op end }
