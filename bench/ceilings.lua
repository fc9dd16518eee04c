-- Benchmark helper: the ceilings `rot measure peaks` stored for this machine: the DRAM triad
-- ceiling per thread count (and the largest size it is read at), the 1-thread read and triad
-- ceilings per level, the 1-thread FP64 FMA ceiling of the widest ISA, its clock (its units':
-- rot.peaks.clocks) and its theoretical peak there. Prints "key value" lines for bench.sh.
local rot = require "rot"
local theory = require "rot.machine.theory"
local rows = rot.peaks()
local fma
for _, r in ipairs(rows) do
  if r.name == "triad_DRAM" then
    print(string.format("dram_%d %.3f", r.threads, r.value))
    print(string.format("dramnote_%d %s,_spread_%.1f%%", r.threads, r.unstable and "unstable" or "stable",
      (r.spread or 0) * 100))
    if r.sizes and #r.sizes > 0 then
      print(string.format("dramat_%d %d", r.threads, math.max(table.unpack(r.sizes))))
    end
  end
  local family, level = r.name:match("^(%a+)_(%w+)$")
  if r.kind == "bandwidth" and r.threads == 1 and (family == "read" or family == "triad") then
    print(string.format("%s_%s %.3f", family, level, r.value)) -- read against triad, level by level
  end
  if r.threads == 1 and (r.name == "double_avx512_fma" or (r.name == "double_avx2_fma" and not fma)) then fma = r end
end
if fma then
  print(string.format("fma_1 %.3f", fma.value))
  print("fma_isa " .. fma.isa)
  local th = theory.of(fma, rot.machine.cpuinfo())
  if th then
    print(string.format("clock_ghz %.4f", fma.clock))
    print(string.format("fma_lanes %d", th.lanes))
    print(string.format("fma_per_cycle %d", th.per_cycle))
    print(string.format("fma_theory %.3f", th.gflops))
  end
end
