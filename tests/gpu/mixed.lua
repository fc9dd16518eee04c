-- one GPU point (with the hierarchical-roofline metrics) and one CPU point in the same run;
-- with the argument "bad", one metric name is misspelled
local rot = require "rot"
local gpu = require "rot.gpu"
local metrics = {}
for i, m in ipairs(gpu.roofline_metrics) do metrics[i] = m end
if arg[1] == "bad" then metrics[#metrics + 1] = "lts__t_bytez.sum" end
local r = rot.measure(rot.space { rot.axis("k", { "gpu_triad", "triad" }) }, function(p)
  if p.k == "triad" then return { kernel = "triad", params = { n = 4096 } } end
  return { kernel = "gpu_triad", params = { n = 1 << 20 }, gpuMetrics = metrics }
end)
r:table()
