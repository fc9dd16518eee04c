-- rot.describe.fields: what every kind of point's spec shares: its fields checked against the
-- known ones (a typo named with the nearest), its counters and measured counts, its count.
local util = require "rot.util"

local M = {}

-- The names of a set, sorted.
function M.names_of(set)
  local out = {}
  for k in pairs(set) do out[#out + 1] = k end
  table.sort(out)
  return out
end

-- Stops at the first field of t that known lacks, naming what and the nearest field.
function M.check(t, known, what)
  for k in pairs(t) do
    if not known[k] then
      util.fail("unknown field '" .. tostring(k) .. "' in " .. what
        .. util.did_you_mean(tostring(k), M.names_of(known)))
    end
  end
end

-- A spec's count (true: count its flops and bytes once, under Valgrind: rot.count), checked;
-- no part of its description (the timed result is the same, counted or not).
function M.count(spec)
  if spec.count ~= nil and type(spec.count) ~= "boolean" then
    util.fail("count must be true or false (true: its flops, bytes and simulated cache traffic counted once, "
      .. "under Valgrind), not " .. tostring(spec.count))
  end
end

-- A spec's counters (libpfm4 event names) and counts ({flops=, bytes=}: measured as weighted
-- sums of those counters), checked.
function M.counters(spec)
  local counters = {}
  for i, c in ipairs(spec.counters or {}) do
    if type(c) ~= "string" or c == "" or c:find("[%s=]") then
      util.fail("counter " .. i .. " must be an event name without spaces or '='")
    end
    counters[i] = c
  end
  local counts = {}
  for q, combo in pairs(spec.counts or {}) do
    if q ~= "flops" and q ~= "bytes" then
      util.fail("counts: only flops and bytes can be measured, not '" .. tostring(q) .. "'")
    end
    counts[q] = {}
    for ev, weight in pairs(combo) do
      local known = false
      for _, c in ipairs(counters) do known = known or c == ev end
      if not known then util.fail("counts." .. q .. " uses '" .. tostring(ev) .. "', which is not in counters") end
      if type(weight) ~= "number" then util.fail("counts." .. q .. "['" .. ev .. "'] must be a number") end
      counts[q][ev] = weight
    end
  end
  return counters, counts
end

return M
