-- Unit tests of rot.machine.ceilings: which stored file is read, peaks.csv written and read
-- back, the ceilings and levels at a thread count.
-- judges no time
local t = require "tap"
local sys = require "rot.sys"
local ceilings = require "rot.machine.ceilings"
-- which stored file readers that never measure use: the newest analysis's, else an older one's
do
  local cdir = (os.getenv("TMPDIR") or "/tmp") .. "/rot-unit-stored-" .. sys.pid()
  local fp = { cpu = "Test CPU", pus = 2 }
  sys.mkdir(cdir); sys.mkdir(cdir .. "/machines")
  t.is(ceilings.stored_path(cdir, fp, false), ceilings.path(cdir, fp, false),
    "no stored peaks: the current analysis's file")
  sys.writefile(ceilings.path(cdir, fp, false, 1), "name,kind,threads,value,unit\n")
  t.is(ceilings.stored_path(cdir, fp, false), ceilings.path(cdir, fp, false, 1),
    "only an older rot's: that one, until peaks are measured again")
  t.ok(not ceilings.path(cdir, fp, false, 1):find("%.a%d") and ceilings.path(cdir, fp,
    true):find("%.a%d+%-quick%.csv$"),
    "version 1 has no suffix; quick peaks are .aN-quick.csv")
  sys.writefile(ceilings.path(cdir, fp, false), "name,kind,threads,value,unit\n")
  t.is(ceilings.stored_path(cdir, fp, false), ceilings.path(cdir, fp, false), "and the current one once it is there")
  sys.removetree(cdir)
end
-- peaks.csv: written, read back, ceilings picked per thread count and precision
local prow = require("samplepeaks").read_back()
t.is(#prow, 7, "peaks.csv reads back every row")
t.is(prow[5].value, 200.5, "values keep their decimals")
t.is(prow[4].threads, 2, "thread counts are integers")
local pc, pb = ceilings.ceilings(prow, 1, "double")
t.is(#pc, 2, "compute ceilings: the double ones for 1 thread")
t.is(pc[1].gflops, 65.5, "sorted, highest first")
t.is(#pb, 2, "bandwidth ceilings: the triad ones, per level")
t.is(pb[1].level, "L1", "named by level")
t.is(ceilings.nearest_threads(prow, 4), 2, "a 4-thread run uses the 2-thread peaks (the most measured)")
t.is(ceilings.nearest_threads(prow, 1), 1, "a 1-thread run uses the 1-thread peaks")
t.is(ceilings.read_csv("/nonexistent/peaks.csv"), nil, "no file, no peaks")
-- the fifteen columns read line by line in one match each: the same rows as CRLF's text gives,
-- which goes through rot.csv; and each read_csv gets rows of its own
do
  local util = require "rot.util"
  local file = (os.getenv("TMPDIR") or "/tmp") .. "/rot-unit-fifteen-" .. sys.pid() .. ".csv"
  ceilings.write_csv(file, ceilings.parse_csv(assert(sys.readfile("tests/fixtures/peaks.csv"))))
  local text = assert(sys.readfile(file))
  local rows = ceilings.parse_csv(text)
  t.ok(#rows > 10 and util.serialize(rows) == util.serialize(ceilings.parse_csv((text:gsub("\n", "\r\n")))),
    "peaks.csv's fifteen columns: the same rows split in C as read by rot.csv's quoting reader (" .. #rows .. ")")
  local a, b = ceilings.read_csv(file), ceilings.read_csv(file)
  sys.remove(file)
  t.ok(a[1] ~= b[1] and util.serialize(a) == util.serialize(b), "each read gets rows of its own, the same rows")
end

-- peaks.csv with sizes: the levels at a thread count, effective sizes first
local lrows = ceilings.parse_csv(table.concat({
  "name,kind,threads,value,unit,spread",
  "L1_effective,size,1,40000,B,", "L1_reported,size,1,32768,B,", "L2_effective,size,1,1200000,B,",
  "L2_reported,size,1,1048576,B,", "L3_reported,size,1,532676608,B,", "L3_effective,size,1,26000000,B,",
  "triad_L1,bandwidth,1,250,GB/s,0.02", "triad_L2,bandwidth,1,117,GB/s,0.03", "triad_L3,bandwidth,1,97,GB/s,0.01",
  "triad_DRAM,bandwidth,1,25,GB/s,0.1", "L1_effective,size,2,80000,B,", "old_style,compute,1,5,GFLOP/s" }, "\n"))
t.is(#lrows, 12, "peaks.csv rows with and without the spread column parse")
t.is(lrows[7].spread, 0.02, "the spread is read back")
t.is(lrows[12].spread, nil, "a row without it has none")
local lv = ceilings.levels(lrows, 1)
t.is(#lv, 4, "three cache levels and DRAM")
t.is(lv[3].size, 26000000, "a level's size is its effective size")
t.is(lv[3].reported, 532676608, "the reported one is kept beside it")
t.is(lv[4].name, "DRAM", "DRAM last")
t.is(lv[4].gbs, 25, "with its bandwidth")
t.is(ceilings.level_of(36000, lv).name, "L1", "36 KiB lives in L1 (effective 40000 B)")
t.is(ceilings.level_of(48 * 1024, lv).name, "L2", "48 KiB is past the effective L1: L2")
t.is(ceilings.level_of(100e6, lv).name, "DRAM", "100 MB: DRAM, not the reported 508 MiB L3")
t.is(ceilings.levels(lrows, 2)[1].size, 80000, "levels are per thread count")

-- peaks.csv written by hand: comments, and the six columns of older files
local p = ceilings.parse_csv("# written by hand, with a "
  .. "note\nname,kind,threads,value,unit,spread\nL1_triad,bandwidth,1,100.5,GB/s,\n")
t.ok(p and #p == 1 and p[1].value == 100.5 and p[1].spread == nil,
  "peaks.csv: comments, the six columns of older files")

t.done()
