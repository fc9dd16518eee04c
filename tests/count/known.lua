-- known: the programs of tests/count/known.c counted (tests/e2e/count.t): each mode one point of
-- a space, counted once under Valgrind, timed once; its table (times beside the simulated
-- traffic), then one line per region: "REGION flops loaded stored L2 DRAM" (the counted flops,
-- the bytes loaded and stored, the simulated traffic into L2 and beyond the last level), and
-- one per class of its flops: "class REGION CLASS FLOPS FMAS ADDS" (of its flops, the FMAs'
-- and the adds' and subs'). The fma mode only where the CPU has AVX2 and FMA.
--   rot measure tests/count/known.lua PROGRAM
local rot = require "rot"
local caches = require "rot.count.caches"
local levels = caches.levels(require("rot.session").current())
local llc = levels[#levels].size -- the simulated last level
local sizes = { matmul = 60, stencil = 200, matvec = 1000, reduce = 100000, walk = 4 * llc // 8, triad = 5 * llc // 32 }
local modes = { "matmul", "stencil", "matvec", "reduce", "walk", "triad" }
local flags = rot.machine.cpuinfo().flags
if flags.avx2 and flags.fma then modes[#modes + 1], sizes.fma = "fma", 1000 end
local r = rot.measure(rot.space { rot.axis("mode", modes) }, function(p)
  return { app = arg[1], args = { p.mode, sizes[p.mode] }, threads = 1, count = true, maxRuns = 1 }
end)
r:table()
print("llc " .. llc)
for _, row in ipairs(r.rows) do
  if row.region ~= "(program)" then
    local t = row.traffic or {}
    print(string.format("%s %s %.17g %.17g %.17g %.17g %.17g", row.region, row.point.mode, row.flopsCounted or -1,
      row.bytesLoaded or -1, row.bytesStored or -1, t.L2 or -1, t.DRAM or -1))
    for _, k in ipairs(rot.util.sorted_keys(row.flopsClasses or {})) do
      print(string.format("class %s %s %.17g %.17g %.17g", row.region, k, row.flopsClasses[k], row.flopsFma[k] or -1,
        row.flopsAdd[k] or -1))
    end
  end
end
