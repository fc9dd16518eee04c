--[[ rot.compare: two runs of a measurement side by side (run records, rot.history): which runs,
  points matched by their coordinates, and for each a verdict (rot.compare.rule): faster,
  slower or same, from the records or from rounds measured again (rot.compare.remeasure).
  rot.compare.output prints and writes them, rot.compare.plot draws them; `rot compare`
  (rot.cli.history) is the command. docs/compare-history.md. ]]
local sys = require "rot.sys"
local util = require "rot.util"
local history = require "rot.history"
local rule = require "rot.compare.rule"
local stats = require "rot.compare.stats"

local M = {}

-- A verdict (rot.compare.rule) on a pair: its verdict, B/A and the noise it was judged against.
local FIELDS = { "verdict", "ratio", "band", "rule", "noise", "inconclusive", "small", "lo", "hi", "p", "rounds" }
local function apply(pair, v)
  for _, f in ipairs(FIELDS) do pair[f] = v[f] end
end

--[[ match(A, B, with_machine, o) -> pairs, eps: A and B the runs ({record=, keep= (a filter of
  its points, or nil)}), with_machine: keys include the machine; o = {est= (rot.compare.rule
  .history's estimator of the noise between runs), min_effect=}. Each pair is {key=, point=,
  a=, b=, verdict=, ratio=, band=, rule=, noise=, inconclusive=}, in B's order, then the points
  only A has, judged from the two records (rot.compare.rule.recorded). A point that failed (no
  time) on one side gets "failed in A"/"failed in B"; one the other run lacks "only in
  A"/"only in B". eps: the larger bestEpsilon of the two runs. ]]
function M.match(A, B, with_machine, o)
  o = o or {}
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
    else
      apply(pair, rule.recorded({ record = A.record, point = a }, { record = B.record, point = b }, o.est,
        eps, o.min_effect))
    end
    out[#out + 1] = pair
  end
  for _, k in ipairs(oa) do
    if not kb[k] then out[#out + 1] = { key = k, a = ka[k], point = ka[k].point, verdict = "only in A" } end
  end
  return out, eps
end

-- A side's summary as a round measured it again: its time t, the rates and the fraction of
-- bound scaled to it (the same work, bound and limiter).
local function rescaled(x, t)
  if not (t and x.time) then return x end
  local y, f = util.copy(x), x.time / t
  y.time, y.gbs, y.gflops = t, x.gbs and x.gbs * f, x.gflops and x.gflops * f
  y.fraction = x.fraction and x.fraction * f
  y.above = nil
  return y
end

--[[ The note on pairs whose two points ran at different thread counts (their coordinates do
  not say threads: a script's argument or key set them): B/A then compares thread counts, and
  the two % of bound are of different ceilings. nil when there are none. ]]
function M.thread_note(matched)
  local n, first = 0, nil
  for _, p in ipairs(matched) do
    if p.a and p.b and p.a.threads and p.b.threads and p.a.threads ~= p.b.threads then
      n, first = n + 1, first or p
    end
  end
  if n == 0 then return nil end
  return string.format("%d %s ran at another thread count in B than in A (threads %s -> %s%s): B/A compares "
    .. "thread counts, and the two %% of bound are against different thread counts' ceilings", n,
      util.plural(n, "point"),
    tostring(first.a.threads), tostring(first.b.threads), n > 1 and ", the first" or "")
end

-- The median of the times a side's rounds measured (a round that failed it: false), or nil.
local function median_of(times)
  local ts = {}
  for _, t in ipairs(times) do if t then ts[#ts + 1] = t end end
  return stats.median(ts)
end

-- How far round r of pairs ps lies from their ratios judged: the sum of |log(B/A / ratio)|
-- over the pairs, or nil when r did not time both sides of every one of them.
local function distance(ps, r)
  local d = 0
  for _, p in ipairs(ps) do
    local m = p.remeasured
    local a, b = m.ta[r], m.tb[r]
    if not (a and b and p.ratio) then return nil end
    d = d + math.abs(math.log(b / a / p.ratio))
  end
  return d
end

-- The round whose B/A lie nearest the ratios judged (the medians of the rounds'), jointly
-- over pairs ps measured together; nil when no round timed both sides of all of them.
local function nearest_round(ps)
  local best, dist
  for r = 1, #ps[1].remeasured.ta do
    local d = distance(ps, r)
    if d and (not best or d < dist) then best, dist = r, d end
  end
  return best
end

-- An application's point a pair belongs to (rot.results.regions.point_key), or nil for a
-- kernel's; and whether the pair is that program's own row (regions.PROGRAM).
local function app_point(p)
  local point = (p.a or p.b).point or {}
  if not point.region then return nil end
  local regions = require "rot.results.regions"
  return regions.point_key(point), point.region == regions.PROGRAM
end

--[[ The pairs measured again (rot.compare.remeasure set p.remeasured) judged from their rounds
  (rot.compare.rule.remeasured); their sides become the times of the round whose B/A is nearest
  the median ratio judged, so that time A, time B and B/A read alike (the record's kept as
  p.recorded = {a=, b=, ratio=}; each side's own median over the rounds as p.medians = {a=,
  b=}: on a machine whose speed moves between rounds, both sides together, those two can fall
  in different phases and read another ratio). An application's rows (its program's and its
  regions') show one round, the one whose B/A lie jointly nearest their ratios: their times
  come from the same invocations, so no region's time exceeds its program's. A pair that could
  not be measured again keeps its verdict from the records (p.not_remeasured says why). ]]
function M.rejudge(matched, min_effect)
  for _, p in ipairs(matched) do
    local m = p.remeasured
    if m then
      p.recorded = { a = p.a, b = p.b, ratio = p.ratio }
      apply(p, rule.remeasured(m.ratios, min_effect))
      p.ratios, p.times = m.ratios, { a = m.ta, b = m.tb }
      p.medians = { a = median_of(m.ta), b = median_of(m.tb) }
      if m.failed then p.noise = p.noise .. "; failed: " .. m.failed end
    end
  end
  local groups, order = util.group_by(matched, function(p)
    return p.remeasured and (app_point(p) or p) -- a kernel's point: a group of its own
  end)
  for _, key in ipairs(order) do
    local ps = groups[key]
    local joint = nearest_round(ps)
    for _, p in ipairs(ps) do
      local m = p.remeasured
      local r = joint or (p.ratio and nearest_round({ p }))
      if r then p.a, p.b, p.round = rescaled(p.a, m.ta[r]), rescaled(p.b, m.tb[r]), r
      else p.a, p.b = rescaled(p.a, p.medians.a), rescaled(p.b, p.medians.b) end
    end
  end
end

--[[ The summary of pairs: counts per verdict (same apart from inconclusive), and
  the geometric-mean speedup tA/tB over the points both runs timed (nil when there are none);
  an application's (program) row is left out of the mean where its regions are in it (its
  time holds theirs: counted twice otherwise), and so is a loop survey's row (a loop, a
  function, kernel or unknown code): its time is a share of its program's samples. ]]
function M.summary(matched)
  local n = { faster = 0, slower = 0, same = 0, inconclusive = 0, ["only in A"] = 0, ["only in B"] = 0,
    ["failed in A"] = 0, ["failed in B"] = 0 }
  local with_regions = {}
  for _, p in ipairs(matched) do
    local key, own = app_point(p)
    if key and not own and p.ratio and not (p.a or p.b).survey then with_regions[key] = true end
  end
  local logs, m, left, surveyed = 0, 0, 0, 0
  for _, p in ipairs(matched) do
    n[p.verdict] = n[p.verdict] + 1
    local key, own = app_point(p)
    if p.ratio and own and with_regions[key] then left = left + 1
    elseif p.ratio and (p.a or p.b).survey then surveyed = surveyed + 1
    elseif p.ratio then logs, m = logs + math.log(1 / p.ratio), m + 1 end
  end
  return { counts = n, matched = m, programs_left_out = left, survey_left_out = surveyed,
    speedup = m > 0 and math.exp(logs / m) or nil }
end

--[[ The pairs that fail the gate: failOn "slower" (slower by the rule that judged it, or
  failing in B where A was timed) or "any" (every verdict but same and inconclusive: an
  inconclusive point was not judged). ]]
function M.offending(matched, fail_on)
  local out = {}
  for _, p in ipairs(matched) do
    local bad = p.verdict == "slower" or p.verdict == "failed in B"
    if fail_on == "any" then bad = p.verdict ~= "same" and p.verdict ~= "inconclusive" end
    if bad then out[#out + 1] = p end
  end
  return out
end

local function machines_of(r) return table.concat(r.machines or { r.machine }, "+") end

-- The command that measures what the user typed: a script's or a measurement's `rot measure`,
-- a program's `rot profile --` (it records its runs under the program's path).
local function measure_first(typed)
  local program = not typed:match("%.lua$") and typed:find("/") and sys.stat(typed) == "file"
  return "measure it first: " .. (program and "rot profile -- " or "rot measure ") .. typed
end

-- Stops with why a run cannot be found, and the runs there are.
local function no_run(name, what, records, typed)
  local ids = {}
  for i = 1, math.min(#records, 10) do ids[#ids + 1] = tostring(records[i].id) end
  util.fail("no run " .. what .. " of '" .. name .. "'",
    #ids > 0 and ("`rot history " .. typed .. "` lists its runs (newest: " .. table.concat(ids, ", ") .. ")")
    or measure_first(typed))
end

-- The newest run with a point on machine id (its id from `rot cache`, or a Slurm node type).
local function latest_on(name, records, id, typed)
  for _, r in ipairs(records) do
    for _, p in ipairs(r.points) do
      if history.machine_of(r, p) == id or (p.machine or r.machine) == id then
        return { record = r, keep = function(q) return history.machine_of(r, q) == id or (q.machine
          or r.machine) == id end,
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
    or measure_first(typed))
end

-- Whether a record timed any point (a run whose every point failed has nothing to compare).
local function timed(r)
  for _, p in ipairs(r.points) do if p.time then return true end end
  return false
end

-- The keys of the points a record timed (history.keyed with the machine), as a set.
local function timed_keys(r)
  local k = history.keyed(r, true)
  local out = {}
  for key, p in pairs(k) do if p.time and p.time > 0 then out[key] = true end end
  return out
end

--[[ shares(a, b, cache) -> whether records a and b timed a point in common (the same
  coordinates on the same machine): a pair that does compares something. cache keeps each
  record's keys. ]]
local function shares(a, b, cache)
  cache[a] = cache[a] or timed_keys(a)
  cache[b] = cache[b] or timed_keys(b)
  for k in pairs(cache[a]) do if cache[b][k] then return true end end
  return false
end

--[[ sharing_pair(records, A, B) -> x, y: the runs to name where A and B timed no point in
  common (their points' threads or arguments differ): the newest run before or after B that
  shares points with B, else with A, else the newest two runs that share points (x older than
  y); nil when no two runs do. records: newest first. ]]
function M.sharing_pair(records, A, B)
  local cache = {}
  for _, side in ipairs({ B, A }) do
    for _, r in ipairs(records) do
      if r ~= side and r ~= A and r ~= B and shares(r, side, cache) then
        if r.id < side.id then return r, side end
        return side, r
      end
    end
  end
  for i, y in ipairs(records) do
    for j = i + 1, #records do
      if shares(records[j], y, cache) then return records[j], y end
    end
  end
  return nil
end

--[[ choose(name, records, a, b, machines, typed) -> A, B ({record=, keep=, label=, note=}),
  with_machine: the two runs to compare. records: newest first (rot.history.list). machines =
  {id, id}: the latest run on each (two different machines); else a and b are run ids (b
  default the newest); with neither, the two newest runs on the same machines that share
  points (timed the same coordinates): the newest run, and the newest run before it that
  shares points with it, one whose results differ where there is one (A.note says when that
  is not the run just before); where the newest run shares no point with an earlier one (its
  threads changed), the newest two runs that do (A.note says so); where no two runs do, the
  run just before. typed: the measurement as the user named it, for the commands hints give. ]]
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
  local cache, before, any, share, differ = {}, nil, nil, nil, nil
  local mine, res = machines_of(B.record), history.results(B.record)
  for _, r in ipairs(records) do
    if r.id < B.record.id and machines_of(r) == mine then
      any = any or r
      before = before or (timed(r) and r) or nil
      if timed(r) and shares(r, B.record, cache) then
        share = share or r
        if not differ and history.results(r) ~= res then differ = r end
      end
    end
  end
  local A = differ or share
  if not A and not b then -- the newest run shares no point with an earlier one: the newest two that do
    local x, y = M.sharing_pair(records, nil, nil)
    if x and machines_of(x) == machines_of(y) then
      return { record = x, label = "run " .. x.id, note = "run " .. B.record.id .. " shares no point with an earlier "
        .. "run (its threads or arguments differ): comparing the newest two runs that share points, runs " .. x.id
        .. " and " .. y.id }, { record = y, label = "run " .. y.id }, true
    end
  end
  A = A or before or any
  if not A then
    util.fail("'" .. name .. "' has only one run on " .. mine .. " (run " .. B.record.id .. ")",
      "measure it again after a change, then compare; or name two runs: rot compare " .. typed .. " A B")
  end
  local note
  if before and A ~= before and not shares(before, B.record, cache) then
    note = "run " .. before.id .. " shares no point with run " .. B.record.id
      .. " (their threads or arguments differ): "
      .. "comparing with run " .. A.id .. ", the newest before it that does"
  elseif A == share and not differ then
    note = "no earlier run on " .. mine .. " has other results: comparing with " .. (A == before
      and "the run just before"
      or "the newest that shares points") .. " (run " .. A.id .. ")"
  end
  return { record = A, label = "run " .. A.id, note = note }, B, true
end

return M
