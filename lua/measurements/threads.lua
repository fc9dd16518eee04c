-- triad bandwidth for 1..N threads (pinned one per core), in cache and in DRAM
local rot = require "rot"

local info = rot.machine.cpuinfo()
local threads = {}
for t = 1, info.cpus do threads[#threads + 1] = t end
-- in cache: 3 arrays filling about half of L2 per thread; in DRAM: where DRAM is DRAM for all
-- the threads (rot.dram_size: 4x the larger of the last cache's effective and reported sizes,
-- and at least where the stored DRAM tail begins), whatever the thread count (more threads
-- share the same arrays). Quick mode (tests) stays small, and says so: 6 MiB a thread is
-- beyond L2, not necessarily in DRAM.
local l2 = rot.level_size("L2") or 1024 * 1024
local sizes = { in_cache = l2 // 2 // 24, dram = rot.dram_size(info.cpus) // 24 }
local per_thread = { in_cache = true, beyond_L2 = true }
local where = { "in_cache", "dram" }
if rot.get("quick") then sizes, where = { in_cache = 4096, beyond_L2 = 262144 }, { "in_cache", "beyond_L2" } end

local results = rot.measure(rot.space { rot.axis("where", where), rot.axis("threads", threads) }, function(p)
  local n = sizes[p.where] * (per_thread[p.where] and p.threads or 1)
  local pin = {}
  for i = 0, p.threads - 1 do pin[#pin + 1] = i end
  return { kernel = "triad", params = { n = n }, threads = p.threads, pin = pin, flags = "-O3 -march=native" }
end)

results:table { columns = { "size", "time", "GB/s", "bound GB/s", "limiter", "fraction", "runs", "spread",
  "mode", "counts", "source" } }
results:csv()
results:roofline {
  title = "triad, 1.." .. info.cpus .. " threads (" .. info.model .. ")",
  series = function(r) return (r.point.where:gsub("_", " ")) end,
  label = function(r) return r.threads .. " thr" end,
}
