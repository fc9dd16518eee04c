-- Benchmark helper: rot's DRAM triad point as `rot measure peaks` measures it (the peaks' spec:
-- pinned, both codes, its runs) at one thread count and size, afresh, for bench/dram.sh to set
-- beside the references in their rounds. Prints "rot_THREADS GB/s" (the faster code's fastest run).
--   rot run bench/dram.lua THREADS KIB
local rot = require "rot"
local bandwidth = require "rot.peaks.bandwidth"
local t, kib = tonumber(arg[1]), tonumber(arg[2])
local runs, max_runs = bandwidth.runs(false)
rot.set("useCachedResults", false)
rot.set("runs", runs)
rot.set("maxRuns", max_runs)
local res = rot.measure(rot.space { rot.axis("code", { 1, 2 }) }, function(p)
  return bandwidth.spec { stream = 3, threads = t, ws = kib * 1024, code = p.code, round = 1 }
end)
local best = 0
for _, r in ipairs(res.rows) do best = math.max(best, r.gbs or 0) end
if best > 0 then print(string.format("rot_%d %.3f", t, best)) end
