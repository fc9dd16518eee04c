-- Benchmark: driver + core overhead per measured point beyond the kernel's own run time.
-- 20 tiny triad points, each measured with 1 run; overhead = (wall - kernel time) / points.
local rot = require "rot"
local sys = require "rot.sys"
local sizes = {}
for i = 1, 20 do sizes[i] = 256 + i end
local t0 = sys.clock()
local r = rot.measure(rot.space { rot.axis("n", sizes) }, function(p)
  return { kernel = "triad", params = { n = p.n }, flags = "-O2" }
end)
local build = require("rot.runner").stats.time.build -- a core (re)build is not per-point cost
local wall = sys.clock() - t0 - build
local kernel = 0
for _, row in ipairs(r.rows) do
  for _, run in ipairs(row.entry.runs) do kernel = kernel + run.ns * 1e-9 end
end
print(string.format("overhead per measured point: %.2f ms (wall %.3f s without the core build, kernel runs %.4f s, %d points, " ..
  "1 timed run each, one core process for all; includes describing, hashing and caching each point, the core start, fork+ptrace of a child per point, warm-up and repetition calibration; target < 5 ms)",
  (wall - kernel) / #sizes * 1e3, wall, kernel, #sizes))
