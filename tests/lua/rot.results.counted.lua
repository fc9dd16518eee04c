-- Unit tests of what the counting pass makes of a row (rot.results.counted) on recorded counts
-- (no engine runs): the counting tool's output read (rot.count.engine), a kernel row's and an
-- application region's fields, the lines where sources disagree, an undeclared region taking
-- the counts, the levels' roofline points; the PMU path on a fixture (rot.machine.counters:
-- the events a PMU would count for known counted work, and a PMU reading that disagrees);
-- compare's work and rate (rot.compare.work).
-- judges no time
local t = require "tap"
local counted = require "rot.results.counted"
local engine = require "rot.count.engine"
local pmu = require "rot.machine.counters"
local work = require "rot.compare.work"
local format = require "rot.results.format"

local out = table.concat({ "rotcount 1", "line 64", "level 1 size=49152 assoc=12", "level 2 size=1048576 assoc=16",
  "level 3 size=33554432 assoc=16", "misuses 0",
  "program threads=1 fp64_256=9000 fp64_scalar=10 loaded=99 stored=9 fill1=64 evict1=0 fill2=64 "
    .. "evict2=0 fill3=64 evict3=0",
  "region name=solve calls=20 threads=1 fp32_scalar=0 fp64_scalar=0 fp64_128=0 fp64_256=8000 loaded=16000 stored=8000 "
    .. "fill1=24000 evict1=8000 fill2=24000 evict2=8000 fill3=24000 evict3=8000",
  "region name=a%20b calls=1 threads=2 fp64_scalar=500 loaded=4000 stored=0 fill1=0 evict1=0 fill2=0 "
    .. "evict2=0 fill3=0 evict3=0",
}, "\n") .. "\n"
local parsed = engine.parse(out)
t.ok(parsed and parsed.regions.solve and parsed.regions["a b"] and #parsed.levels == 3,
  "the tool's output read: levels, "
  .. "the program, regions by name (a name %XX-escaped)")
t.is(parsed.regions.solve.fp64_256, 8000, "a class's count read whole (its name has an underscore)")
t.is(engine.parse("something else"), nil, "another file is no count")

local record = { counts = parsed, levels = parsed.levels, caches = "L1 48 KiB ...", note = nil }
local function region(name, extra)
  local r = { region = name, appPoint = { countRecord = record }, point = { region = name }, time = 1e-3,
    flopsSource = "declared", bytesSource = "declared", flops = 8000, bytes = 24000, flopsDeclared = 8000,
    bytesDeclared = 24000, bytesWritten = 8000, counts = "declared" }
  for k, v in pairs(extra or {}) do r[k] = v end
  for k, v in pairs(r) do if v == false then r[k] = nil end end -- false: not there
  return counted.apply(r)
end
local solve = region("solve", { level = "DRAM" })
t.is(solve.flopsCounted, 8000, "a region's counted flops: its classes summed")
t.is(solve.bytesCounted, 24000, "its counted bytes: loaded and stored")
t.ok(solve.traffic.L2 == 32000 and solve.traffic.DRAM == 32000 and solve.trafficWritten.DRAM == 8000,
  "its traffic by the level below each boundary, the fills and the write-backs")
t.is(solve.flopsCountedRatio, 1.0, "counted over declared")
counted.judge({ solve })
t.ok(solve.disagree
  and solve.disagree:find("simulated DRAM traffic 31.2 KiB, 1.33x declared %(declared %+ written: the "
  .. "write%-allocate stream%)") ~= nil, "DRAM traffic beyond the declared bytes by the written ones: said as the "
  .. "write-allocate stream (" .. tostring(solve.disagree) .. ")")
local l2 = region("solve", { level = "L2" })
counted.judge({ l2 })
t.ok(l2.disagree and l2.disagree:find("simulated L2 traffic") ~= nil, "the traffic compared is the bound's level's")
local drift = region("solve", { flopsDeclared = 4000, flops = 4000, level = "L1" })
counted.judge({ drift })
t.ok(drift.disagree and drift.disagree:find("flops counted 8000, 2.00x declared 4000") ~= nil,
  "a declaration half the counted flops: said (" .. tostring(drift.disagree) .. ")")

local none = region("a b", { flopsSource = "none", bytesSource = "none", flops = false, bytes = false,
  flopsDeclared = false, bytesDeclared = false, bytesWritten = false, counts = "none" })
t.ok(none.flops == 500 and none.bytes == 4000 and none.counts == "counted" and none.flopsSource == "counted",
  "a region that declares nothing takes the counted flops and bytes")
