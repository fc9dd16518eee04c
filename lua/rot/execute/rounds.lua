--[[ rot.execute.rounds: a point measured in rounds. A round is one best-k measurement of the
  point in a core process of its own; the rounds of a run visit its points in an order that
  changes from round to round. This module holds the rules: a point's rounds as its cache entry
  stores them (each run stamped with its round and the invocation that measured it), when they
  agree, the point's value and spread across them, how many more it wants, the order of a round,
  and the spread pooled over a measurement's points.

  The rules, as docs/architecture.md's "How a point is measured" states them:
  - a round's time is its fastest usable run (best-k's value);
  - the point's value is its best round (STREAM's best pass, the ceilings' best round);
  - its rounds agree when its `rounds` best lie within roundsEpsilon of the best: a slow round
    among more is outvoted by the others, as best-k outvotes a slow run;
  - its own spread is how far its slowest round lies above the best: what a rerun may show;
  - a point is measured until its rounds agree, `rounds` of them at least, `maxRounds` at most
    in one run; rounds that still disagree flag it, and its next run measures it again (once:
    until its rounds come from two invocations), so one bad minute does not settle it;
  - its stated spread is at least the measurement's pooled spread: the largest spread among
    the best rounds of its points whose rounds agree (at most roundsEpsilon; a few rounds of
    one point understate what a rerun shows; the points measured together say how far rounds
    move on this machine now). ]]
local neighbour = require "rot.execute.neighbour"

local M = {}

-- The invocations whose rounds a flagged point gathers before its flag is kept.
M.INVOCATIONS = 2

-- A round's time: its fastest usable run, per invocation, less the timer overhead (ov ns);
-- with ignore_disturbed, runs without a migration or preemption where there are any.
local function round_time(runs, ov, ignore_disturbed)
  local best
  for pass = 1, 2 do
    for _, r in ipairs(runs) do
      if pass == 2 or not (ignore_disturbed and r.disturbed == 1) then
        local t = math.max(r.ns - ov, 0) / r.reps * 1e-9
        if not best or t < best then best = t end
      end
    end
    if best then return best end
  end
  return best
end

-- M.of's rounds by entry, with what they were grouped from: a cached rerun asks for an entry's
-- rounds twice (whether it serves, then its quantities)
local grouped = setmetatable({}, { __mode = "k" })

--[[ The rounds of a cache entry, in the order they were measured: {{n=, inv=, time=, runs=,
  nbr=, qwait=}} (nbr, qwait: its neighbour figures, rot.execute.neighbour); runs without a
  round stamp (an entry measured in one process) are round 1. The list is shared by the
  entry's callers: read it, never change it. Grouped again when the entry's runs or timer
  overhead changed since. ]]
