-- pipeline model on this CPU: add/mul/FMA latencies from a boat hull, simulated vs measured times
local rot = require "rot"
local pipeline = require "rot.pipeline"

local quick = rot.get("quick")
local chains = quick and { 1, 2, 8 } or { 1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16 }
local n = quick and 20000 or 200000
local ops = { { "fma", 0 }, { "add", 1 }, { "mul", 2 } }

local results = rot.measure(rot.space { rot.axis("op", { 1, 2, 3 }), rot.axis("chains", chains) }, function(p)
  return { kernel = "peakflops", params = { n = n }, flags = "-O2 -mfma -fno-tree-vectorize -fno-tree-slp-vectorize",
    macros = { PEAK_TYPE = "double", PEAK_LANES = 1, PEAK_OP = ops[p.op][2], PEAK_CHAINS = p.chains }, pin = { 0 } }
end)

-- per operation: the hull, its latencies, and the simulation of every point (N scaled down:
-- the simulated time is linear in N once N is large, which the unit tests check)
local NSIM = 256
local rows, summary = {}, {}
for oi, op in ipairs(ops) do
  local samples, pts = {}, {}
  for _, r in ipairs(results.rows) do
    if r.point.op == oi and r.time then
      samples[#samples + 1] = { w = r.point.chains, t = r.time * 1e9 }
      pts[#pts + 1] = r
    end
  end
  if #samples >= 2 then
    local issue, completion = pipeline.latencies(samples, n)
    local errs = {}
    for _, r in ipairs(pts) do
      local sim = pipeline.simulate { graph = pipeline.chain("fpu", NSIM), pipelines = { fpu = { issue = issue, completion = completion } },
        warps = r.point.chains }
      local t_sim = sim.cycles * n / NSIM
      local err = (t_sim - r.time * 1e9) / (r.time * 1e9)
      errs[#errs + 1] = err
      rows[#rows + 1] = { op = op[1], chains = r.point.chains, measured = r.time * 1e9, simulated = t_sim, err = err }
    end
    local mean, sd = 0, 0
    for _, e in ipairs(errs) do mean = mean + math.abs(e) end
    mean = mean / #errs
    for _, e in ipairs(errs) do sd = sd + (math.abs(e) - mean) ^ 2 end
    sd = math.sqrt(sd / #errs)
    local tsc = pts[1].tscHz or 0
    summary[#summary + 1] = string.format("%-4s λ = %.3f ns (%.2f TSC cycles)  Λ = %.3f ns (%.2f TSC cycles)  mean |error| %.1f%%  deviation %.1f%%",
      op[1], issue, issue * tsc * 1e-9, completion, completion * tsc * 1e-9, mean * 100, sd * 100)
  end
end

io.stdout:write(string.format("%-4s %6s %14s %14s %8s\n", "op", "chains", "measured [ns]", "simulated [ns]", "error"))
for _, r in ipairs(rows) do
  io.stdout:write(string.format("%-4s %6d %14.0f %14.0f %7.1f%%\n", r.op, r.chains, r.measured, r.simulated, r.err * 100))
end
io.stdout:write("\nper instruction, one thread (" .. rot.machine.cpuinfo().model .. "; compare with published latency/throughput tables for this core):\n")
for _, l in ipairs(summary) do io.stdout:write(l, "\n") end

results:csv("pipeline")
results:xy { name = "pipeline", title = "boat hull: time per instruction vs independent chains", logx = false,
  x = function(r) return r.point.chains end, y = function(r) return r.time and r.time * 1e9 / (n * r.point.chains) end,
  xlabel = "independent chains per thread", ylabel = "time per instruction [ns]",
  series = function(r) return ops[r.point.op][1] end }
