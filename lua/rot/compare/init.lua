--[[ rot.compare: two runs of a measurement side by side (run records, rot.history): which runs,
  points matched by their coordinates, and for each a verdict judged against the noise:
  faster, slower or same. rot.compare.output prints and writes them, rot.compare.plot draws
  them; `rot compare` (rot.cli.history) is the command. README "Iterating on a kernel". ]]
local util = require "rot.util"
local bounds = require "rot.results.bounds"
local history = require "rot.history"

local M = {}

--[[ The verdict on one point (README "Iterating on a kernel"): tA, tB its best times in runs A
  and B, sA, sB their spreads, eps bestEpsilon. The noise band is L = (1+sA)(1+sB)(1+eps) (the
  way rot.results.bounds.above combines a point's spread, a ceiling's and eps); B is slower
  only when tB/tA > L, faster only when tA/tB > L, else the same: a change inside the noise
  is never called one. Returns verdict, tB/tA, L. ]]
function M.verdict(tA, sA, tB, sB, eps)
  local band = (1 + (sA or 0)) * (1 + (sB or 0)) * (1 + (eps or 0))
  local ratio = tB / tA
  if bounds.above(ratio, sA, sB, eps) then return "slower", ratio, band end
  if bounds.above(tA / tB, sA, sB, eps) then return "faster", ratio, band end
  return "same", ratio, band
end

--[[ match(A, B, with_machine) -> pairs, eps: A and B the runs ({record=, keep= (a filter of
  its points, or nil)}), with_machine: keys include the machine. Each pair is {key=, point=,
  a=, b=, verdict=, ratio=, band=}, in B's order, then the points only A has. A point that
  failed (no time) on one side gets "failed in A"/"failed in B"; one the other run lacks
  "only in A"/"only in B". eps: the larger bestEpsilon of the two runs. ]]
