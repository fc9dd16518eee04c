-- Benchmark: driver + core overhead of measured points beyond the kernel's own run time.
-- overhead.lua KERNEL N SEED: N tiny points of KERNEL (triad, or gpu_triad on a GPU machine),
-- sizes that no earlier run measured (SEED), each with 1 run; prints "points N wall W kernel K"
-- (seconds; the core's build and any wait for another rot's lock left out) for bench.sh, which
-- takes the slope between two N.
local rot = require "rot"
local sys = require "rot.sys"
local kernel_name, n, seed = arg[1] or "triad", tonumber(arg[2]) or 20, tonumber(arg[3]) or 0
local gpu = kernel_name:match("^gpu_") ~= nil
local sizes = {}
-- a few KiB: a point's own cost, not its arrays
for i = 1, n do sizes[i] = (gpu and 262144 or 256) + 1000 * seed + i end
local t0 = sys.clock()
local r = rot.measure(rot.space { rot.axis("n", sizes) }, function(p)
  return { kernel = kernel_name, params = { n = p.n }, flags = gpu and "-O3" or "-O2" }
end)
-- a core (re)build is not per-point cost, nor waiting for another rot's measurements (the lock)
local time = require("rot.session").current().time
local wall = sys.clock() - t0 - time.build - time.wait
local kernel = 0
for _, row in ipairs(r.rows) do
  if row.failed then rot.fail("point n=" .. row.point.n .. " failed: " .. row.failed) end
  for _, run in ipairs(row.entry.runs) do kernel = kernel + run.ns * 1e-9 end
end
print(string.format("points %d wall %.6f kernel %.6f", n, wall, kernel))
