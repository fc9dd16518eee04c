-- pipeline model on this CPU: add/mul/FMA/div/load latencies from boat hulls, simulated vs measured
local rot = require "rot"
local pipeline = require "rot.models.pipeline_model"

local quick = rot.get("quick")
local chains = quick and { 1, 2, 8 } or { 1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16 }
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
local idx = {}
for i = 1, #ops do idx[i] = i end

local results = rot.measure(rot.space { rot.axis("op", idx), rot.axis("chains", chains) }, function(p)
  local op = ops[p.op]
  local macros, params = {}, { n = n }
  for k, v in pairs(op.macros or { }) do macros[k] = v end
  for k, v in pairs(op.params or {}) do params[k] = v end
  if op.kernel == "peakflops" then
    macros.PEAK_TYPE, macros.PEAK_LANES = "double", 1
  end
  macros[op.chains or "PEAK_CHAINS"] = p.chains
  return { kernel = op.kernel, params = params, flags = scalar, macros = macros, pin = { 0 } }
end)
-- the core clock the chains ran at, from a dependent imul chain (3 cycles each)
local clk = rot.measure(rot.space { rot.axis("clock", { 1 }) }, function()
  return { kernel = "clock", params = { n = quick and 1000000 or 10000000 }, pin = { 0 }, flags = "-O2" }
end).rows[1]
local ghz = clk.flops and clk.time and clk.flops / clk.time / 1e9

-- per class: the hull, its latencies, and every point simulated (Table II of the paper)
local names = {}
for i, op in ipairs(ops) do names[i] = op.name end
local points, classes = pipeline.hulls(results.rows, names, n, "chains", ghz)
rot.records("pipeline-model", pipeline.point_columns("chains"), points)
io.stdout:write(string.format("\nper instruction, one thread on %s, core clock %s (imul chain):\n",
  rot.machine.cpuinfo().model, ghz and string.format("%.3f GHz", ghz) or "unknown"))
rot.records("pipeline-latencies", pipeline.class_columns, classes)
io.stdout:write("compare with the published latency and reciprocal throughput of this core (uops.info, Agner Fog's tables)\n")

results:csv("pipeline")
results:xy { name = "pipeline", title = "boat hull: time per instruction vs independent chains", logx = false,
  x = function(r) return r.point.chains end, y = function(r) return r.time and r.time * 1e9 / (n * r.point.chains) end,
  xlabel = "independent chains per thread", ylabel = "time per instruction [ns]",
  series = function(r) return ops[r.point.op].name end }
