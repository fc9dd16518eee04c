-- Unit tests of rot.peaks.bandwidth: ceilings from rounds as a noisy machine gives them, on
-- recorded staircases: the best round, the rounds' spread, the unstable marking and where it
-- shows (peaks.csv, bounds, the limiter); the levels of a noisy round; the peaks' rounds through a
-- fake rot (extra rounds, the time budget, where the sweep stopped); two codes (rot.peaks.widths).
-- judges no time
-- topology: nocache
local t = require "tap"
local bandwidth = require "rot.peaks.bandwidth"
local contradictions = require "rot.peaks.contradictions"
local ceilings = require "rot.machine.ceilings"
local peaks = require "rot.peaks"
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
t.ok(math.abs(by.triad_DRAM.value - 32.9) < 1e-9 and #by.triad_DRAM.sizes == 1 and by.triad_DRAM.sizes[1] == 3072 * MiB,
  "the DRAM ceiling is the best round at the tail's sizes 4x beyond the largest cache (L3+ to "
    .. "627 MiB: 3 GiB, 32.9 GB/s; "
  .. "not 1.5 GiB's 33.1, where the tail is flat but closer to that cache): " .. by.triad_DRAM.value)
t.is(by.triad_DRAM.rounds, 3, "from three rounds")
t.ok(math.abs(by.triad_DRAM.spread - 0.25) < 0.01,
  "its spread: how far below it the third best round lies (1/0.8: 25%)")
t.ok(math.abs(by.triad_L3.spread - 1 / 0.93 + 1) < 0.01, "L3's spread 7.5%")
contradictions.notes({ [1] = a }, { rows = {} })
t.ok(by.triad_DRAM.unstable and by.triad_L3.unstable, "spreads above 5% are marked unstable")
t.ok(not by.triad_L1.unstable and by.triad_L1.spread < 0.05, "L1 (rounds within 1%) is not")
t.ok(by.read_DRAM.value > by.triad_DRAM.value, "read, write and triad DRAM from the same rounds and sizes")
local calm = bandwidth.analyse(state(0.99, 0.98), 1, rep)
contradictions.notes({ [1] = calm }, { rows = {} })
for _, r in ipairs(calm.rows) do by[r.name] = r end
t.ok(not by.triad_DRAM.unstable and by.triad_DRAM.spread < 0.05, "rounds within 2%: DRAM stable")

-- read-only DRAM below triad beyond their spreads: one line saying so, with the figures
local st = state(0.99, 0.98)
for ws, x in pairs(st.samples[1][1]) do
  if ws >= 768 * MiB then for i, g in ipairs(x.rounds) do x.rounds[i] = g / 1.3 * 0.6 end end
end
local notes = contradictions.notes({ [1] = bandwidth.analyse(st, 1, rep) }, { rows = {} })
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
local inotes = table.concat(contradictions.notes({ [1] = ia }, { rows = {} }), "; ")
for _, r in ipairs(ia.rows) do by[r.name] = r end
t.ok(by.read_L1.unstable and by.read_L1.inverted and not by.read_L2.inverted
  and inotes:find("read_L1 [%d.]+ GB/s stays below read_L2 [%d.]+ GB/s beyond their spreads") ~= nil,
  "a level's ceiling below the next level's: unstable, and said: " .. inotes)
t.ok(not table.concat(contradictions.notes({ [1] = bandwidth.analyse(state(0.99, 0.98), 1, rep) }, { rows = {} }), "; ")
  :find("stays below read_"), "a calm staircase: no level below the next")

-- a sweep that never flattens up to its end: DRAM is its last octave, unstable, and said
local climbing = state(0.99, 0.98)
for ws, x in pairs(climbing.samples[1][3]) do
  if ws >= 768 * MiB then for i, g in ipairs(x.rounds) do x.rounds[i] = g * (768 * MiB / ws) ^ 0.1 end end
end
local ca = bandwidth.analyse(climbing, 1, rep)
for _, r in ipairs(ca.rows) do by[r.name] = r end
contradictions.notes({ [1] = ca }, { rows = {} })
t.ok(by.triad_DRAM.unstable and table.concat(ca.notes, "; "):find("DRAM shows no flat tail up to 3.00 GiB"),
  "no flat tail by the sweep's end: DRAM unstable, and said")
