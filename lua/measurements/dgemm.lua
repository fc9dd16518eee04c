-- naive vs tiled DGEMM (a teaching kernel): where blocking moves the point on the roofline
local rot = require "rot"

local sizes = { 64, 128, 256, 512 }
if rot.get("quick") then sizes = { 32, 64 } end
local results = rot.measure(rot.space { rot.axis("block", { 0, 32, 64 }), rot.axis("n", sizes) }, function(p)
  return { kernel = "dgemm", params = { n = p.n }, macros = { DGEMM_BLOCK = p.block }, flags = "-O3 -march=native" }
end)

results:table()
results:csv()
results:roofline { title = "C += A B: naive and tiled",
  series = function(r) return r.point.block == 0 and "naive" or ("tiles " .. r.point.block) end,
  label = function(r) return "n=" .. r.point.n end }
