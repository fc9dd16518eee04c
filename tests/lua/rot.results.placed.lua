-- Unit tests of rot.results.placed on hand-worked examples: a counted point's compute roof from
-- its counted mix (adds, FMAs, multiplies; a class the peaks lack at its theoretical peak; adds
-- and multiplies together where the peaks measured them so, fully overlapped where not), each
-- level's traffic over its ceiling in simulated bytes (read, write or triad by what was
-- written), the limiter and its name, the declared bound beside, the line where the two name
-- different roofs; why a counted point lies above its bound (the DRAM tail rule, the
-- simulation's LRU caches; never another region's point as the same kernel's); the hints that
-- name every region that declares no work, and never "count it" after a refused count.
-- judges no time
local t = require "tap"
local ceilings = require "rot.machine.ceilings"
local bounds = require "rot.results.bounds"
local placed = require "rot.results.placed"
local counted = require "rot.results.counted"
local util = require "rot.util"

local MiB = 1024 * 1024
-- round ceilings (GFLOP/s, GB/s), 1 thread; no float addmul, no avx128 FMA (the theory's),
-- DRAM measured from 128 MiB up (its sizes)
local rows = ceilings.parse_csv(table.concat({ "name,kind,threads,value,unit,spread",
  "double_scalar_add,compute,1,8,GFLOP/s,0.01", "double_scalar_fma,compute,1,16,GFLOP/s,0.01",
  "double_scalar_addmul,compute,1,12,GFLOP/s,0.01", "double_sse_add,compute,1,16,GFLOP/s,0.01",
  "double_avx2_add,compute,1,32,GFLOP/s,0.01", "double_avx2_fma,compute,1,64,GFLOP/s,0.01",
  "double_avx2_addmul,compute,1,48,GFLOP/s,0.01", "float_scalar_add,compute,1,8,GFLOP/s,0.01",
  "float_scalar_fma,compute,1,16,GFLOP/s,0.01",
  "L1_effective,size,1,49152,B,", "L2_effective,size,1,2097152,B,", "L3_effective,size,1,33554432,B,",
  "triad_L1,bandwidth,1,300,GB/s,0.01", "triad_L2,bandwidth,1,150,GB/s,0.01", "triad_L3,bandwidth,1,60,GB/s,0.01",
  "triad_DRAM,bandwidth,1,20,GB/s,0.01,,2,20,triad,-O2,0,134217728;268435456,,",
  "read_L1,bandwidth,1,400,GB/s,0.01", "read_L2,bandwidth,1,200,GB/s,0.01", "write_L2,bandwidth,1,100,GB/s,0.01",
}, "\n"))
local c = ceilings.for_threads(rows, 1)

-- a counted row: flops by class {k = {flops, fma, add}}, loaded and stored bytes, traffic
-- {level = {moved, written}}, its time
local function row(classes, loaded, stored, traffic, time, extra)
  local r = { flopsClasses = {}, flopsFma = {}, flopsAdd = {}, flopsCounted = 0,
    bytesLoaded = loaded, bytesStored = stored,
    bytesCounted = loaded + stored, traffic = {}, trafficWritten = {}, time = time, spread = 0.01, counts = "counted",
    point = { n = 1 } }
  for k, v in pairs(classes) do
    r.flopsClasses[k], r.flopsFma[k], r.flopsAdd[k] = v[1], v[2], v[3]
    r.flopsCounted = r.flopsCounted + v[1]
  end
  for lv, v in pairs(traffic) do r.traffic[lv], r.trafficWritten[lv] = v[1], v[2] end
  for k, v in pairs(extra or {}) do r[k] = v end
  return r
end
local none = { L2 = { 0, 0 }, L3 = { 0, 0 }, DRAM = { 0, 0 } }
local function near(a, b) return math.abs(a - b) <= 1e-9 * math.abs(b) end

-- compute
local chain = placed.bound(row({ fp64_scalar = { 8e6, 0, 8e6 } }, 800, 0, none, 1.05e-3), c, 0.02)
t.ok(chain.limiter == "compute: fp64 scalar" and near(chain.time_bound, 1e-3) and near(chain.bound, 8),
  "a scalar fp64 add chain: its adds over the scalar add ceiling, 8 Mflop at 8 GFLOP/s: 1 ms, 'compute: fp64 scalar' ("
  .. chain.limiter .. ", " .. chain.time_bound .. " s)")
t.ok(near(chain.fraction, 1 / 1.05) and not chain.above, "at 95% of its bound")
local fast = row({ fp64_scalar = { 8e6, 0, 8e6 } }, 800, 0, none, 0.8e-3)
local sampled = row({ fp64_scalar = { 8e6, 0, 8e6 } }, 800, 0, none, 0.8e-3, { sampleError = 0.2 })
t.ok(placed.bound(fast, c, 0.02).above and not placed.bound(sampled, c, 0.02).above,
  "at 125% of its bound: above it, but not where its time is a share of 25 samples (an error of 20%, twice that 40%)")
local fma = placed.bound(row({ fp64_256 = { 64e6, 64e6, 0 } }, 0, 0, none, 1e-3), c, 0.02)
t.ok(fma.limiter == "compute: fp64 256-bit FMA" and near(fma.time_bound, 1e-3),
  "256-bit FMAs: 32 M lane FMAs over the FMA ceiling's 32 G a second (64 GFLOP/s, an FMA two flops): 1 ms ("
  .. fma.limiter .. ")")
local addmul = placed.bound(row({ fp64_scalar = { 8e6, 0, 4e6 } }, 0, 0, none, 1e-3), c, 0.02)
t.ok(near(addmul.time_bound, 8e6 / 12e9) and addmul.pipes == "adds and multiplies together",
  "scalar adds and multiplies half and half: the add-and-multiply ceiling bounds them together (8 M at 12 G a second), "
  .. "not the sum of adds alone and multiplies alone (" .. addmul.time_bound .. " s)")
local float = placed.bound(row({ fp32_scalar = { 8e6, 0, 4e6 } }, 0, 0, none, 1e-3), c, 0.02)
t.ok(near(float.time_bound, 4e6 / 8e9) and table.concat(float.notes,
  " "):find("float_scalar_addmul: no add%-and%-multiply ceiling") ~= nil,
  "where the peaks hold no add-and-multiply ceiling: adds and multiplies overlap fully, and a note says so")
local theory = placed.bound(row({ fp64_128 = { 32e6, 32e6, 0 } }, 0, 0, none, 1e-3), c, 0.02)
local note = table.concat(theory.notes, " ")
t.ok(near(theory.time_bound, 16e6 / 16e9) and note:find("double_avx128_fma: no measured ceiling") ~= nil
  and note:find("4 GHz, the clock the measured ceilings imply") ~= nil, "128-bit FMAs without a measured ceiling: its "
  .. "theoretical peak (2 lanes x 2 flops x 2 a cycle) at the clock the measured FMA ceilings imply (4 GHz), said ("
  .. note .. ")")
local mix = placed.bound(row({ fp64_scalar = { 1e6, 0, 1e6 }, fp64_256 = { 4e6, 0, 4e6 } }, 0, 0, none, 1e-3), c, 0.02)
t.is(mix.limiter, "compute: mix", "adds of two widths, each half the time: no class dominates, 'compute: mix'")

local wide_rows = ceilings.parse_csv("name,kind,threads,value,unit,spread\ndouble_avx2_fma,compute,1,64,GFLOP/s,0.01\n"
  .. "double_avx2_add,compute,1,32,GFLOP/s,0.01\ndouble_avx512_fma,compute,1,128,GFLOP/s,0.01\n"
  .. "double_avx512_add,compute,1,64,GFLOP/s,0.01\ndouble_avx512_addmul,compute,1,64,GFLOP/s,0.01")
local wide = placed.bound(row({ fp64_256 = { 64e6, 64e6, 0 } }, 0, 0, none, 1e-3, {
  countRecord = { flags = "-O3 -march=native -mno-avx512f" }, desc = { flags = "-O3 -march=native" } }),
  ceilings.for_threads(wide_rows, 1), 0.02)
t.ok(wide.limiter == "compute: fp64 512-bit FMA" and near(wide.time_bound, 0.5e-3)
  and table.concat(wide.notes, " "):find("counted without AVX%-512, which its timed build used") ~= nil,
  "a kernel counted without the AVX-512 its timed build used: its 256-bit FMAs bounded by the "
    .. "AVX-512 FMA ceiling, said ("
  .. wide.limiter .. ")")

-- memory: each level's traffic in simulated bytes
local triad = placed.bound(row({ fp64_scalar = { 1e6, 0, 5e5 } }, 16e6, 8e6, { L2 = { 32e6, 8e6 }, L3 = { 0, 0 },
  DRAM = { 0, 0 } }, 0.2e-3), c, 0.02)
t.ok(triad.limiter == "L2 bw" and near(triad.terms.L2, 32e6 / 200e9) and near(triad.terms.L1, 24e6 / 300e9),
  "a triad in L2: 32 MB of simulated traffic over triad's L2 ceiling in simulated bytes (150 GB/s x 4/3), the L1 term "
  .. "its 24 MB of loads and stores at 300 GB/s (" .. triad.limiter .. ")")
t.ok(near(triad.fraction, 0.16e-3 / 0.2e-3) and triad.dominant == "L2 bandwidth" and triad.level == "L2",
  "at 80% of it, its level L2")
local read = placed.bound(row({ fp64_scalar = { 1e5, 0, 1e5 } }, 8e6, 0, { L2 = { 8e6, 0 }, L3 = { 0, 0 },
  DRAM = { 0, 0 } }, 1e-3), c, 0.02)
t.ok(read.limiter == "L2 read bw" and near(read.terms.L2, 8e6 / 200e9) and near(read.terms.L1, 8e6 / 400e9),
  "nothing written: the read ceilings, each byte read one simulated byte (" .. read.limiter .. ")")
local write = placed.bound(row({}, 0, 8e6, { L2 = { 16e6, 8e6 }, L3 = { 0, 0 }, DRAM = { 0, 0 } }, 1e-3), c, 0.02)
t.ok(write.limiter == "L2 write bw" and near(write.terms.L2, 16e6 / 200e9) and write.bound == nil,
  "write-allocate traffic (half of it written back): the write ceiling, 2 simulated bytes a declared one; no flops, no "
  .. "GFLOP/s bound (" .. write.limiter .. ")")
t.ok(table.concat(write.notes, " "):find("write traffic at L1: no write ceiling there") ~= nil,
  "and where the peaks hold no write ceiling at L1, triad's, said")
local dram = placed.bound(row({ fp64_scalar = { 1e6, 0, 5e5 } }, 16e6, 8e6, { L2 = { 32e6, 8e6 }, L3 = { 32e6, 8e6 },
  L4 = { 32e6, 8e6 }, DRAM = { 32e6, 8e6 } }, 2e-3), c, 0.02)
t.ok(dram.limiter == "DRAM bw" and near(dram.time_bound, 32e6 / (20e9 * 4 / 3)) and dram.terms.L4 == nil
  and table.concat(dram.notes, " "):find("L4: no measured ceiling") ~= nil, "beyond the last level: DRAM's ceiling; a "
  .. "level the peaks hold no ceiling of, said, not timed")

-- the declared bound beside, and the line where the two name different roofs
local declared = row({ fp64_scalar = { 1e6, 0, 5e5 } }, 16e6, 8e6, { L2 = { 32e6, 8e6 }, L3 = { 0, 0 },
  DRAM = { 0, 0 } },
  0.2e-3, { counts = "declared", flops = 1e6, bytes = 24e6, bytesDeclared = 24e6, flopsDeclared = 1e6,
    workingSet = 512 * MiB, cacheMode = "warm", gflops = 1e6 / 0.2e-3 / 1e9 })
local res = require("rot.results").new({ declared }, {}, function() return rows end):bounds()
local r = res.rows[1]
t.ok(r.limiter == "L2 bw" and r.limiterDeclared == "DRAM bw" and r.boundSource == "counted" and r.boundTerms.L2,
  "a counted row: its bound the counted one, the declared one beside (" .. tostring(r.limiterDeclared) .. ")")
local out = {}
placed.legend(res.rows, { write = function(_, ...) for _, x in ipairs({ ... }) do out[#out + 1] = x end end })
local text = table.concat(out)
t.ok(text:find("n=1: the declared bound %(its declared working set 512 MiB%) names DRAM bw") ~= nil
  and text:find("the counted one L2 bw") ~= nil
    and text:find("it is above the declared bound and within the counted one") ~= nil,
  "a declared working set the counts contradict: one line names both roofs, and that the counted "
    .. "one explains the point ("
  .. text .. ")")

-- why above: the DRAM tail rule, the simulation, never another region as the same kernel's
local lv = c.levels
local tail = bounds.why_above({ ceiling = "DRAM bw", level = "DRAM", dominant = "DRAM bandwidth",
  boundSource = "counted",
  workingSet = 96 * MiB }, lv, nil, {}, c)
t.ok(tail:find("^the DRAM tail rule: the DRAM bw ceiling is the rate the peaks measured from 128 MiB up") ~= nil,
  "a point below the DRAM ceiling's sizes: the DRAM tail rule, not a neighbour (" .. tail .. ")")
local lru = bounds.why_above({ ceiling = "L3 bw", level = "L3", dominant = "L3 bandwidth",
  boundSource = "counted" }, lv, nil,
  {}, c)
t.ok(lru:find("counting pass's simulation %(LRU caches, no prefetching%)") ~= nil
  and lru:find("declare its working set") ~= nil,
  "a counted point above a level's ceiling, no working set declared: the simulated traffic said (" .. lru .. ")")
local a = { region = "IntegrateStress", program = "lulesh", ceiling = "DRAM bw", boundUnstable = true, level = "DRAM",
  fraction = 1.42, above = true, threads = 1, point = { region = "IntegrateStress" } }
local b = { region = "timestep loop", program = "lulesh", ceiling = "DRAM bw", fraction = 0.9, threads = 1,
  point = { region = "timestep loop" } }
local why = bounds.why_above(a, lv, nil, { a, b }, c)
t.ok(not why:find("timestep loop", 1, true) and not why:find("same kernel", 1, true),
  "another region at the same working set is never 'the same kernel's point' (" .. why .. ")")
local b2 = { region = "IntegrateStress", program = "lulesh", ceiling = "DRAM bw", fraction = 0.9, threads = 1,
  point = { region = "IntegrateStress", n = 2 } }
t.ok(bounds.why_above(a, lv, nil, { a, b2 }, c):find("the same region's point (n=2", 1, true) ~= nil,
  "the same region at another point is")

-- the roofs a plot draws for counted points: a level's in simulated bytes, the mix's compute roof
local drawn = require "rot.results.backdrop"
r.entry = {} -- (measured)
local roofs = drawn.counted_roofs({ rows = { r, { entry = {}, boundSource = "counted",
  flopsCounted = 8e6, timeBound = 1e-3,
  dominant = "compute", limiter = "compute: fp64 scalar", bound = 8, region = "chain" } } }, function(x)
  return x.region or util.coords(x.point) end, 100)
t.ok(roofs and near(roofs.bandwidth[1].gbs, 32e6 / r.timeBound / 1e9) and roofs.bandwidth[1].label == "L2 bw"
  and roofs.compute[1].gflops == 8 and roofs.compute[1].limits == "chain", "a plot draws each counted point's limiting "
  .. "roof: L2's at its simulated traffic over its time bound (200 GB/s: 150 x 4/3), the chain's compute roof, named")

-- the hints
local function hint(list)
  local lines = {}
  counted.hint(list, { write = function(_, ...) lines[#lines + 1] = table.concat({ ... }) end })
  return table.concat(lines)
end
local function region(name, failed) return { region = name, counts = "none", time = 1, countFailed = failed } end
local four = hint({ region("timestep loop"), region("IntegrateStress"), region("FBHourglass"), region("Kinematics") })
t.ok(four:find("^regions 'timestep loop', 'IntegrateStress', 'FBHourglass' and 'Kinematics' declare no work") ~= nil,
  "every region that declares no work named (" .. four .. ")")
local five = hint({ region("a"), region("b"), region("c"), region("d"), region("e") })
t.ok(five:find("^5 regions declare no work") ~= nil, "more than four: how many")
local refused = hint({ region("a",
  "application 'x' uses AVX-512 instructions, which the counting engine cannot decode") })
t.ok(refused:find("counting failed %(application 'x' uses AVX%-512") ~= nil and not refused:find("-count", 1, true),
  "a refused count: why, never 'count it with -count' (" .. refused .. ")")

t.done()
