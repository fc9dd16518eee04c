-- rot.peaks.widths: the access widths each bandwidth stream of the peaks is built with (the widest
-- vectors, and narrow code from the last cache up), which gave a ceiling, and the note when narrow won.
local rounds = require "rot.peaks.settle"
local isas = require "rot.machine.isa"

local M = {}

-- The codes each stream is built as (rot.machine.isa.codes).
M.list = isas.codes

-- Where the narrow code begins when no cache is reported: past the last caches of the machines
-- rot has been measured on, and past where their DRAM tails begin.
M.NO_LLC_FROM = 128 * 1024 * 1024

-- The codes (indices into M.list) measured at a working set of ws bytes, the last cache reported
-- for its threads llc bytes (0 when none is: from M.NO_LLC_FROM up).
function M.measured_at(ws, llc)
  return ws >= (llc > 0 and llc or M.NO_LLC_FROM) and { 1, 2 } or { 1 }
end

-- The code (an index into M.list) of a ceiling from samples at sizes in a round: with
-- `fastest` (the ceiling is their fastest) that size's; else (their median) the one code of
-- them all, nil where they mix codes. nil where no sample there says (a recorded staircase's).
function M.winner(samples, sizes, round, fastest)
  local best, code, seen = nil, nil, {}
  for _, ws in ipairs(sizes) do
    local x = samples[ws]
    local g, c = x and x.rounds[round], x and x.code and x.code[round]
    if g and c then
      seen[c] = true
      if not best or g > best then best, code = g, c end
    end
  end
  if fastest or not code then return code end
  return not (seen[1] and seen[2]) and code or nil
end

-- Sweep rows (rot.machine.sweep.rows: each size's best round among samples), each with the
-- flags of the code that measured it as its isa where the samples say; returns them.
function M.label_sweep(samples, rows)
  for _, row in ipairs(rows) do
    local x = samples[row.sizes[1]]
    for round, g in pairs(x.rounds) do
      if g == row.value and x.code and x.code[round] then row.isa = M.list[x.code[round]].flags end
    end
  end
  return rows
end

-- One code's samples, in the shape of all codes' ({[ws] = {ws=, rounds=, at=}}).
local function of_code(samples, code)
  local out = {}
  for ws, x in pairs(samples) do
    local r = {}
    for round, by in pairs(x.by or {}) do r[round] = by[code] end
    out[ws] = { ws = ws, rounds = r, at = x.at }
  end
  return out
end

--[[ Where the narrow code's ceiling at a level (sizes, fastest as rounds.ceiling takes them) lies
  above the widest vectors' by more than both spreads, both measured at every size of it in the
  same rounds (each round measures both codes, one batch after the other): {narrow=, vector=}
  (GB/s); the row's value is the narrow code's then. nil otherwise. ]]
function M.faster_narrow(samples, sizes, fastest)
  for _, ws in ipairs(sizes) do
    local any = false
    for _, by in pairs(samples[ws] and samples[ws].by or {}) do any = any or (by[1] ~= nil and by[2] ~= nil) end
    if not any then return nil end
  end
  local v = rounds.ceiling(of_code(samples, 1), sizes, fastest)
  local n = rounds.ceiling(of_code(samples, 2), sizes, fastest)
  if not (v and n and n.gbs > v.gbs * (1 + v.spread) * (1 + n.spread)) then return nil end
  return { narrow = n.gbs, vector = v.gbs }
end

-- The line that says which ceilings of a thread count ("1 thread") are the narrow code's (rows
-- with .narrow, as M.faster_narrow gives it), so that a user reading "-O3 -march=native" points
-- against them knows why; nil when none is.
function M.note(threads, rows)
  local each = {}
  for _, r in ipairs(rows) do
    if r.narrow then
      each[#each + 1] = string.format("%s %.1f against %.1f GB/s (%+.0f%%)", r.name, r.narrow.narrow, r.narrow.vector,
        (r.narrow.narrow / r.narrow.vector - 1) * 100)
    end
  end
  if #each == 0 then return nil end
  local c1, c2 = M.list[1], M.list[2]
  return string.format("%s: code built with %s (%s) streams faster than with %s (%s) in the same rounds (one batch "
    .. "after the other): %s; those ceilings are the faster code's", threads, c2.flags, c2.name, c1.flags, c1.name,
    table.concat(each, ", "))
end

return M
