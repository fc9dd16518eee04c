-- 2D 5-point Jacobi stencil over grid sizes, with and without unrolling
local rot = require "rot"

local sizes = rot.geometric(64, 4096, 2)
if rot.get("quick") then sizes = { 64, 256 } end
local results = rot.measure(rot.space { rot.axis("unroll", { 1, 4 }), rot.axis("n", sizes) }, function(p)
  return { kernel = "stencil", params = { n = p.n }, macros = { STENCIL_UNROLL = p.unroll },
    flags = "-O3 -march=native" }
end)

results:table()
results:csv()
results:roofline { title = "2D 5-point stencil, 1 thread",
  series = function(r) return "unroll " .. r.point.unroll end, label = function(r) return "n=" .. r.point.n end }
