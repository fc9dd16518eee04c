-- Benchmark helper: the ceilings `rot measure peaks` stored for this machine: the DRAM triad
-- ceiling per thread count, the 1-thread read and triad ceilings per level, the 1-thread FP64
-- FMA ceiling of the widest ISA, and the clock around its best round (the higher reading).
-- Prints "key value" lines for bench.sh.
local rot = require "rot"
local rows = rot.peaks()
local fma, clock
for _, r in ipairs(rows) do
  if r.name == "triad_DRAM" then
    print(string.format("dram_%d %.3f", r.threads, r.value))
    print(string.format("dramnote_%d %s,_spread_%.1f%%", r.threads, r.unstable and "unstable" or "stable", (r.spread or 0) * 100))
  end
  local family, level = r.name:match("^(%a+)_(%w+)$")
  if r.kind == "bandwidth" and r.threads == 1 and (family == "read" or family == "triad") then
    print(string.format("%s_%s %.3f", family, level, r.value)) -- read against triad, level by level
  end
  if r.threads == 1 and (r.name == "double_avx512_fma" or (r.name == "double_avx2_fma" and not fma)) then
    fma, clock = r.value, r.clock
  end
end
if fma then print(string.format("fma_1 %.3f", fma)) end
if clock then print(string.format("clock_ghz %.4f", clock)) end
