-- rot.peaks.budget: the peaks' time budget: its timer, and what the bandwidth batches cost (a
-- point's runs, its start and description, faulting its arrays in), learnt to guess the next.
local levels = require "rot.machine.levels"

local M = {}

local MiB = 1024 * 1024
local POINT = 0.005 -- a point's start and description, at the least (seconds)

--[[ The peaks' timer, which their time budget counts: the time their points took when they
  were measured, now or before they were cached (each entry's pointSeconds: rot.execute.batch).
  So peaks found again from the cache spend what the run that measured them spent and make its
  choices: a round it left out is left out again, not measured now. Builds, waits for a lock
  and the driver's work between batches do not count. {now(), count(rows)}: count adds a
  batch's rows (a failed point, with no entry, adds nothing; an entry cached by a rot that did
  not record pointSeconds adds its runs and a point's least start, M.cost + POINT, an estimate
  below what it took). ]]
function M.timer()
  local spent = 0
  local c = {}
  function c.now() return spent end
  function c.count(rows)
    for _, row in ipairs(rows) do
      if row.entry then spent = spent + (tonumber(row.entry.meta.pointSeconds) or M.cost(row) + POINT) end
    end
  end
  return c
end

-- What a measured point's runs took, in seconds, its warm-up run counted as one more median
-- run (0 when it was not measured).
function M.cost(row)
  local ns, sum = {}, 0
  for i, r in ipairs(row.entry and row.entry.runs or {}) do ns[i], sum = r.ns, sum + r.ns end
  return #ns > 0 and (sum + levels.median(ns)) * 1e-9 or 0
end

-- Learns from a measured batch of points {stream=, threads=, ws=} that took wall seconds, known
-- of them its points' runs: its time beyond those per byte of its arrays where they are large
-- (st.per_byte: faulting gigabytes in takes seconds on a VM), else per point (st.per_point).
function M.learn(st, list, wall, known)
  local bytes = M.bytes(list)
  if bytes >= 256 * MiB then
    st.per_byte = math.max(0, wall - known - POINT * #list) / bytes
  else
    st.per_point = math.max(POINT, (wall - known) / math.max(#list, 1))
  end
end

-- The bytes of a batch's arrays: each kernel's working set at each size and thread count once.
function M.bytes(pts)
  local seen, sum = {}, 0
  for _, x in ipairs(pts) do
    local k = x.threads .. ":" .. x.stream .. ":" .. x.ws .. ":" .. (x.code or 1) -- each code's child faults its own
    if not seen[k] then seen[k], sum = true, sum + x.ws end
  end
  return sum
end

-- A batch's guessed time, in seconds: each point's runs as long as in its last round (of its
-- code: rot.peaks.widths), a
-- point's start and description as in the last batch of small arrays, and faulting its
-- arrays in as fast as in the last batch of large ones.
function M.guess(st, pts)
  local secs = (st.per_byte or 0) * M.bytes(pts)
  for _, x in ipairs(pts) do
    local known = st.samples[x.threads][x.stream][x.ws]
    secs = secs + (st.per_point or 0.01) + (known and known.cost_by and known.cost_by[x.code or 1] or 0)
  end
  return secs
end

return M
