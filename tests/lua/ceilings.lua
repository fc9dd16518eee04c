-- Ceilings from rounds (rot.machine.bandwidth), as a noisy machine gives them: the best
-- round, the rounds' spread, the unstable marking and where it shows (peaks.csv, bounds, the
-- limiter), on recorded staircases. Run by tests/ceilings.t.
local t = require "tap"
local bandwidth = require "rot.machine.bandwidth"
local ceilings = require "rot.machine.ceilings"
local peaks = require "rot.machine.measure"
local bounds = require "rot.results.bounds"
local sys = require "rot.sys"
local util = require "rot.util"

local MiB = 1024 * 1024

-- this host's slope (tests/fixtures/staircase/epyc-kvm-slope.csv) in three rounds: round 2 a
-- neighbour's burst (DRAM 20% lower, L3 7% lower, L1 and L2 within 1%), round 3 within 1% of round 1
local slope = {}
for line in assert(sys.readfile("tests/fixtures/staircase/epyc-kvm-slope.csv")):gmatch("[^\n]+") do
  local ws, g = line:match("^triad,1,(%d+),([%d.]+),")
  if ws then slope[#slope + 1] = { ws = tonumber(ws), gbs = tonumber(g) } end
end
local function state(factor2, factor3)
  local st = { samples = { [1] = { {}, {}, {} } }, final = true }
  for _, x in ipairs(slope) do
    local dram, l3 = x.ws >= 768 * MiB, x.ws > MiB and x.ws <= 32 * MiB
    local r2 = dram and factor2 or l3 and 0.93 or 0.995
    local r3 = dram and factor3 or 0.99
    for si, f in ipairs({ 1.3, 0.8, 1 }) do -- read, write, triad
      st.samples[1][si][x.ws] = { ws = x.ws, rounds = { x.gbs * f, x.gbs * f * r2, x.gbs * f * r3 } }
    end
  end
  return st
end
local rep = { { name = "L1", size = 48 * 1024 }, { name = "L2", size = MiB }, { name = "L3", size = 508 * MiB } }
local a = bandwidth.analyse(state(0.8, 0.99), 1, rep)
local by = {}
for _, r in ipairs(a.rows) do by[r.name] = r end
t.ok(math.abs(by.triad_DRAM.value - 33.1) < 1e-9, "the DRAM ceiling is the best round's fastest of the tail's three largest "
  .. "sizes (33.1 GB/s at 1.5 GiB, not their median 33.0: STREAM's and ERT's best, as the caches'): " .. by.triad_DRAM.value)
t.is(by.triad_DRAM.rounds, 3, "from three rounds")
t.ok(math.abs(by.triad_DRAM.spread - 0.25) < 0.01, "its spread: how far below it the third best round lies (1/0.8: 25%)")
t.ok(math.abs(by.triad_L3.spread - 1 / 0.93 + 1) < 0.01, "L3's spread 7.5%")
bandwidth.notes({ [1] = a }, { rows = {} })
t.ok(by.triad_DRAM.unstable and by.triad_L3.unstable, "spreads above 5% are marked unstable")
t.ok(not by.triad_L1.unstable and by.triad_L1.spread < 0.05, "L1 (rounds within 1%) is not")
t.ok(by.read_DRAM.value > by.triad_DRAM.value, "read, write and triad DRAM from the same rounds and sizes")
local calm = bandwidth.analyse(state(0.99, 0.98), 1, rep)
bandwidth.notes({ [1] = calm }, { rows = {} })
for _, r in ipairs(calm.rows) do by[r.name] = r end
t.ok(not by.triad_DRAM.unstable and by.triad_DRAM.spread < 0.05, "rounds within 2%: DRAM stable")

-- read-only DRAM below triad beyond their spreads: one line saying so, with the figures
local st = state(0.99, 0.98)
for ws, x in pairs(st.samples[1][1]) do
  if ws >= 768 * MiB then for i, g in ipairs(x.rounds) do x.rounds[i] = g / 1.3 * 0.6 end end
end
local notes = bandwidth.notes({ [1] = bandwidth.analyse(st, 1, rep) }, { rows = {} })
local said = table.concat(notes, "; ")
t.ok(said:find("read%-only DRAM [%d.]+ GB/s stays below triad [%d.]+ GB/s beyond their spreads") ~= nil,
  "read below triad beyond the spreads is said, with the figures: " .. said)

-- a level below the next one (read L1 under read L2: two threads on one core's L1 measured low):
-- marked unstable and said; a calm staircase has no such line
local inv = state(0.99, 0.98)
for ws, x in pairs(inv.samples[1][1]) do
  if ws <= 48 * 1024 then for i, g in ipairs(x.rounds) do x.rounds[i] = g / 4 end end
end
local ia = bandwidth.analyse(inv, 1, rep)
local inotes = table.concat(bandwidth.notes({ [1] = ia }, { rows = {} }), "; ")
for _, r in ipairs(ia.rows) do by[r.name] = r end
t.ok(by.read_L1.unstable and by.read_L1.inverted and not by.read_L2.inverted
  and inotes:find("read_L1 [%d.]+ GB/s stays below read_L2 [%d.]+ GB/s beyond their spreads") ~= nil,
  "a level's ceiling below the next level's: unstable, and said: " .. inotes)
t.ok(not table.concat(bandwidth.notes({ [1] = bandwidth.analyse(state(0.99, 0.98), 1, rep) }, { rows = {} }), "; ")
  :find("stays below read_"), "a calm staircase: no level below the next")

-- a sweep that never flattens up to its end: DRAM is its last octave, unstable, and said
local climbing = state(0.99, 0.98)
for ws, x in pairs(climbing.samples[1][3]) do
  if ws >= 768 * MiB then for i, g in ipairs(x.rounds) do x.rounds[i] = g * (768 * MiB / ws) ^ 0.1 end end
end
local ca = bandwidth.analyse(climbing, 1, rep)
for _, r in ipairs(ca.rows) do by[r.name] = r end
bandwidth.notes({ [1] = ca }, { rows = {} })
t.ok(by.triad_DRAM.unstable and table.concat(ca.notes, "; "):find("DRAM shows no flat tail up to 3.00 GiB"),
  "no flat tail by the sweep's end: DRAM unstable, and said")
-- and why the sweep stopped where it did, in the same line (the first round's sweep was flat
-- there, its later rounds are not; or a quarter of the memory; or its doublings ran out)
climbing.stopped = { [1] = { top = 3072 * MiB, why = "flat", from = 768 * MiB } }
local stop = table.concat(bandwidth.analyse(climbing, 1, rep).notes, "; ")
t.ok(stop:find("DRAM shows no flat tail up to 3.00 GiB: its ceiling is the fastest of the last octave swept (from 1.50 GiB, "
  .. "stored as DRAM_from: where DRAM's range begins), unstable; the sweep stopped "
  .. "doubling at 3.00 GiB because its first round's largest sizes were flat from 768 MiB; the best of its rounds is not",
  1, true) ~= nil,
  "a sweep that stopped short of a flat tail says why: " .. stop)
climbing.stopped[1].why = "cap"
t.ok(table.concat(bandwidth.analyse(climbing, 1, rep).notes, "; "):find("; the sweep stops at a quarter of the memory (",
  1, true) ~= nil, "or that a quarter of the memory bounds it")
climbing.stopped[1].why = "doublings"
t.ok(table.concat(bandwidth.analyse(climbing, 1, rep).notes, "; "):find("; the sweep doubled its largest size 4 times, as "
  .. "far as it goes", 1, true) ~= nil, "or that it doubled as far as it goes")
climbing.final = false
t.is(bandwidth.analyse(climbing, 1, rep), nil, "before the end, the sweep is asked to go further")

-- peaks.csv keeps the marking and how each ceiling was obtained
local rows = {}
for _, r in ipairs(a.rows) do
  r.clock, r.date, r.pinning, r.isa = 3.52, "2026-11-23T12:00:00Z", { 0 }, "-O3 -march=native"
  rows[#rows + 1] = r
end
local path = os.getenv("ROT_TEST_TMP") and (os.getenv("ROT_TEST_TMP") .. "/peaks.csv") or os.tmpname()
ceilings.write_csv(path, rows)
local back = {}
for _, r in ipairs(ceilings.read_csv(path)) do back[r.name] = r end
local d = back.triad_DRAM
t.ok(d.unstable and d.rounds == 3 and d.kernel == "triad" and d.clock == 3.52 and d.date == "2026-11-23T12:00:00Z"
  and d.pinning == "0" and d.sizes and #d.sizes >= 3 and d.sizes[1] == 768 * MiB, "peaks.csv round trip: unstable, rounds, kernel, clock, date, pinning, sizes")
t.ok(not back.triad_L1.unstable and back.triad_L1.median, "a stable ceiling reads back stable, with its median")
t.ok(ceilings.parse_csv("name,kind,threads,value,unit,spread\ntriad_DRAM,bandwidth,1,30,GB/s,0.01\n")[1].value == 30,
  "six-column files (older, or written by hand) still read")

-- ceilings that moved since the machine's peaks were stored: two recorded runs of one bench
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

-- the guest kernel's memory samplers (DAMON), on a copy of this host's kdamonds sysfs: one on,
-- one off
local damon = (os.getenv("ROT_TEST_TMP") or os.tmpname() .. ".d") .. "/kdamonds"
local function put(rel, text)
  sys.mkdir((damon .. "/" .. rel):match("^(.*)/[^/]+$"))
  sys.writefile(damon .. "/" .. rel, text .. "\n")
end
put("nr_kdamonds", "2")
put("0/state", "on")
put("0/contexts/0/operations", "paddr")
put("0/contexts/0/monitoring_attrs/intervals/sample_us", "500000")
put("0/contexts/0/schemes/0/action", "pageout")
put("1/state", "off")
put("1/contexts/0/operations", "vaddr")
-- and a /proc with a kdamond thread among others
local proc = damon:gsub("kdamonds$", "proc")
for pid, comm in pairs({ ["1"] = "init", ["77"] = "kdamond.0", ["80"] = "kworker/0:1" }) do
  sys.mkdir(proc .. "/" .. pid)
  sys.writefile(proc .. "/" .. pid .. "/comm", comm .. "\n")
end
local machine = require "rot.machine"
local smp = machine.samplers(damon, proc)
t.ok(#smp == 1 and smp[1].operations == "paddr" and smp[1].sample_ms == 500 and smp[1].action == "pageout",
  "the kdamond that is on is read, with its operations, sample interval and scheme; the one that is off is not")
local sampler_note = require("rot.machine.report").sampler_note
local sn = sampler_note(smp, 2)
t.ok(sn and sn:find("runs DAMON (kdamond: paddr sampling every 500 ms, scheme pageout): at 2 threads (every CPU)", 1, true),
  "rot measure peaks names it in one line, for the ceilings on every CPU: " .. tostring(sn))
t.is(sampler_note({}, 2), nil, "and says nothing where there is none")
t.is(#machine.samplers(damon .. "/none", proc .. "/none"), 0, "no DAMON sysfs and no kdamond thread: no sampler")
-- settings only root can read (state unreadable: here, absent): the kdamond threads, counted in /proc
os.remove(damon .. "/0/state")
smp = machine.samplers(damon, proc)
t.ok(#smp == 1 and not smp[1].operations, "settings it cannot read: the kdamond thread in /proc still counts")
sn = sampler_note(smp, 4)
t.ok(sn and sn:find("runs DAMON (kdamond: running; its settings need root to read): at 4 threads", 1, true),
  "and the line says what it could not read: " .. tostring(sn))

-- a point bounded by an unstable ceiling says so in its limiter
local lv = ceilings.levels(ceilings.read_csv(path), 1)
local _, bw = ceilings.ceilings(ceilings.read_csv(path), 1)
local b = bounds.bound({ flops = 1e6, bytes = 12e6, time = 12e6 / 30e9, gflops = 1e6 / (12e6 / 30e9) / 1e9,
  workingSet = 2048 * MiB, cacheMode = "warm" }, {}, bw, lv)
t.is(b.limiter, "DRAM bw (unstable)", "the limiter of a point bounded by an unstable ceiling says so")
t.ok(b.unstable, "and the bound carries the marking")
local b1 = bounds.bound({ flops = 1e6, bytes = 12e6, time = 12e6 / 300e9, gflops = 1e6 / (12e6 / 300e9) / 1e9,
  workingSet = 16 * 1024, cacheMode = "warm" }, {}, bw, lv)
t.is(b1.limiter, "L1 bw", "a stable ceiling's limiter is plain")
-- the code that reached a bandwidth ceiling (peaks.csv's isa) comes with the bound, and a table
-- says which ceilings narrow code reached, once each
for _, c in ipairs(bw) do if c.level == "DRAM" then c.row.isa = "-O2 -fno-tree-vectorize" end end
local bn = bounds.bound({ flops = 1e6, bytes = 12e6, time = 12e6 / 30e9, gflops = 1e6 / (12e6 / 30e9) / 1e9,
  workingSet = 2048 * MiB, cacheMode = "warm" }, {}, bw, lv)
t.is(bn.code, "-O2 -fno-tree-vectorize", "a bound carries the code that reached its bandwidth ceiling")
local lines = {}
require("rot.results.format").code_legend({ { boundCode = bn.code, ceiling = bn.ceiling }, { boundCode = bn.code, ceiling = bn.ceiling },
  { boundCode = "-O3 -march=native", ceiling = "L1 bw" } }, { write = function(_, x) lines[#lines + 1] = x end })
t.ok(#lines == 1 and lines[1]:find("^DRAM bw, 1 thread: the ceiling's best round came from code built with %-O2 "
  .. "%-fno%-tree%-vectorize, not from the widest vectors %(%-O3 %-march=native; peaks.csv's isa%)"), "the table says once which ceiling narrow code reached, none for the "
  .. "vectors': " .. table.concat(lines))
t.is(bounds.bound({ flops = 0, bytes = 0, time = 1e-3, workingSet = 16 * 1024, cacheMode = "warm" },
  { { gflops = 50, label = "fma" } }, bw, lv), nil, "a point that declares no work has no bound (no 'compute' limiter for 0/0)")
os.remove(path)

-- a real recording (tests/fixtures/staircase/epyc-kvm-rounds.csv): rot measure peaks' rounds on
-- this kind of guest; triad's n = ws // 24 drops a few bytes: samples are keyed by the nominal size
local real = { samples = { [1] = { {}, {}, {} }, [2] = { {}, {}, {} } }, final = true }
local si = { read = 1, write = 2, triad = 3 }
for line in assert(sys.readfile("tests/fixtures/staircase/epyc-kvm-rounds.csv")):gmatch("[^\n]+") do
  local sn, th, ws, r, g = line:match("^(%a+),(%d+),(%d+),(%d+),([%d.e+-]+)$")
  if sn then
    local nominal = math.tointeger(tonumber(ws))
    for _, base in ipairs({ 4096, 6144 }) do
      local x = base
      while x * 2 <= nominal + 64 do x = x * 2 end
      if math.abs(x - nominal) <= 64 then nominal = x end
    end
    local per = real.samples[tonumber(th)][si[sn]]
    per[nominal] = per[nominal] or { ws = nominal, rounds = {} }
    per[nominal].rounds[tonumber(r)] = tonumber(g)
  end
end
local rep2 = { { name = "L1", size = 96 * 1024 }, { name = "L2", size = 2 * MiB }, { name = "L3", size = 1016 * MiB } }
for _, c in ipairs({ { 1, rep, 39.2 }, { 2, rep2, 75.0 } }) do
  local ra = bandwidth.analyse(real, c[1], c[2])
  local got = {}
  for _, r in ipairs(ra.rows) do got[r.name] = r end
  t.ok(got.triad_DRAM and math.abs(got.triad_DRAM.value / c[3] - 1) < 0.03 and got.DRAM_from.value >= 512 * MiB,
    c[1] .. " thread(s), recorded rounds: DRAM from the flat tail beyond 512 MiB (" .. (got.triad_DRAM and got.triad_DRAM.value or "-") .. " GB/s)")
  t.ok(got.L1_effective and got.L1_effective.value > 32 * 1024 and got.L1_effective.value < 128 * 1024 and got.triad_L1.value > 400,
    c[1] .. " thread(s): L1 is the first plateau (one fast small sample is no level of its own)")
end

-- between the last cache's effective size and DRAM's flat tail: the last cache's, never DRAM's
local gap = ceilings.parse_csv("name,kind,threads,value,unit,spread\nL3_effective,size,1,38000000,B,\n" ..
  "DRAM_from,size,1,805306368,B,\ntriad_L3,bandwidth,1,99,GB/s,0.01\ntriad_DRAM,bandwidth,1,33,GB/s,0.01\n")
local glv = ceilings.levels(gap, 1)
t.is(ceilings.level_of(100 * MiB, glv).name, "L3", "a working set between L3 and DRAM's flat tail is folded into L3")
t.is(ceilings.level_of(1024 * MiB, glv).name, "DRAM", "one in the tail is DRAM's")
t.is(ceilings.level_of(16 * MiB, glv).name, "L3", "one inside L3 is L3's")
local _, gbw = ceilings.ceilings(gap, 1)
local function gap_bound(ws)
  local secs = ws / 40e9 -- 40 GB/s of triad traffic
  return bounds.bound({ flops = ws / 12, bytes = ws, time = secs, gflops = ws / 12 / secs / 1e9, workingSet = ws }, {}, gbw, glv, 0.02)
end
local b100 = gap_bound(100 * MiB)
t.ok(b100.limiter == "L3-DRAM bw" and b100.level == "L3-DRAM" and math.abs(b100.fraction - 40 / 99) < 1e-9,
  "a point in the step says so (" .. b100.limiter .. "), bounded by L3's ceiling, the most it can see (" .. b100.fraction .. ")")
t.ok(gap_bound(16 * MiB).limiter == "L3 bw" and gap_bound(1024 * MiB).limiter == "DRAM bw", "inside L3 and in DRAM: their own names")
local why = bounds.why_above({ ceiling = b100.ceiling, boundUnstable = true, level = "L3-DRAM", workingSet = 100 * MiB }, glv)
t.ok(why:find("^the L3 bw ceiling is unstable"), "above its bound in the step: the ceiling named is L3's, which exists: " .. why)
why = bounds.why_above({ ceiling = "DRAM write bw", cacheMode = "cold", level = "DRAM", workingSet = MiB }, glv)
t.ok(why:find("^the DRAM write bw ceiling is the rate of a stream from") and why:find("1.00 MiB", 1, true)
  and why:find("written back after the timed run", 1, true),
  "a cold point far short of DRAM's tail above its DRAM ceiling: the sizes are named as the reason: " .. why)
why = bounds.why_above({ ceiling = "DRAM read bw", cacheMode = "cold", level = "DRAM", workingSet = MiB, bytesDeclared = 8,
  bytesWritten = 0 }, glv)
t.ok(why:find("short burst, which can outrun it$"), "a read-only one stores nothing: nothing said of write-backs: " .. why)
local rot = require "rot"
local gapfile = os.tmpname()
sys.writefile(gapfile, "name,kind,threads,value,unit,spread\nL3_effective,size,1,38000000,B,\n" ..
  "DRAM_from,size,1,805306368,B,\ntriad_L3,bandwidth,1,99,GB/s,0.01\ntriad_DRAM,bandwidth,1,33,GB/s,0.01\n")
rot.set("peaksFile", gapfile)
t.ok(rot.dram_from(1) == 805306368 and rot.llc(1) == 38000000,
  "rot.dram_from: where DRAM's tail begins, past 4x the last cache, so sweeps to DRAM reach it (" .. tostring(rot.dram_from(1)) .. ")")
t.is(rot.dram_sweep(1), math.min(805306368, bandwidth.cap()), "rot.dram_sweep: on to DRAM's tail, within a quarter of the memory")
rot.set("peaksFile", "")
os.remove(gapfile)
ceilings.write_csv(gapfile, { { name = "L2_reported", kind = "size", threads = 1, value = 1048576, unit = "B" },
  { name = "L3_effective", kind = "size", threads = 1, value = 29368622.4, unit = "B" } })
local text = sys.readfile(gapfile) or ""
t.ok(text:find("\nL2_reported,size,1,1048576,B,") and text:find("\nL3_effective,size,1,29368622,B,"),
  "peaks.csv keeps sizes in whole bytes, not six digits: " .. text:gsub("\n", " | "))
os.remove(gapfile)

-- a noisy first round (recorded on this guest: 1 thread, triad, best-k of 3 runs a size): L2's
-- four sizes scatter by 40 % (512 KiB out of line), L3's by 45 %; its levels are read all the same
local noisy = { [4096] = 257.96, [8192] = 287.10, [16384] = 315.80, [32768] = 311.58, [65536] = 160.64,
  [131072] = 143.33, [262144] = 152.67, [524288] = 203.88, [1048576] = 109.32, [2097152] = 92.87, [4194304] = 77.72,
  [8388608] = 111.64, [16777216] = 77.89, [33554432] = 49.54, [67108864] = 35.63, [134217728] = 30.10,
  [268435456] = 27.58, [536870912] = 28.38, [1073741824] = 30.69 }
local function round_of(f)
  local one = { samples = { [1] = { {}, {}, {} } }, final = true }
  for si, k in ipairs({ 1.2, 0.9, 1 }) do
    for _, ws in ipairs(util.sorted_keys(noisy)) do one.samples[1][si][ws] = { ws = ws, rounds = { f(ws) * k } } end
  end
  return one
end
local read = bandwidth.analyse(round_of(function(ws) return noisy[ws] end), 1, {})
local names = {}
for _, l in ipairs(read and read.levels or {}) do names[#names + 1] = string.format("%s %.0f", l.name, l.gbs) end
t.is(table.concat(names, ", "), "L1 316, L2 157, L3 93, DRAM 29", "a noisy round's levels: L1, L2 and L3 plateaus, DRAM's tail")
-- a staircase with no plateau at all (20 % less an octave, then flat): with no more rounds,
-- its DRAM tail is the only level, said
local function slope(ws) return 300 * 0.8 ^ math.min(math.log(ws / 4096, 2), 15) end
local one = round_of(slope)
local alone = bandwidth.analyse(one, 1, {})
t.ok(alone and #alone.levels == 1 and alone.levels[1].name == "DRAM" and alone.levels[1].alone,
  "a final staircase with no cache plateau: DRAM's tail is its only level")
t.ok(alone and table.concat(alone.notes, "; "):find("no cache plateau above DRAM's tail") ~= nil,
  "and that is said: " .. (alone and table.concat(alone.notes, "; ") or "-"))
one.final = false
t.is(bandwidth.analyse(one, 1, {}), nil, "before the sweep's end, a staircase with no plateau is no analysis yet")

-- the peaks' rounds through a fake rot (tests/fixtures/topology/nocache.xml: two PUs, no cache
-- reported): round 1 is the slope above, later rounds a calm machine's staircase; a thread
-- count whose round 1 shows no level gets its later rounds at every size, and its levels from them
local function calm(ws)
  return ws <= 32768 and 330 or ws <= 1048576 and 172 or ws <= 16777216 and 118 or 31
end
local fake_rot = require "fakerot"
local asked = { [1] = {}, [2] = {} }
local fake = fake_rot(function(idx, describe)
  local rows = {}
  for _, i in ipairs(idx) do
    local d = describe({ i = i })
    local ws = fake_rot.ws(d)
    local g = (d.round == 1 and d.threads == 1) and slope(ws) or calm(ws) * d.threads
    if d.kernel == "triad" then asked[d.threads][ws] = math.max(asked[d.threads][ws] or 0, d.round) end
    asked.unroll = asked.unroll or {}
    asked.unroll[d.macros and d.macros.STREAM_UNROLL or 1] = true
    g = g * (d.kernel == "sum" and 1.2 or d.kernel == "fill" and 0.9 or 1)
    rows[#rows + 1] = { gbs = g, workingSet = ws, bytes = ws, entry = { meta = {}, runs = { { ns = ws / g, reps = 1 } } } }
  end
  return setmetatable({ rows = rows }, { __index = { ok = function(self) return self.rows end } })
end, { runs = 5, maxRuns = 40, progress = "never" })
local between = {}
local an, swept, said = bandwidth.measure(fake, { 1, 2 }, true, nil, function()
  between[#between + 1] = fake.vals.runs .. "/" .. fake.vals.maxRuns
end)
t.ok(asked.unroll[4] and not asked.unroll[1], "the sweeps' kernels are unrolled (STREAM_UNROLL=4): a loop's overhead "
  .. "is no cache's limit")
t.is(table.concat(between, ", "), "5/40", "between the sweep and the later rounds, once, under the caller's run settings")
t.ok(fake.vals.runs == 5 and fake.vals.maxRuns == 40, "and the caller's settings back after the rounds")
t.ok(asked[1][4096] and asked[1][4096] >= 2 and asked[1][262144] >= 2,
  "1 thread, no level after round 1: later rounds at every size of its sweep, the smallest too")
local function latest(tc)
  local m = 0
  for _, r in pairs(asked[tc]) do m = math.max(m, r) end
  return m
end
t.ok(asked[2][4096] == 2 and latest(2) == 2, "2 threads, levels found at once and calm: the planned rounds (2 quick), no more")
local got = {}
for _, r in ipairs(an[1] and an[1].rows or {}) do got[r.name] = r end
t.ok(got.L1_effective and got.L2_effective and got.triad_L1 and got.triad_L1.value > 300 and got.triad_DRAM,
  "1 thread: its cache levels found from the later rounds (" .. table.concat(said, "; ") .. ")")
t.is(latest(1), 3, "1 thread: its noisy round asks for the extra round (3, quick)")
t.ok(swept.stopped[2].why == "flat" and swept.stopped[2].top == 256 * MiB and swept.stopped[2].from == 32 * MiB,
  string.format("the first round's sweep of 2 threads stopped at 256 MiB (quick) for a tail flat from 32 MiB: %s at %s, "
    .. "from %s", swept.stopped[2].why, util.bytes(swept.stopped[2].top), util.bytes(swept.stopped[2].from or 0)))

-- extra rounds only within the peaks' time budget, on the peaks' timer: the time each point
-- took when it was measured (its entry's pointSeconds), now or before it was cached
local budget = require "rot.machine.budget"
local tm = budget.timer()
tm.count({ { cached = true, entry = { meta = { pointSeconds = 30 } } }, { entry = { meta = { pointSeconds = "12.5" } } },
  { error = "failed" } })
t.is(tm.now(), 42.5, "the peaks' timer: a point from the cache that took 30 s and one measured now in 12.5 s (a failed "
  .. "one counts nothing)")
tm.count({ { cached = true, entry = { meta = {}, runs = { { ns = 1e9 }, { ns = 2e9 }, { ns = 3e9 } } } } })
t.ok(math.abs(tm.now() - 42.5 - 8.005) < 1e-9, "a point cached before pointSeconds was recorded counts its runs, its "
  .. "warm-up and a point's least start (8.005 s for runs of 1, 2 and 3 s), not nothing: " .. tm.now() - 42.5)
-- peaks analysed again from the cache, whose points took past the budget when they were
-- measured: the rounds that run had, none measured now that it left out
local replay = fake_rot(function(idx, describe)
  local res = fake.measure(idx, describe)
  for _, r in ipairs(res.rows) do r.cached, r.entry.meta.pointSeconds = true, 1 end
  return res
end, { runs = 5, maxRuns = 40, progress = "never" })
asked = { [1] = {}, [2] = {} }
an, _, said = bandwidth.measure(replay, { 1, 2 }, true)
t.ok(latest(1) == 2 and latest(2) == 2, "past the time budget (points from the cache that took 1 s each): the planned "
  .. "rounds (2, quick), no extra one")
t.ok(table.concat(said, "; "):find("round 3 was not measured: it would pass the peaks' time budget %(45 s%)") ~= nil,
  "and that is said: " .. table.concat(said, "; "))

-- a batch's guessed time counts faulting its arrays in, as fast as the last large batch did:
-- a round at 4 GiB took 29 s on this VM where the old guess said 6
local big = { samples = { [1] = { {}, {}, {} } } }
budget.learn(big, { { stream = 3, threads = 1, ws = 4096 * MiB }, { stream = 3, threads = 1, ws = 4096 * MiB },
  { stream = 1, threads = 1, ws = 4096 * MiB } }, 20.015, 4)
budget.learn(big, { { stream = 3, threads = 1, ws = 4096 } }, 0.02, 0.001)
local g = budget.guess(big, { { stream = 3, threads = 1, ws = 4096 * MiB }, { stream = 3, threads = 1, ws = 4096 } })
t.ok(math.abs(g - (8 + 2 * 0.019)) < 1e-4, string.format(
  "a batch at 4 GiB guessed with the seconds its arrays take to fault in (8 s at 2 s a GiB), small points at their own cost: %.3f s", g))

-- compute ceilings in rounds spread over the peaks, each between two clock readings: a round at
-- a lower clock is not the ceiling; rounds that disagree get more rounds, then unstable.
-- ghz_of(round): the clock during a round's points; reading_of(round, after): the clock reading
-- just before (after) a round (default: its round's clock); unit_of(round, after, class): that
-- timing of a class's FMA chain, ns an FMA step (default: none timed, so the ceilings keep the
-- imul chain's clock); cached(d): whether a point (its description) is in the cache (default:
-- none is)
local compute = require "rot.machine.compute"
local clk = require "rot.machine.clocks"
local lanes_class = { [1] = "scalar", [4] = "avx2", [8] = "avx512" }
local function clock_fake(ghz_of, reading_of, unit_of, cached)
  local f
  f = fake_rot(function(idx, describe)
    local rows = {}
    for _, i in ipairs(idx) do
      local d = describe({ i = i })
      local chain = d.kernel == "peakflops" and d.macros.PEAK_CHAINS == clk.chain.chains
      f.seen[#f.seen + 1] = { d = d, fresh = f.vals.useCachedResults == false }
      if d.kernel == "clock" then
        local r, after = clk.reading_of(d.round)
        local ghz = ghz_of(r)
        if reading_of then ghz = reading_of(r, after) end
        rows[#rows + 1] = ghz and { time = 1e-3, flops = ghz * 1e6 } or {}
      elseif chain then
        local r, after = clk.reading_of(d.round)
        local ns = unit_of and unit_of(r, after, lanes_class[d.macros.PEAK_LANES])
        rows[#rows + 1] = ns and { time = ns * d.params.n * 1e-9 } or {}
      else
        local ghz = ghz_of(d.round or 1)
        f.asked[#f.asked + 1] = d.round or 1
        local per_cycle = d.macros.PEAK_LANES * (d.macros.PEAK_OP == 0 and 2 or 1) * 2 -- two units
        local ns = 1e6 -- a run of 1 ms
        rows[#rows + 1] = { gflops = per_cycle * ghz, flops = per_cycle * ghz * ns, bytes = 0, spread = 0.01,
          entry = { meta = { measuredAt = string.format("2026-01-01T00:0%d:00Z", d.round or 1) },
            runs = { { ns = ns, reps = 1 }, { ns = ns, reps = 1 } } } }
      end
    end
    return { rows = rows }
  end, { progress = "never", useCachedResults = true }, cached and function(idx, describe)
    for _, i in ipairs(idx) do if not cached(describe({ i = i })) then return false end end
    return true
  end)
  f.asked, f.seen = {}, {}
  return f
end
local function fma_only(cs) -- one FP64 AVX-512 FMA point at 1 thread, whatever this CPU has
  cs.points = { { isa = compute.isa[4], prec = "double", op = "fma", threads = 1 } }
  return cs
end
local function three(fk, cs) -- the planned rounds: start, after the sweep, end
  for _ = 1, 3 do compute.round(fk, cs) end
  return cs
end
local clocks = { 3.2, 3.5, 3.2, 3.5, 3.5 }
local fk = clock_fake(function(r) return clocks[r] end)
local cs = three(fk, fma_only(compute.new({ 1 })))
local row = compute.rows(cs)[1]
t.ok(math.abs(row.value - 112) < 1e-9 and row.clock == 3.5, string.format(
  "the FMA ceiling is its best round's (112 GFLOP/s, round 2 at 3.5 GHz), not the slow rounds': %.1f at %s GHz", row.value,
  row.clock))
t.ok(row.unstable and math.abs(row.spread - 0.09375) < 1e-9, string.format(
  "three rounds at 3.2, 3.5 and 3.2 GHz disagree by 9.4%%: unstable before more rounds (%.1f%%)", row.spread * 100))
compute.extra_rounds(fk, cs, 1000)
row = compute.rows(cs)[1]
t.ok(cs.rounds == 5 and not row.unstable and row.spread == 0 and row.rounds == 5,
  string.format("two more rounds at 3.5 GHz: the best three agree, stable (%d rounds, spread %.1f%%)", cs.rounds, row.spread * 100))
clocks = { 3.0, 3.5, 3.0, 3.0, 3.0, 3.0, 3.0 }
fk = clock_fake(function(r) return clocks[r] end)
cs = three(fk, fma_only(compute.new({ 1 })))
compute.extra_rounds(fk, cs, 1000)
row = compute.rows(cs)[1]
t.ok(cs.rounds == 7 and row.unstable and row.value == 112 and row.clock == 3.5, string.format(
  "a clock high in one round only: %d rounds at most, still unstable, the best round's value and clock", cs.rounds))
t.is(table.concat(compute.notes(cs, compute.rows(cs)), "; "), "the core clock moved over the compute rounds (before/after "
  .. "each: 3.000/3.000, 3.500/3.500, 3.000/3.000, 3.000/3.000, 3.000/3.000, 3.000/3.000, 3.000/3.000 GHz): 1 compute "
  .. "ceiling stays unstable; each compute ceiling is its best round's, and records the higher of the clock readings just "
  .. "before and after that round", "the clock's moves are said, with the unstable ceilings they leave")
ceilings.write_csv(path, compute.rows(cs))
local back = ceilings.read_csv(path)[1]
t.ok(back.unstable and back.clock == 3.5 and back.rounds == 7 and back.isa == "avx512" and back.kernel == "peakflops",
  "peaks.csv keeps the compute ceiling's provenance: unstable, rounds, its round's clock, kernel and ISA class")
-- a neighbour that halves the point in three rounds of the first five (2-thread points beside
-- busy neighbours here): the sixth is the third that agrees, stable; five rounds left it unstable
clocks = { 3.5, 1.75, 1.75, 3.5, 1.75, 3.5, 3.5 }
fk = clock_fake(function(r) return clocks[r] end)
cs = three(fk, fma_only(compute.new({ 1 })))
compute.extra_rounds(fk, cs, 1000)
row = compute.rows(cs)[1]
t.ok(cs.rounds == 6 and not row.unstable, string.format("a point halved in three rounds of five: %d rounds, stable", cs.rounds))
-- a clock that rose during the best round: the ceiling records the higher reading, after it,
-- so its share of the peak at its clock is not flattered; a failed reading is false
local before_, after_ = { 3.5, 3.2, 3.5 }, { 3.5, 3.6, false }
fk = clock_fake(function() return 3.5 end, function(r, after) return (after and after_ or before_)[r] end)
cs = three(fk, fma_only(compute.new({ 1 })))
compute.rows(cs) -- all three rounds give 112: the first is the best
cs.values[1][1], cs.values[1][2] = 100, 115
row = compute.rows(cs)[1]
t.ok(row.value == 115 and row.clock == 3.6 and row.date == "2026-01-01T00:02:00Z", string.format(
  "the best round (2) records 3.6 GHz, read after it, not 3.2 before it, and the date its point was measured: %s GHz, %s",
  row.clock, row.date))
t.is(table.concat(clk.clocks(cs), " "), "3.500/3.500 3.200/3.600 3.500/?",
  "every reading is kept, before/after each round, '?' where one failed")
t.ok(clk.clock_note(cs, compute.rows(cs)), "a clock that moved within a round only (3.2 to 3.6 GHz) is said")
t.is(clk.top_clock(cs), 3.6, "the bandwidth rows' clock is the run's highest reading (their rounds spread over it)")
-- a round's readings are its own: quick peaks' apart from full ones', before apart from after,
-- none a compute point's round (1-7)
local numbers, clash = {}, nil
for _, quick in ipairs({ false, true }) do
  for r = 1, compute.max_rounds do
    for _, after in ipairs({ false, true }) do
      local n = clk.reading(quick, r, after)
      local r2, after2, quick2 = clk.reading_of(n)
      if numbers[n] or n <= compute.max_rounds or r2 ~= r or after2 ~= after or quick2 ~= quick then clash = n end
      numbers[n] = true
    end
  end
end
t.ok(clash == nil, "every round's clock readings have numbers of their own, quick and full apart, read back by reading_of")
-- a round all in the cache (its points and its readings, stored together by the run that
-- measured them): all of it from the cache, nothing measured afresh, the reading after it too;
-- a round with a point missing: its readings, chains and points all measured afresh, and every
-- round after it (their points follow from its values), the setting restored
local missing
local function in_cache(d) return not (missing and d.kernel == "peakflops" and d.macros.PEAK_CHAINS ~= clk.chain.chains
  and (d.round or 1) == missing) end
fk = clock_fake(function() return 3.5 end, function(_, after) return after and 3.9 or 3.4 end, nil, in_cache)
cs = three(fk, fma_only(compute.new({ 1 })))
local afresh = 0
for _, x in ipairs(fk.seen) do if x.fresh then afresh = afresh + 1 end end
t.ok(compute.rows(cs)[1].clock == 3.9 and table.concat(clk.clocks(cs), " ") == "3.400/3.900 3.400/3.900 3.400/3.900"
  and afresh == 0, string.format("rounds all in the cache: their readings from it too, before and after, nothing "
  .. "afresh (%s; %d afresh)", table.concat(clk.clocks(cs), " "), afresh))
missing = 2
fk = clock_fake(function() return 3.5 end, function(_, after) return after and 3.9 or 3.4 end, nil, in_cache)
cs = three(fk, fma_only(compute.new({ 1 })))
local by_round = {}
for _, x in ipairs(fk.seen) do
  local reading = x.d.kernel == "clock" or x.d.macros.PEAK_CHAINS == clk.chain.chains
  local r = reading and clk.reading_of(x.d.round) or (x.d.round or 1)
  by_round[r] = by_round[r] or {}
  by_round[r][x.fresh and "fresh" or "cached"] = (by_round[r][x.fresh and "fresh" or "cached"] or 0) + 1
end
t.ok(not by_round[1].fresh and by_round[1].cached == 7 and by_round[2].fresh == 7 and not by_round[2].cached
  and by_round[3].fresh == 7 and not by_round[3].cached and fk.vals.useCachedResults == true, string.format("a round "
  .. "with a point missing: its clock and FMA chains (scalar, AVX-512) before and after it and its point measured "
  .. "afresh, and the rounds after it, round 1 from the cache, the setting restored (round 1: %s cached; 2: %s afresh; "
  .. "3: %s afresh)",
  by_round[1].cached, by_round[2].fresh, by_round[3].fresh))
-- past the deadline: no extra round, and that is said
clocks = { 3.2, 3.5, 3.2, 3.5, 3.5 }
fk = clock_fake(function(r) return clocks[r] end)
cs = three(fk, fma_only(compute.new({ 1 })))
compute.extra_rounds(fk, cs, -1)
t.ok(cs.rounds == 3 and compute.rows(cs)[1].unstable, "past the peaks' budget: no round past the planned three, unstable")
t.ok(table.concat(compute.notes(cs, compute.rows(cs)), "; "):find("compute round 4 was not measured: it would pass the "
  .. "compute rounds' time budget", 1, true), "and the round left out is said")
-- the compute rounds' budget is their own: a bandwidth sweep that spent all of the peaks' budget
-- (quick peaks on a slow guest) leaves the compute rounds that disagree their extra rounds
-- (quick peaks there stored compute spreads of 18-80% from three rounds, one of them slow)
fk = clock_fake(function(r) return clocks[r] end)
cs = three(fk, fma_only(compute.new({ 1 }, true, { now = function() return 1000 end, count = function() end })))
cs.spent, cs.last = 4.5, 1.5 -- three compute rounds of 1.5 s
compute.extra_rounds(fk, cs, compute.budget(true))
t.ok(cs.rounds == 5 and not compute.rows(cs)[1].unstable and not cs.cut, string.format("quick peaks whose sweep spent "
  .. "the peaks' budget (1000 s on their timer): the compute rounds that disagree still get theirs, within %d s of their "
  .. "own: %d rounds, stable", compute.budget(true), cs.rounds))
fk = clock_fake(function() return 3.5 end)
cs = three(fk, fma_only(compute.new({ 1 })))
local before = #fk.asked
compute.extra_rounds(fk, cs, 1000)
t.ok(#fk.asked == before and cs.rounds == 3, "rounds that agree: no round past the planned three")
t.is(#compute.notes(cs, compute.rows(cs)), 0, "a clock that holds: nothing said")
-- rot build: nothing measured, no clock: no ceiling, no note, the bandwidth rows' clock nil
local unmeasured = fake_rot(function(idx)
  local rows = {}
  for i = 1, #idx do rows[i] = {} end
  return { rows = rows }
end)
cs = three(unmeasured, fma_only(compute.new({ 1 })))
compute.extra_rounds(unmeasured, cs, 1000)
t.ok(#compute.rows(cs) == 0 and #compute.notes(cs, {}) == 0 and clk.top_clock(cs) == nil and cs.rounds == 3,
  "nothing measured (rot build): no compute ceiling, no note, no clock, no extra round")

-- the vector units' clock: FMA chains of each width beside the rounds, recorded per round
-- (tests/fixtures/clocks: the imul chain before/after, each chain's ns an FMA step before/after,
-- the FP64 AVX-512 FMA ceiling's value), replayed through the rounds
local theory = require "rot.machine.theory"
local function recorded_rounds(name)
  local out, cols = {}, nil
  for line in assert(sys.readfile("tests/fixtures/clocks/" .. name)):gmatch("[^\n]+") do
    if not line:match("^#") then
      local f = {}
      for x in (line .. ","):gmatch("([^,]*),") do f[#f + 1] = x end
      if not cols then cols = f else
        local r = {}
        for i, c in ipairs(cols) do r[c] = tonumber(f[i]) end
        out[r.round] = r
      end
    end
  end
  return out
end
local function replay(rec, edit)
  local function when(after) return after and "after" or "before" end
  local fk = clock_fake(function(r) return rec[r].double_avx512_fma / 32 end, function(r, after)
    return rec[r]["imul_" .. when(after)]
  end, function(r, after, class)
    return rec[r][class .. "_" .. when(after)]
  end)
  for _, r in ipairs(rec) do if edit then edit(r) end end
  local cs = three(fk, fma_only(compute.new({ 1 })))
  return cs, compute.rows(cs)[1]
end
local intel, amd = { vendor = "GenuineIntel", family = 6 }, { vendor = "AuthenticAMD", family = 25 }
-- Sapphire Rapids (reconstructed): 512-bit FMAs at a licence clock
local spr = recorded_rounds("intel-spr-reconstructed.csv")
cs, row = replay(spr)
local lat, cyc = clk.fma_latency(cs)
t.ok(lat == 4 and math.abs(cyc - 4) < 0.01, string.format("the scalar FMA chain at the imul clock: %.3f cycles, 4 whole", cyc))
local th = theory.of(row, intel)
t.ok(math.abs(row.clock - 2.7) < 1e-4 and row.clock_by == "fma" and math.abs(row.value - 85.96) < 1e-9 and math.abs(th.share - 0.9949) < 0.001,
  string.format("Sapphire Rapids: the AVX-512 FMA ceiling (85.96 GFLOP/s) against theory at its chain's clock: %.3f GHz, "
    .. "%.1f%% of 32 flops a cycle (89.7%% at the imul chain's 2.996 GHz)", row.clock, th.share * 100))
t.ok(math.abs(theory.of({ name = row.name, isa = "avx512", threads = 1, value = row.value, clock = 2.996 }, intel).share - 0.897)
  < 0.001, "and at the imul chain's clock the issue's 89.7%")
local said = table.concat(compute.notes(cs, compute.rows(cs)), "; ")
t.ok(said:find("the avx512 FMA chain ran at 2.700 GHz (median of the rounds; an FMA 4 cycles, as the scalar chain shows at "
  .. "the imul clock), 9.9% below the imul chain's clock beside it", 1, true) ~= nil, "the licence clock is said: " .. said)
t.is(clk.unit_clocks(cs), "vector units' clock (2 dependent FMA chains of each width, CPU 0, an FMA 4 cycles: the "
  .. "scalar chain took 4.00 at the imul clock) before/after each compute round: scalar 2.996/2.994, 2.990/2.996, "
  .. "2.993/2.995; avx512 2.700/2.698, 2.695/2.700, 2.698/2.699 GHz", "every chain's clock is printed, round by round")
ceilings.write_csv(path, compute.rows(cs))
t.ok(math.abs(ceilings.read_csv(path)[1].clock - 2.7) < 1e-4, "peaks.csv's clock_GHz of an AVX-512 ceiling is its units' clock")
-- a scalar chain off a whole number of cycles (the clock moved between it and its reading): the
-- imul chain's clock, said
cs, row = replay(recorded_rounds("intel-spr-reconstructed.csv"), function(r)
  r.scalar_before, r.scalar_after = r.scalar_before * 1.12, r.scalar_after * 1.12
end)
t.ok(row.clock == 2.996 and row.clock_by == "imul" and table.concat(compute.notes(cs, compute.rows(cs)), "; "):find(
  "the scalar FMA chain took 4.48 cycles an FMA at the imul chain's clock beside it (median), not a whole number", 1, true),
  "a latency of 4.48 cycles is no whole number: the imul chain's clock, said")
-- a wide chain faster than the imul clock: its FMA is quicker, not its clock higher
cs, row = replay(recorded_rounds("intel-spr-reconstructed.csv"), function(r)
  r.avx512_before, r.avx512_after = r.scalar_before * 0.8, r.scalar_after * 0.8
end)
t.ok(math.abs(row.clock - 2.996) < 1e-4 and row.clock_by == "scalar" and table.concat(compute.notes(cs, compute.rows(cs)),
  "; "):find("the avx512 FMA chain ran 25.0% faster than 4 cycles an FMA at the imul chain's clock", 1, true),
  "a wide chain 25% faster: the scalar units' clock, said")
-- scalar work: the higher of the imul readings and the scalar FMA chain's around its best round
-- (the EPYC guest here read 3.673 by the imul chain where its scalar chain read 3.689 beside it,
-- and the scalar FMA ceiling came out at 100.1% of its theory at 3.673)
cs = compute.new({ 1 })
cs.points = { { isa = compute.isa[1], prec = "double", op = "fma", threads = 1 },
  { isa = compute.isa[4], prec = "double", op = "fma", threads = 1 } }
cs = three(clock_fake(function() return 3.68 end, function(r, after) return r == 1 and not after and 3.673 or 3.6 end,
  function(r, after, class) return 4 / (r == 1 and not after and class == "scalar" and 3.689 or 3.68) end), cs)
row = compute.rows(cs)[1]
t.ok(math.abs(row.clock - 3.689) < 1e-9 and row.clock_by == "scalar" and theory.of(row, amd).share <= 1, string.format(
  "a scalar ceiling's clock is the higher of the imul (3.673) and scalar FMA chain (3.689) readings: %.3f GHz, %.1f%% of "
  .. "its theory", row.clock, theory.of(row, amd).share * 100))
-- recorded rounds without a licence clock (epyc-zen4.csv): the AVX-512 chain within 0.3% of
-- the imul clock, nothing said; one 512-bit FMA a cycle
cs, row = replay(recorded_rounds("epyc-zen4.csv"))
lat, cyc = clk.fma_latency(cs)
th = theory.of(row, amd)
said = table.concat(compute.notes(cs, compute.rows(cs)), "; ")
t.ok(lat == 4 and math.abs(cyc - 3.99) < 0.01 and row.clock_by == "fma" and math.abs(row.clock - 3.6931) < 1e-3
  and not said:find("FMA chain"), string.format("EPYC: the scalar chain %.3f cycles, the AVX-512 ceiling at its chain's "
    .. "%.3f GHz (the imul chain read 3.685/3.694 around its round), no line on it", cyc, row.clock))
t.ok(th.flops == 16 and th.share > 0.98 and th.share <= 1, string.format("EPYC: %.2f GFLOP/s = %.1f%% of 16 flops a cycle "
  .. "(8 lanes x 2 flops x one 512-bit FMA a cycle) at %.3f GHz", row.value, th.share * 100, row.clock))
-- the FMAs a core starts a cycle, as the data sheets give them
t.ok(theory.per_cycle(amd, "avx512") == 1 and theory.per_cycle(amd, "avx2") == 2 and theory.per_cycle(intel, "avx512") == 2
  and theory.per_cycle({ vendor = "AuthenticAMD", family = 26 }, "avx512") == 2 and theory.per_cycle({}, "scalar") == 2,
  "one 512-bit FMA a cycle on Zen 4 (family 25), two on Zen 5, Intel and at other widths")
-- what the peaks tell a user beyond their values (rot.machine.report)
local report = require "rot.machine.report"
-- the footer counts each reason apart: a new user's run said "5 ceilings whose best rounds still
-- disagree by more than 5%" of two DRAM ceilings at 2.1% and 0.7%, unstable for no flat tail
local unstable = {
  { name = "double_avx512_fma", kind = "compute", threads = 2, value = 90, spread = 0.09, rounds = 7, unstable = true },
  { name = "triad_L3", kind = "bandwidth", level = "L3", threads = 1, value = 102, spread = 0.55, rounds = 6, unstable = true },
  { name = "read_DRAM", kind = "bandwidth", level = "DRAM", threads = 1, value = 24.7, spread = 0.021, rounds = 3,
    unflat = true, unstable = true },
  { name = "write_DRAM", kind = "bandwidth", level = "DRAM", threads = 1, value = 23.53, spread = 0.007, rounds = 3,
    unflat = true, unstable = true },
  { name = "triad_DRAM", kind = "bandwidth", level = "DRAM", threads = 2, value = 24, spread = 0.01, rounds = 3,
    unstable = true, moved = true },
  { name = "triad_sweep", kind = "sweep", threads = 1, value = 51.4, spread = 0.55, rounds = 6, unstable = true },
  { name = "triad_L1", kind = "bandwidth", level = "L1", threads = 1, value = 380, spread = 0.01, rounds = 3 },
}
local footer = report.unstable_line(unstable)
t.ok(footer:find("UNSTABLE: 5 ceilings: 2 whose best rounds still disagree by more than 5%, 2 from DRAM's last octave "
  .. "(its sizes showed no flat tail), 1 that moved since they were stored; the points they bound say so", 1, true) == 1,
  "the unstable ceilings counted by reason, the sweep's rows aside: " .. footer)
unstable[3].spread = 0.08
t.ok(report.unstable_line(unstable):find("3 whose best rounds still disagree by more than 5%, 2 from DRAM's last octave "
  .. "(its sizes showed no flat tail), 1 that moved since they were stored (some for more than one reason)", 1, true),
  "a ceiling unstable for two reasons counts in both, and the line says so")
t.is(report.unstable_line({ unstable[7] }), nil, "no unstable ceiling: no line")

-- a compute ceiling above its theory is never printed silently: the new user's cached rerun
-- recorded double_avx2_fma at 3.646 GHz, 100.7% of 16 flops a cycle
local zen4 = { vendor = "AuthenticAMD", family = 25, flags = { avx512f = true, avx2 = true } }
local over = { name = "double_avx2_fma", kind = "compute", isa = "avx2", threads = 1, value = 58.75, clock = 3.64589,
  unit = "GFLOP/s" }
local within = { name = "double_scalar_fma", kind = "compute", isa = "scalar", threads = 1, value = 14.5, clock = 3.69,
  unit = "GFLOP/s" }
local above = report.above_theory({ over, within }, zen4)
t.ok(#above == 1 and above[1]:find("1 compute ceiling lies above its theoretical peak (double_avx2_fma, 1 thread: 58.75 "
  .. "GFLOP/s, 100.71% of 16 flops a cycle at 3.646 GHz): no ceiling can pass the peak at the clock its units ran at, so "
  .. "the clock it records was read low", 1, true) ~= nil, "a ceiling above its theory is flagged, with why it cannot be: "
  .. tostring(above[1]))
t.is(#report.above_theory({ within }, zen4), 0, "one within its theory (98.2%): nothing said")
-- a share just past 100 % is the peak within the clock readings' scatter: not flagged, and its
-- theory line says so
local at = { name = "double_avx2_add", kind = "compute", isa = "avx2", threads = 1, value = 29.52, clock = 3.6875,
  unit = "GFLOP/s", clock_by = "fma" }
t.ok(#report.above_theory({ at }, zen4) == 0 and theory.text(at, zen4):find("; the peak, within the clock readings' scatter$") ~= nil,
  "100.06% of its theory: the peak within the readings' scatter, said on its line, not flagged: " .. theory.text(at, zen4))
-- the theory line names its clock and says why that one; one lane is one lane
t.ok(theory.text(within, zen4):find("(1 lane x 2 flops x 2 a cycle) at 3.690 GHz", 1, true) ~= nil,
  "one lane, not '1 lanes': " .. theory.text(within, zen4))
within.clock_by, over.clock_by = "scalar", "fma"
t.ok(theory.text(within, zen4):find("(the scalar units' clock, the higher of the imul and scalar FMA chains' around its "
  .. "round: no licence clock slows this work)", 1, true) and theory.text(over, zen4):find("(its FMA chain's clock, not the "
  .. "imul chain's: wide vector work can run at a lower, licence clock)", 1, true),
  "each theory says in a few words why its clock is the units': " .. theory.text(over, zen4))

-- the read ceiling's line names its clock
local read = report.read_line({ { name = "read_L1", kind = "bandwidth", threads = 1, value = 217, clock = 3.69 } }, zen4)
t.ok(read:find("read L1, 1 thread: 217.0 GB/s = 58.8 bytes a cycle at 3.69 GHz (the imul chain's highest reading of the "
  .. "run, the bandwidth ceilings' clock): 46% of two 64-byte loads a cycle; 92% of two 32-byte ones", 1, true) ~= nil,
  "the read line says which clock its bytes a cycle are at: " .. read)
t.ok(not report.read_line({ { name = "read_L1", kind = "bandwidth", threads = 1, value = 217, clock = 3.69 } },
  { vendor = "GenuineIntel", family = 6, flags = { avx512f = true } }):find("halves", 1, true),
  "an Intel core loads its 64-byte vectors whole: no halves")

-- quick peaks say when they are only good for smoke tests: spreads of 90-235% (L3), and 2
-- threads' DRAM (22.7 GB/s) below the full peaks' 1 thread (23.8): the new user's quick peaks
local quick = {
  { name = "triad_L3", kind = "bandwidth", threads = 1, value = 90, spread = 2.35 },
  { name = "read_L3", kind = "bandwidth", threads = 2, value = 150, spread = 0.9 },
  { name = "triad_DRAM", kind = "bandwidth", threads = 1, value = 22.0, spread = 0.03 },
  { name = "triad_DRAM", kind = "bandwidth", threads = 2, value = 22.7, spread = 0.03 },
  { name = "triad_sweep", kind = "sweep", threads = 1, value = 90, spread = 3 },
}
local qn = report.quick_notes(quick, { { name = "triad_DRAM", kind = "bandwidth", threads = 1, value = 23.79 } })
t.ok(#qn == 2 and qn[1]:find("quick peaks: 2 ceilings spread by more than 25% between rounds (the most: triad_L3, 1 "
  .. "thread, 235%); quick peaks are for smoke tests", 1, true) and qn[2]:find("quick peaks: 2 threads' DRAM triad ceiling "
  .. "22.7 GB/s lies below the full peaks' 1-thread one, 23.8 GB/s", 1, true), "quick peaks too rough are said: "
  .. table.concat(qn, " | "))
quick[4].value = 21
t.ok(report.quick_notes(quick)[2]:find("21.0 GB/s lies below their own 1-thread one, 22.0 GB/s", 1, true),
  "without full peaks stored, against their own 1-thread DRAM")
t.is(#report.quick_notes({ quick[3], { name = "triad_DRAM", kind = "bandwidth", threads = 2, value = 40, spread = 0.02 } },
  { { name = "triad_DRAM", kind = "bandwidth", threads = 1, value = 23.79 } }), 0, "calm quick peaks: nothing said")

-- a run that measured nothing shows the stored rows: a ceiling stored unstable (it had moved)
-- that this run's rows do not mark says so; what this run found of an identical ceiling (its
-- clock's source, no flat tail) goes with the stored row
local stored_rows = {
  { name = "triad_DRAM", kind = "bandwidth", threads = 1, value = 23.79, clock = 3.69, spread = 0.01, rounds = 3, unstable = true },
  { name = "read_DRAM", kind = "bandwidth", threads = 1, value = 24.7, clock = 3.69, spread = 0.021, rounds = 3, unstable = true },
  { name = "double_avx512_fma", kind = "compute", threads = 1, value = 58.43, clock = 3.694, spread = 0.01, rounds = 3 },
}
local derived = {
  { name = "triad_DRAM", kind = "bandwidth", threads = 1, value = 23.79, clock = 3.69, spread = 0.01, rounds = 3 },
  { name = "read_DRAM", kind = "bandwidth", threads = 1, value = 24.7000001, clock = 3.69, spread = 0.021, rounds = 3,
    unflat = true, level = "DRAM", unstable = true },
  { name = "double_avx512_fma", kind = "compute", threads = 1, value = 58.43, clock = 3.694, clock_by = "fma" },
}
local shown = report.as_stored(stored_rows, derived)
t.ok(shown[3].clock_by == "fma" and shown[2].unflat and report.unstable_line(shown):find("1 from DRAM's last octave (its "
  .. "sizes showed no flat tail), 1 stored as unstable (moved since the peaks before them)", 1, true),
  "the stored rows shown with what this run found of them: " .. report.unstable_line(shown))
-- two codes (rot.machine.codes): the widest vectors at every size, -O2's narrow code from the
-- last cache's reported size up; a round's value the faster code's, the isa column which code,
-- a note when the narrow code's ceiling lies above the vectors' beyond both spreads
local codes = require "rot.machine.codes"
t.ok(#codes.measured_at(16 * MiB, 32 * MiB) == 1 and #codes.measured_at(32 * MiB, 32 * MiB) == 2 and #codes.measured_at(64 * MiB, 0) == 1
  and #codes.measured_at(128 * MiB, 0) == 2, "codes: the vectors alone below the last cache's reported size, both from it up; where none "
  .. "is reported, both from 128 MiB up")
local function coded(narrow) -- the slope's rounds as the vectors', the narrow code `narrow` times them from 768 MiB up
  local st = state(0.99, 0.98)
  for _, per in ipairs(st.samples[1]) do
    for ws, x in pairs(per) do
      x.by, x.code = {}, {}
      for r, g in pairs(x.rounds) do
        x.by[r] = { g, ws >= 768 * MiB and g * narrow or nil }
        x.rounds[r] = math.max(g, x.by[r][2] or 0)
        x.code[r] = x.by[r][2] and x.by[r][2] > g and 2 or 1
      end
    end
  end
  return st
end
local vec = bandwidth.analyse(state(0.99, 0.98), 1, rep)
local nar = bandwidth.analyse(coded(1.25), 1, rep)
local vb, nb = {}, {}
for _, r in ipairs(vec.rows) do vb[r.name] = r end
for _, r in ipairs(nar.rows) do nb[r.name] = r end
t.ok(nb.triad_DRAM.isa == "-O2 -fno-tree-vectorize" and math.abs(nb.triad_DRAM.value / vb.triad_DRAM.value - 1.25) < 1e-9
  and nb.triad_L1.isa == "-O3 -march=native" and nb.triad_L1.value == vb.triad_L1.value,
  "codes: DRAM's ceiling is the narrow code's where it streams 25% faster, its isa says so; L1's the vectors' ("
  .. tostring(nb.triad_DRAM.isa) .. ", " .. tostring(nb.triad_L1.isa) .. ")")
local said = table.concat(bandwidth.notes({ [1] = nar }, { rows = {} }), "; ")
t.ok(said:find("1 thread: code built with -O2 -fno-tree-vectorize (8- and 16-byte accesses) streams faster than with "
  .. "-O3 -march=native (the widest vectors) in the same rounds (one batch after the other): ", 1, true) and said:find(string.format(
  "triad_DRAM %.1f against %.1f GB/s (+25%%); those ceilings are the faster code's", nb.triad_DRAM.value, vb.triad_DRAM.value), 1, true),
  "codes: one line says which ceilings are the narrow code's, with both values: " .. said)
local sweep = require "rot.machine.sweep"
t.ok(sweep.bandwidth_at({ { ws = 1, gbs = 10, isa = "-O2 -fno-tree-vectorize" }, { ws = 4, gbs = 5, isa = "-O2 -fno-tree-vectorize" } }, 2).isa
  == "-O2 -fno-tree-vectorize" and sweep.bandwidth_at({ { ws = 1, gbs = 10, isa = "-O3 -march=native" },
  { ws = 4, gbs = 5, isa = "-O2 -fno-tree-vectorize" } }, 2).isa == nil,
  "codes: a working set between two sizes of the sweep has their code where they share one, none where they differ")
local slow = bandwidth.analyse(coded(0.9), 1, rep)
local sb = {}
for _, r in ipairs(slow.rows) do sb[r.name] = r end
t.ok(sb.triad_DRAM.isa == "-O3 -march=native" and sb.triad_DRAM.value == vb.triad_DRAM.value
  and not table.concat(bandwidth.notes({ [1] = slow }, { rows = {} }), "; "):find("code built with"),
  "codes: where the narrow code is slower the ceiling and its isa are the vectors', and no note says otherwise")
t.done()