-- and why the sweep stopped where it did, in the same line (the first round's sweep was flat
-- there, its later rounds are not; or a quarter of the memory; or its doublings ran out)
climbing.stopped = { [1] = { top = 3072 * MiB, why = "flat", from = 768 * MiB } }
local stop = table.concat(bandwidth.analyse(climbing, 1, rep).notes, "; ")
t.ok(stop:find("DRAM shows no flat tail up to 3.00 GiB: its ceiling is the fastest of the last "
  .. "octave swept, 4x beyond the "
  .. "caches (from 3.00 GiB, stored as DRAM_from: where DRAM's range begins), unstable; the sweep stopped "
  .. "doubling at 3.00 GiB because its first round's largest sizes were flat from 768 MiB; the "
    .. "best of its rounds is not",
  1, true) ~= nil,
  "a sweep that stopped short of a flat tail says why: " .. stop)
climbing.stopped[1].why = "cap"
t.ok(table.concat(bandwidth.analyse(climbing, 1, rep).notes,
  "; "):find("; the sweep stops at a quarter of the memory (",
  1, true) ~= nil, "or that a quarter of the memory bounds it")
climbing.stopped[1].why = "doublings"
t.ok(table.concat(bandwidth.analyse(climbing, 1, rep).notes,
  "; "):find("; the sweep doubled its largest size 4 times, as "
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
  and d.pinning == "0" and d.sizes and #d.sizes == 1 and d.sizes[1] == 3072 * MiB and #back.triad_L1.sizes >= 3
  and back.triad_L1.sizes[1] == 4096,
    "peaks.csv round trip: unstable, rounds, kernel, clock, date, pinning, sizes (DRAM's: "
  .. "where its ceiling is read)")
t.ok(not back.triad_L1.unstable and back.triad_L1.median, "a stable ceiling reads back stable, with its median")
t.ok(ceilings.parse_csv("name,kind,threads,value,unit,spread\ntriad_DRAM,bandwidth,1,30,GB/s,0.01\n")[1].value == 30,
  "six-column files (older, or written by hand) still read")

-- a point bounded by an unstable ceiling says so in its limiter
local lv = ceilings.levels(ceilings.read_csv(path), 1)
local _, bw = ceilings.ceilings(ceilings.read_csv(path), 1)
local b = bounds.bound({ flops = 1e6, bytes = 12e6, time = 12e6 / 30e9, gflops = 1e6 / (12e6 / 30e9) / 1e9,
  workingSet = 3072 * MiB, cacheMode = "warm" }, {}, bw, lv)
t.is(b.limiter, "DRAM bw (unstable)", "the limiter of a point bounded by an unstable ceiling says so")
t.ok(b.unstable, "and the bound carries the marking")
local b1 = bounds.bound({ flops = 1e6, bytes = 12e6, time = 12e6 / 300e9, gflops = 1e6 / (12e6 / 300e9) / 1e9,
  workingSet = 16 * 1024, cacheMode = "warm" }, {}, bw, lv)
t.is(b1.limiter, "L1 bw", "a stable ceiling's limiter is plain")
-- the code that reached a bandwidth ceiling (peaks.csv's isa) comes with the bound, and a table
-- says which ceilings narrow code reached, once each
for _, c in ipairs(bw) do if c.level == "DRAM" then c.row.isa = "-O2 -fno-tree-vectorize" end end
local bn = bounds.bound({ flops = 1e6, bytes = 12e6, time = 12e6 / 30e9, gflops = 1e6 / (12e6 / 30e9) / 1e9,
  workingSet = 3072 * MiB, cacheMode = "warm" }, {}, bw, lv)
t.is(bn.code, "-O2 -fno-tree-vectorize", "a bound carries the code that reached its bandwidth ceiling")
local lines = {}
require("rot.results.format").code_legend({ { boundCode = bn.code, ceiling = bn.ceiling },
  { boundCode = bn.code, ceiling = bn.ceiling },
  { boundCode = "-O3 -march=native", ceiling = "L1 bw" } }, { write = function(_, x) lines[#lines + 1] = x end })
t.ok(#lines == 1 and lines[1]:find("^DRAM bw, 1 thread: the ceiling's best round came from code built with %-O2 "
  .. "%-fno%-tree%-vectorize, not from the widest vectors %(%-O3 %-march=native; peaks.csv's isa%)"),
    "the table says once which ceiling narrow code reached, none for the "
  .. "vectors': " .. table.concat(lines))
t.is(bounds.bound({ flops = 0, bytes = 0, time = 1e-3, workingSet = 16 * 1024, cacheMode = "warm" },
  { { gflops = 50, label = "fma" } }, bw, lv), nil,
    "a point that declares no work has no bound (no 'compute' limiter for 0/0)")
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
    c[1] .. " thread(s), recorded rounds: DRAM from the flat tail beyond 512 MiB (" .. (got.triad_DRAM
      and got.triad_DRAM.value or "-") .. " GB/s)")
  t.ok(got.L1_effective and got.L1_effective.value > 32 * 1024 and got.L1_effective.value < 128 * 1024
    and got.triad_L1.value > 400,
    c[1] .. " thread(s): L1 is the first plateau (one fast small sample is no level of its own)")
end

-- recorded rounds of both codes on a machine that uses the L3 it reports beyond that L3's size
-- (tests/fixtures/staircase/xeon-kvm-rounds.csv, its header says where): DRAM's tail is flat from
-- close to that cache, where the first round ran faster than every other round there and beyond,
-- the L3 still helping; DRAM is read 4x beyond the largest cache
local xeon = { samples = { [1] = { {}, {}, {} }, [2] = { {}, {}, {} } }, final = true }
for line in assert(sys.readfile("tests/fixtures/staircase/xeon-kvm-rounds.csv")):gmatch("[^\n]+") do
  local sn, th, ws, r, code, g = line:match("^(%a+),(%d+),(%d+),(%d+),(%d),([%d.]+)$")
  if sn then
    ws, r, code, g = tonumber(ws), tonumber(r), tonumber(code), tonumber(g)
    local per = xeon.samples[tonumber(th)][si[sn]]
    per[ws] = per[ws] or { ws = ws, rounds = {}, by = {}, code = {} }
    local x = per[ws]
    x.by[r] = x.by[r] or {}
    x.by[r][code] = g
    if not x.rounds[r] or g > x.rounds[r] then x.rounds[r], x.code[r] = g, code end
  end
end
local function best_at(th, ws) -- triad's best round at one size
  local best = 0
  for _, g in pairs(xeon.samples[th][3][ws].rounds) do best = math.max(best, g) end
  return best
end
for _, c in ipairs({ { 1, { { name = "L1", size = 48 * 1024 }, { name = "L2", size = 2 * MiB },
  { name = "L3", size = 480 * MiB } },
  4096 * MiB, 1024 * MiB }, { 2, { { name = "L1", size = 96 * 1024 }, { name = "L2", size = 4 * MiB },
    { name = "L3", size = 480 * MiB } },
  2048 * MiB, 512 * MiB } }) do
  local xa = bandwidth.analyse(xeon, c[1], c[2])
  local got, tail = {}, xa.levels[#xa.levels]
  for _, r in ipairs(xa.rows) do got[r.name] = r end
  local d = got.triad_DRAM
  t.ok(d and #d.sizes == 1 and d.sizes[1] == c[3] and d.value == best_at(c[1], c[3]) and tail.sizes[1] <= c[4]
    and best_at(c[1], c[4]) > 1.02 * d.value,
      string.format("xeon, %s: DRAM's tail is flat from %s, its ceiling read at %s "
    .. "(4x beyond the L3s: %.2f GB/s), not at %s (%.2f GB/s, the L3 still helping)", util.count(c[1], "thread"),
    util.bytes(tail.sizes[1]), util.bytes(c[3]), d and d.value or 0, util.bytes(c[4]), best_at(c[1], c[4])))
  t.ok(got.DRAM_from and got.DRAM_from.value == c[3] and got.read_DRAM.sizes[1] == c[3],
    "xeon, " .. util.count(c[1], "thread")
      .. ": DRAM's range (DRAM_from) begins where its ceilings, read's too, are read: "
    .. util.bytes(got.DRAM_from and got.DRAM_from.value or 0))
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
  return bounds.bound({ flops = ws / 12, bytes = ws, time = secs, gflops = ws / 12 / secs / 1e9,
    workingSet = ws }, {}, gbw, glv, 0.02)
end
local b100 = gap_bound(100 * MiB)
t.ok(b100.limiter == "L3-DRAM bw" and b100.level == "L3-DRAM" and math.abs(b100.fraction - 40 / 99) < 1e-9,
  "a point in the step says so (" .. b100.limiter .. "), bounded by L3's ceiling, the most it can see ("
    .. b100.fraction .. ")")
t.ok(gap_bound(16 * MiB).limiter == "L3 bw" and gap_bound(1024 * MiB).limiter == "DRAM bw",
  "inside L3 and in DRAM: their own names")
local why = bounds.why_above({ ceiling = b100.ceiling, boundUnstable = true, level = "L3-DRAM",
  workingSet = 100 * MiB }, glv)
t.ok(why:find("^the L3 bw ceiling is unstable"),
  "above its bound in the step: the ceiling named is L3's, which exists: " .. why)
why = bounds.why_above({ ceiling = "DRAM write bw", cacheMode = "cold", level = "DRAM", workingSet = MiB }, glv)
t.ok(why:find("^the DRAM write bw ceiling is the rate of a stream from") and why:find("1.00 MiB", 1, true)
  and why:find("written back after the timed run", 1, true),
  "a cold point far short of DRAM's tail above its DRAM ceiling: the sizes are named as the reason: " .. why)
why = bounds.why_above({ ceiling = "DRAM read bw", cacheMode = "cold", level = "DRAM",
  workingSet = MiB, bytesDeclared = 8,
  bytesWritten = 0 }, glv)
t.ok(why:find("short burst, which can outrun it$"),
  "a read-only one stores nothing: nothing said of write-backs: " .. why)
local rot = require "rot"
local gapfile = os.tmpname()
sys.writefile(gapfile, "name,kind,threads,value,unit,spread\nL3_effective,size,1,38000000,B,\n" ..
  "DRAM_from,size,1,805306368,B,\ntriad_L3,bandwidth,1,99,GB/s,0.01\ntriad_DRAM,bandwidth,1,33,GB/s,0.01\n")
rot.set("peaksFile", gapfile)
t.ok(rot.dram_from(1) == 805306368 and rot.llc(1) == 38000000,
  "rot.dram_from: where DRAM's tail begins, past 4x the last cache, so sweeps to DRAM reach it ("
    .. tostring(rot.dram_from(1)) .. ")")
t.is(rot.dram_sweep(1), math.min(805306368, require("rot.machine").sweep_cap()),
  "rot.dram_sweep: on to DRAM's tail, within a quarter of the memory")
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
t.is(table.concat(names, ", "), "L1 316, L2 157, L3 93, DRAM 29",
  "a noisy round's levels: L1, L2 and L3 plateaus, DRAM's tail")
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
    rows[#rows + 1] = { gbs = g, workingSet = ws, bytes = ws, entry = { meta = {},
      runs = { { ns = ws / g, reps = 1 } } } }
  end
  return setmetatable({ rows = rows }, { __index = { ok = function(self) return self.rows end } })
end, { runs = 5, maxRuns = 40, progress = "never" })
local between = {}
local an, swept, said = bandwidth.measure(fake, { 1, 2 }, true, nil, function()
  between[#between + 1] = fake.vals.runs .. "/" .. fake.vals.maxRuns
end)
t.ok(asked.unroll[4] and not asked.unroll[1], "the sweeps' kernels are unrolled (STREAM_UNROLL=4): a loop's overhead "
  .. "is no cache's limit")
t.is(table.concat(between, ", "), "5/40",
  "between the sweep and the later rounds, once, under the caller's run settings")
t.ok(fake.vals.runs == 5 and fake.vals.maxRuns == 40, "and the caller's settings back after the rounds")
t.ok(asked[1][4096] and asked[1][4096] >= 2 and asked[1][262144] >= 2,
  "1 thread, no level after round 1: later rounds at every size of its sweep, the smallest too")
local function latest(tc)
  local m = 0
  for _, r in pairs(asked[tc]) do m = math.max(m, r) end
  return m
end
t.ok(asked[2][4096] == 2 and latest(2) == 2,
  "2 threads, levels found at once and calm: the planned rounds (2 quick), no more")
local got = {}
for _, r in ipairs(an[1] and an[1].rows or {}) do got[r.name] = r end
t.ok(got.L1_effective and got.L2_effective and got.triad_L1 and got.triad_L1.value > 300 and got.triad_DRAM,
  "1 thread: its cache levels found from the later rounds (" .. table.concat(said, "; ") .. ")")
t.is(latest(1), 3, "1 thread: its noisy round asks for the extra round (3, quick)")
t.ok(swept.stopped[2].why == "flat" and swept.stopped[2].top == 256 * MiB and swept.stopped[2].from == 32 * MiB,
  string.format("the first round's sweep of 2 threads stopped at 256 MiB (quick) for a tail "
    .. "flat from 32 MiB: %s at %s, "
    .. "from %s", swept.stopped[2].why, util.bytes(swept.stopped[2].top), util.bytes(swept.stopped[2].from or 0)))

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

-- two codes (rot.peaks.widths): the widest vectors at every size, -O2's narrow code from the
-- last cache's reported size up; a round's value the faster code's, the isa column which code,
-- a note when the narrow code's ceiling lies above the vectors' beyond both spreads
local codes = require "rot.peaks.widths"
t.ok(#codes.measured_at(16 * MiB, 32 * MiB) == 1 and #codes.measured_at(32 * MiB, 32 * MiB) == 2
  and #codes.measured_at(64 * MiB, 0) == 1
  and #codes.measured_at(128 * MiB, 0) == 2,
    "codes: the vectors alone below the last cache's reported size, both from it up; where none "
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
local nv = nb.triad_DRAM.narrow and nb.triad_DRAM.narrow.vector or 0 -- the vectors' at the same sizes
t.ok(nb.triad_DRAM.isa == "-O2 -fno-tree-vectorize" and math.abs(nb.triad_DRAM.value / nv - 1.25) < 1e-9
  and nb.triad_L1.isa == "-O3 -march=native" and nb.triad_L1.value == vb.triad_L1.value,
  "codes: DRAM's ceiling is the narrow code's where it streams 25% faster, its isa says so; L1's the vectors' ("
  .. tostring(nb.triad_DRAM.isa) .. ", " .. tostring(nb.triad_L1.isa) .. ")")
local said = table.concat(contradictions.notes({ [1] = nar }, { rows = {} }), "; ")
t.ok(said:find("1 thread: code built with -O2 -fno-tree-vectorize (8- and 16-byte accesses) streams faster than with "
  .. "-O3 -march=native (the widest vectors) in the same rounds (one batch after the other): ", 1, true)
    and said:find(string.format(
  "triad_DRAM %.1f against %.1f GB/s (+25%%); those ceilings are the faster code's", nb.triad_DRAM.value, nv), 1, true),
  "codes: one line says which ceilings are the narrow code's, with both values: " .. said)
local sweep = require "rot.machine.sweep"
t.ok(sweep.bandwidth_at({ { ws = 1, gbs = 10, isa = "-O2 -fno-tree-vectorize" }, { ws = 4, gbs = 5,
  isa = "-O2 -fno-tree-vectorize" } }, 2).isa
  == "-O2 -fno-tree-vectorize" and sweep.bandwidth_at({ { ws = 1, gbs = 10, isa = "-O3 -march=native" },
  { ws = 4, gbs = 5, isa = "-O2 -fno-tree-vectorize" } }, 2).isa == nil,
  "codes: a working set between two sizes of the sweep has their code where they share one, none where they differ")
local slow = bandwidth.analyse(coded(0.9), 1, rep)
local sb = {}
for _, r in ipairs(slow.rows) do sb[r.name] = r end
t.ok(sb.triad_DRAM.isa == "-O3 -march=native" and sb.triad_DRAM.value == vb.triad_DRAM.value
  and not table.concat(contradictions.notes({ [1] = slow }, { rows = {} }), "; "):find("code built with"),
  "codes: where the narrow code is slower the ceiling and its isa are the vectors', and no note says otherwise")
t.done()
