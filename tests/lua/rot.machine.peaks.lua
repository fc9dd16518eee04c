-- Unit tests of rot.machine.peaks: which stored file is read, peaks.csv written and read back,
-- the ceilings and levels at a thread count, the line a first run says before measuring them.
-- judges no time
local t = require "tap"
local sys = require "rot.sys"

local peaks = require "rot.machine.peaks"
-- which stored file readers that never measure use: the newest analysis's, else an older one's
do
  local cdir = (os.getenv("TMPDIR") or "/tmp") .. "/rot-unit-stored-" .. sys.pid()
  local fp = { cpu = "Test CPU", pus = 2 }
  sys.mkdir(cdir); sys.mkdir(cdir .. "/machines")
  t.is(peaks.stored_path(cdir, fp, false), peaks.path(cdir, fp, false), "no stored peaks: the current analysis's file")
  sys.writefile(peaks.path(cdir, fp, false, 1), "name,kind,threads,value,unit\n")
  t.is(peaks.stored_path(cdir, fp, false), peaks.path(cdir, fp, false, 1),
    "only an older rot's: that one, until peaks are measured again")
  t.ok(not peaks.path(cdir, fp, false, 1):find("%.a%d") and peaks.path(cdir, fp, true):find("%.a%d+%-quick%.csv$"),
    "version 1 has no suffix; quick peaks are .aN-quick.csv")
  sys.writefile(peaks.path(cdir, fp, false), "name,kind,threads,value,unit\n")
  t.is(peaks.stored_path(cdir, fp, false), peaks.path(cdir, fp, false), "and the current one once it is there")
  sys.removetree(cdir)
