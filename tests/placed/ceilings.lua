-- ceilings: the bandwidth ceilings' kernels (rot.peaks.bandwidth: triad, read's sum, write's
-- fill, in both codes the peaks build: rot.peaks.widths) counted over a quarter of L2 and over
-- twice the last level (tests/e2e/count.t): one line each, "ceiling KERNEL CODE SIZE DECLARED L1
-- L2 ... DRAM", its declared bytes and the counted ones at each level (L1: the instructions'
-- loads and stores; below: the simulated traffic into it), an invocation's.
local rot = require "rot"
local caches = require "rot.count.caches"
local codes = require "rot.peaks.widths"
local levels = caches.levels(require("rot.session").current())
local sizes = { l2 = levels[2].size // 4, dram = 2 * levels[#levels].size }
local kernels = { { "triad", 3 }, { "sum", 1 }, { "fill", 1 } }
local r = rot.measure(rot.space { rot.axis("kernel", { 1, 2, 3 }), rot.axis("code", { 1, 2 }),
  rot.axis("size", { "l2", "dram" }) },
  function(p)
    local k = kernels[p.kernel]
    return { kernel = k[1], params = { n = sizes[p.size] // (8 * k[2]) },
      flags = codes.list[p.code].flags, count = true,
      minRunTime = 0 }
  end)
for _, row in ipairs(r.rows) do
  local t = row.traffic or {}
  local parts = {}
  for i = 2, #levels do parts[#parts + 1] = string.format("%.17g", t["L" .. i] or -1) end
  print(string.format("ceiling %s %d %s %.17g %.17g %s %.17g", kernels[row.point.kernel][1],
    row.point.code, row.point.size,
    row.bytesDeclared or -1, row.bytesCounted or -1, table.concat(parts, " "), t.DRAM or -1))
end
