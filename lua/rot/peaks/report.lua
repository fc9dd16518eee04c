--[[ rot.peaks.report: what `rot measure peaks` tells a user of its ceilings beyond their values:
  why each unstable one is, a compute ceiling above its theory, quick peaks too rough to trust,
  the read ceiling against the loads a core issues, the kernel's memory samplers that the
  ceilings on every CPU share it with, and the stored peaks a run that measured nothing shows
  as they are. ]]
local agreement = require "rot.machine.agreement"
local util = require "rot.util"
local theory = require "rot.machine.theory"

local M = {}

-- Why a ceiling is unstable, in the order the footer names them: the key a row's fields give
-- (M.why) and what the footer says of the ceilings it holds for.
M.reasons = {
  { "rounds", "whose best rounds still disagree by more than 5%" },
  { "tail", "from DRAM's last octave (its sizes showed no flat tail)" },
  { "plateau", "of a level whose sizes showed no plateau (their median)" },
  { "inverted", "below the next slower level's" },
  { "moved", "that moved since they were stored" },
  { "stored", "stored as unstable (moved since the peaks before them)" },
}

-- The reasons an unstable ceiling row is (a set of M.reasons' keys; empty for a stable one): its
-- rounds' spread, DRAM without a flat tail, a level without a plateau, a level below the next,
-- a move since the stored peaks; "stored" for a stored row marked unstable for none of these
-- (as this run finds it: a move since the peaks stored before it).
function M.why(r)
  local out = {}
  if not r.unstable or r.kind == "sweep" then return out end
  if (r.spread or 0) > agreement.stable and (r.kind == "compute" or r.rounds) then out.rounds = true end
  if r.unflat then out[r.level == "DRAM" and "tail" or "plateau"] = true end
  out.inverted, out.moved = r.inverted, r.moved
  if next(out) == nil then out.stored = true end
  return out
end

-- The footer line on the unstable ceilings (the sweep's rows aside), each reason counted and
-- said apart; nil when none is.
function M.unstable_line(rows)
  local n, count, said = 0, {}, 0
  for _, r in ipairs(rows) do
    local why = M.why(r)
    if next(why) then n = n + 1 end
    for k in pairs(why) do count[k] = (count[k] or 0) + 1 end
  end
  if n == 0 then return nil end
  local each = {}
  for _, x in ipairs(M.reasons) do
    if count[x[1]] then each[#each + 1], said = string.format("%d %s", count[x[1]], x[2]), said + count[x[1]] end
  end
  return string.format("UNSTABLE: %d %s: %s%s; the points they bound say so (limiter '... (unstable)'); %s", n,
    util.plural(n, "ceiling"), table.concat(each, ", "), said > n and " (some for more than one reason)"
      or "", agreement.again)
end

-- "name, N thread(s)" for a line.
local function named(r)
  return r.name .. ", " .. util.count(r.threads, "thread")
end

--[[ One line on the compute ceilings above their theoretical peak at the clock they record by
  more than the readings' scatter (rot.machine.theory, its at_peak; cpu: rot.machine.cpuinfo()'s),
  or none: no ceiling can pass the peak at the
  clock its units ran at, so either that clock was read low or the flops a cycle are not this
  core's. ]]
function M.above_theory(rows, cpu)
  local each = {}
  for _, r in ipairs(rows) do
    local th = r.kind == "compute" and theory.of(r, cpu)
    if th and th.share > 1 + theory.at_peak then
      each[#each + 1] = string.format("%s: %.2f GFLOP/s, %.2f%% of %g flops a cycle at %.3f GHz", named(r), r.value,
        th.share * 100, th.flops, r.clock)
    end
  end
  if #each == 0 then return {} end
  return { string.format("%d compute %s above %s theoretical peak (%s): no ceiling can pass the peak at the clock "
    .. "its units ran at, so the clock it records was read low (readings of a steady clock "
      .. "scatter by about 0.1%%, more "
    .. "where a neighbour takes the CPU during one) or the flops a cycle are not this core's (lanes, FMA units: "
    .. "rot.machine.theory); %s", #each, util.plural(#each, "ceiling lies", "ceilings lie"),
      util.plural(#each, "its", "their"),
    table.concat(each, "; "), agreement.again) }
end

-- How far a quick ceiling's rounds may spread before quick peaks say they are rough.
M.rough = 0.25

--[[ Lines on quick peaks (rows) too rough for more than a smoke test: ceilings whose rounds
  spread by more than M.rough, and the all-CPU DRAM triad ceiling below a 1-thread one, this
  run's or the full peaks' stored on this machine (full: their rows, nil where none are). ]]
function M.quick_notes(rows, full)
  local out, wide, many, one = {}, {}, nil, {}
  for _, r in ipairs(rows) do
    if (r.kind == "compute" or r.kind == "bandwidth") and (r.spread or 0) > M.rough then wide[#wide + 1] = r end
    if r.name == "triad_DRAM" and r.threads > 1 and (not many or r.threads > many.threads) then many = r end
    if r.name == "triad_DRAM" and r.threads == 1 then one[1] = { row = r, whose = "their own" } end
  end
  for _, r in ipairs(full or {}) do
    if r.name == "triad_DRAM" and r.threads == 1 then one[#one + 1] = { row = r, whose = "the full peaks'" } end
  end
  local smoke = "quick peaks are for smoke tests: bounds against them are rough (`rot measure "
    .. "peaks` measures full ones)"
  if #wide > 0 then
    table.sort(wide, function(a, b) return a.spread > b.spread end)
    out[#out + 1] = string.format("quick peaks: %d %s spread by more than %.0f%% between rounds (the most: %s, "
      .. "%.0f%%); %s", #wide, util.plural(#wide, "ceiling"), M.rough * 100, named(wide[1]),
        wide[1].spread * 100, smoke)
  end
  table.sort(one, function(a, b) return a.row.value > b.row.value end)
  if many and one[1] and many.value < one[1].row.value then
    out[#out + 1] = string.format("quick peaks: %s' DRAM triad ceiling %.1f GB/s lies below %s "
      .. "1-thread one, %.1f GB/s: "
      .. "more threads do not stream less from DRAM, so a neighbour took their rounds or too few were measured; %s",
      util.count(many.threads, "thread"), many.value, one[1].whose, one[1].row.value, smoke)
  end
  return out
end

--[[ The line on the 1-thread L1 read ceiling against the loads a core issues: two of its widest
  vector a cycle, and where a core splits its widest vector (AMD family 19h, Zen 4: two 32-byte
  halves a cycle, a 512-bit load taking both) two of those halves, at the bandwidth ceilings'
  clock (the highest imul reading of the run); nil without the row or a clock. cpu: as
  rot.machine.cpuinfo() gives it. ]]
function M.read_line(rows, cpu)
  local vec = cpu.flags.avx512f and 64 or cpu.flags.avx2 and 32 or 16
  local split = vec > 32 and cpu.vendor == "AuthenticAMD" and cpu.family == 25 and 32
  for _, r in ipairs(rows) do
    if r.name == "read_L1" and r.threads == 1 and r.clock then
      return string.format("read L1, 1 thread: %.1f GB/s = %.1f bytes a cycle at %.2f GHz (the imul chain's highest "
        .. "reading of the run, the bandwidth ceilings' clock): %.0f%% of two %d-byte loads a cycle%s", r.value,
        r.value / r.clock, r.clock, r.value / (2 * vec * r.clock) * 100, vec, split and string.format(
        "; %.0f%% of two %d-byte ones, what this core loads a cycle (AMD family 19h, Zen 4: a "
          .. "%d-bit load is two %d-bit "
        .. "halves)", r.value / (2 * split * r.clock) * 100, split, vec * 8, split * 8) or "")
    end
  end
  return nil
end

--[[ The stored peaks a run that measured nothing shows: their rows as stored, each with what this
  run found of the same ceiling (how its clock was taken, why it is unstable) where this run's
  row (derived) holds the same value and clock as stored. ]]
function M.as_stored(stored, derived)
  local function key(r) return r.name .. "/" .. r.kind .. "/" .. r.threads end
  local function same(a, b) return a == b or (a and b and string.format("%.6g", a) == string.format("%.6g", b)) end
  local by = {}
  for _, r in ipairs(derived) do by[key(r)] = r end
  for _, r in ipairs(stored) do
    local d = by[key(r)]
    if d and same(d.value, r.value) and same(d.clock, r.clock) then
      r.clock_by, r.unflat, r.level, r.inverted = d.clock_by, d.unflat, d.level, d.inverted
    end
  end
  return stored
end

-- One line on the kernel's memory samplers (rot.machine.samplers) for the ceilings measured on
-- all pus CPUs, or nil where there is none: each sample takes a CPU from one of the threads, so
-- a run on every CPU that spans samples falls below the ceilings, the best rounds between them.
function M.sampler_note(samplers, pus)
  if #samplers == 0 then return nil end
  local each = {}
  for _, d in ipairs(samplers) do
    each[#each + 1] = d.operations and string.format("%s sampling%s%s", d.operations,
      d.sample_ms and string.format(" every %g ms", d.sample_ms) or "", d.action and ", scheme " .. d.action or "")
      or "running; its settings need root to read"
  end
  return string.format("the kernel runs DAMON (kdamond: %s): at %d %s (every CPU) each sample takes a "
    .. "CPU from one of them, so a run on every CPU that spans samples falls below these ceilings, the "
      .. "best rounds between them",
    table.concat(each, "; "), pus, util.plural(pus, "thread"))
end

return M
