-- Benchmark helper: what bench.sh needs to know of this machine for its references: CPUs, the
-- working set per thread count at which rot's DRAM triad ceiling is read (KiB: the largest of the
-- stored ceiling's sizes, else rot.dram_size's), the widest stream kernel and FMA width the CPU
-- has. Prints "key value" lines.
local rot = require "rot"
local peaks = require "rot.peaks"
local info = rot.machine.cpuinfo()
print("cpus " .. info.cpus)
local at = {}
for _, r in ipairs(rot.peaks()) do
  if r.name == "triad_DRAM" and r.sizes and #r.sizes > 0 then at[r.threads] = math.max(table.unpack(r.sizes)) end
end
for _, t in ipairs(peaks.thread_counts()) do
  print(string.format("dram_kib_%d %d", t, (at[t] or rot.dram_size(t)) // 1024))
end
print("likwid_stream " .. (info.flags.avx512f and "stream_avx512" or info.flags.avx and "stream_avx" or "stream_sse"))
print("fma_lanes " .. (info.flags.avx512f and 8 or 4))