t.ok(math.abs(none.gflops - 500 / 1e-3 / 1e9) < 1e-12 and none.intensity == 500 / 4000, "and its rates from them")
local prog = region("(program)", { flopsSource = "none", bytesSource = "none", flops = false, bytes = false,
  flopsDeclared = false, bytesDeclared = false, counts = "-" })
t.ok(prog.flopsCounted == 9010 and prog.flops == 9010 and prog.bytes == 108 and prog.counts == "counted",
  "the program's row declares nothing: it takes its counts, a point of its own")

local lv = counted.level_rows({ solve, prog })
t.ok(lv and #lv == 8 and lv[1].countLevel == "L1" and lv[4].countLevel == "DRAM" and lv[2].intensity == 8000 / 32000
  and lv[5].countBase == prog,
    "the integrated roofline: a point per level of a counted region (L1, L2, L3, DRAM), and of "
  .. "the program")
t.is(counted.level_series(nil)(lv[2]), "L2 traffic (simulated)", "each level its own series")

-- the PMU path on a fixture: what each event counts for known counted classes, and a reading
t.ok(pmu.flops("GenuineIntel").counts.flops["FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE"] == 4,
  "Intel's 256-bit fp64 event weighs 4 flops a count")
local exp = pmu.expected({ fp64_256 = 8000, fp64_scalar = 10 }, "GenuineIntel")
t.ok(exp["FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE"] == 2000 and exp["FP_ARITH_INST_RETIRED:SCALAR_DOUBLE"] == 10,
  "counted classes as the PMU counts them: an instruction of 4 lanes a count (an FMA two)")
local spec = pmu.flops("GenuineIntel")
local desc = { counts = spec.counts }
local reading = {}
for ev, n in pairs(exp) do reading[ev] = n end
local agree = region("solve", { desc = desc, counters = reading, level = "L1" })
t.is(agree.flopsPmu, 8010, "the PMU's events weighted back: the counted flops")
counted.judge({ agree })
t.ok(not (agree.disagree or ""):find("PMU"), "a reading that matches the counts: no line")
reading["FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE"] = 4000 -- a PMU that counts the FMAs twice over
local off = region("solve", { desc = desc, counters = reading, level = "L1" })
counted.judge({ off })
t.ok(off.disagree and off.disagree:find("flops counted 8000, 0.50x the PMU's 1.601e%+04") ~= nil,
  "a reading that does not: said (" .. tostring(off.disagree) .. ")")
t.is(pmu.flops("AuthenticAMD").counters[1], "RETIRED_SSE_AVX_FLOPS:ANY", "AMD's retired FP ops, flops already")
t.is(pmu.flops("SomeOtherVendor"), nil, "no events for a vendor rot does not know")

-- the table's columns
t.is(format.columns.counted[2](solve), "flops 1.000 bytes 1.000", "the counted column: counted over declared")
t.is(format.columns.traffic[2](solve), "L2 31.2KiB L3 31.2KiB DRAM 31.2KiB", "the traffic column, the levels in order")

-- compare: work and rate
local p = { verdict = "slower", ratio = 2.0, a = { cflops = 1000, cbytes = 16000 },
  b = { cflops = 2000, cbytes = 32000 } }
t.is(work.text(p), "slower x2.0: work x2.00, rate x1.00", "twice the work at the same rate")
p = { verdict = "slower", ratio = 1.9, a = { cflops = 1000 }, b = { cflops = 1000 } }
t.is(work.text(p), "slower x1.9: work x1.00, rate x0.53", "the same work, slower")
p = { verdict = "same", ratio = 1.0, a = { cflops = 0, cbytes = 8000 }, b = { cflops = 0, cbytes = 8000 } }
t.is(work.text(p), "same x1.0: work x1.00, rate x1.00", "no flops: work in bytes")
t.is(work.text({ verdict = "slower", ratio = 2, a = { time = 1 }, b = { time = 2 } }), nil, "uncounted runs: no split")

-- every row field's CSV column, JSON key and record name is its own (core/vocabulary.h)
local dup = {}
for _, what in ipairs({ "csv", "json", "record" }) do
  local seen = {}
  for _, f in ipairs(require("rot.results.row").fields) do
    local v = f[what]
    if v and v ~= "" then
      if seen[v] then dup[#dup + 1] = what .. " " .. v end
      seen[v] = true
    end
  end
end
t.is(table.concat(dup, ", "), "", "no two row fields share a CSV column, a JSON key or a record name")

t.done()