end
-- peaks.csv: written, read back, ceilings picked per thread count and precision
local pdir = (os.getenv("TMPDIR") or "/tmp") .. "/rot-unit-peaks-" .. sys.pid() .. ".csv"
peaks.write_csv(pdir, {
  { name = "double_avx512_fma", kind = "compute", threads = 1, value = 65.5, unit = "GFLOP/s" },
  { name = "double_scalar_add", kind = "compute", threads = 1, value = 4.25, unit = "GFLOP/s" },
  { name = "float_avx512_fma", kind = "compute", threads = 1, value = 131, unit = "GFLOP/s" },
  { name = "double_avx512_fma", kind = "compute", threads = 2, value = 130, unit = "GFLOP/s" },
  { name = "triad_L1", kind = "bandwidth", threads = 1, value = 200.5, unit = "GB/s" },
  { name = "read_L1", kind = "bandwidth", threads = 1, value = 150, unit = "GB/s" },
  { name = "triad_DRAM", kind = "bandwidth", threads = 1, value = 12, unit = "GB/s" },
})
local prow = peaks.read_csv(pdir)
sys.remove(pdir)
t.is(#prow, 7, "peaks.csv reads back every row")
t.is(prow[5].value, 200.5, "values keep their decimals")
t.is(prow[4].threads, 2, "thread counts are integers")
local pc, pb = peaks.ceilings(prow, 1, "double")
t.is(#pc, 2, "compute ceilings: the double ones for 1 thread")
t.is(pc[1].gflops, 65.5, "sorted, highest first")
t.is(#pb, 2, "bandwidth ceilings: the triad ones, per level")
t.is(pb[1].level, "L1", "named by level")
t.is(peaks.nearest_threads(prow, 4), 2, "a 4-thread run uses the 2-thread peaks (the most measured)")
t.is(peaks.nearest_threads(prow, 1), 1, "a 1-thread run uses the 1-thread peaks")
t.is(peaks.read_csv("/nonexistent/peaks.csv"), nil, "no file, no peaks")

-- peaks.csv with sizes: the levels at a thread count, effective sizes first
local lrows = peaks.parse_csv(table.concat({
  "name,kind,threads,value,unit,spread",
  "L1_effective,size,1,40000,B,", "L1_reported,size,1,32768,B,", "L2_effective,size,1,1200000,B,",
  "L2_reported,size,1,1048576,B,", "L3_reported,size,1,532676608,B,", "L3_effective,size,1,26000000,B,",
  "triad_L1,bandwidth,1,250,GB/s,0.02", "triad_L2,bandwidth,1,117,GB/s,0.03", "triad_L3,bandwidth,1,97,GB/s,0.01",
  "triad_DRAM,bandwidth,1,25,GB/s,0.1", "L1_effective,size,2,80000,B,", "old_style,compute,1,5,GFLOP/s" }, "\n"))
t.is(#lrows, 12, "peaks.csv rows with and without the spread column parse")
t.is(lrows[7].spread, 0.02, "the spread is read back")
t.is(lrows[12].spread, nil, "a row without it has none")
local lv = peaks.levels(lrows, 1)
t.is(#lv, 4, "three cache levels and DRAM")
t.is(lv[3].size, 26000000, "a level's size is its effective size")
t.is(lv[3].reported, 532676608, "the reported one is kept beside it")
t.is(lv[4].name, "DRAM", "DRAM last")
t.is(lv[4].gbs, 25, "with its bandwidth")
t.is(peaks.level_of(36000, lv).name, "L1", "36 KiB lives in L1 (effective 40000 B)")
t.is(peaks.level_of(48 * 1024, lv).name, "L2", "48 KiB is past the effective L1: L2")
t.is(peaks.level_of(100e6, lv).name, "DRAM", "100 MB: DRAM, not the reported 508 MiB L3")
t.is(peaks.levels(lrows, 2)[1].size, 80000, "levels are per thread count")

-- peaks.csv written by hand: comments, and the six columns of older files
local p = peaks.parse_csv("# written by hand, with a note\nname,kind,threads,value,unit,spread\nL1_triad,bandwidth,1,100.5,GB/s,\n")
t.ok(p and #p == 1 and p[1].value == 100.5 and p[1].spread == nil, "peaks.csv: comments, the six columns of older files")

-- the line that says a first run measures the peaks: once, what it costs, what else to do
local full, quick = peaks.first_notice(false), peaks.first_notice(true)
local c = peaks.FIRST_COST
t.ok(full:find("^rot: measuring this machine's peaks first: once") and full:find(c.full .. " on " .. c.machine, 1, true) and
  full:find("-quick=true", 1, true) and full:find("-peaksFile=FILE", 1, true), "the full peaks' notice: " .. full)
t.ok(quick:find("quick peaks first: once") and quick:find(c.quick, 1, true) and quick:find("-peaksFile=FILE", 1, true),
  "the quick peaks' notice: " .. quick)
-- one figure for the first peaks' cost: the notice's is the docs' (docs/kernels.md), with the machine
-- it was measured on
local readme = assert(require("rot.sys").readfile("docs/kernels.md")):gsub("%s+", " ")
local full_s, points = c.full:match("^(%d+ s) and (%d+) points$")
local quick_s, qpoints = c.quick:match("^(%d+ s) and (%d+) points$")
t.ok(readme:find(full_s .. " and " .. points .. " points (`the machine's ceilings: " .. points .. " points", 1, true)
  and readme:find("KVM guest with a 32 MiB L3", 1, true) and readme:find(quick_s .. " and " .. qpoints .. " points there", 1, true)
  and not readme:find("about three minutes", 1, true) and not readme:find("39-54 s", 1, true),
  "docs/kernels.md states the first peaks' cost as the notice does, one figure with its machine (" .. c.full .. ", " .. c.quick .. ")")

-- ceilings that moved since the machine's peaks were stored: this host's two runs of one bench
-- (2 threads' DRAM 64.0 GB/s with a 56% spread, then 53.7 GB/s with 1.2%: a busy phase that
-- lasted all of the second run's rounds); within 5%, or within the spreads, is no move
local was = {
  { name = "triad_DRAM", kind = "bandwidth", threads = 2, value = 64.0, unit = "GB/s", spread = 0.01, date = "2026-11-25T10:00:00Z" },
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
  "moved since stored: 2 threads' DRAM (64.0 to 53.7 GB/s: 19%) and FMA (13.7%), the most moved first; 1 thread's DRAM (7% "
  .. "but within the spreads), L1 (4%) and a size not")
local line = peaks.moved_note(mv)
t.ok(line:find("2 ceilings moved by more than 5%", 1, true) and line:find("stored at 2026-11-25T10:00:00Z: triad_DRAM", 1, true)
  and line:find("triad_DRAM, 2 threads: 53.70 GB/s, 64.00 when stored", 1, true) and line:find("marked unstable", 1, true),
  "and said in one line, with the figures and when they were stored: " .. line)
t.is(#peaks.moved(nil, now), 0, "nothing stored: nothing moved")
t.is(peaks.moved_note(peaks.moved(now, now)), nil, "the same ceilings again: nothing said")

t.done()
