-- Unit tests of rot.peaks.compute: compute ceilings in rounds through a fake rot, each round
-- between two clock readings (rot.peaks.clocks): more rounds where they disagree, the time
-- budget, rounds from the cache; the vector units' clock from recorded FMA chains, against the
-- theoretical peak (rot.machine.theory).
-- judges no time
-- topology: nocache
local t = require "tap"
local ceilings = require "rot.machine.ceilings"
local peaks = require "rot.peaks"
local sys = require "rot.sys"
local fake_rot = require "fakerot"

local path = os.getenv("ROT_TEST_TMP") and (os.getenv("ROT_TEST_TMP") .. "/peaks.csv") or os.tmpname()

-- compute ceilings in rounds spread over the peaks, each between two clock readings: a round at
-- a lower clock is not the ceiling; rounds that disagree get more rounds, then unstable.
-- ghz_of(round): the clock during a round's points; reading_of(round, after): the clock reading
-- just before (after) a round (default: its round's clock); unit_of(round, after, class): that
-- timing of a class's FMA chain, ns an FMA step (default: none timed, so the ceilings keep the
-- imul chain's clock); cached(d): whether a point (its description) is in the cache (default:
-- none is)
local compute = require "rot.peaks.compute"
local clk = require "rot.peaks.clocks"
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
  cs.points = { { isa = compute.isa[5], prec = "double", op = "fma", threads = 1 } }
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
  "the FMA ceiling is its best round's (112 GFLOP/s, round 2 at 3.5 GHz), not the slow rounds': %.1f at %s GHz",
    row.value,
  row.clock))
t.ok(row.unstable and math.abs(row.spread - 0.09375) < 1e-9, string.format(
  "three rounds at 3.2, 3.5 and 3.2 GHz disagree by 9.4%%: unstable before more rounds (%.1f%%)", row.spread * 100))
compute.extra_rounds(fk, cs, 1000)
row = compute.rows(cs)[1]
t.ok(cs.rounds == 5 and not row.unstable and row.spread == 0 and row.rounds == 5,
  string.format("two more rounds at 3.5 GHz: the best three agree, stable (%d rounds, spread %.1f%%)",
    cs.rounds, row.spread * 100))
clocks = { 3.0, 3.5, 3.0, 3.0, 3.0, 3.0, 3.0 }
fk = clock_fake(function(r) return clocks[r] end)
cs = three(fk, fma_only(compute.new({ 1 })))
compute.extra_rounds(fk, cs, 1000)
row = compute.rows(cs)[1]
t.ok(cs.rounds == 7 and row.unstable and row.value == 112 and row.clock == 3.5, string.format(
  "a clock high in one round only: %d rounds at most, still unstable, the best round's value and clock", cs.rounds))
