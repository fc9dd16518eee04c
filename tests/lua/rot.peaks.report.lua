-- Unit tests of rot.peaks.report: what the peaks tell a user beyond their values: the
-- unstable ceilings counted by reason, a ceiling above its theory, the read ceiling's line,
-- quick peaks too rough, the stored rows a run that measured nothing shows.
-- judges no time
local t = require "tap"
local theory = require "rot.machine.theory"

local report = require "rot.peaks.report"
-- the footer counts each reason apart: a new user's run said "5 ceilings whose best rounds still
-- disagree by more than 5%" of two DRAM ceilings at 2.1% and 0.7%, unstable for no flat tail
local unstable = {
  { name = "double_avx512_fma", kind = "compute", threads = 2, value = 90, spread = 0.09, rounds = 7, unstable = true },
  { name = "triad_L3", kind = "bandwidth", level = "L3", threads = 1, value = 102, spread = 0.55,
    rounds = 6, unstable = true },
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
  .. "(its sizes showed no flat tail), 1 that moved since they were stored; the points they bound say so",
    1, true) == 1,
  "the unstable ceilings counted by reason, the sweep's rows aside: " .. footer)
unstable[3].spread = 0.08
t.ok(report.unstable_line(unstable):find("3 whose best rounds still disagree by more than 5%, 2 "
  .. "from DRAM's last octave "
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
t.ok(#above == 1
  and above[1]:find("1 compute ceiling lies above its theoretical peak (double_avx2_fma, 1 thread: 58.75 "
  .. "GFLOP/s, 100.71% of 16 flops a cycle at 3.646 GHz): no ceiling can pass the peak at the "
    .. "clock its units ran at, so "
  .. "the clock it records was read low", 1, true) ~= nil,
    "a ceiling above its theory is flagged, with why it cannot be: "
  .. tostring(above[1]))
t.is(#report.above_theory({ within }, zen4), 0, "one within its theory (98.2%): nothing said")
-- a share just past 100 % is the peak within the clock readings' scatter (fresh quick peaks here
-- read 100.06 % and 100.1 %): not flagged, and its theory line says so
local at = { name = "double_avx2_add", kind = "compute", isa = "avx2", threads = 1, value = 29.52, clock = 3.6875,
  unit = "GFLOP/s", clock_by = "fma" }
t.ok(#report.above_theory({ at }, zen4) == 0 and theory.text(at,
  zen4):find("; the peak, within the clock readings' scatter$") ~= nil,
  "100.06% of its theory: the peak within the readings' scatter, said on its line, not flagged: "
    .. theory.text(at, zen4))
-- the theory line names its clock and says why that one; one lane is one lane
t.ok(theory.text(within, zen4):find("(1 lane x 2 flops x 2 a cycle) at 3.690 GHz", 1, true) ~= nil,
  "one lane, not '1 lanes': " .. theory.text(within, zen4))
within.clock_by, over.clock_by = "scalar", "fma"
t.ok(theory.text(within,
  zen4):find("(the scalar units' clock, the higher of the imul and scalar FMA chains' around its "
  .. "round: no licence clock slows this work)", 1, true) and theory.text(over,
    zen4):find("(its FMA chain's clock, not the "
  .. "imul chain's: wide vector work can run at a lower, licence clock)", 1, true),
  "each theory says in a few words why its clock is the units': " .. theory.text(over, zen4))

-- the read ceiling's line names its clock
local read = report.read_line({ { name = "read_L1", kind = "bandwidth", threads = 1, value = 217,
  clock = 3.69 } }, zen4)
t.ok(read:find("read L1, 1 thread: 217.0 GB/s = 58.8 bytes a cycle at 3.69 GHz (the imul "
  .. "chain's highest reading of the "
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
  .. "thread, 235%); quick peaks are for smoke tests", 1, true)
    and qn[2]:find("quick peaks: 2 threads' DRAM triad ceiling "
  .. "22.7 GB/s lies below the full peaks' 1-thread one, 23.8 GB/s", 1, true), "quick peaks too rough are said: "
  .. table.concat(qn, " | "))
quick[4].value = 21
t.ok(report.quick_notes(quick)[2]:find("21.0 GB/s lies below their own 1-thread one, 22.0 GB/s", 1, true),
  "without full peaks stored, against their own 1-thread DRAM")
t.is(#report.quick_notes({ quick[3], { name = "triad_DRAM", kind = "bandwidth", threads = 2,
  value = 40, spread = 0.02 } },
  { { name = "triad_DRAM", kind = "bandwidth", threads = 1, value = 23.79 } }), 0, "calm quick peaks: nothing said")

-- a run that measured nothing shows the stored rows: a ceiling stored unstable (it had moved)
-- that this run's rows do not mark says so; what this run found of an identical ceiling (its
-- clock's source, no flat tail) goes with the stored row
local stored_rows = {
  { name = "triad_DRAM", kind = "bandwidth", threads = 1, value = 23.79, clock = 3.69, spread = 0.01,
    rounds = 3, unstable = true },
  { name = "read_DRAM", kind = "bandwidth", threads = 1, value = 24.7, clock = 3.69, spread = 0.021,
    rounds = 3, unstable = true },
  { name = "double_avx512_fma", kind = "compute", threads = 1, value = 58.43, clock = 3.694,
    spread = 0.01, rounds = 3 },
}
local derived = {
  { name = "triad_DRAM", kind = "bandwidth", threads = 1, value = 23.79, clock = 3.69, spread = 0.01, rounds = 3 },
  { name = "read_DRAM", kind = "bandwidth", threads = 1, value = 24.7000001, clock = 3.69, spread = 0.021, rounds = 3,
    unflat = true, level = "DRAM", unstable = true },
  { name = "double_avx512_fma", kind = "compute", threads = 1, value = 58.43, clock = 3.694, clock_by = "fma" },
}
local shown = report.as_stored(stored_rows, derived)
t.ok(shown[3].clock_by == "fma" and shown[2].unflat
  and report.unstable_line(shown):find("1 from DRAM's last octave (its "
  .. "sizes showed no flat tail), 1 stored as unstable (moved since the peaks before them)", 1, true),
  "the stored rows shown with what this run found of them: " .. report.unstable_line(shown))

t.done()
