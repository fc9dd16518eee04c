-- The user study of bench/compare.sh: myscale at five working sets from L1 to DRAM, as
-- this machine reports its caches: half of L1 and of L2, a quarter of the last cache, the last
-- cache, and four times it; the largest at most 64 MiB and the two before it at most an eighth
-- and a half of that (each -remeasure's 48 fresh measurements a point fault their arrays in each
-- time, and a bench must end soon on a machine with a large cache too).
local rot = require "rot"
local caches = rot.machine.caches()
local function size(i, dflt) return caches[i] and caches[i].size or dflt end
local l1, l2, llc = size(1, 32768), size(2, 1048576), (caches[#caches] or {}).size or 33554432
local top = math.min(4 * llc, 64 * 1048576)
local ws = { l1 / 2, l2 / 2, math.min(llc / 4, top / 8), math.min(llc, top / 2), top }
local n = {}
for i, w in ipairs(ws) do n[i] = math.floor(w / 16) end
local r = rot.measure(rot.space { rot.axis("n", n) }, function(p)
  return { kernel = "myscale", params = { n = p.n }, flags = "-O3" }
end)
r:table()
