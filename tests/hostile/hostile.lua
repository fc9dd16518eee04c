-- hostile.lua KERNEL [N [POINTS]]: POINTS points of a kernel from kernels/ beside this script
local rot = require "rot"
local k, n, count = arg[1], tonumber(arg[2] or 20000), tonumber(arg[3] or 1)
local idx = {}
for i = 1, count do idx[i] = i end
local r = rot.measure(rot.space { rot.axis("i", idx) }, function(p)
  return { kernel = k, params = { n = n + p.i } }
end)
r:table { bounds = false }
r:csv("hostile", { bounds = false })
