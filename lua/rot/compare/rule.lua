--[[ rot.compare.rule: the verdict rules of `rot compare` (docs/compare-history.md):
  from rounds measured again (the paired ratios tB/tA: the sign-test interval of their median),
  else from the two records against the noise between runs that this machine's history shows
  (reruns of identical builds), else inconclusive inside a conservative default band. Each
  verdict carries the noise it was judged against, in words. ]]
local util = require "rot.util"
local stats = require "rot.compare.stats"

local M = {}

M.LEVEL = 0.99 -- the confidence of every interval and band
M.MIN_EFFECT = 0.02 -- a change smaller than this is "same", even when it is significant
--[[ -remeasure's default: its 99% interval is the 6th to the 19th ratio, so five rounds a
  neighbour spoiled the wrong way still leave a 10 % slowdown detected (make bench measures how
  many it detects). ]]
M.ROUNDS = 24
--[[ The band a change between two recorded runs must leave before it is called without any
  estimate of the noise between runs: on a shared machine unchanged code measured in separate
  invocations can differ by a factor of two and more (a working set in the last cache beside a
  memory-streaming neighbour), and make bench's A/A pairs measure how far. ]]
M.DEFAULT_BAND = 4
-- Why a change inside that band is inconclusive (the gate's line tells it from a band too wide).
M.UNKNOWN = "no reruns of identical builds on this machine tell the noise between runs"
-- A change judged against a band wider than this is inconclusive, not the same (a change of a
-- quarter could hide in it).
M.WIDE_BAND = 1.25
--[[ The reruns an estimate of the noise between runs needs: a point's own from this many on,
  else its class's. Fewer sample too few invocations to have met the machine's slow phases,
  and their bands call unchanged points faster (make bench's A/A pairs). ]]
M.MIN_RERUNS = 8

local function pct(x) return string.format("%.0f%%", x * 100) end

--[[ The verdict from rounds measured again: ratios = tB/tA of each round. The median of their
  logs and its distribution-free LEVEL interval (rot.compare.stats.sign_interval): slower when
  the whole interval lies above 1 and the median above 1 + min_effect, faster in the mirror
  case, else the same; fewer rounds than the interval needs: inconclusive. Returns
  {verdict=, ratio= (the median), lo=, hi=, p= (the sign test's), rounds=, rule="remeasured",
  inconclusive= (why, or nil), noise= (in words)}. ]]
function M.remeasured(ratios, min_effect, level)
  level, min_effect = level or M.LEVEL, min_effect or M.MIN_EFFECT
  local logs = {}
  for i, x in ipairs(ratios) do logs[i] = math.log(x) end
  local n = #logs
  local out = { rule = "remeasured", rounds = n, verdict = "same" }
  if n == 0 then
    out.verdict, out.inconclusive, out.noise = "inconclusive", "no round timed both sides",
      "remeasured, no round timed both"
    return out
  end
  out.ratio = math.exp(stats.median(logs))
  out.p = stats.sign_p(logs, 0)
  local lo, hi = stats.sign_interval(logs, level)
  if not lo then
    out.verdict = "inconclusive"
    out.inconclusive = string.format("%d %s no %s interval (%d needed)", n, util.plural(n,
      "round gives", "rounds give"),
      pct(level), hi)
    out.noise = string.format("remeasured %d %s, no %s interval", n, util.plural(n, "round"), pct(level))
    return out
  end
  out.lo, out.hi = math.exp(lo), math.exp(hi)
  out.noise = string.format("remeasured %d rounds, %s interval [%.3f, %.3f]", n, pct(level), out.lo, out.hi)
  if out.lo > 1 and out.ratio > 1 + min_effect then out.verdict = "slower"
  elseif out.hi < 1 and 1 / out.ratio > 1 + min_effect then out.verdict = "faster"
  elseif out.lo > 1 or out.hi < 1 then out.small = true end -- significant, but less than the minimum effect
  return out
end

--[[ The band of the noise a point shows within its runs: (1 + sA)(1 + sB)(1 + eps), sA and sB
  the spreads of the two runs' k fastest, eps bestEpsilon (the way rot.results.bounds.above
  judges a point above its bound). A band between runs is never narrower. ]]
function M.within(sA, sB, eps) return (1 + (sA or 0)) * (1 + (sB or 0)) * (1 + (eps or 0)) end

--[[ What decides a recorded point's result: its description (kernel, parameters, flags,
  macros, compiler, run policy, machine) and the core binary that measured it (its hash: an
  edit that leaves the binary as it was, a comment, is none); in a record without the core's
  hash, its kernels' sources and build key; an application's region (its program's rows share
  one description: each region is a point of its own). nil when the record does not say. ]]
function M.identity(r, p)
  local b = p.build and r.builds and r.builds[p.build]
  if not (p.desc and b) then return nil end
  local region = p.point and p.point.region and ("/region " .. tostring(p.point.region)) or ""
  if b.core then return p.desc .. "/core " .. b.core .. region end
  if b.src then return p.desc .. "/" .. b.src .. "/" .. tostring(b.key or "") .. region end
  return nil
end

-- The class of a point whose own reruns are too few: the roof it is bound by (its level), on
-- its machine; all of a machine's points when there are no bounds.
local function class_of(r, p, machine_of)
  return machine_of(r, p) .. "|" .. (p.limiter and p.limiter:gsub(" %(unstable%)$", "") or "all points")
end

local function point_of(r, p, machine_of) return machine_of(r, p) .. "|" .. util.serialize(p.point or {}) end

--[[ The noise between runs from a machine's history (records: every run of the measurement):
  the points measured (not taken from the cache) by identical builds (M.identity) are reruns;
  the log-times of each build's point are a group, and the groups are pooled per point (its
  coordinates on its machine) and per class (its roof), each an estimate from M.MIN_RERUNS
  reruns (degrees of freedom) on. Returns an estimator: est(r, p) -> sd
  of a run's log-time, degrees of freedom, "point"|"class", the widest log-ratio between two
  reruns of one build among them (nil without an estimate). ]]
function M.history(records, machine_of)
  local measured = {}
  for _, r in ipairs(records) do
    for _, p in ipairs(r.points or {}) do measured[#measured + 1] = { r = r, p = p } end
  end
  local groups, order = util.group_by(measured, function(x)
    return x.p.status == "measured" and x.p.time and x.p.time > 0 and M.identity(x.r, x.p)
  end)
  local per, range = { point = {}, class = {} }, { point = {}, class = {} }
  for _, id in ipairs(order) do
    local first, logs, seen = groups[id][1], {}, {}
    for _, x in ipairs(groups[id]) do
      if not seen[x.p.time] then -- the same time twice is one measurement (runs added to it)
        seen[x.p.time], logs[#logs + 1] = true, math.log(x.p.time)
      end
    end
    local g = { point = point_of(first.r, first.p, machine_of), class = class_of(first.r, first.p, machine_of) }
    local widest = math.max(table.unpack(logs)) - math.min(table.unpack(logs))
    for _, what in ipairs({ "point", "class" }) do
      local list = per[what][g[what]] or {}
      per[what][g[what]] = list
      list[#list + 1] = logs
      range[what][g[what]] = math.max(range[what][g[what]] or 0, widest)
    end
  end
  local est = { point = {}, class = {} }
  for what, t in pairs(per) do
    for k, list in pairs(t) do
      local sd, df = stats.pooled_sd(list)
      if df >= M.MIN_RERUNS then est[what][k] = { sd = sd, df = df, range = range[what][k] } end
    end
  end
  return function(r, p)
    local e = est.point[point_of(r, p, machine_of)]
    if e then return e.sd, e.df, "point", e.range end
    local c = est.class[class_of(r, p, machine_of)]
    if c then return c.sd, c.df, "class", c.range end
    return nil
  end
end

--[[ The verdict on two recorded runs of a point (no round measured again): a = {record=, point=}
  for A, b for B, est: M.history's estimator, eps: bestEpsilon. Identical builds: the same,
  and any difference is the machine's. Else the band is the LEVEL prediction band of the
  difference of two runs' log-times, t(df) sqrt(sdA^2 + sdB^2), and never narrower than the
  widest ratio seen between two reruns of one build among those pooled (a neighbour's phase
  makes a whole invocation slower: heavier tails than a normal model's) nor than the within-run
  band: slower beyond it and beyond 1 + min_effect, faster in the mirror case, else the same
  (inconclusive instead when the band is wider than M.WIDE_BAND). No estimate: inconclusive
  inside M.DEFAULT_BAND. Returns {verdict=, ratio=, band=, rule=, inconclusive=, noise=}. ]]
function M.recorded(a, b, est, eps, min_effect)
  min_effect = min_effect or M.MIN_EFFECT
  local pa, pb = a.point, b.point
  local ratio = pb.time / pa.time
  local out = { ratio = ratio, verdict = "same" }
  local ia = M.identity(a.record, pa)
  if ia and ia == M.identity(b.record, pb) then
    out.rule, out.noise = "identical", "identical builds: any difference is noise"
    return out
  end
  local within = M.within(pa.spread, pb.spread, eps)
  local sa, dfa, wa, ra, sb, dfb, wb, rb
  if est then
    sa, dfa, wa, ra = est(a.record, pa)
    sb, dfb, wb, rb = est(b.record, pb)
  end
  if sa and sb then
    local df = math.min(dfa, dfb)
    local band = math.exp(math.max(stats.t_quantile(M.LEVEL, df) * math.sqrt(sa ^ 2 + sb ^ 2), ra, rb))
    out.rule, out.band = "history", math.max(band, within)
    out.noise = string.format("between runs (history, %s%d reruns) x%s", (wa == "class" or wb == "class")
      and "its roof's points, " or "", df, out.band < 100 and string.format("%.3f", out.band)
        or string.format("%.3g", out.band))
    if out.band > M.WIDE_BAND then
      out.inconclusive = string.format("the noise between runs here, x%.3g, could hide a change that large", out.band)
    end
  else
    out.rule, out.band = "default", math.max(M.DEFAULT_BAND, within)
    out.noise = string.format("between runs unknown (no reruns of identical builds): default band x%.2f", out.band)
    out.inconclusive = M.UNKNOWN
  end
  local beyond = function(x) return x > out.band and x > 1 + min_effect end
  if beyond(ratio) then out.verdict, out.inconclusive = "slower", nil
  elseif beyond(1 / ratio) then out.verdict, out.inconclusive = "faster", nil
  elseif out.inconclusive then out.verdict = "inconclusive" end
  return out
end

return M
