-- Benchmark helper: what bench.sh needs to know of this machine for likwid-bench: CPUs, the
-- working set of 4x the reported last cache per thread count (KiB, a quarter of the memory at
-- most), the widest stream kernel and FMA width the CPU has. Prints "key value" lines.
local rot = require "rot"
local bandwidth = require "rot.peaks.bandwidth"
local peaks = require "rot.peaks"
local info = rot.machine.cpuinfo()
print("cpus " .. info.cpus)
for _, t in ipairs(peaks.thread_counts()) do
  local rep = rot.machine.reported(rot.machine.pins(t))
  local llc = rep[#rep] and rep[#rep].size or 32 * 1024 * 1024
  print(string.format("llc4_kib_%d %d", t, math.min(4 * llc, bandwidth.cap()) // 1024))
end
print("likwid_stream " .. (info.flags.avx512f and "stream_avx512" or info.flags.avx and "stream_avx" or "stream_sse"))
print("fma_lanes " .. (info.flags.avx512f and 8 or 4))
