-- fault.lua: three GPU points in one run, the middle one a kernel that faults (kernels/gpu_fault.cu
-- beside this script): the fault fails its point only (tests/gpu.t, with a device)
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("k", { "triad-before", "fault", "triad-after" }) }, function(p)
  if p.k == "fault" then return { kernel = "gpu_fault", params = { n = 1024 } } end
  return { kernel = "gpu_triad", params = { n = p.k == "triad-before" and (1 << 20) or (1 << 21) } }
end)
r:table()
