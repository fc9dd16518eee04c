-- STREAM triad (a = b + s*c) from L1 to DRAM, two optimization settings: roofline and staircase
local rot = require "rot"

-- working set = 3 arrays of n doubles: from a few KiB (L1) to 4x the last-level cache (its
-- effective size, measured by `rot measure peaks`), and on into DRAM's flat tail where the
-- step from the last cache to DRAM reaches further
local top = rot.dram_sweep()
local max_n = 256
while 24 * max_n < top do max_n = max_n * 2 end
local sizes = rot.geometric(256, max_n, 2)
if rot.get("quick") then sizes = { 256, 8192, 262144 } end

local space = rot.space {
  rot.axis("flags", { "-O2 -fno-tree-vectorize", "-O3 -march=native" }),
  rot.axis("n", sizes),
}

local results = rot.measure(space, function(p)
  return { kernel = "triad", params = { n = p.n }, flags = p.flags, macros = { STREAM_UNROLL = 2 } }
end)

-- Everything below only presents the results: edit it and rerun, every point comes from the cache.
-- Outputs a script does not name take its name: a copy, mytriad.lua, writes mytriad.csv, mytriad.svg, ...
results:table()
results:csv()
results:json()
results:roofline {
  title = "STREAM triad, 1 thread (" .. rot.machine.cpuinfo().model .. ")",
  series = function(r) return r.point.flags end,
  labels = "levels", -- one intensity, many sizes: each level once (the staircase shows the sizes)
}
-- one intensity, many sizes: the staircase shows where each level ends
results:staircase {
  name = rot.name() .. "-bandwidth",
  title = "STREAM triad bandwidth vs working set, 1 thread",
  series = function(r) return r.point.flags end,
}
