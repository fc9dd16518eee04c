--[[ rot.count.caches: the cache hierarchy the counting pass simulates: this machine's data and
  unified levels as hwloc reports them (one instance's size, its ways, the line), each level's
  size replaced by the one `rot measure peaks` measured (1 thread) where that is larger, or
  smaller by more than a factor of two, as rooflines and bounds take them: the simulation never
  sends a working set to a slower level than the bounds do (rot.results.placed). ]]
local machine = require "rot.machine"
local ceilings = require "rot.machine.ceilings"

local M = {}

M.MAX_LEVELS = require("rot.protocol").count.levels -- what the counting tool simulates at most
M.DEFAULT_WAYS = 16 -- where hwloc does not know a level's ways (or says fully associative)

-- The stored peaks' levels at 1 thread (effective sizes), or nil: never measured for this.
local function measured(s)
  local rows = ceilings.read_csv(ceilings.file(s))
  if not rows or #rows == 0 then return nil end
  local by = {}
  for _, l in ipairs(ceilings.levels(rows, ceilings.nearest_threads(rows, 1))) do by[l.name] = l.size end
  return by
end

--[[ levels(s) -> { {name="L1", size=bytes, ways=, reported=bytes, effective=bytes or nil}, ... },
  line: the hierarchy to simulate (empty where the machine reports no cache: then nothing is
  simulated) and its line size. ]]
function M.levels(s)
  local eff = measured(s) or {}
  local out, line = {}, nil
  for _, c in ipairs(machine.topology().caches) do
    if c.size > 0 and #out < M.MAX_LEVELS then
      local size, e = c.size, eff[c.name]
      if e and (e > size or e < size / 2) then size = e end
      local ways = c.associativity and c.associativity > 0 and c.associativity or M.DEFAULT_WAYS
      out[#out + 1] = { name = c.name, size = size, ways = ways, reported = c.size, effective = e }
      line = line or (c.linesize and c.linesize > 0 and c.linesize) or nil
    end
  end
  return out, line or 64
end

-- The counting tool's option for levels: "SIZE:WAYS,..." (each size a whole number of sets).
function M.option(levels, line)
  local parts = {}
  for i, l in ipairs(levels) do
    local sets = math.max(1, l.size // (line * l.ways))
    parts[i] = string.format("%d:%d", sets * line * l.ways, l.ways)
  end
  return table.concat(parts, ",")
end

-- What the simulation was, in words: "L1 48.0 KiB 12-way, L2 ..., 64 B lines" (a level whose
-- measured size replaced the reported one says both).
function M.describe(levels, line)
  local util = require "rot.util"
  local parts = {}
  for i, l in ipairs(levels) do
    parts[i] = string.format("%s %s %d-way%s", l.name, util.bytes(l.size), l.ways,
      l.size ~= l.reported and (" (measured; reported " .. util.bytes(l.reported) .. ")") or "")
  end
  if #parts == 0 then return "no cache simulated (the machine reports none)" end
  return table.concat(parts, ", ") .. ", " .. line .. " B lines"
end

return M
