-- one kernel whose multiply-adds per element sweep it from the memory roof to the compute roof
local rot = require "rot"

local l2 = rot.level_size("L2") or 1024 * 1024
-- two working sets (two arrays of doubles, n elements): half of L2, and DRAM (4x the last-level
-- cache, and at least where DRAM's flat tail begins); quick mode (tests) stays small. Each
-- series is named after the level its data are in, as rot finds it (the table's limiter).
local sizes = { l2 // 2 // 16, rot.dram_sweep() // 16 }
local fpe = rot.geometric(1, 512, 2)
if rot.get("quick") then sizes, fpe = { 4096, 65536 }, { 1, 16, 256 } end

local results = rot.measure(rot.space { rot.axis("n", sizes), rot.axis("fpe", fpe) }, function(p)
  return { kernel = "intensity", params = { n = p.n, fpe = p.fpe }, flags = "-O3 -march=native" }
end)

results:table()
results:csv()
results:roofline { title = "intensity sweep: multiply-adds per element, 1 thread",
  series = function(r) return "data in " .. (r.level or "?") .. " (" .. rot.util.bytes(r.workingSet) .. ")" end,
  label = function(r) return r.point.fpe .. " fma" end }