function M.of(entry, ignore_disturbed)
  local ov, ig = entry.meta.timerOverheadNs or 0, ignore_disturbed and true or false
  local g = grouped[entry]
  if g and g.runs == entry.runs and g.n == #entry.runs and g.ov == ov and g.ig == ig then return g.list end
  local by, list = {}, {}
  for _, r in ipairs(entry.runs) do
    local n = tonumber(r.round) or 1
    if not by[n] then
      by[n] = { n = n, inv = r.inv, runs = {}, nbr = tonumber(r.nbr), qwait = tonumber(r.qwait) }
      list[#list + 1] = by[n]
    end
    table.insert(by[n].runs, r)
  end
  table.sort(list, function(a, b) return a.n < b.n end)
  for _, x in ipairs(list) do x.time = round_time(x.runs, ov, ig) end
  grouped[entry] = { runs = entry.runs, n = #entry.runs, ov = ov, ig = ig, list = list }
  return list
end

--[[ The verdict on rounds' times, k the rounds a point wants: {value = the best, spread = how
  far the slowest lies above it, best = how far the k-th best lies above it (0 with one round),
  agree = best within eps, ratio = slowest over best, rounds = how many}. ]]
function M.verdict(times, eps, k)
  local t = table.move(times, 1, #times, 1, {})
  table.sort(t)
  local lo, hi, kth = t[1], t[#t], t[math.min(math.max(k, 1), #t)]
  local function above(x) return lo > 0 and (x - lo) / lo or 0 end
  return { value = lo, spread = above(hi), best = above(kth), agree = above(kth) <= eps, ratio = lo > 0
    and hi / lo or 1,
    rounds = #t }
end

-- The best of rounds (M.of's): the fastest (the point's value), or nil.
function M.best(rounds)
  local best
  for _, x in ipairs(rounds) do if x.time and (not best or x.time < best.time) then best = x end end
  return best
end

-- The times of rounds (M.of's), in order.
function M.times(rounds)
  local t = {}
  for i, x in ipairs(rounds) do t[i] = x.time end
  return t
end

-- How many invocations measured rounds.
function M.invocations(rounds)
  local seen, n = {}, 0
  for _, x in ipairs(rounds) do
    local k = x.inv or ""
    if not seen[k] then seen[k], n = true, n + 1 end
  end
  return n
end

--[[ The rounds policy of a session: {min=, max=, eps=, again=, busy=} (the keys rounds,
  maxRounds, roundsEpsilon, remeasureUnstable; busy: the neighbour's thresholds, busyCpus and
  busyWait, rot.execute.neighbour). ]]
function M.policy(s)
  return { min = s:get("rounds"), max = math.max(s:get("rounds"), s:get("maxRounds")), eps = s:get("roundsEpsilon"),
    again = s:get("remeasureUnstable"), busy = neighbour.thresholds(s) }
end

-- Whether round x (M.of's) ran beside a neighbour, under policy p's thresholds.
function M.busy(x, p) return x ~= nil and neighbour.busy(x.nbr, x.qwait, p and p.busy) end

-- Whether a row is measured in rounds of this executor (session s): CPU kernel points that
-- neither name their own round (the peaks measure their rounds themselves) nor share a child
-- with the points after them (pointChild=shared: as GPU points, whose child keeps its CUDA
-- context); an application point's invocations are each a process already.
function M.applies(s, row)
  return row.desc ~= nil and not row.desc.app and row.desc.device ~= "gpu" and row.spec.round == nil and
    (row.spec.pointChild or s:get("pointChild")) ~= "shared"
end

--[[ How many more rounds an entry wants under policy p (this invocation's own rounds so far:
  mine): 0 when it serves as it stands. Fewer than p.min rounds: the rest of them. Rounds that
  disagree, or a best round that ran beside a neighbour (rot.execute.neighbour): one more, while this invocation has
  measured fewer than p.max of them, and, for an
  entry this invocation did not measure (a flagged cache entry), while its rounds come from
  fewer than M.INVOCATIONS invocations (with p.again). rs: the entry's rounds (M.of's), where the
  caller has them. ]]
function M.wanted(entry, p, mine, ignore_disturbed, rs)
  local rounds = rs or M.of(entry, ignore_disturbed)
  if #rounds < p.min then return p.min - #rounds end
  local best = M.best(rounds)
  if M.verdict(M.times(rounds), p.eps, p.min).agree and not M.busy(best, p) then return 0 end
  if mine > 0 then return mine < p.max and 1 or 0 end
  return (p.again and M.invocations(rounds) < M.INVOCATIONS) and 1 or 0
end

--[[ The order in which round r visits n items: as given, then reversed, then a shuffle of its
  own for every later round (the same in every invocation: a rerun visits them the same way). ]]
function M.order(n, r)
  local idx = {}
  for i = 1, n do idx[i] = r == 2 and n + 1 - i or i end
  if r > 2 then
    local x = r * 2654435761 % 4294967296
    for i = n, 2, -1 do
      x = (x * 1103515245 + 12345) % 2147483648
      local j = x % i + 1
      idx[i], idx[j] = idx[j], idx[i]
    end
  end
  return idx
end

-- runs stamped as round n of invocation inv (their tables are changed and returned).
function M.stamp(runs, n, inv)
  for _, r in ipairs(runs) do r.round, r.inv = n, inv end
  return runs
end

-- The number the next round of an entry gets (1 for none).
function M.next_number(entry)
  local n = 0
  for _, r in ipairs(entry and entry.runs or {}) do n = math.max(n, tonumber(r.round) or 1) end
  return n + 1
end

--[[ The pooled spread of rows (each with roundsBestSpread and roundsAgree, from quantities): the
  largest spread among the best rounds of the rows whose rounds agree, over two rounds or more;
  nil with fewer than four such rows. ]]
function M.pooled(rows)
  local v = {}
  for _, r in ipairs(rows) do
    if r.roundsAgree and (r.rounds or 0) >= 2 then v[#v + 1] = r.roundsBestSpread end
  end
  if #v < 4 then return nil end
  return math.max(table.unpack(v))
end

return M
