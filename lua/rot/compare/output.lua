--[[ rot.compare.output: a comparison as a user sees it: the table (one line per point: time,
  rates and % of bound in A and B, B/A, the verdict, the limiter and the noise it was judged
  against), the summary line, NAME-compare.csv and NAME-compare.json, and the gate's lines. ]]
local util = require "rot.util"
local format = require "rot.results.format"
local rule = require "rot.compare.rule"
local work = require "rot.compare.work"

local M = {}

-- The axis names of both runs, in their order (B's first), those no point has a coordinate
-- on left out (a record written before the peaks' own axes were kept out of it lists them).
function M.axes(A, B)
  local out, seen = {}, {}
  local function used(a)
    for _, r in ipairs({ B.record, A.record }) do
      for _, p in ipairs(r.points or {}) do if p.point and p.point[a] ~= nil then return true end end
    end
    return false
  end
  for _, r in ipairs({ B.record, A.record }) do
    for _, a in ipairs(r.axes or {}) do
      if not seen[a] then
        seen[a] = true
        if used(a) then out[#out + 1] = a end
      end
    end
  end
  return out
end

-- A point's coordinates as text: "n=4096 f=2.0" (rot.util.coords).
M.coords = util.coords

--[[ The coordinates of pairs' points (rot.compare.match) that take more than one value among them:
  a set, key -> true. A program's command and threads, the same in every pair, are not. ]]
function M.varying(pairs_)
  local first, out = {}, {}
  for _, p in ipairs(pairs_) do
    for k, v in pairs(p.point or {}) do
      local text = type(v) == "table" and util.serialize(v) or tostring(v)
      if first[k] == nil then first[k] = text elseif first[k] ~= text then out[k] = true end
    end
  end
  for _, p in ipairs(pairs_) do
    for k in pairs(first) do if (p.point or {})[k] == nil then out[k] = true end end
  end
  return out
end

-- A point's coordinates as text, those in keep (a set) alone, in the order of axes.
function M.coords_of(point, axes, keep)
  local some = {}
  for k, v in pairs(point or {}) do if keep[k] then some[k] = v end end
  return util.coords(some, axes)
end

local function pct(v) return v and string.format("%.0f%%", v * 100) or nil end
local function side(p, f) return p and p[f] end

-- The table's limiter of a point: B's, or "A's -> B's" when the change moved it to another
-- ceiling (a ceiling that only became, or stopped being, unstable has not moved).
local function limiter(p)
  local a, b = side(p.a, "limiter"), side(p.b, "limiter")
  local function plain(l) return (l:gsub(" %(unstable%)$", "")) end
  if a and b and plain(a) ~= plain(b) then return a .. " -> " .. b end
  return b or a
end

-- The columns of the table and the CSV: {title, value(pair), table format}; csv = true: the
-- CSV's own (full precision, names without spaces).
local function columns(axes, csv, with_machine)
  local cols = {}
  for _, a in ipairs(axes) do cols[#cols + 1] = { a, function(p) return p.point and p.point[a] end, "%s" } end
  local function both(title, ctitle, f, fmt)
    cols[#cols + 1] = { csv and (ctitle .. "_A") or (title .. " A"), function(p) return f(p.a) end, fmt }
    cols[#cols + 1] = { csv and (ctitle .. "_B") or (title .. " B"), function(p) return f(p.b) end, fmt }
  end
  if with_machine then both("machine", "machine", function(x) return x and x.machine end) end
  if csv then
    both("time", "time_s", function(x) return side(x, "time") end)
  else
    both("time", "time_s", function(x) return x and x.time and util.seconds(x.time) end)
  end
  cols[#cols + 1] = { csv and "ratio_B_over_A" or "B/A", function(p) return p.ratio end, "%.3f" }
  cols[#cols + 1] = { "verdict", function(p) -- with the split of work from rate where both sides were counted
    return (not csv and work.text(p)) or p.verdict
  end }
  both("GB/s", "bandwidth_GBs", function(x) return side(x, "gbs") end, "%.2f")
  both("GFLOP/s", "performance_GFLOPs", function(x) return side(x, "gflops") end, "%.3f")
  both("of bound", "fraction_of_bound", function(x)
    if csv then return side(x, "fraction") end
    local f = pct(side(x, "fraction"))
    return f and (f .. (x.above and "^" or "")) -- above its bound, as in the results table
  end)
  if csv then
    both("spread", "spread", function(x) return side(x, "spread") end)
    both("intensity", "intensity_flop_per_byte", function(x) return side(x, "intensity") end)
    both("limiter", "limiter", function(x) return side(x, "limiter") end)
    both("source", "source", function(x) return side(x, "status") end)
    cols[#cols + 1] = { "work_B_over_A", function(p) return (work.split(p)) end }
    cols[#cols + 1] = { "rate_B_over_A", function(p) return select(2, work.split(p)) end }
    for _, c in ipairs({ { "rule", "rule" }, { "rounds", "rounds" }, { "interval_low", "lo" },
      { "interval_high", "hi" },
      { "p_value", "p" }, { "noise_band", "band" }, { "noise", "noise" }, { "inconclusive", "inconclusive" },
      { "not_remeasured", "not_remeasured" } }) do
      cols[#cols + 1] = { c[1], function(p) return p[c[2]] end }
    end
  else
    cols[#cols + 1] = { "limiter", limiter }
    cols[#cols + 1] = { "noise", function(p) return p.noise and (p.noise .. (p.not_remeasured
      and "; not measured again" or "")) end }
  end
  return cols
end

--[[ The summary line: "rot compare: 0 faster, 3 slower, 0 same, 0 inconclusive, 0 only in A, 0
  only in B; geometric-mean speedup 0.501 (B over A, 3 points)"; with points inconclusive (hint)
  the command that measures both runs again; with no point timed in both, the command that
  compares two runs that share points (pair), or that no two runs do. ]]
function M.summary_line(s, hint, pair)
  local c = s.counts
  local line = string.format("rot compare: %d faster, %d slower, %d same, %d inconclusive, %d only in A, %d only in B",
    c.faster, c.slower, c.same, c.inconclusive or 0, c["only in A"], c["only in B"])
  if c["failed in A"] + c["failed in B"] > 0 then
    line = line .. string.format(", %d failed in A, %d failed in B", c["failed in A"], c["failed in B"])
  end
  if s.speedup then
    local survey = s.survey_left_out or 0
    line = line .. string.format("; geometric-mean speedup %.3f (B over A, %d %s%s%s)", s.speedup, s.matched,
      util.plural(s.matched, "point"), (s.programs_left_out or 0) > 0 and
        ", the (program) rows left out: their regions are in it" or "",
      survey > 0 and string.format(", the survey's %d %s left out: %s", survey, util.plural(survey, "row"),
        "its times are shares of samples") or "")
  else
    line = line .. "; no point timed in both" .. (pair and ("; runs that share points compare: " .. pair)
      or pair == false and " (no two runs share a point: their threads or arguments differ)" or "")
  end
  if (c.inconclusive or 0) > 0 and hint then line = line .. "; for a verdict on the inconclusive: " .. hint end
  return line
end

--[[ The line under the heading that says how the verdicts were reached: from rounds measured
  again, or from the records against the noise between runs. o.apps: application rows are
  compared (a program's rows show one round together). ]]
function M.rule_line(o)
  local me = string.format("%.3g%%", o.min_effect * 100)
  if o.rounds then
    return string.format("verdicts from %d rounds of A and B measured again, alternately (A B, B A, ...): slower when "
      .. "the 99%% interval of the median of B/A (sign test) lies above 1 and the median above 1 + %s, faster in the "
      .. "mirror case, else same; time A and B: the round whose B/A is nearest that median", o.rounds, me)
      .. (o.apps and " (a program's rows: one round for all of them, whose B/A lie jointly nearest their medians, so "
      .. "its regions' times come from the invocations its own does)" or "")
  end
  return string.format("verdicts against the noise between runs of this machine (its history's reruns of identical "
    .. "builds): slower beyond their 99%% band and 1 + %s, faster in the mirror case, else same (inconclusive where "
    .. "the band is wider than x%.2f); without them inconclusive inside x%.2f", me, rule.WIDE_BAND, o.default_band)
end

-- "run 3 (2024-06-11 14:30:05, machine X, commit abc1234567 dirty)"
function M.describe_run(side_)
  local r = side_.record
  local git = r.git and (", commit " .. tostring(r.git.commit):sub(1, 10) .. (r.git.dirty and " dirty" or "")) or ""
  local where = side_.label:find(" on ", 1, true) and "" or (", " .. table.concat(r.machines or { r.machine }, "+"))
  return string.format("%s (%s%s%s)", side_.label, tostring(r.date), where, git)
end

--[[ The note on pairs whose sides' own medians over the rounds read a ratio outside the
  interval judged (the rounds' speed moved, both sides' together: their medians fell in
  different phases), the first named: the times shown are one round's, whose B/A is the
  median's. nil when there are none. ]]
function M.medians_note(matched, axes)
  local n, first = 0, nil
  for _, p in ipairs(matched) do
    local md = p.medians
    if md and md.a and md.b and p.lo and (md.b / md.a < p.lo or md.b / md.a > p.hi) then
      n, first = n + 1, first or p
    end
  end
  if n == 0 then return nil end
  local md = first.medians
  return string.format("%d %s (%s, the first): the medians of each side's own rounds, %s and %s (x%.3f), lie outside "
    .. "the interval of the rounds' paired ratios [%.3f, %.3f]: the machine's speed moved between rounds, both sides' "
    .. "together, and the two medians fall in different phases; time A and time B are the round whose B/A is nearest "
    .. "the median (%.3f), every round's times are in the JSON", n, util.plural(n, "point"),
      M.coords(first.point, axes),
    util.seconds(md.a), util.seconds(md.b), md.b / md.a, first.lo, first.hi, first.ratio)
end

--[[ Prints the heading, the table and the summary line on stdout. o = {min_effect=, rounds=
  (when measured again), default_band=, hint= (the command that measures again)}. ]]
function M.print(name, A, B, matched, summary, axes, with_machine, o)
  io.stdout:write(string.format("rot compare %s: A = %s\n%s  B = %s\n", name, M.describe_run(A),
    string.rep(" ", #name), M.describe_run(B)))
  io.stdout:write(M.rule_line(o), "\n")
  format.records(matched, columns(axes, false, with_machine))
  local function either(p, f) return f(p.a) or f(p.b) end
  format.legend(matched, io.stdout, function(p) return either(p, function(x) return x and x.above end) end,
    function(p) return either(p, function(x) return x and (x.limiter or ""):find("(unstable)", 1, true) end) end,
    "rot measure's warning when the run was made says why")
  for _, p in ipairs(matched) do
    if (limiter(p) or ""):find(" -> ", 1, true) then
      io.stdout:write("A -> B the limiter moved (the working set changed level, the intensity "
        .. "crossed the ridge, or the "
        .. "kernel's ceilings changed between triad's and its read or write ones): the two % of bound "
          .. "are of different roofs\n")
      break
    end
  end
  local medians = M.medians_note(matched, axes)
  if medians then io.stdout:write(medians, "\n") end
  io.stdout:write(M.summary_line(summary, o.hint, o.pair), "\n")
end

-- One side of a point in the JSON document.
local function json_side(x, r)
  if not x then return nil end
  return { time = x.time, gbs = x.gbs, gflops = x.gflops, intensity = x.intensity, spread = x.spread, runs = x.runs,
    bound = x.bound, limiter = x.limiter, fraction = x.fraction, source = x.status, machine = x.machine or r.machine,
    nodeType = x.nodeType, desc = x.desc }
end

local function json_run(side_)
  local r = side_.record
  return { id = r.id, label = side_.label, date = r.date, machines = r.machines, executor = r.executor, git = r.git,
    status = r.status, args = r.args, keys = r.keys }
end

--[[ Writes dir/NAME-compare.csv and dir/NAME-compare.json (each a temp file renamed); returns
  their paths. o: as M.print's. ]]
function M.write(dir, name, A, B, matched, summary, axes, with_machine, o)
  local base = dir .. "/" .. name .. "-compare"
  format.records_csv(matched, columns(axes, true, with_machine), base .. ".csv")
  local points = {}
  for i, p in ipairs(matched) do
    local w, rate = work.split(p)
    points[i] = { point = p.point, verdict = p.verdict, ratio = p.ratio, work = w, rate = rate,
      rule = p.rule, noise = p.noise,
      inconclusive = p.inconclusive, notRemeasured = p.not_remeasured, band = p.band, rounds = p.rounds,
        ratios = p.ratios, pValue = p.p,
      times = p.times and { a = p.times.a, b = p.times.b, shown = p.round, medianA = p.medians.a,
        medianB = p.medians.b } or nil,
      interval = p.lo and { low = p.lo, high = p.hi, level = 0.99 } or nil,
      a = json_side(p.a, A.record), b = json_side(p.b, B.record),
      recorded = p.recorded and { ratio = p.recorded.ratio, a = json_side(p.recorded.a, A.record),
        b = json_side(p.recorded.b, B.record) } or nil }
  end
  local doc = { measurement = name, a = json_run(A), b = json_run(B), bestEpsilon = o.eps, minEffect = o.min_effect,
    remeasured = o.rounds, rule = M.rule_line(o),
    summary = { counts = summary.counts, speedup = summary.speedup, matched = summary.matched }, points = points }
  util.write_output(base .. ".json", util.json(doc) .. "\n")
  return base .. ".csv", base .. ".json"
end

--[[ The gate's lines on stderr, one per offending point, with the noise it was judged against:
  "rot: slower: n=4096: 1.20 us -> 2.41 us (x2.008; remeasured 12 rounds, 99% interval [1.98, 2.03])". ]]
function M.gate(matched, axes, fail_on)
  for _, p in ipairs(matched) do
    local what = M.coords(p.point, axes)
    local times = (p.a and p.a.time and util.seconds(p.a.time) or "-") .. " -> " ..
      (p.b and p.b.time and util.seconds(p.b.time) or "-")
    local w, rate = work.split(p)
    local split = w and string.format("; work x%.2f, rate x%.2f", w, rate) or ""
    local why = p.ratio and string.format(" (x%.3f%s; %s)", p.ratio, split, p.noise) or ""
    io.stderr:write("rot: ", p.verdict, ": ", what ~= "" and what or "(no coordinates)", ": ", times, why, "\n")
  end
  if #matched > 0 then
    io.stderr:write(string.format("rot: %d %s -failOn=%s\n", #matched,
      util.plural(#matched, "point fails", "points fail"), fail_on))
  end
end

--[[ The gate's line on the points it could not judge: inconclusive ones whose B/A would fail it
  (slower: B took longer; any: it moved), with their range and the command that decides them
  (hint: none when the runs cannot be measured again), so a gate that passes says what it
  could not see. ]]
function M.undecided(matched, fail_on, hint)
  local n, lo, hi, unknown = 0, math.huge, 0, true
  for _, p in ipairs(matched) do
    if p.inconclusive and p.ratio and (fail_on == "any" and p.ratio ~= 1 or p.ratio > 1) then
      n, lo, hi = n + 1, math.min(lo, p.ratio), math.max(hi, p.ratio)
      unknown = unknown and p.inconclusive == rule.UNKNOWN
    end
  end
  if n == 0 then return end
  io.stderr:write(string.format("rot: -failOn=%s: %d %s inconclusive (B/A x%.3f%s), %s: they fail nothing%s\n",
    fail_on, n, util.plural(n, "point"), lo, hi > lo and string.format(" to x%.3f", hi) or "",
    unknown and "judged against no known noise between runs"
      or "their noise (the table's last column) too wide, or their rounds too few, to tell such a change",
    hint and ("; " .. hint .. " -failOn=" .. fail_on .. " judges them") or ""))
end

return M
