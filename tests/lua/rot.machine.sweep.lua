-- Where the peaks' sweep falls from one level's ceiling to the next's (a transition: a cache's
-- falling edge on either side of its effective size, and the step from the last cache to DRAM's
-- range), a point is bounded by what the sweep measured at its working set: on a sharp step
-- with a plateau short of DRAM (an Intel guest's figures, reconstructed), on a gradual fall (an
-- AMD EPYC guest's rounds, recorded), and on another recorded run (L3's
-- falling edge, DRAM without a flat tail, two triad variants above DRAM's ceiling and why); the
-- sweep stored with the peaks, read back, and its absence said; the transitions drawn.
-- topology: epyc-kvm
local t = require "tap"
local sys = require "rot.sys"
local util = require "rot.util"
local bandwidth = require "rot.peaks.bandwidth"
local contradictions = require "rot.peaks.contradictions"
local ceilings = require "rot.machine.ceilings"
local sweep = require "rot.machine.sweep"
local bounds = require "rot.results.bounds"

local KiB, MiB = 1024, 1024 * 1024
local tmp = os.getenv("ROT_TEST_TMP") or error("ROT_TEST_TMP is not set")

-- peaks rows of one analysis, written to peaks.csv and read back (as every bound reads them)
local function stored(rows, name)
  local path = tmp .. "/" .. name .. ".csv"
  ceilings.write_csv(path, rows)
  return ceilings.read_csv(path), path
end

-- a triad point of working set ws at gbs GB/s (2 flops, 24 bytes an element), traffic: nil
-- (triad's), "read" or "write"
local function point(ws, gbs, traffic, threads)
  local secs = ws / (gbs * 1e9)
  local flops = ws / 12
  return { workingSet = ws, bytes = ws, flops = flops, time = secs, gflops = flops / secs / 1e9, spread = 0.01,
    threads = threads or 1, bytesDeclared = ws, bytesWritten = traffic == "read" and 0 or traffic == "write"
      and ws or ws / 3 }
end

--[[ an Intel guest (tests/fixtures/staircase/spr-step.csv, reconstructed):
  L3's plateau 31.2 GB/s, bandwidth dropping at about 78 MiB, DRAM's flat tail from 512 MiB at
  13.33, its range (where its ceiling is read: 4x beyond the reported 260 MiB L3) from 2 GiB, the
  step's sizes at DRAM's speed (13.7-14.2 GB/s); the shipped triad measured 13.7-14.2 GB/s at
  96, 192 and 384 MiB, 44-45 % of L3's ceiling ]]
local spr = { samples = { [1] = { {}, {}, {} } }, final = true }
for line in assert(sys.readfile("tests/fixtures/staircase/spr-step.csv")):gmatch("[^\n]+") do
  local ws, g = line:match("^triad,1,(%d+),([%d.]+),")
  if ws then
    ws = math.tointeger(tonumber(ws))
    spr.samples[1][3][ws] = { ws = ws, rounds = { tonumber(g) } }
  end
end
local sa = bandwidth.analyse(spr, 1, { { name = "L1", size = 48 * KiB }, { name = "L2", size = 2 * MiB },
  { name = "L3", size = 260 * MiB } })
local srows = stored(sa.rows, "spr")
local sc = ceilings.for_threads(srows, 1)
local lv = sc.levels
t.ok(lv[3].name == "L3" and lv[3].size > 70 * MiB and lv[3].size < 90 * MiB and sa.levels[4].tail == 512 * MiB
  and lv[4].from == 2048 * MiB,
    string.format("Intel guest (reconstructed): L3 drops at %s, DRAM's flat tail from %s, as "
  .. "reported (78 MiB, 512 MiB), its range from %s (4x beyond the reported 260 MiB L3)", util.bytes(lv[3].size),
  util.bytes(sa.levels[4].tail or 0), util.bytes(lv[4].from or 0)))
t.is(table.concat(sa.step, " "), table.concat({ 48 * KiB, 2 * MiB, 3 * MiB, 96 * MiB, 128 * MiB,
  192 * MiB, 256 * MiB, 512 * MiB,
  1024 * MiB }, " "),
    "the sizes where the sweep falls between levels: L1's edge (48 KiB), L2's (2 and 3 MiB), the step "
  .. "from 96 MiB to DRAM's range")
t.ok(sc.sweep and sc.sweep.triad and #sc.sweep.triad == #util.sorted_keys(spr.samples[1][3]),
  "the sweep is stored with the peaks and read back: every size swept, triad's")
for _, ws in ipairs({ 96, 192, 384 }) do
  for _, gbs in ipairs({ 13.7, 14.2 }) do
    local b = bounds.of(point(ws * MiB, gbs), sc, 0.02)
    local want = sweep.bandwidth_at(sc.sweep.triad, ws * MiB).gbs
    t.ok(b.limiter == "L3-DRAM bw" and b.level == "L3-DRAM" and b.fraction >= 0.95 and b.fraction <= 1.05
      and math.abs(b.bound * 12 - want) < 1e-9,
      string.format("triad at %d MiB, %.1f GB/s: %s, %.0f%% of the %.2f GB/s the sweep measured "
        .. "there (L3's ceiling: %.0f%%)",
        ws, gbs, b.limiter, b.fraction * 100, b.bound * 12, gbs / 31.2 * 100))
  end
end
-- L2's falling edge: 2 MiB lies short of L2's effective size (2.29 MiB), where the sweep already fell to 90 GB/s
local edge = bounds.of(point(2 * MiB, 85), sc, 0.02)
t.ok(edge.level == "L2" and edge.limiter == "L2-L3 bw" and math.abs(edge.bound * 12 - 90) < 1e-9
  and edge.fraction > 0.9,
  string.format("triad at 2 MiB, 85 GB/s, on L2's falling edge (its data in %s): %s, %.0f%% of the "
    .. "sweep's %.0f GB/s there "
    .. "(L2's ceiling: %.0f%%)", edge.level, edge.limiter, edge.fraction * 100, edge.bound * 12, 85 / 150 * 100))
local dram = bounds.of(point(2048 * MiB, 13.6), sc, 0.02)
t.ok(dram.limiter == "DRAM bw" and dram.fraction > 1 and dram.fraction < 1.03, string.format(
  "in DRAM's range its ceiling bounds (2 GiB at 102%% of 13.30 GB/s: %.0f%% of %.2f, each point's fastest run)",
  dram.fraction * 100, dram.bound * 12))
local tail = bounds.of(point(768 * MiB, 13.37), sc, 0.02)
t.ok(tail.limiter == "L3-DRAM bw" and tail.fraction > 0.99 and tail.fraction < 1.01,
  string.format("on DRAM's flat tail "
  .. "short of its range, the sweep bounds (768 MiB at %.0f%% of the %.2f GB/s it measured there, not DRAM's 13.30)",
  tail.fraction * 100, tail.bound * 12))
-- an older file: no sweep; today's rule (L3's ceiling, the most it can see) and it says so
local old = {}
for _, r in ipairs(srows) do if r.kind ~= "sweep" then old[#old + 1] = r end end
local oc = ceilings.for_threads(old, 1)
local ob = bounds.of(point(96 * MiB, 14.2), oc, 0.02)
t.ok(oc.sweep == nil and ob.limiter == "L3-DRAM bw" and math.abs(ob.fraction - 14.2 / 31.2) < 1e-9 and ob.step_fallback,
  string.format("peaks without a sweep (an older rot's): the step bounded by L3's ceiling as before (%.0f%%), marked",
    ob.fraction * 100))

--[[ the AMD EPYC guest (tests/fixtures/staircase/epyc-step-rounds.csv, recorded): a gradual
  fall past L3, 1 thread; read, write and triad ]]
-- the samples of a recorded peaks run's rounds (stream,threads,workingSet,round,GBs), as bandwidth.analyse reads them
local function recorded(file)
  local st, si = { samples = { [1] = { {}, {}, {} }, [2] = { {}, {}, {} } }, final = true }, { read = 1,
    write = 2, triad = 3 }
  for line in assert(sys.readfile(file)):gmatch("[^\n]+") do
    local sn, th, ws, r, g = line:match("^(%a+),(%d+),(%d+),(%d+),([%d.e+-]+)$")
    if sn then
      local per = st.samples[tonumber(th)][si[sn]]
      ws = math.tointeger(tonumber(ws))
      per[ws] = per[ws] or { ws = ws, rounds = {} }
      per[ws].rounds[tonumber(r)] = tonumber(g)
    end
  end
  return st
end
local amd = recorded("tests/fixtures/staircase/epyc-step-rounds.csv")
local rep = { [1] = { { name = "L1", size = 32 * KiB }, { name = "L2", size = MiB }, { name = "L3", size = 32 * MiB } },
  [2] = { { name = "L1", size = 64 * KiB }, { name = "L2", size = 2 * MiB }, { name = "L3", size = 32 * MiB } } }
local arows = {}
for th = 1, 2 do
  for _, r in ipairs(bandwidth.analyse(amd, th, rep[th]).rows) do arows[#arows + 1] = r end
end
local ac = ceilings.for_threads(stored(arows, "amd"), 1)
local a1 = bandwidth.analyse(amd, 1, rep[1])
local l3 = {} -- the sizes where the sweep falls from L3's plateau to DRAM
for _, ws in ipairs(a1.step) do if ws > 8 * MiB then l3[#l3 + 1] = ws end end
t.ok(#l3 >= 6 and l3[1] == 12 * MiB and l3[1] < ac.levels[3].size and l3[#l3] < ac.levels[4].from, string.format(
  "EPYC guest (recorded), 1 thread: L3's plateau ends at 8 MiB; the sweep falls through %d sizes (%s, short of L3's "
  .. "effective %s: its falling edge, to %s) before DRAM's range at %s", #l3, util.bytes(l3[1] or 0),
  util.bytes(ac.levels[3].size), util.bytes(l3[#l3] or 0), util.bytes(ac.levels[4].from or 0)))
local prev, falls = math.huge, true
for _, ws in ipairs(l3) do
  local g = sweep.bandwidth_at(ac.sweep.triad, ws).gbs
  falls = falls and g < prev and g > ac.bandwidth[4].gbs
  prev = g
end
t.ok(falls, "its sweep falls size by size through the step, above DRAM's ceiling: a gradual fall")
for _, ws in ipairs(l3) do
  local g = sweep.bandwidth_at(ac.sweep.triad, ws).gbs
  local b = bounds.of(point(ws, g * 0.97), ac, 0.02)
  t.ok(b.limiter:match("^L3%-DRAM bw") and math.abs(b.fraction - 0.97) < 1e-9, string.format(
    "triad at %s, 97%% of the sweep's %.1f GB/s there: %s, %.0f%% of its bound (L3's ceiling %.1f: %.0f%%)",
      util.bytes(ws), g,
    b.limiter, b.fraction * 100, ac.bandwidth[3].gbs, g * 0.97 / ac.bandwidth[3].gbs * 100))
end
local mid = (l3[2] + l3[3]) // 2
local lo, hi = sweep.bandwidth_at(ac.sweep.triad, l3[2]).gbs, sweep.bandwidth_at(ac.sweep.triad, l3[3]).gbs
local want = lo + (hi - lo) * math.log(mid / l3[2]) / math.log(l3[3] / l3[2])
local bm = bounds.of(point(mid, 20), ac, 0.02)
t.ok(math.abs(bm.bound * 12 - want) < 1e-9 and bm.bound * 12 < lo and bm.bound * 12 > hi, string.format(
  "between two sizes swept (%s): interpolated in log size, %.2f GB/s between %.2f and %.2f",
    util.bytes(mid), bm.bound * 12, lo, hi))
local rb = bounds.of(point(48 * MiB, 20, "read"), ac, 0.02)
local wb = bounds.of(point(48 * MiB, 20, "write"), ac, 0.02)
t.ok(rb.limiter:match("^L3%-DRAM read bw") and math.abs(rb.bound - 20 / 20 * sweep.bandwidth_at(ac.sweep.read,
  48 * MiB).gbs / 12) < 1e-9
  and wb.limiter:match("^L3%-DRAM write bw")
    and math.abs(wb.bound * 12 - sweep.bandwidth_at(ac.sweep.write, 48 * MiB).gbs) < 1e-9,
  string.format("read-only and write-only traffic at 48 MiB: the read and write sweeps (%s, %.1f GB/s; %s, %.1f GB/s)",
    rb.limiter, rb.bound * 12, wb.limiter, wb.bound * 12))
-- each family's sweep and ceilings say where it falls: at 12 MiB the write sweep is still on L3's plateau
local w12 = bounds.of(point(12 * MiB, 20, "write"), ac, 0.02)
local t12 = bounds.of(point(12 * MiB, 20), ac, 0.02)
t.ok(w12.limiter == "L3 write bw" and t12.limiter:match("^L3%-DRAM bw"), string.format("12 MiB: write-only traffic on "
  .. "the write sweep's plateau (%s, %.1f GB/s), triad's past its own (%s, %.1f GB/s)", w12.limiter, w12.bound * 12,
  t12.limiter, t12.bound * 12))
local c2 = ceilings.for_threads(stored(arows, "amd2"), 2)
local b2, e2, s2 = bounds.of(point(48 * MiB, 40, nil, 2), c2, 0.02), bounds.of(point(24 * MiB, 40, nil, 2), c2, 0.02),
  bounds.of(point(96 * MiB, 30, nil, 2), c2, 0.02)
t.ok(b2.limiter:match("^L3%+ bw") and e2.limiter:match("^L3%-L3%+ bw") and s2.limiter:match("^L3%+%-DRAM bw"),
  string.format("2 threads: their own levels (an unreported L3+ to 105 MiB): 48 MiB on its plateau (%s), 24 MiB on "
    .. "L3's falling edge (%s), "
  .. "96 MiB in the step to DRAM (%s)", b2.limiter, e2.limiter, s2.limiter))
-- the falling edge short of an effective size, as a recorded run has it: 24 MiB (L3's effective size: 29.9 MiB) and
-- L1's 32 KiB
local f24, f32 = bounds.of(point(24 * MiB, 45), ac, 0.02), bounds.of(point(32 * KiB, 230), ac, 0.02)
local s24 = sweep.bandwidth_at(ac.sweep.triad, 24 * MiB)
t.ok(f24.level == "L3" and f24.limiter == "L3-DRAM bw" .. (s24.unstable and " (unstable)" or "")
  and math.abs(f24.bound * 12 - s24.gbs) < 1e-9 and f32.level == "L1" and f32.limiter:match("^L1%-L2 bw")
  and math.abs(f32.bound * 12 - sweep.bandwidth_at(ac.sweep.triad, 32 * KiB).gbs) < 1e-9,
    string.format("falling edges short of "
  .. "the effective size: 24 MiB in L3, %s, %.0f%% of the sweep's %.1f GB/s there (of L3's ceiling: %.0f%%); 32 KiB in "
  .. "L1, %s, %.1f GB/s", f24.limiter, f24.fraction * 100, s24.gbs, 45 / ac.bandwidth[3].gbs * 100,
    f32.limiter, f32.bound * 12))
-- the sweep's marking: a size whose rounds disagree by more than 5 % says so in the limiter
local shaky
for _, x in ipairs(ac.sweep.triad) do if x.ws == l3[1] then shaky = x end end
local bs = bounds.of(point(l3[1], 20), ac, 0.02)
t.ok((bs.limiter:find("(unstable)", 1, true) ~= nil) == (shaky.unstable == true), string.format(
  "a step size whose rounds disagree by %.0f%%: '%s'", shaky.spread * 100, bs.limiter))

-- the bound stays between DRAM's ceiling and the cache's: a sweep round that ran slow in the step
-- says nothing lower than DRAM's ceiling, and nothing bounds it above the cache's
local clamp = {}
for _, r in ipairs(srows) do
  local c = {}
  for k, v in pairs(r) do c[k] = v end
  if c.kind == "sweep" and c.sizes[1] == 128 * MiB then c.value = 9 end
  if c.kind == "sweep" and c.sizes[1] == 96 * MiB then c.value = 40 end
  clamp[#clamp + 1] = c
end
local cc = ceilings.for_threads(clamp, 1)
local low, high = bounds.of(point(128 * MiB, 13), cc, 0.02), bounds.of(point(96 * MiB, 13), cc, 0.02)
t.ok(math.abs(low.bound * 12 - cc.bandwidth[4].gbs) < 1e-9 and math.abs(high.bound * 12 - cc.bandwidth[3].gbs) < 1e-9,
  string.format("a sweep value below DRAM's ceiling bounds at DRAM's (%.2f GB/s), one above the "
    .. "cache's at the cache's (%.1f)",
    low.bound * 12, high.bound * 12))

--[[ a recorded run (tests/fixtures/staircase/epyc-review-rounds.csv and epyc-review-triad.csv):
  L3's falling edge short of its effective size (26.1 MiB), DRAM without a flat tail to 512 MiB, and the
  triad script's -O2 points above DRAM's ceiling while its -O3 points at the same sizes lie within it ]]
local rv = recorded("tests/fixtures/staircase/epyc-review-rounds.csv")
local ran, rrows = {}, {}
for th = 1, 2 do
  ran[th] = bandwidth.analyse(rv, th, rep[th])
  for _, r in ipairs(ran[th].rows) do rrows[#rrows + 1] = r end
end
contradictions.notes(ran, rv) -- marks the unstable ceilings, as rot measure peaks stores them
local rpath
rrows, rpath = stored(rrows, "review")
local rc = ceilings.for_threads(rrows, 1)
local tail, dram_best = nil, 0
for _, n in ipairs(ran[1].notes) do tail = tail or n:match("^1 thread: DRAM shows no flat tail.*") end
for _, ws in ipairs({ 192 * MiB, 256 * MiB, 512 * MiB }) do
  dram_best = math.max(dram_best, sweep.bandwidth_at(rc.sweep.triad, ws).gbs)
end
t.ok(rc.levels[3].size > 26 * MiB and rc.levels[3].size < 26.2 * MiB and rc.levels[4].from == 192 * MiB and tail
  and tail:find("up to 512 MiB", 1, true) and tail:find("from 192 MiB, stored as DRAM_from", 1, true), string.format(
  "review-1, 1 thread: L3 effective %s; DRAM_from %s is where the note says DRAM's range begins: '%s'",
  util.bytes(rc.levels[3].size), util.bytes(rc.levels[4].from or 0), tail or "no note"))
t.ok(math.abs(rc.bandwidth[4].gbs - dram_best) < 1e-9 and rc.bandwidth[4].unstable, string.format("its DRAM ceiling "
  .. "(no flat tail) is the fastest round at DRAM's own sizes, %.2f GB/s (a per-round median gave 23.79, under the "
  .. "26.32 the same run measured at 192 MiB), marked unstable", rc.bandwidth[4].gbs))
local vrows = {}
for line in assert(sys.readfile("tests/fixtures/staircase/epyc-review-triad.csv")):gmatch("[^\n]+") do
  local fl, n, g, sp = line:match("^(%-O[^,]+),(%d+),([%d.]+),([%d.e-]+)$")
  if fl then
    local p = point(24 * tonumber(n), tonumber(g))
    p.spread, p.point, p.desc = tonumber(sp), { flags = fl, n = tonumber(n) }, { workloads = { { kernel = "triad" } } }
    local b = bounds.of(p, rc, 0.02)
    p.bound, p.limiter, p.fraction, p.level, p.ceiling = b.bound, b.limiter, b.fraction, b.level, b.ceiling
    p.above, p.boundUnstable, p.stepBound = b.above, b.unstable, b.step
    vrows[#vrows + 1] = p
  end
end
local function at(fl, ws)
  for _, p in ipairs(vrows) do if p.point.flags:sub(1, 3) == fl and p.workingSet == ws then return p end end
end
local o12, o24 = at("-O3", 12 * MiB), at("-O3", 24 * MiB)
t.ok(o12.limiter == "L3-DRAM bw (unstable)" and math.abs(o12.bound * 12 - 75.32) < 0.01
  and o24.limiter == "L3-DRAM bw (unstable)"
  and math.abs(o24.bound * 12 - 51.44) < 0.01 and o24.fraction > 0.8 and o24.fraction < 0.82
    and not o12.above, string.format("-O3 on L3's falling edge: 12 MiB at %.0f%% of the sweep's 75.3 GB/s, "
  .. "24 MiB at %.0f%% of its 51.4 (rounds 55%% apart: %s); L3's plateau (102 GB/s) said 79%% and 41%%",
  o12.fraction * 100, o24.fraction * 100, o24.limiter))
local above = {}
for _, p in ipairs(vrows) do
  if p.above then above[#above + 1] = util.bytes(p.workingSet) .. " " .. p.point.flags:sub(1, 3) end
end
t.is(table.concat(above, ", "), "96.0 MiB -O2, 192 MiB -O2", "above their bound: the -O2 points at 96 and 192 MiB only")
local o96, o192 = at("-O2", 96 * MiB), at("-O2", 192 * MiB)
local w96, w192 = bounds.why_above(o96, rc.levels, nil, vrows), bounds.why_above(o192, rc.levels, nil, vrows)
t.ok(w96:find("^the L3%-DRAM bw ceiling %(what the peaks' sweep measured at this working set%) is unstable")
  and w96:find("point (flags=-O3 -march=native n=4194304) at the same working set lies within it (94%)", 1, true)
  and w192:find("^the DRAM bw ceiling is unstable") and w192:find("lies within it (89%)", 1, true)
  and not (w96 .. w192):find("attribution", 1, true),
    "the warning names the unstable ceiling first, with -O3's point at "
  .. "the same working set within it (not a wrong level: 192 MiB is DRAM_from, where rot says DRAM begins): " .. w192)
-- without DRAM_from (a file written by hand): rot's own rule, 4x the last cache (128 MiB), says where DRAM begins
local bare = {}
for _, r in ipairs(rrows) do if r.kind ~= "sweep" and r.name ~= "DRAM_from" then bare[#bare + 1] = r end end
local bc = ceilings.for_threads(bare, 1)
local q96, q96b = at("-O2", 96 * MiB), at("-O3", 96 * MiB)
for _, p in ipairs({ q96, q96b }) do
  local b = bounds.of(p, bc, 0.02)
  p.limiter, p.fraction, p.ceiling, p.above, p.boundUnstable, p.stepBound = b.limiter, b.fraction, b.ceiling,
    b.above, b.unstable, b.step
end
local alone, both = bounds.why_above(q96, bc.levels, nil, { q96 }), bounds.why_above(q96, bc.levels, nil, { q96, q96b })
t.ok(q96.limiter == "DRAM bw (unstable)" and q96.above and alone:find("short of where rot takes DRAM to begin, 4x the "
  .. "larger of the L3's effective and reported sizes (128 MiB)", 1, true) and alone:find("also unstable$")
  and both:find("^the DRAM bw ceiling is unstable"), "no DRAM_from: 96 MiB in DRAM short of 4x L3, alone: '" .. alone
  .. "'; beside -O3 within the ceiling, the unstable ceiling first")
-- just past L2's effective size (877 KiB), at 1 MiB, L3's ceiling bounds; a point there at 117 % of it is not "part
-- of it
-- still hits L2" when the peaks' sweep at 1 MiB ran within that ceiling (it met the same levels there)
local m1 = point(MiB, 120)
local b1 = bounds.of(m1, rc, 0.02)
m1.limiter, m1.fraction, m1.ceiling, m1.above, m1.boundUnstable, m1.sweptOver = b1.limiter, b1.fraction,
  b1.ceiling, b1.above,
  b1.unstable, b1.swept
local w1 = bounds.why_above(m1, rc.levels, nil, { m1 })
t.ok(b1.limiter == "L3 bw" and b1.above and b1.swept <= 1
  and w1:find("^the L3 bw ceiling is probably low: its rounds ran slower"),
  string.format("1 MiB above L3's ceiling (%.0f%%), the sweep there at %.0f%% of it: the ceiling "
    .. "named low, not the level: %s",
    b1.fraction * 100, b1.swept * 100, w1))
-- through a results object, as a run warns: the run's other points are what the warning weighs
local rot0 = require "rot"
rot0.set("peaksFile", rpath)
local rres = {}
for _, p in ipairs(vrows) do
  local c = {}
  for k, v in pairs(p) do c[k] = v end
  c.entry, c.intensity, c.gbs, c.bound, c.above = {}, 1 / 12, p.bytes / p.time / 1e9, nil, nil
  rres[#rres + 1] = c
end
require("rot.session").current().warned_above = nil
local warned = t.capture("stderr", function() require("rot.results").new(rres, { "flags", "n" },
  rot0.peaks):bounds() end)
t.ok(warned:find("2 points are above their bound", 1, true) and warned:find("is unstable (its rounds disagreed",
  1, true)
  and warned:find("flags=-O3 -march=native", 1, true), "a run's warning, in full: " .. warned)
rot0.set("peaksFile", "")

-- the step sizes get the planned rounds, as the ceilings' sizes do (quick: 2)
local asked = {}
local function stair(ws)
  return ws <= 32 * KiB and 300 or ws <= MiB and 150 or ws <= 16 * MiB and 100 or ws <= 32 * MiB and 60
    or ws <= 128 * MiB and 30 or 20
end
local fake = require "fakerot"(nil, { runs = 5, maxRuns = 40, progress = "never" })
function fake.measure(idx, describe)
  local rows = {}
  for _, i in ipairs(idx) do
    local d = describe({ i = i })
    local ws = require("fakerot").ws(d)
    if d.kernel == "triad" then asked[ws] = math.max(asked[ws] or 0, d.round or 1) end
    rows[#rows + 1] = { gbs = stair(ws), workingSet = ws, bytes = ws, entry = { meta = {},
      runs = { { ns = 1, reps = 1 } } } }
  end
  return setmetatable({ rows = rows }, { __index = { ok = function(self) return self.rows end } })
end
local an = bandwidth.measure(fake, { 1 }, true)
local fstep = an[1] and an[1].step or {}
local all = #fstep > 0
for _, ws in ipairs(fstep) do all = all and asked[ws] == 2 end
t.ok(all, "the sizes of the step (" .. #fstep
  .. ") are measured in the planned rounds (2, quick), as the ceilings' are")
-- and where their rounds disagree by more than 5 %, in more rounds, as a ceiling's sizes are
local calm = stair
stair = function(ws, round) return calm(ws) * ((round == 2 and ws > 32 * MiB and ws <= 128 * MiB) and 0.8 or 1) end
asked = {}
local function latest(set)
  local m = 0
  for ws in pairs(set) do m = math.max(m, asked[ws] or 0) end
  return m
end
local measure = fake.measure
fake.measure = function(idx, describe)
  local res = measure(idx, describe)
  for i, row in ipairs(res.rows) do row.gbs = stair(row.workingSet, describe({ i = idx[i] }).round) end
  return res
end
an = bandwidth.measure(fake, { 1 }, true)
local stepset, others = {}, {}
for _, ws in ipairs(an[1].step) do stepset[ws] = true end
for ws in pairs(asked) do if not stepset[ws] and ws > 4096 then others[ws] = true end end
t.ok(next(stepset) ~= nil and latest(stepset) == 3 and latest(others) == 2, string.format(
  "step sizes whose rounds disagree by 25%%: a third round for them (%d), none for the calm ceilings' sizes (%d)",
  latest(stepset), latest(others)))

-- peaks.csv: a sweep row a line, kind sweep, its size in the sizes column; the table leaves them out
local text = assert(sys.readfile(tmp .. "/spr.csv"))
t.ok(text:find("\ntriad_sweep,sweep,1,14.2,GB/s,0,,1,14.2,triad,,,100663296,,\n", 1, true) ~= nil,
  "peaks.csv: 'triad_sweep,sweep,1,14.2,GB/s,...,100663296' for the sweep at 96 MiB")

-- the staircase and the roofline draw the step; peaks without a sweep: one note a run
local rot = require "rot"
local results = require "rot.results"
local out = tmp .. "/plots"
sys.mkdir(out)
rot.set("outputDir", out)
rot.set("peaksFile", tmp .. "/spr.csv")
local rows = {}
for _, ws in ipairs({ 16, 48, 96, 192, 384, 2048 }) do
  local p = point(ws * MiB, ws <= 48 and 31 or 13.9)
  p.entry, p.intensity, p.gbs, p.point = {}, 1 / 12, 13.9, { n = ws }
  rows[#rows + 1] = p
end
local res = results.new(rows, { "n" }, rot.peaks)
local said = t.capture("stderr", function()
  res:bounds() -- as a script's table does before its plots
  res:staircase { name = "step-stairs", title = "step" }
  res:roofline { name = "step-roof", title = "step" }
end)
local gp = sys.readfile(out .. "/step-stairs.gp") or ""
t.ok(gp:find("$curve1 << EOD", 1, true) and gp:find("L3-DRAM step: peaks' triad sweep, 1 thread", 1, true),
  "the staircase draws the step as the sweep measured it, named in the key")
local roof = sys.readfile(out .. "/step-roof.gp") or ""
local marks = select(2, (roof:match("%$stepbounds << EOD\n(.-)\nEOD") or ""):gsub("\n", "\n")) + 1
t.ok(roof:find("bound between two levels (peaks' sweep)", 1, true) and marks == 3,
  "the roofline marks the bound of each of the 3 points "
  .. "in the step (" .. marks .. ")")
t.ok(not said:find("no bandwidth sweep", 1, true), "with the sweep: no note on it")
local check = require "rot.plot.check"
for _, name in ipairs({ "step-stairs", "step-roof" }) do
  local _, overlaps = check.check(assert(sys.readfile(out .. "/" .. name .. ".gp")),
    function(f) return sys.readfile(out .. "/" .. f) end)
  t.is(#overlaps, 0, name .. ": no label touches the step's marks or line (" .. (overlaps[1]
    and table.concat(overlaps[1], " / ") or "") .. ")")
end
sys.writefile(tmp .. "/old.csv", "name,kind,threads,value,unit,spread\n"
  .. (text:match("\n(L3_effective.-)\ntriad_sweep") or ""))
rot.set("peaksFile", tmp .. "/old.csv")
local s = require("rot.session").current()
s.noted_unswept = nil
said = t.capture("stderr", function() results.new(rows, { "n" }, rot.peaks):bounds() end)
t.ok(said:find("^rot: note: the peaks file '.-old%.csv' holds no bandwidth sweep: 3 points in the step") ~= nil
  and said:find("bounded by that cache's ceiling (L3 bw)", 1, true) ~= nil,
    "peaks without a sweep: said once, with how "
  .. "many points and which ceiling bounds them: " .. said)
t.is(t.capture("stderr", function() results.new(rows, { "n" }, rot.peaks):bounds() end), "", "and only once a run")
rot.set("peaksFile", "")

-- points at 1 and 2 threads on one plot (a solver study's): the roofline draws 2 threads'
-- ceilings and says so first in its key, each 1-thread point's own bound marked; the staircase
-- marks each thread count's effective sizes where they differ by more than a quarter (L1 37.6
-- and 78.1 KiB, L2 877 KiB and 1.35 MiB), one where they agree (L3 26.1 and 28.7 MiB)
rot.set("peaksFile", rpath)
local mixed = {}
for _, th in ipairs({ 1, 2 }) do
  for _, ws in ipairs({ 24 * KiB, 384 * KiB, 3 * MiB, 96 * MiB }) do
    local p = point(ws, (ws < MiB and 90 or 40) * th, nil, th)
    p.entry, p.intensity, p.gbs, p.point = {}, 1 / 12, p.bytes / p.time / 1e9, { n = ws // 24, threads = th }
    mixed[#mixed + 1] = p
  end
end
local mres = results.new(mixed, { "threads", "n" }, rot.peaks)
t.capture("stderr", function()
  mres:bounds()
  mres:roofline { name = "mixed-roof", title = "1 and 2 threads",
    series = function(r) return util.count(r.threads, "thread") end }
  mres:staircase { name = "mixed-stairs", title = "1 and 2 threads",
    series = function(r) return util.count(r.threads, "thread") end }
end)
local mroof, mstairs = sys.readfile(out .. "/mixed-roof.gp") or "", sys.readfile(out .. "/mixed-stairs.gp") or ""
local starred = select(2, (mroof:match("%$stepbounds << EOD\n(.-)\nEOD") or ""):gsub("\n", "\n")) + 1
t.ok(mroof:find('keyentry with lines lt nodraw title "ceilings of 2 threads; the points at 1 thread', 1, true)
  and starred >= 4 and mroof:find("bound no ceiling drawn shows", 1, true), "a roofline of 1- and 2-thread points: 2 "
  .. "threads' ceilings, said first in the key; the 1-thread points' own bounds marked (" .. starred .. " marks)")
local own = select(2, mroof:gsub("with lines lw 1%.2 dt 3 lc rgb '#999999' notitle", ""))
t.ok(mroof:find("1 thread's own roofs (dotted):", 1, true) and own >= 2 and mroof:find("their roofs dotted)", 1, true)
  and mroof:find("L1 bw 280.9 GB/s", 1, true),
    "and each 1-thread point's own roof is drawn, dotted, its values in the key ("
  .. own .. " roofs)")
t.ok(mstairs:find("L1 37.6 KiB (effective, 1 thread)", 1, true)
  and mstairs:find("L1 78.1 KiB (effective, 2 threads)", 1, true)
  and mstairs:find("L3 28.7 MiB (effective)", 1, true) and not mstairs:find("L3 26.1 MiB", 1,
    true), "its staircase marks "
  .. "L1's effective size at each thread count (37.6 KiB, 78.1 KiB), L3's once (26.1 and 28.7 "
    .. "MiB agree within a quarter)")
for _, name in ipairs({ "mixed-roof", "mixed-stairs" }) do
  local _, ov, cr, d = check.check(assert(sys.readfile(out .. "/" .. name .. ".gp")),
    function(f) return sys.readfile(out .. "/" .. f) end)
  t.ok(#ov + #cr + #d.unlabelled + #d.hidden + #d.on_line + #d.colours + #d.key == 0, string.format("%s: readable (%d "
    .. "overlaps, %d crossed, %d unlabelled, %d hidden unsaid, %d on a line, %d in a series' "
      .. "colour, %d key entries off)",
    name, #ov, #cr, #d.unlabelled, #d.hidden, #d.on_line, #d.colours, #d.key))
end
-- a level measured past the last cache the machine reports (the recorded EPYC guest at 2 threads: a
-- plateau from L3's 32 MiB to 105 MiB, and the machine reports no L4) is named for what it is, L3+,
-- the same way in the table's limiter and level, the CSV, the JSON and the roofline's labels
rot.set("peaksFile", tmp .. "/amd2.csv")
local past = {}
for _, ws in ipairs({ 24, 48, 96 }) do
  local p = point(ws * MiB, 50, nil, 2)
  p.entry, p.intensity, p.gbs, p.point = {}, 1 / 12, 50, { n = ws * MiB // 24 }
  p.desc = { workloads = { { kernel = "triad" } }, flags = "-O2" }
  past[#past + 1] = p
end
local pres = results.new(past, { "n" }, rot.peaks)
local shown = t.capture("stdout", function()
  t.capture("stderr", function()
    pres:table()
    pres:csv("past-l3")
    pres:json("past-l3")
    pres:roofline { name = "past-l3", title = "past L3" }
  end)
end)
local pcsv, pjson, pgp = sys.readfile(out .. "/past-l3.csv") or "", sys.readfile(out .. "/past-l3.json") or "",
  sys.readfile(out .. "/past-l3.gp") or ""
t.ok(shown:find(" L3+ bw ", 1, true) and shown:find(" L3-L3+ bw", 1, true) and pcsv:find(",L3+,", 1, true)
  and pcsv:find("L3-L3+ bw", 1, true) and pjson:find('"name": "L3+"', 1, true) and pjson:find('"L3+"', 1, true)
  and pgp:find("L3+ triad ", 1, true), "an unreported level past L3 is L3+ in the table's limiter, the CSV, the JSON's "
  .. "levels and the roofline's label")
t.ok(not (shown .. pcsv .. pjson .. pgp):find("L4", 1, true), "and nowhere L4, a cache this machine does not have")
rot.set("peaksFile", "")
t.done()
