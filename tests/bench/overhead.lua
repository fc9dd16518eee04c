-- Benchmark: driver + core overhead per measured point beyond the kernel's own run time.
-- overhead.lua [KERNEL]: 20 tiny points of KERNEL (triad, or gpu_triad on a GPU machine), each
-- measured with 1 run; overhead = (wall - kernel time) / points.
local rot = require "rot"
local sys = require "rot.sys"
local kernel_name = arg[1] or "triad"
local gpu = kernel_name:match("^gpu_") ~= nil
local sizes = {}
for i = 1, 20 do sizes[i] = 256 * (gpu and 1024 or 1) + i end
local t0 = sys.clock()
local r = rot.measure(rot.space { rot.axis("n", sizes) }, function(p)
  return { kernel = kernel_name, params = { n = p.n }, flags = gpu and "-O3" or "-O2" }
end)
local build = require("rot.session").current().time.build -- a core (re)build is not per-point cost
local wall = sys.clock() - t0 - build
local kernel = 0
for _, row in ipairs(r.rows) do
  if row.failed then rot.fail("point n=" .. row.point.n .. " failed: " .. row.failed) end
  for _, run in ipairs(row.entry.runs) do kernel = kernel + run.ns * 1e-9 end
end
local child = rot.get("pointChild")
if child == "auto" then child = gpu and "shared" or "each" end
print(string.format("overhead per measured %s point: %.2f ms (wall %.3f s without the core build, kernel runs %.4f s, %d points of %s, " ..
  "1 timed run each, one core process for all, %s; includes describing, hashing and caching each point, the core start, " ..
  "warm-up and repetition calibration%s; target < %d ms)",
  gpu and "GPU" or "CPU", (wall - kernel) / #sizes * 1e3, wall, kernel, #sizes, kernel_name,
  child == "shared" and "one traced child for all points" or "a fresh traced child (fork+ptrace) per point",
  gpu and ", the device check and CUDA events" or "", gpu and 20 or 5))
