-- rot.peaks.contradictions: bandwidth ceilings that contradict each other beyond their spreads
-- (read-only DRAM below triad, a level below the next), and what the sweeps tell a user.
local agreement = require "rot.machine.agreement"
local util = require "rot.util"
local codes = require "rot.peaks.widths"

local M = {}

-- Read-only DRAM below triad beyond their spreads, for t threads: {read=, triad=} rows, or nil.
function M.contradiction(a)
  local by = {}
  for _, r in ipairs(a.rows) do if r.level == "DRAM" then by[r.stream] = r end end
  local rd, tr = by[1], by[3]
  if rd and tr and rd.value * (1 + rd.spread) * (1 + tr.spread) < tr.value then return { read = rd, triad = tr } end
  return nil
end

--[[ A level's ceiling below the next slower level's, of the same kernel at t threads, beyond
  their spreads (a faster level cannot be slower than the one after it: a noisy round measured
  it low): {{row=, next=}} (the rows come level by level, fastest first), empty when none. ]]
function M.inversions(a)
  local out, last = {}, {}
  for _, r in ipairs(a.rows) do
    if r.kind == "bandwidth" and r.stream then
      local x = last[r.stream]
      if x and x.value * (1 + (x.spread or 0)) * (1 + (r.spread or 0)) < r.value then
        out[#out + 1] = { row = x, next = r }
      end
      last[r.stream] = r
    end
  end
  return out
end

--[[ What the user should know of the sweeps: thread counts left without ceilings (missing, as
  analyse_all gives it: at the sweep's end only one with too few sizes measured), bounded sizes,
  read below triad, unstable ceilings. ]]
function M.notes(an, st, missing)
  local notes = {}
  for t, why in pairs(missing or {}) do
    if not an[t] and next(st.samples[t][3]) ~= nil then
      notes[#notes + 1] = string.format("%s: no bandwidth ceilings (%s): rooflines at this thread count have "
        .. "compute ceilings only", util.count(t, "thread"), why or "no levels")
    end
  end
  if st.bounded and st.bounded.want then
    notes[#notes + 1] = string.format("the DRAM sweep stops at a quarter of the memory (%s); 4x "
      .. "the last cache would be %s",
      util.bytes(st.bounded.cap), util.bytes(st.bounded.want))
  elseif st.bounded then
    notes[#notes + 1] = string.format("the DRAM sweep stops at a quarter of the memory (%s) before its tail is flat",
      util.bytes(st.bounded.cap))
  end
  if st.budget then
    notes[#notes + 1] = string.format("round %d was not measured: it would pass the peaks' time budget (%d s); the "
      .. "ceilings it was for keep the rounds they have, unstable where those disagree; %s",
      st.budget.round, st.budget.seconds, agreement.again)
  end
  for t, a in pairs(an) do
    for _, line in ipairs(a.notes) do notes[#notes + 1] = line end
    local c = M.contradiction(a)
    if c then
      notes[#notes + 1] = string.format("%s: read-only DRAM %.1f GB/s stays below triad %.1f GB/s beyond their "
        .. "spreads (%.1f%%, %.1f%%) after %d rounds: one stream's misses in flight limit it where triad's three "
        .. "do not", util.count(t, "thread"), c.read.value, c.triad.value, c.read.spread * 100,
        c.triad.spread * 100, c.read.rounds)
    end
    for _, v in ipairs(M.inversions(a)) do
      v.row.unstable, v.row.inverted = true, true
      local below, next_ = (v.row.spread or 0) * 100, (v.next.spread or 0) * 100
      notes[#notes + 1] = string.format("%s: %s %.1f GB/s stays below %s %.1f GB/s beyond their spreads (%.1f%%, "
        .. "%.1f%%): a faster level cannot be slower than the next, so %s is marked unstable; %s",
        util.count(t, "thread"), v.row.name, v.row.value, v.next.name, v.next.value, below, next_, v.row.name,
        agreement.again)
    end
    notes[#notes + 1] = codes.note(util.count(t, "thread"), a.rows)
    for _, r in ipairs(a.rows) do
      if r.kind == "bandwidth" and ((r.rounds and r.spread > agreement.stable) or r.unflat) then r.unstable = true end
    end
  end
  return notes
end

return M
