--[[ rot.machine.theory: a compute ceiling's theoretical peak at the clock its row records (its
  units' clock: rot.peaks.clocks), from the operations a core starts a cycle at its width. ]]
local util = require "rot.util"
local isas = require "rot.machine.isa"

local M = {}

--[[ Operations of one ISA class's width a core starts a cycle, as the data sheets give them: two
  FMAs (or adds) everywhere rot knows, but one 512-bit one on AMD family 25 (Zen 4, whose two
  256-bit pipes take both halves of each). cpu: rot.machine.cpuinfo()'s vendor and family. A Xeon
  with one 512-bit FMA unit also starts one; /proc/cpuinfo does not tell it apart, so its AVX-512
  ceilings read half of this theory. ]]
function M.per_cycle(cpu, class)
  if class == "avx512" and cpu.vendor == "AuthenticAMD" and cpu.family == 25 then return 1 end
  return 2
end

--[[ A compute ceiling's theoretical peak at the clock its row records (its units' clock):
  {lanes=, per_op= (flops an operation), per_cycle= (operations a core starts), flops= (a cycle,
  all its threads), gflops=, share= (its value over it)}; nil when the row has no clock, or no
  class or precision rot knows, and for addmul (no data sheet gives the issue rate of a mix). ]]
function M.of(row, cpu)
  local isa
  for _, x in ipairs(isas.classes) do if x.name == row.isa then isa = x end end
  local prec, op = row.name:match("^(%a+)_%w+_(%a+)$")
  local lanes = isa and prec and isa.lanes[prec]
  if not (lanes and row.clock and isas.opcode[op]) or op == "addmul" then return nil end
  local per_op, per_cycle = isas.per_op(op), M.per_cycle(cpu, isa.name)
  local flops = lanes * per_op * per_cycle * row.threads
  return { lanes = lanes, per_op = per_op, per_cycle = per_cycle, flops = flops, gflops = flops * row.clock,
    share = row.value / (flops * row.clock) }
end

-- Which clock a row's theory is taken at, and in a few words why that one (its clock_by:
-- rot.peaks.clocks.units_clock).
local function clock_words(row)
  if row.clock_by == "fma" then
    return "its FMA chain's clock, not the imul chain's: wide vector work can run at a lower, licence clock"
  elseif row.clock_by == "scalar" and isas.licensed[row.isa] then
    return "the scalar units' clock: its FMA chain ran faster than that, a quicker FMA, not a higher clock"
  elseif row.clock_by == "scalar" then
    return "the scalar units' clock, the higher of the imul and scalar FMA chains' around its round: no licence "
      .. "clock slows this work"
  elseif row.clock_by == "imul" then
    return "the imul chain's clock: the scalar FMA chain gave no whole latency to read the units' clocks by"
  end
  return "its clock_GHz as stored"
end

-- How far past its theoretical peak a ceiling may read and still be at it: the clock readings
-- around a round scatter by about 0.1 % on a steady clock, and a ceiling at its peak reads just
-- past it by that much; five times that scatter is the peak, not past it.
M.at_peak = 0.005

-- "NAME X GFLOP/s = P% of F flops a cycle (L lanes x 2 flops x U a cycle) at G GHz (WHICH
-- clock: why)" for a compute row with a theory (M.of), nil without one; a share just past 100 %
-- (within M.at_peak) is said to be the peak within the readings' scatter.
function M.text(row, cpu)
  local th = M.of(row, cpu)
  if not th then return nil end
  return string.format("%s %.2f GFLOP/s = %.1f%% of %g flops a cycle (%d %s x %d %s x %d a cycle%s) at %.3f GHz (%s)%s",
    row.name, row.value, th.share * 100, th.flops, th.lanes, util.plural(th.lanes, "lane"), th.per_op,
    util.plural(th.per_op, "flop"), th.per_cycle, row.threads > 1 and string.format(" x %d cores", row.threads) or "",
    row.clock, clock_words(row), th.share > 1 and th.share <= 1 + M.at_peak
      and "; the peak, within the clock readings' scatter" or "")
end

return M
