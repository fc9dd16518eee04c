-- STREAM's four operations (copy, scale, add, triad) from L1 to DRAM, roofline and staircase
local rot = require "rot"

-- to 4x the last cache, and on into DRAM's flat tail where the step to DRAM reaches further
local sizes = rot.geometric(8192, rot.dram_sweep(), 2)
if rot.get("quick") then sizes = { 16384, 1048576 } end
local arrays = { copy = 2, scale = 2, add = 3, triad = 3 }

local results = rot.measure(rot.space { rot.axis("op", { "copy", "scale", "add", "triad" }), rot.axis("ws",
  sizes) }, function(p)
  return { kernel = p.op, params = { n = p.ws // (8 * arrays[p.op]) }, flags = "-O3 -march=native" }
end)

results:table { axes = { "op" } }
results:csv()
results:roofline { title = "STREAM operations, 1 thread",
  series = function(r) return r.point.op end, labels = "levels" }
results:staircase { name = rot.name() .. "-bandwidth", title = "STREAM bandwidth vs working set",
  series = function(r) return r.point.op end }
