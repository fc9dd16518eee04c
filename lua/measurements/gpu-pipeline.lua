-- pipeline model on the GPU: issue/completion latencies per instruction class from warps-per-SM hulls
local rot = require "rot"
local pipeline = require "rot.models.pipeline_model"

local quick = rot.get("quick")
local n = quick and 1024 or 8192
local ops = { { "fadd", 0 }, { "ffma", 1 }, { "dfma", 2 }, { "sin+cos", 3 }, { "iadd", 4 }, { "global load (L1)", 5 },
  { "shared load", 6 } }
local function point(op, warps, sms)
  local bps = warps > 32 and 2 or 1 -- a block holds at most 32 warps
  return { kernel = "gpu_chain", params = { n = n, blocks = sms * bps, threads = 32 * warps // bps },
    macros = { GCHAIN_OP = ops[op][2] }, cacheMode = "warm" }
end

-- one point first: the SM count and the resident-warp limit
local first = rot.measure(rot.space { rot.axis("op", { 1 }) }, function() return point(1, 1, 1) end).rows[1]
local meta = require("rot.gpu").probe(first, "the GPU pipeline model needs a GPU (see the error above)")
local sms, wmax = meta.gpuSMs, meta.gpuMaxWarpsPerSM or 64
local warps = {}
for _, w in ipairs(quick and { 1, 4, 16 } or { 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64 }) do
  if w <= wmax then warps[#warps + 1] = w end
end
local idx = {}
for i = 1, #ops do idx[i] = i end
local results = rot.measure(rot.space { rot.axis("op", idx), rot.axis("warps", warps) }, function(p)
  return point(p.op, p.warps, sms)
end)

local ghz = (meta.gpuClockKHz or 0) / 1e6
local names = {}
for i, op in ipairs(ops) do names[i] = op[1] end
-- the chain's own SM cycles (clock64 in the kernel, best launch, median block) as its time at
-- the nominal clock: no launch time in it, and cycles come back exact whatever the real clock
local chains, counted = {}, 0
for _, r in ipairs(results.rows) do
  local c = r.report and r.report.cycles
  if c and ghz > 0 then
    chains[#chains + 1] = setmetatable({ time = c / (ghz * 1e9) }, { __index = r })
    counted = counted + 1
  else
    chains[#chains + 1] = r
  end
end
local points, classes = pipeline.hulls(chains, names, n, "warps", ghz)
rot.records(rot.name() .. "-model", pipeline.point_columns("warps_per_SM"), points)
io.stdout:write(string.format("\nper SM of %s (%d SMs); %s:\n", tostring(meta.gpuName), sms or 0,
  counted == #results.rows and "times from the SM cycles the chains counted (clock64), in ns at the nominal clock" or
    string.format("kernel times (%d of %d points without their own cycle count), cycles at the %.3f GHz "
      .. "of the device properties",
      #results.rows - counted, #results.rows, ghz)))
rot.records(rot.name() .. "-latencies", pipeline.class_columns, classes)
results:csv()
results:xy { title = "boat hull: time per warp-instruction vs warps per SM", logx = true,
  x = function(r) return r.point.warps end, y = function(r) return r.time and r.time * 1e9 / (n * r.point.warps) end,
  xlabel = "warps per SM", ylabel = "time per warp-instruction per SM [ns]",
  series = function(r) return ops[r.point.op][1] end }
