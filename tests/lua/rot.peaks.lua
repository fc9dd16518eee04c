-- Unit tests of rot.peaks: the line a first run says before measuring the machine's
-- ceilings, and the ceilings that moved since they were stored.
-- judges no time
local t = require "tap"
local peaks = require "rot.peaks"
-- the line that says a first run measures the peaks: once, what it costs, what else to do
local full, quick = peaks.first_notice(false), peaks.first_notice(true)
local c = peaks.FIRST_COST
t.ok(full:find("^rot: measuring this machine's peaks first: once") and full:find(c.full .. " on " .. c.machine,
  1, true) and
  full:find("-quick=true", 1, true) and full:find("-peaksFile=FILE", 1, true), "the full peaks' notice: " .. full)
t.ok(quick:find("quick peaks first: once") and quick:find(c.quick, 1, true) and quick:find("-peaksFile=FILE", 1, true),
  "the quick peaks' notice: " .. quick)
-- one figure for the first peaks' cost: the notice's is the docs' (docs/kernels.md), with the machine
-- it was measured on
local readme = assert(require("rot.sys").readfile("docs/kernels.md")):gsub("%s+", " ")
local full_s, points = c.full:match("^(%d+ s) and (%d+) points$")
local quick_s, qpoints = c.quick:match("^(%d+ s) and (%d+) points$")
t.ok(readme:find(full_s .. " and " .. points .. " points (`the machine's ceilings: " .. points .. " points", 1, true)
  and readme:find("KVM guest with a 32 MiB L3", 1, true) and readme:find(quick_s .. " and " .. qpoints
    .. " points there", 1, true)
  and not readme:find("about three minutes", 1, true) and not readme:find("39-54 s", 1, true),
  "docs/kernels.md states the first peaks' cost as the notice does, one figure with its machine (" .. c.full
    .. ", " .. c.quick .. ")")

-- ceilings that moved since the machine's peaks were stored: two recorded runs of one bench (a busy
-- phase that lasted all of the second run's rounds); within 5%, or within the spreads, is no move
local was = {
  { name = "triad_DRAM", kind = "bandwidth", threads = 2, value = 64.0, unit = "GB/s", spread = 0.01,
    date = "2026-11-25T10:00:00Z" },
  { name = "triad_DRAM", kind = "bandwidth", threads = 1, value = 35.7, unit = "GB/s", spread = 0.053 },
  { name = "triad_L1", kind = "bandwidth", threads = 1, value = 380, unit = "GB/s", spread = 0.01 },
  { name = "fp64_fma_avx512", kind = "compute", threads = 1, value = 111.4, unit = "GFLOP/s", spread = 0.005 },
  { name = "L2_effective", kind = "size", threads = 1, value = 1048576, unit = "B" },
}
local now = {
  { name = "triad_DRAM", kind = "bandwidth", threads = 2, value = 53.7, unit = "GB/s", spread = 0.012 },
  { name = "triad_DRAM", kind = "bandwidth", threads = 1, value = 33.3, unit = "GB/s", spread = 0.024 },
  { name = "triad_L1", kind = "bandwidth", threads = 1, value = 395, unit = "GB/s", spread = 0.01 },
  { name = "fp64_fma_avx512", kind = "compute", threads = 1, value = 98.0, unit = "GFLOP/s", spread = 0.005 },
  { name = "L2_effective", kind = "size", threads = 1, value = 2097152, unit = "B" },
}
local mv = peaks.moved(was, now)
t.ok(#mv == 2 and mv[1].new.name == "triad_DRAM" and mv[1].new.threads == 2 and mv[2].new.name == "fp64_fma_avx512",
  "moved since stored: 2 threads' DRAM (64.0 to 53.7 GB/s: 19%) and FMA (13.7%), the most moved "
    .. "first; 1 thread's DRAM (7% "
  .. "but within the spreads), L1 (4%) and a size not")
local line = peaks.moved_note(mv)
t.ok(line:find("2 ceilings moved by more than 5%", 1, true)
  and line:find("stored at 2026-11-25T10:00:00Z: triad_DRAM", 1, true)
  and line:find("triad_DRAM, 2 threads: 53.70 GB/s, 64.00 when stored", 1, true) and line:find("marked unstable",
    1, true),
  "and said in one line, with the figures and when they were stored: " .. line)
t.is(#peaks.moved(nil, now), 0, "nothing stored: nothing moved")
t.is(peaks.moved_note(peaks.moved(now, now)), nil, "the same ceilings again: nothing said")

t.done()