t.is(table.concat(compute.notes(cs, compute.rows(cs)), "; "),
  "the core clock moved over the compute rounds (before/after "
  .. "each: 3.000/3.000, 3.500/3.500, 3.000/3.000, 3.000/3.000, 3.000/3.000, 3.000/3.000, 3.000/3.000 GHz): 1 compute "
  .. "ceiling stays unstable; each compute ceiling is its best round's, and records the higher of "
    .. "the clock readings just "
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
t.ok(cs.rounds == 6 and not row.unstable,
  string.format("a point halved in three rounds of five: %d rounds, stable", cs.rounds))
-- a clock that rose during the best round: the ceiling records the higher reading, after it,
-- so its share of the peak at its clock is not flattered; a failed reading is false
local before_, after_ = { 3.5, 3.2, 3.5 }, { 3.5, 3.6, false }
fk = clock_fake(function() return 3.5 end, function(r, after) return (after and after_ or before_)[r] end)
cs = three(fk, fma_only(compute.new({ 1 })))
compute.rows(cs) -- all three rounds give 112: the first is the best
cs.values[1][1], cs.values[1][2] = 100, 115
row = compute.rows(cs)[1]
t.ok(row.value == 115 and row.clock == 3.6 and row.date == "2026-01-01T00:02:00Z", string.format(
  "the best round (2) records 3.6 GHz, read after it, not 3.2 before it, and the date its point "
    .. "was measured: %s GHz, %s",
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
t.ok(clash == nil,
  "every round's clock readings have numbers of their own, quick and full apart, read back by reading_of")
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
t.ok(cs.rounds == 3 and compute.rows(cs)[1].unstable,
  "past the peaks' budget: no round past the planned three, unstable")
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
  .. "the peaks' budget (1000 s on their timer): the compute rounds that disagree still get "
    .. "theirs, within %d s of their "
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
t.ok(lat == 4 and math.abs(cyc - 4) < 0.01,
  string.format("the scalar FMA chain at the imul clock: %.3f cycles, 4 whole", cyc))
local th = theory.of(row, intel)
t.ok(math.abs(row.clock - 2.7) < 1e-4 and row.clock_by == "fma" and math.abs(row.value - 85.96) < 1e-9
  and math.abs(th.share - 0.9949) < 0.001,
  string.format("Sapphire Rapids: the AVX-512 FMA ceiling (85.96 GFLOP/s) against theory at its "
    .. "chain's clock: %.3f GHz, "
    .. "%.1f%% of 32 flops a cycle (89.7%% at the imul chain's 2.996 GHz)", row.clock, th.share * 100))
t.ok(math.abs(theory.of({ name = row.name, isa = "avx512", threads = 1, value = row.value,
  clock = 2.996 }, intel).share - 0.897)
  < 0.001, "and at the imul chain's clock the issue's 89.7%")
local said = table.concat(compute.notes(cs, compute.rows(cs)), "; ")
t.ok(said:find("the avx512 FMA chain ran at 2.700 GHz (median of the rounds; an FMA 4 cycles, as "
  .. "the scalar chain shows at "
  .. "the imul clock), 9.9% below the imul chain's clock beside it", 1, true) ~= nil,
    "the licence clock is said: " .. said)
t.is(clk.unit_clocks(cs), "vector units' clock (2 dependent FMA chains of each width, CPU 0, an FMA 4 cycles: the "
  .. "scalar chain took 4.00 at the imul clock) before/after each compute round: scalar 2.996/2.994, 2.990/2.996, "
  .. "2.993/2.995; avx512 2.700/2.698, 2.695/2.700, 2.698/2.699 GHz", "every chain's clock is printed, round by round")
ceilings.write_csv(path, compute.rows(cs))
t.ok(math.abs(ceilings.read_csv(path)[1].clock - 2.7) < 1e-4,
  "peaks.csv's clock_GHz of an AVX-512 ceiling is its units' clock")
-- a scalar chain off a whole number of cycles (the clock moved between it and its reading): the
-- imul chain's clock, said
cs, row = replay(recorded_rounds("intel-spr-reconstructed.csv"), function(r)
  r.scalar_before, r.scalar_after = r.scalar_before * 1.12, r.scalar_after * 1.12
end)
t.ok(row.clock == 2.996 and row.clock_by == "imul" and table.concat(compute.notes(cs, compute.rows(cs)), "; "):find(
  "the scalar FMA chain took 4.48 cycles an FMA at the imul chain's clock beside it (median), not a whole number",
    1, true),
  "a latency of 4.48 cycles is no whole number: the imul chain's clock, said")
-- a wide chain faster than the imul clock: its FMA is quicker, not its clock higher
cs, row = replay(recorded_rounds("intel-spr-reconstructed.csv"), function(r)
  r.avx512_before, r.avx512_after = r.scalar_before * 0.8, r.scalar_after * 0.8
end)
t.ok(math.abs(row.clock - 2.996) < 1e-4 and row.clock_by == "scalar"
  and table.concat(compute.notes(cs, compute.rows(cs)),
  "; "):find("the avx512 FMA chain ran 25.0% faster than 4 cycles an FMA at the imul chain's clock", 1, true),
  "a wide chain 25% faster: the scalar units' clock, said")
-- scalar work: the higher of the imul readings and the scalar FMA chain's around its best round
-- (a scalar chain that reads a clock above the imul chain's would otherwise put the scalar FMA
-- ceiling above its theory)
cs = compute.new({ 1 })
cs.points = { { isa = compute.isa[1], prec = "double", op = "fma", threads = 1 },
  { isa = compute.isa[5], prec = "double", op = "fma", threads = 1 } }
cs = three(clock_fake(function() return 3.68 end, function(r, after) return r == 1 and not after and 3.673 or 3.6 end,
  function(r, after, class) return 4 / (r == 1 and not after and class == "scalar" and 3.689 or 3.68) end), cs)
row = compute.rows(cs)[1]
t.ok(math.abs(row.clock - 3.689) < 1e-9 and row.clock_by == "scalar" and theory.of(row, amd).share <= 1, string.format(
  "a scalar ceiling's clock is the higher of the imul (3.673) and scalar FMA chain (3.689) "
    .. "readings: %.3f GHz, %.1f%% of "
  .. "its theory", row.clock, theory.of(row, amd).share * 100))
-- recorded rounds without a licence clock (epyc-zen4.csv): the AVX-512 chain within 0.3% of
-- the imul clock, nothing said; one 512-bit FMA a cycle
cs, row = replay(recorded_rounds("epyc-zen4.csv"))
lat, cyc = clk.fma_latency(cs)
th = theory.of(row, amd)
said = table.concat(compute.notes(cs, compute.rows(cs)), "; ")
t.ok(lat == 4 and math.abs(cyc - 3.99) < 0.01 and row.clock_by == "fma" and math.abs(row.clock - 3.6931) < 1e-3
  and not said:find("FMA chain"),
    string.format("EPYC: the scalar chain %.3f cycles, the AVX-512 ceiling at its chain's "
    .. "%.3f GHz (the imul chain read 3.685/3.694 around its round), no line on it", cyc, row.clock))
t.ok(th.flops == 16 and th.share > 0.98 and th.share <= 1,
  string.format("EPYC: %.2f GFLOP/s = %.1f%% of 16 flops a cycle "
  .. "(8 lanes x 2 flops x one 512-bit FMA a cycle) at %.3f GHz", row.value, th.share * 100, row.clock))
-- the FMAs a core starts a cycle, as the data sheets give them
t.ok(theory.per_cycle(amd, "avx512") == 1 and theory.per_cycle(amd, "avx2") == 2
  and theory.per_cycle(intel, "avx512") == 2
  and theory.per_cycle({ vendor = "AuthenticAMD", family = 26 }, "avx512") == 2 and theory.per_cycle({}, "scalar") == 2,
  "one 512-bit FMA a cycle on Zen 4 (family 25), two on Zen 5, Intel and at other widths")

t.done()
