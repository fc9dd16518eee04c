-- the thesis's time validation: time per operation of the register ADD kernel vs operation count
local rot = require "rot"

local counts = rot.geometric(100, 10000000, 10)
if rot.get("quick") then counts = { 100, 10000 } end
-- cold caches and one invocation per run, as in the thesis's experiment
local results = rot.measure(rot.space { rot.axis("accumulators", { 1, 4 }), rot.axis("n", counts) }, function(p)
  return { kernel = "regadd", params = { n = p.n // p.accumulators }, macros = { PEAK_CHAINS = p.accumulators },
    flags = "-O2 -fno-tree-vectorize", cacheMode = "cold" }
end)

local function ns_per_op(r) return r.time and r.flops > 0 and r.time / r.flops * 1e9 end
local function cycles_per_op(r) return r.time and r.tscHz and r.flops > 0 and r.time * r.tscHz / r.flops end
results:table { columns = { "time", { "ops", function(r) return r.flops and string.format("%.0f", r.flops) or "-" end,
  function(r) return r.flops end }, { "ns/op", function(r) return ns_per_op(r) and string.format("%.3f",
    ns_per_op(r)) or "-" end,
  ns_per_op }, { "TSC cycles/op", function(r) return cycles_per_op(r) and string.format("%.3f",
    cycles_per_op(r)) or "-" end,
  cycles_per_op }, "runs", "spread", "mode", "source" } }
results:csv()
results:xy { title = "ADD kernel: time per operation (cold caches)", logx = true,
  x = function(r) return r.flops end, y = ns_per_op, xlabel = "operations", ylabel = "time per operation [ns]",
  series = function(r) return r.point.accumulators .. " accumulator(s)" end }
results:xy { name = rot.name() .. "-error", title = "ADD kernel: spread of the k fastest runs", logx = true,
  x = function(r) return r.flops end, y = function(r) return r.spread and r.spread * 100 end,
  xlabel = "operations", ylabel = "spread of the best k runs [%]",
  series = function(r) return r.point.accumulators .. " accumulator(s)" end }
