-- one kernel walked from the memory roof to the compute roof by its flops per element
local rot = require "rot"

local l2 = rot.level_size("L2") or 1024 * 1024
-- in L2 (half of it) and in DRAM (4x the last-level cache, and at least where DRAM's flat
-- tail begins); two arrays of doubles
local where = { L2 = l2 // 2 // 16, DRAM = rot.dram_sweep() // 16 }
local fpe = rot.geometric(1, 512, 2)
if rot.get("quick") then where, fpe = { L2 = 4096, DRAM = 65536 }, { 1, 16, 256 } end

local results = rot.measure(rot.space { rot.axis("where", { "L2", "DRAM" }), rot.axis("fpe", fpe) }, function(p)
  return { kernel = "intensity", params = { n = where[p.where], fpe = p.fpe }, flags = "-O3 -march=native" }
end)

results:table()
results:csv("intensity")
results:roofline { name = "intensity", title = "intensity sweep: multiply-adds per element, 1 thread",
  series = function(r) return "data in " .. r.point.where end, label = function(r) return r.point.fpe .. " fma" end }