function M.match(A, B, with_machine)
  local ka, oa = history.keyed(A.record, with_machine, A.keep)
  local kb, ob = history.keyed(B.record, with_machine, B.keep)
  local eps = math.max(A.record.bestEpsilon or 0, B.record.bestEpsilon or 0)
  local out = {}
  for _, k in ipairs(ob) do
    local a, b = ka[k], kb[k]
    local pair = { key = k, a = a, b = b, point = b.point }
    if not a then pair.verdict = "only in B"
    elseif not (a.time and a.time > 0) then pair.verdict = "failed in A"
    elseif not (b.time and b.time > 0) then pair.verdict = "failed in B"
    else pair.verdict, pair.ratio, pair.band = M.verdict(a.time, a.spread, b.time, b.spread, eps) end
    out[#out + 1] = pair
  end
  for _, k in ipairs(oa) do
    if not kb[k] then out[#out + 1] = { key = k, a = ka[k], point = ka[k].point, verdict = "only in A" } end
  end
  return out, eps
end

--[[ The summary of pairs: counts per verdict, and the geometric-mean speedup tA/tB over the
  points both runs timed (nil when there are none). ]]
function M.summary(matched)
  local n = { faster = 0, slower = 0, same = 0, ["only in A"] = 0, ["only in B"] = 0, ["failed in A"] = 0,
    ["failed in B"] = 0 }
  local logs, m = 0, 0
  for _, p in ipairs(matched) do
    n[p.verdict] = n[p.verdict] + 1
    if p.ratio then logs, m = logs + math.log(1 / p.ratio), m + 1 end
  end
  return { counts = n, matched = m, speedup = m > 0 and math.exp(logs / m) or nil }
end

--[[ The pairs that fail the gate: failOn "slower" (slower beyond the noise, or failing in B
  where A was timed) or "any" (every verdict but same). ]]
function M.offending(matched, fail_on)
  local out = {}
  for _, p in ipairs(matched) do
    local bad = p.verdict == "slower" or p.verdict == "failed in B"
    if fail_on == "any" then bad = p.verdict ~= "same" end
    if bad then out[#out + 1] = p end
  end
  return out
end

local function machines_of(r) return table.concat(r.machines or { r.machine }, "+") end

-- Stops with why a run cannot be found, and the runs there are.
local function no_run(name, what, records, typed)
  local ids = {}
  for i = 1, math.min(#records, 10) do ids[#ids + 1] = tostring(records[i].id) end
  util.fail("no run " .. what .. " of '" .. name .. "'",
    #ids > 0 and ("`rot history " .. typed .. "` lists its runs (newest: " .. table.concat(ids, ", ") .. ")")
    or ("measure it first: rot measure " .. typed))
end

-- The newest run with a point on machine id (its id from `rot cache`, or a Slurm node type).
local function latest_on(name, records, id, typed)
  for _, r in ipairs(records) do
    for _, p in ipairs(r.points) do
      if history.machine_of(r, p) == id or (p.machine or r.machine) == id then
        return { record = r, keep = function(q) return history.machine_of(r, q) == id or (q.machine or r.machine) == id end,
          label = "run " .. r.id .. " on " .. id }
      end
    end
  end
  local known, seen = {}, {}
  for _, r in ipairs(records) do
    for _, m in ipairs(r.machines or { r.machine }) do if not seen[m] then seen[m] = true; known[#known + 1] = m end end
  end
  util.fail("no run of '" .. name .. "' on machine '" .. id .. "'",
    #known > 0 and ("its runs are on " .. table.concat(known, ", ") .. " (`rot cache` lists machine ids)")
    or ("measure it first: rot measure " .. typed))
end

-- Whether a record timed any point (a run whose every point failed has nothing to compare).
local function timed(r)
  for _, p in ipairs(r.points) do if p.time then return true end end
  return false
end

--[[ choose(name, records, a, b, machines, typed) -> A, B ({record=, keep=, label=, note=}),
  with_machine: the two runs to compare. records: newest first (rot.history.list). machines =
  {id, id}: the latest run on each (two different machines); else a and b are run ids (b
  default the newest); with neither, the newest run and the newest run before it on the same
  machines that timed a point and whose results differ (the run just before when none does,
  A.note saying so). typed: the measurement as the user named it, for the commands hints give. ]]
function M.choose(name, records, a, b, machines, typed)
  typed = typed or name
  if #records == 0 then no_run(name, "yet", records, typed) end
  if machines and machines[1] == machines[2] then
    util.fail("-machine names '" .. machines[1] .. "' twice: a run compared with itself shows nothing",
      "name two machines (rot cache lists their ids), or two runs: rot compare " .. typed .. " A B")
  end
  if machines then
    return latest_on(name, records, machines[1], typed), latest_on(name, records, machines[2], typed), false
  end
  local function get(id)
    local r = history.find(records, id)
    if not r then no_run(name, "'" .. tostring(id) .. "'", records, typed) end
    return { record = r, label = "run " .. r.id }
  end
  local B = b and get(b) or { record = records[1], label = "run " .. records[1].id }
  if a then return get(a), B, true end
  local before, any, differ -- the run just before that timed a point; just before at all
  local mine, res = machines_of(B.record), history.results(B.record)
  for _, r in ipairs(records) do
    if r.id < B.record.id and machines_of(r) == mine then
      any = any or r
      before = before or (timed(r) and r) or nil
      if not differ and timed(r) and history.results(r) ~= res then differ = r end
    end
  end
  before = before or any
  local A = differ or before
  if not A then
    util.fail("'" .. name .. "' has only one run on " .. mine .. " (run " .. B.record.id .. ")",
      "measure it again after a change, then compare; or name two runs: rot compare " .. typed .. " A B")
  end
  return { record = A, label = "run " .. A.id, note = not differ and ("no earlier run on " .. mine .. " has other "
    .. "results: comparing with the run just before (run " .. A.id .. ")") or nil }, B, true
end

return M
