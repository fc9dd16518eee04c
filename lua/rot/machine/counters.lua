--[[ rot.machine.counters: the PMU's counters that count floating-point work, by vendor (libpfm4's
  names), as a point's counters and counts (docs/lua-api.md, "Counters"): Intel's
  FP_ARITH_INST_RETIRED counts instructions by precision and width (an FMA twice), so flops are
  each count times its lanes; AMD's RETIRED_SSE_AVX_FLOPS counts flops (an FMA two). With them a
  counted point has its flops from the PMU beside the counted ones, and rot.results.counted says
  where the two disagree. Where no PMU counts (a guest without one), the events are "not
  counted", never 0. ]]
local machine = require "rot.machine"

local M = {}

-- {event, the flop class it counts (rot.protocol.count.classes; nil: all), flops a count}
M.EVENTS = {
  GenuineIntel = {
    { "FP_ARITH_INST_RETIRED:SCALAR_DOUBLE", "fp64_scalar", 1 },
    { "FP_ARITH_INST_RETIRED:128B_PACKED_DOUBLE", "fp64_128", 2 },
    { "FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE", "fp64_256", 4 },
    { "FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE", "fp64_512", 8 },
    { "FP_ARITH_INST_RETIRED:SCALAR_SINGLE", "fp32_scalar", 1 },
    { "FP_ARITH_INST_RETIRED:128B_PACKED_SINGLE", "fp32_128", 4 },
    { "FP_ARITH_INST_RETIRED:256B_PACKED_SINGLE", "fp32_256", 8 },
    { "FP_ARITH_INST_RETIRED:512B_PACKED_SINGLE", "fp32_512", 16 },
  },
  AuthenticAMD = { { "RETIRED_SSE_AVX_FLOPS:ANY", nil, 1 } },
}

--[[ flops([vendor]) -> {counters = {...}, counts = {flops = {event = weight}}}: what a point's
  spec adds to have its flops measured by the PMU (vendor: /proc/cpuinfo's vendor_id, this
  machine's by default); nil for a vendor rot knows no events of. ]]
function M.flops(vendor)
  local events = M.EVENTS[vendor or machine.cpuinfo().vendor]
  if not events then return nil end
  local out = { counters = {}, counts = { flops = {} } }
  for i, e in ipairs(events) do
    out.counters[i] = e[1]
    out.counts.flops[e[1]] = e[3]
  end
  return out
end

--[[ expected(classes, vendor) -> {event = count}: what each event would count for counted
  flops by class (rot.results.counted: flopsClasses): the PMU's reading of the same work, to
  check a reading (or a fixture) against. ]]
function M.expected(classes, vendor)
  local out = {}
  for _, e in ipairs(M.EVENTS[vendor] or {}) do
    local n = 0
    for class, flops in pairs(classes) do
      if e[2] == nil or e[2] == class then n = n + flops end
    end
    out[e[1]] = n / e[3]
  end
  return out
end

return M
