-- pipeline model on this CPU: add/mul/FMA/div/load latencies from boat hulls, simulated vs measured
local rot = require "rot"
local pipeline = require "rot.models.pipeline_model"

local quick = rot.get("quick")
-- at most 14 chains: with its two constants 14 fill the 16 vector registers of a -mfma build, and
-- 14 pointers and the loop's counter the 15 general ones; a 16th chain spills, and its points
-- time the stack (16 FMA chains here ran at 0.63 cycles an FMA where 14 ran at 0.50)
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

local function spec(p)
  local op = ops[p.op]
  local macros, params = {}, { n = n }
  for k, v in pairs(op.macros or {}) do macros[k] = v end
  for k, v in pairs(op.params or {}) do params[k] = v end
  if op.kernel == "peakflops" then
    macros.PEAK_TYPE, macros.PEAK_LANES = "double", 1
  end
  macros[op.chains or "PEAK_CHAINS"] = p.chains
  return { kernel = op.kernel, params = params, flags = scalar, macros = macros, pin = { 0 } }
end

-- The core clock (GHz; nil when it failed), from a dependent imul chain (3 cycles each) on the
-- same CPU: the k-th reading of the sweep, its own cache entry. A shared VM's clock wanders by
-- 10-30% over the seconds a sweep takes, so one reading for all points would put the points
-- measured far from it at the wrong clock.
local function clock(k)
  local r = rot.measure(rot.space { rot.axis("clock", { 1 }) }, function()
    return { kernel = "clock", params = { n = 3000000 }, pin = { 0 }, flags = "-O2", round = k }
  end).rows[1]
  return r.flops and r.time and r.flops / r.time / 1e9
end

-- Rounds of every point, each between two clock readings (each point is its own core: a space
-- would measure every clock reading in one batch after the points). A point's clock is the
-- higher of its two readings (a neighbour that takes the CPU during a reading makes it read low;
-- the clock itself moves by a percent or two over a point), and each point's fastest round is
-- kept: a neighbour that took the CPU through all of a point's runs in one round (25% slower
-- here) rarely does in three. Rounds of the same point are distinct cache entries.
local ghz, rows, k = {}, {}, 1
local last = clock(k)
for round = 1, quick and 1 or 3 do
  for i = 1, #ops do
    for j, c in ipairs(chains) do
      local r = rot.measure(rot.space { rot.axis("op", { i }), rot.axis("chains", { c }) }, function(p)
        local s = spec(p)
        s.round = round > 1 and round or nil
        return s
      end).rows[1]
      k = k + 1
      local now = clock(k)
      ghz[r], last = (last or now) and math.max(last or 0, now or 0), now
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
rot.records("pipeline-model", pipeline.point_columns("chains", true), points)
io.stdout:write(string.format("\nper instruction, one thread on %s, in cycles of the core clock read around each point "
  .. "(imul chain: %s; ns at the median clock):\n", rot.machine.cpuinfo().model,
  hi > 0 and string.format("%.3f-%.3f GHz", lo, hi) or "unknown"))
rot.records("pipeline-latencies", pipeline.class_columns, classes)
io.stdout:write("compare with the published latency and reciprocal throughput of this core (uops.info, Agner Fog's tables)\n")

results:csv("pipeline")
results:xy { name = "pipeline", title = "boat hull: time per instruction vs independent chains", logx = false,
  x = function(r) return r.point.chains end, y = function(r) return r.time and r.time * 1e9 / (n * r.point.chains) end,
  xlabel = "independent chains per thread", ylabel = "time per instruction [ns]",
  series = function(r) return ops[r.point.op].name end }
