-- The step from the last cache to DRAM's flat tail, bounded by what the peaks' sweep measured
-- there (issue 45): on a sharp step with a plateau short of DRAM (the Intel guest's figures,
-- reconstructed) and on a gradual fall (an AMD EPYC guest's rounds, recorded); the sweep stored
-- with the peaks, read back, and its absence said; the step drawn. Run by tests/step.t.
local t = require "tap"
local sys = require "rot.sys"
local util = require "rot.util"
local bandwidth = require "rot.machine.bandwidth"
local peaks = require "rot.machine.peaks"
local sweep = require "rot.machine.sweep"
local bounds = require "rot.results.bounds"

local KiB, MiB = 1024, 1024 * 1024
local tmp = os.getenv("ROT_TEST_TMP") or error("ROT_TEST_TMP is not set")

-- peaks rows of one analysis, written to peaks.csv and read back (as every bound reads them)
local function stored(rows, name)
  local path = tmp .. "/" .. name .. ".csv"
  peaks.write_csv(path, rows)
  return peaks.read_csv(path), path
end

-- a triad point of working set ws at gbs GB/s (2 flops, 24 bytes an element), traffic: nil
-- (triad's), "read" or "write"
local function point(ws, gbs, traffic, threads)
  local secs = ws / (gbs * 1e9)
  local flops = ws / 12
  return { workingSet = ws, bytes = ws, flops = flops, time = secs, gflops = flops / secs / 1e9, spread = 0.01,
    threads = threads or 1, bytesDeclared = ws, bytesWritten = traffic == "read" and 0 or traffic == "write" and ws or ws / 3 }
end

--[[ the Intel guest (tests/fixtures/staircase/spr-step.csv, reconstructed from issue 45's figures):
  L3's plateau 31.2 GB/s, bandwidth dropping at about 78 MiB, DRAM's tail from 512 MiB at 13.33,
  the step's sizes at DRAM's speed (13.7-14.2 GB/s); the shipped triad measured 13.7-14.2 GB/s at
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
local sc = peaks.at(srows, 1)
local lv = sc.levels
t.ok(lv[3].name == "L3" and lv[3].size > 70 * MiB and lv[3].size < 90 * MiB and lv[4].from == 512 * MiB,
  string.format("Intel guest (reconstructed): L3 drops at %s, DRAM's flat tail from %s, as reported (78 MiB, 512 MiB)",
    util.bytes(lv[3].size), util.bytes(lv[4].from or 0)))
t.is(table.concat(sa.step, " "), table.concat({ 96 * MiB, 128 * MiB, 192 * MiB, 256 * MiB }, " "),
  "the step between them: the sizes swept from 96 to 256 MiB")
t.ok(sc.sweep and sc.sweep.triad and #sc.sweep.triad == #util.sorted_keys(spr.samples[1][3]),
  "the sweep is stored with the peaks and read back: every size swept, triad's")
for _, ws in ipairs({ 96, 192, 384 }) do
  for _, gbs in ipairs({ 13.7, 14.2 }) do
    local b = bounds.of(point(ws * MiB, gbs), sc, 0.02)
    local want = sweep.at(sc.sweep.triad, ws * MiB).gbs
    t.ok(b.limiter == "L3-DRAM bw" and b.level == "L3-DRAM" and b.fraction >= 0.95 and b.fraction <= 1.05
      and math.abs(b.bound * 12 - want) < 1e-9,
      string.format("triad at %d MiB, %.1f GB/s: %s, %.0f%% of the %.2f GB/s the sweep measured there (L3's ceiling: %.0f%%)",
        ws, gbs, b.limiter, b.fraction * 100, b.bound * 12, gbs / 31.2 * 100))
  end
end
local dram = bounds.of(point(768 * MiB, 13.73), sc, 0.02)
t.ok(dram.limiter == "DRAM bw" and dram.fraction > 1 and dram.fraction < 1.03, string.format(
  "in DRAM's tail its ceiling bounds (768 MiB at 103%% of 13.33 GB/s: %.0f%% of %.2f, each point's fastest run)",
  dram.fraction * 100, dram.bound * 12))
-- an older file: no sweep; today's rule (L3's ceiling, the most it can see) and it says so
local old = {}
for _, r in ipairs(srows) do if r.kind ~= "sweep" then old[#old + 1] = r end end
local oc = peaks.at(old, 1)
local ob = bounds.of(point(96 * MiB, 14.2), oc, 0.02)
t.ok(oc.sweep == nil and ob.limiter == "L3-DRAM bw" and math.abs(ob.fraction - 14.2 / 31.2) < 1e-9 and ob.step_fallback,
  string.format("peaks without a sweep (an older rot's): the step bounded by L3's ceiling as before (%.0f%%), marked",
    ob.fraction * 100))

--[[ the AMD EPYC guest (tests/fixtures/staircase/epyc-step-rounds.csv, recorded): a gradual
  fall past L3, 1 thread; read, write and triad ]]
local amd = { samples = { [1] = { {}, {}, {} }, [2] = { {}, {}, {} } }, final = true }
local si = { read = 1, write = 2, triad = 3 }
for line in assert(sys.readfile("tests/fixtures/staircase/epyc-step-rounds.csv")):gmatch("[^\n]+") do
  local sn, th, ws, r, g = line:match("^(%a+),(%d+),(%d+),(%d+),([%d.e+-]+)$")
  if sn then
    local per = amd.samples[tonumber(th)][si[sn]]
    ws = math.tointeger(tonumber(ws))
    per[ws] = per[ws] or { ws = ws, rounds = {} }
    per[ws].rounds[tonumber(r)] = tonumber(g)
  end
end
local rep = { [1] = { { name = "L1", size = 32 * KiB }, { name = "L2", size = MiB }, { name = "L3", size = 32 * MiB } },
  [2] = { { name = "L1", size = 64 * KiB }, { name = "L2", size = 2 * MiB }, { name = "L3", size = 32 * MiB } } }
local arows = {}
for th = 1, 2 do
  for _, r in ipairs(bandwidth.analyse(amd, th, rep[th]).rows) do arows[#arows + 1] = r end
end
local ac = peaks.at(stored(arows, "amd"), 1)
local a1 = bandwidth.analyse(amd, 1, rep[1])
t.ok(#a1.step >= 3 and a1.step[1] > 24 * MiB and a1.step[#a1.step] < ac.levels[4].from, string.format(
  "EPYC guest (recorded), 1 thread: a step of %d sizes (%s to %s) before DRAM's tail at %s", #a1.step,
  util.bytes(a1.step[1] or 0), util.bytes(a1.step[#a1.step] or 0), util.bytes(ac.levels[4].from or 0)))
local prev, falls = math.huge, true
for _, ws in ipairs(a1.step) do
  local g = sweep.at(ac.sweep.triad, ws).gbs
  falls = falls and g < prev and g > ac.bandwidth[4].gbs
  prev = g
end
t.ok(falls, "its sweep falls size by size through the step, above DRAM's ceiling: a gradual fall")
for _, ws in ipairs(a1.step) do
  local g = sweep.at(ac.sweep.triad, ws).gbs
  local b = bounds.of(point(ws, g * 0.97), ac, 0.02)
  t.ok(b.limiter:match("^L3%-DRAM bw") and math.abs(b.fraction - 0.97) < 1e-9, string.format(
    "triad at %s, 97%% of the sweep's %.1f GB/s there: %s, %.0f%% of its bound (L3's ceiling %.1f: %.0f%%)", util.bytes(ws), g,
    b.limiter, b.fraction * 100, ac.bandwidth[3].gbs, g * 0.97 / ac.bandwidth[3].gbs * 100))
end
local mid = (a1.step[2] + a1.step[3]) // 2
local lo, hi = sweep.at(ac.sweep.triad, a1.step[2]).gbs, sweep.at(ac.sweep.triad, a1.step[3]).gbs
local want = lo + (hi - lo) * math.log(mid / a1.step[2]) / math.log(a1.step[3] / a1.step[2])
local bm = bounds.of(point(mid, 20), ac, 0.02)
t.ok(math.abs(bm.bound * 12 - want) < 1e-9 and bm.bound * 12 < lo and bm.bound * 12 > hi, string.format(
  "between two sizes swept (%s): interpolated in log size, %.2f GB/s between %.2f and %.2f", util.bytes(mid), bm.bound * 12, lo, hi))
local rb = bounds.of(point(a1.step[2], 20, "read"), ac, 0.02)
local wb = bounds.of(point(a1.step[2], 20, "write"), ac, 0.02)
t.ok(rb.limiter:match("^L3%-DRAM read bw") and math.abs(rb.bound - 20 / 20 * sweep.at(ac.sweep.read, a1.step[2]).gbs / 12) < 1e-9
  and wb.limiter:match("^L3%-DRAM write bw") and math.abs(wb.bound * 12 - sweep.at(ac.sweep.write, a1.step[2]).gbs) < 1e-9,
  string.format("read-only and write-only traffic in the step: the read and write sweeps (%s, %.1f GB/s; %s, %.1f GB/s)",
    rb.limiter, rb.bound * 12, wb.limiter, wb.bound * 12))
local b2 = bounds.of(point(a1.step[2], 20, nil, 2), peaks.at(stored(arows, "amd2"), 2), 0.02)
t.ok(b2.limiter:match("^L4 bw"), "2 threads: their own levels (an L4 up to 105 MiB, no step left before DRAM): " .. b2.limiter)
-- the sweep's marking: a size whose rounds disagree by more than 5 % says so in the limiter
local shaky
for _, x in ipairs(ac.sweep.triad) do if x.ws == a1.step[1] then shaky = x end end
local bs = bounds.of(point(a1.step[1], 20), ac, 0.02)
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
local cc = peaks.at(clamp, 1)
local low, high = bounds.of(point(128 * MiB, 13), cc, 0.02), bounds.of(point(96 * MiB, 13), cc, 0.02)
t.ok(math.abs(low.bound * 12 - cc.bandwidth[4].gbs) < 1e-9 and math.abs(high.bound * 12 - cc.bandwidth[3].gbs) < 1e-9,
  string.format("a sweep value below DRAM's ceiling bounds at DRAM's (%.2f GB/s), one above the cache's at the cache's (%.1f)",
    low.bound * 12, high.bound * 12))

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
    rows[#rows + 1] = { gbs = stair(ws), workingSet = ws, bytes = ws, entry = { meta = {}, runs = { { ns = 1, reps = 1 } } } }
  end
  return setmetatable({ rows = rows }, { __index = { ok = function(self) return self.rows end } })
end
local an = bandwidth.measure(fake, { 1 }, true)
local fstep = an[1] and an[1].step or {}
local all = #fstep > 0
for _, ws in ipairs(fstep) do all = all and asked[ws] == 2 end
t.ok(all, "the sizes of the step (" .. #fstep .. ") are measured in the planned rounds (2, quick), as the ceilings' are")
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
for _, ws in ipairs({ 16, 48, 96, 192, 384, 768 }) do
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
t.ok(roof:find("bound in the step to DRAM", 1, true) and marks == 3, "the roofline marks the bound of each of the 3 points "
  .. "in the step (" .. marks .. ")")
t.ok(not said:find("no bandwidth sweep", 1, true), "with the sweep: no note on it")
local check = require "rot.plot.check"
for _, name in ipairs({ "step-stairs", "step-roof" }) do
  local _, overlaps = check.check(assert(sys.readfile(out .. "/" .. name .. ".gp")), function(f) return sys.readfile(out .. "/" .. f) end)
  t.is(#overlaps, 0, name .. ": no label touches the step's marks or line (" .. (overlaps[1] and table.concat(overlaps[1], " / ") or "") .. ")")
end
sys.writefile(tmp .. "/old.csv", "name,kind,threads,value,unit,spread\n" .. (text:match("\n(L3_effective.-)\ntriad_sweep") or ""))
rot.set("peaksFile", tmp .. "/old.csv")
local s = require("rot.session").current()
s.noted_unswept = nil
said = t.capture("stderr", function() results.new(rows, { "n" }, rot.peaks):bounds() end)
t.ok(said:find("^rot: note: the peaks file '.-old%.csv' holds no bandwidth sweep: 3 points in the step") ~= nil
  and said:find("bounded by that cache's ceiling (L3 bw)", 1, true) ~= nil, "peaks without a sweep: said once, with how "
  .. "many points and which ceiling bounds them: " .. said)
t.is(t.capture("stderr", function() results.new(rows, { "n" }, rot.peaks):bounds() end), "", "and only once a run")
rot.set("peaksFile", "")
t.done()
