-- Unit tests of rot compare's verdict rules on synthetic data: the statistics (medians, the
-- sign-test interval and p-value, Student's t), the rule from rounds measured again at its
-- edges, the rule from two records against the history's reruns of identical builds (with and
-- without them), what the gate and the summary say, which points -remeasure can measure again.
-- judges no time
local t = require "tap"
local stats = require "rot.compare.stats"
local rule = require "rot.compare.rule"

local function near(a, b, tol) return a and b and math.abs(a - b) <= tol end

-- the statistics
t.is(stats.median({ 3, 1, 2 }), 2, "the median of an odd count")
t.is(stats.median({ 4, 1, 3, 2 }), 2.5, "of an even count: the mean of the middle two")
t.ok(near(stats.t_quantile(0.99, 1), 63.657, 1e-3) and near(stats.t_quantile(0.99, 2), 9.925, 1e-3)
  and near(stats.t_quantile(0.99, 10), 3.169, 1e-3) and near(stats.t_quantile(0.99, 100000), 2.576, 1e-3),
  "Student's t at 99 %: 63.657 (df 1), 9.925 (2), 3.169 (10), 2.576 (df large: the normal's)")
local seq = {}
for i = 1, 12 do seq[i] = i end
local lo, hi, k, cover = stats.sign_interval(seq, 0.99)
t.ok(lo == 2 and hi == 11 and k == 2 and near(cover, 1 - 26 / 4096, 1e-12),
  "12 values: the 99 % interval of the median is the 2nd to the 11th (coverage 1 - 26/4096)")
local none, need = stats.sign_interval({ 1, 2, 3, 4, 5, 6, 7 }, 0.99)
t.ok(none == nil and need == 8, "7 values reach no 99 % interval: 8 are needed")
lo, hi = stats.sign_interval({ 1, 2, 3, 4, 5, 6, 7, 8 }, 0.99)
t.ok(lo == 1 and hi == 8, "8 values: the lowest to the highest (coverage 1 - 2/256)")
t.ok(near(stats.sign_p(seq, 0), 2 / 4096, 1e-15), "12 values all above: the sign test's two-sided p is 2/4096")
t.is(stats.sign_p({ 1, -1, 1, -1, 0 }, 0), 1, "two above and two below (a tie dropped): p is 1")
local sd, df = stats.pooled_sd({ { 1, 2, 3 }, { 5 }, { 4, 6 } })
t.ok(near(sd, math.sqrt(4 / 3), 1e-12) and df == 3,
  "the pooled spread of groups: sqrt(4/3) with 3 degrees of freedom (a group of one adds none)")

-- the rule from rounds measured again
local function scaled(list, f)
  local out = {}
  for i, x in ipairs(list) do out[i] = x * f end
  return out
end
-- unchanged code: a round's ratio scattered by a few per cent, one neighbour's burst each way
local aa = { 0.99, 1.02, 1.00, 0.97, 1.01, 1.03, 0.98, 1.00, 1.61, 0.99, 0.62, 1.01 }
local v = rule.remeasured(aa)
t.ok(v.verdict == "same" and not v.inconclusive and v.lo < 1 and v.hi > 1 and v.rounds == 12 and v.rule == "remeasured",
  "A/A-like ratios: same, the interval holding 1 (" .. v.noise .. ")")
t.is(v.noise, "remeasured 12 rounds, 99% interval [0.970, 1.030]", "the verdict says what it was judged against")
v = rule.remeasured(scaled(aa, 2))
t.ok(v.verdict == "slower" and near(v.ratio, 2, 0.02) and v.lo > 1.9,
  "twice the time with the same scatter: slower, B/A 2 ("
  .. v.noise .. ")")
t.is(rule.remeasured(scaled(aa, 0.5)).verdict, "faster", "half the time: faster")
local tenth = scaled({ 0.99, 1.02, 1.00, 0.97, 1.01, 1.03, 0.98, 1.00, 1.01, 0.99, 0.85, 1.01 }, 1.1)
v = rule.remeasured(tenth)
t.ok(v.verdict == "slower" and v.lo > 1, "10 % slower with one round below 1: slower (the interval leaves one out)")
tenth[5] = 0.9
t.is(rule.remeasured(tenth).verdict, "same", "with two rounds below 1 of 12 the interval holds 1: same")
local small = { 1.012, 1.015, 1.011, 1.013, 1.016, 1.014, 1.012, 1.018, 1.013, 1.011, 1.015, 1.014 }
v = rule.remeasured(small)
t.ok(v.verdict == "same" and v.small and v.lo > 1,
  "1.4 % slower beyond any doubt: same, under the minimum effect (2 %)")
t.is(rule.remeasured(small, 0.01).verdict, "slower", "under -minEffect=0.01: slower")
t.is(rule.remeasured(scaled(small, 1 / 1.03), 0.02).verdict, "same", "and 1.6 % faster: same, mirror-wise")
v = rule.remeasured({ 2, 2.1, 1.9, 2, 2, 2.05, 1.95 })
t.ok(v.verdict == "inconclusive" and v.inconclusive == "7 rounds give no 99% interval (8 needed)",
  "7 rounds of twice the time: inconclusive, not same (" .. tostring(v.inconclusive) .. ")")
t.is(rule.remeasured({ 2, 2.1, 1.9, 2, 2, 2.05, 1.95, 2 }).verdict, "slower", "8 rounds: slower")
v = rule.remeasured({})
t.ok(v.verdict == "inconclusive" and v.inconclusive, "no round timed both sides: inconclusive")

-- -remeasure's times shown beside B/A: the round whose ratio is the median's, never the two
-- sides' own medians, which fall in different phases when a few rounds caught the sides apart
-- (24 rounds: 10 both fast, 9 both slow, 3 with A fast and B slow, 2 the other way round)
local ta, tb = {}, {}
local function add(n, a, b) for _ = 1, n do ta[#ta + 1], tb[#tb + 1] = a, b end end
add(10, 100e-9, 205e-9); add(9, 300e-9, 615e-9); add(3, 100e-9, 615e-9); add(2, 300e-9, 205e-9)
local ratios = {}
for i = 1, #ta do ratios[i] = tb[i] / ta[i] end
local pair = { point = { n = 1000 }, a = { time = 1e-7, gbs = 1 }, b = { time = 2e-7, gbs = 0.5 },
  remeasured = { ta = ta, tb = tb, ratios = ratios, rounds = 24 } }
require("rot.compare").rejudge({ pair }, 0.02)
t.ok(pair.verdict == "slower" and near(pair.ratio, 2.05, 1e-9) and near(pair.b.time / pair.a.time, pair.ratio, 1e-9),
  string.format("time A %.4g s and time B %.4g s read x%.3f, the ratio judged (x%.3f)", pair.a.time, pair.b.time,
    pair.b.time / pair.a.time, pair.ratio))
t.ok(near(pair.medians.a, 100e-9, 1e-15) and near(pair.medians.b, 410e-9, 1e-15),
  "each side's own median is kept: 100 ns and 410 ns (x4.1)")
local note = require("rot.compare.output").medians_note({ pair }, { "n" })
t.ok(note and note:find("^1 point %(n=1000, the first%): the medians of each side's own rounds, 100%.0 ns "
  .. "and 410%.0 ns %(x4%.100%)")
  and note:find("time A and time B are the round whose B/A is nearest the median %(2%.050%)"),
    "and a line says why they differ: "
  .. tostring(note))
pair.medians.b = 205e-9
t.is(require("rot.compare.output").medians_note({ pair }, { "n" }), nil,
  "no line where the medians agree with the interval")

-- the rule from two records: the history's reruns of identical builds
local function rec(id, times, o)
  o = o or {}
  local r = { id = id, machine = "m1", bestEpsilon = 0.02, points = {},
    builds = { { src = o.src or "s1", key = o.key or "k1" } } }
  for i, tm in ipairs(times) do
    r.points[i] = { point = { n = i }, desc = "d" .. i, build = 1, status = o.status or "measured", time = tm,
      spread = o.spread or 0.01, limiter = "L1 bw" }
  end
  return r
end
local function machine_of(r, p) return p.machine or r.machine end
local A, B = rec(1, { 1e-6, 2e-6 }), rec(2, { 1.3e-6, 2e-6 }, { src = "s2" })
v = rule.recorded({ record = A, point = A.points[1] }, { record = B, point = B.points[1] }, rule.history({ A,
  B }, machine_of), 0.02)
t.ok(v.verdict == "inconclusive" and v.inconclusive and v.rule == "default" and near(v.band, rule.DEFAULT_BAND, 1e-12),
  "no reruns of identical builds: x1.3 is inconclusive (not the same) inside the default band (" .. v.noise .. ")")
local C39 = rec(7, { 3.94e-6, 2e-6 }, { src = "s2" })
v = rule.recorded({ record = A, point = A.points[1] }, { record = C39, point = C39.points[1] }, rule.history({ A,
  C39 }, machine_of), 0.02)
t.is(v.verdict, "inconclusive", "a x3.94 change inside the default band x4: inconclusive, never called the same")
local C = rec(3, { 1e-6 * (rule.DEFAULT_BAND + 0.01), 2e-6 }, { src = "s2" })
v = rule.recorded({ record = A, point = A.points[1] }, { record = C, point = C.points[1] }, rule.history({ A,
  C }, machine_of), 0.02)
t.ok(v.verdict == "slower" and not v.inconclusive, "beyond the default band: slower (" .. v.noise .. ")")
local A2 = rec(4, { 1.3e-6, 2e-6 })
v = rule.recorded({ record = A, point = A.points[1] }, { record = A2, point = A2.points[1] }, nil, 0.02)
t.ok(v.verdict == "same" and v.rule == "identical" and not v.inconclusive,
  "identical builds (the same description, sources and build key): the same at x1.3, the difference the machine's")
local C1, C2 = rec(5, { 1e-6, 2e-6 }, { src = "s1" }), rec(6, { 1.3e-6, 2e-6 }, { src = "s9" })
C1.builds[1].core, C2.builds[1].core = "c0ffee", "c0ffee"
v = rule.recorded({ record = C1, point = C1.points[1] }, { record = C2, point = C2.points[1] }, nil, 0.02)
t.is(v.rule, "identical", "sources that differ (a comment) but one core binary: identical builds")
C2.builds[1].core = "decade"
t.is(rule.recorded({ record = C1, point = C1.points[1] }, { record = C2, point = C2.points[1] }, nil,
  0.02).rule, "default",
  "another core binary: not")
-- reruns: each build measured five times, log-times scattered by a known spread
local runs, s = {}, 0.01
local dev = { -2, -1, 0, 1, 2 }
for i, d in ipairs(dev) do
  runs[#runs + 1] = rec(10 + i, { 1e-6 * math.exp(d * s), 2e-6 * math.exp(d * s) })
  runs[#runs + 1] = rec(20 + i, { 1.1e-6 * math.exp(-d * s), 2e-6 * math.exp(-d * s) }, { src = "s2" })
end
local est = rule.history(runs, machine_of)
local sd1, df1, where = est(runs[1], runs[1].points[1])
t.ok(near(sd1, s * math.sqrt(2.5), 1e-9) and df1 == 8 and where == "point",
  "reruns: the point's own pooled spread of log-times (" .. tostring(sd1)
    .. ", 8 degrees of freedom from two builds run 5 times)")
local band = math.exp(stats.t_quantile(0.99, 8) * math.sqrt(2) * sd1)
local a1, b1 = runs[1], runs[2]
v = rule.recorded({ record = a1, point = a1.points[1] }, { record = b1, point = b1.points[1] }, est, 0.02)
t.ok(v.rule == "history" and near(v.band, band, 1e-9) and v.verdict == "slower" and v.ratio > band,
  string.format("x%.3f beyond the band of the reruns (x%.3f = exp(t(8) sqrt(2) sd)): slower (%s)", v.ratio,
    band, v.noise))
t.is(v.noise, string.format("between runs (history, 8 reruns) x%.3f", band), "the noise named with its reruns and band")
-- heavy tails: one rerun in ten slowed threefold by a neighbour's phase; the band is never
-- narrower than the widest ratio seen between two reruns of one build
local tails = {}
for i = 1, 10 do tails[#tails + 1] = rec(80 + i, { 1e-6 * (i == 5 and 3 or 1 + 0.001 * i), 2e-6 }) end
for i = 1, 10 do tails[#tails + 1] = rec(90 + i, { 1.5e-6 * (1 + 0.001 * i), 2e-6 }, { src = "s2" }) end
v = rule.recorded({ record = tails[1], point = tails[1].points[1] }, { record = tails[11],
  point = tails[11].points[1] },
  rule.history(tails, machine_of), 0.02)
t.ok(v.rule == "history" and v.band >= 2.99 and v.verdict == "inconclusive" and v.inconclusive,
  "a rerun three times slower once: x1.5 is inside the band (x" .. string.format("%.2f", v.band)
    .. "), inconclusive: " .. tostring(v.inconclusive))
local hits = {}
for i, r in ipairs(runs) do
  hits[i] = rec(r.id, { r.points[1].time, r.points[2].time }, { status = "hit", src = r.builds[1].src })
end
t.is(rule.history(hits, machine_of)(hits[1], hits[1].points[1]), nil, "points taken from the cache are no reruns")
local few = {}
for i = 1, 5 do few[i] = rec(30 + i, { 1e-6 * (1 + 0.01 * i), 2e-6 * (1 + 0.01 * i) }, { src = "s3" }) end
sd1, df1, where = rule.history(few, machine_of)(few[1], few[1].points[1])
t.ok(where == "class" and df1 == 8, "a point with fewer than " .. rule.MIN_RERUNS
  .. " reruns: its roof's points' (L1 bw: 2 points, 8 reruns)")
t.is(rule.history({ few[1], few[2], few[3], few[4] }, machine_of)(few[1], few[1].points[1]), nil,
  "fewer than " .. rule.MIN_RERUNS .. " reruns in its class too (6): no estimate")
-- an application point: its program's and regions' rows share one description and build;
-- each region is a point of its own, never a rerun of another region of the same run
local function app(id, times)
  local r = { id = id, machine = "m1", bestEpsilon = 0.02, points = {}, builds = { { core = "c0ffee" } } }
  for i, region in ipairs({ "(program)", "solve", "residual" }) do
    r.points[i] = { point = { n = 1000000, region = region }, desc = "dapp", build = 1, status = "measured",
      time = times[i], spread = 0.01 }
  end
  return r
end
local apps = {}
for i = 1, 5 do apps[i] = app(200 + i, { 25e-3 * (1 + 0.001 * i), 9e-3 * (1 + 0.001 * i), 16e-3 * (1 + 0.001 * i) }) end
t.ok(rule.identity(apps[1], apps[1].points[2]) ~= rule.identity(apps[1], apps[1].points[3]),
  "one application point's regions: not one build's reruns of each other")
sd1, df1 = rule.history({ apps[1], apps[2] }, machine_of)(apps[1], apps[1].points[2])
t.is(sd1, nil, "two runs of a program with three regions: 3 groups of 2 reruns, 3 degrees of freedom, no estimate (it "
  .. "read the regions' times of one run as reruns: x58.9 in a new user's trial)")
sd1, df1, where = rule.history(apps, machine_of)(apps[1], apps[1].points[2])
t.ok(where == "class" and df1 == 12 and sd1 < 0.01, "five runs: the regions' own reruns (12 degrees of freedom), "
  .. "a spread of their times across runs (" .. tostring(sd1) .. "), not between regions")
local other = rec(32, { 1e-6, 2e-6 })
other.machine = "m2"
v = rule.recorded({ record = other, point = other.points[1] }, { record = few[1], point = few[1].points[1] },
  rule.history({ other, table.unpack(few) }, machine_of), 0.02)
t.is(v.rule, "default",
  "a run on another machine without reruns there: no estimate of the difference, the default band")
local steady = {}
for i = 1, 12 do steady[#steady + 1] = rec(40 + i, { 1e-6 * (1 + 1e-4 * i), 2e-6 }, { spread = 0 }) end
for i = 1, 12 do steady[#steady + 1] = rec(60 + i, { 1.015e-6 * (1 + 1e-4 * i), 2e-6 }, { src = "s2", spread = 0 }) end
v = rule.recorded({ record = steady[1], point = steady[1].points[1] }, { record = steady[13],
  point = steady[13].points[1] },
  rule.history(steady, machine_of), 0)
t.ok(v.verdict == "same" and v.ratio > v.band, "beyond a narrow band (x" .. string.format("%.4f", v.band) ..
  ") but under the minimum effect (x1.015): same")

-- the gate's line on what it could not judge (rot.compare.output.undecided), stderr captured
local output = require "rot.compare.output"
local function undecided_line(matched, fail_on, hint)
  local f, saved = io.tmpfile(), io.stderr
  io.stderr = f
  output.undecided(matched, fail_on, hint)
  io.stderr = saved
  f:seek("set")
  local text = f:read("a")
  f:close()
  return text
end
local unknown = require("rot.compare.rule").UNKNOWN
local same = { { verdict = "inconclusive", inconclusive = unknown, ratio = 2.01 },
  { verdict = "inconclusive", inconclusive = unknown, ratio = 2.19 }, { verdict = "inconclusive",
    inconclusive = unknown, ratio = 0.9 },
  { verdict = "same", ratio = 1.5 }, { verdict = "slower", ratio = 3 } }
t.is(undecided_line(same, "slower", "rot compare s.lua 1 2 -remeasure"),
  "rot: -failOn=slower: 2 points inconclusive (B/A x2.010 to x2.190), judged against no known noise between runs: they "
  .. "fail nothing; rot compare s.lua 1 2 -remeasure -failOn=slower judges them\n",
  "-failOn=slower: the inconclusive points B took longer on are said, with their range and the "
    .. "command that judges them")
t.is(undecided_line(same, "any", nil),
  "rot: -failOn=any: 3 points inconclusive (B/A x0.900 to x2.190), judged against no "
  .. "known noise between runs: they fail nothing\n",
    "-failOn=any: every inconclusive one that moved; no command where none can judge them")
t.is(undecided_line({ same[4], same[5] }, "slower", "x"), "", "nothing inconclusive: no line")
-- inconclusive is not same: the summary counts them apart, and no gate fails on them
local compare = require "rot.compare"
for i, p in ipairs(same) do p.point, p.a = { n = i }, { point = { n = i } } end
local sum = compare.summary(same)
t.ok(sum.counts.same == 1 and sum.counts.inconclusive == 3 and sum.counts.slower == 1,
  "the summary counts 1 same, 3 inconclusive, 1 slower (the inconclusive ones are not the same)")
t.ok(output.summary_line(sum,
  "rot compare s.lua 1 2 -remeasure"):find("^rot compare: 0 faster, 1 slower, 1 same, 3 inconclusive, "
  .. "0 only in A, 0 only in B;") ~= nil, "the summary line: 1 same, 3 inconclusive")
-- a loop survey's rows (loops, functions, kernel code) are shares of the program's samples: left
-- out of the mean, and the line says so
local prog = { verdict = "slower", ratio = 2, a = { point = { region = "(program)" } } }
local loop = { verdict = "faster", ratio = 0.25, a = { point = { region = "kernel code" }, survey = "kernel" } }
local mixed = compare.summary({ prog, loop })
t.ok(mixed.matched == 1 and math.abs(mixed.speedup - 0.5) < 1e-12 and mixed.survey_left_out == 1,
  "the survey's row is left out of the geometric mean: 0.5 from the program's row alone ("
  .. tostring(mixed.speedup) .. ")")
t.ok(output.summary_line(mixed):find("(B over A, 1 point, the survey's 1 row left out: its times are shares of "
  .. "samples)", 1, true) ~= nil, "and the summary line says why: " .. output.summary_line(mixed))
t.ok(#compare.offending(same, "any") == 1 and #compare.offending(same, "slower") == 1,
  "-failOn=any fails on the slower point only: an inconclusive point was not judged to have changed")
local wide = { verdict = "inconclusive",
  inconclusive = "the noise between runs here, x2.1, could hide a change that large", ratio = 1.3 }
t.is(undecided_line({ same[1], wide }, "slower", nil),
  "rot: -failOn=slower: 2 points inconclusive (B/A x1.300 to x2.010), "
  .. "their noise (the table's last column) too wide, or their rounds too few, to tell such a "
    .. "change: they fail nothing\n",
  "a point judged against a known band too wide to decide is not said to have met no known noise")

-- which recorded points -remeasure can measure again: an application's with its how (rot keeps
-- its program), one recorded before rot kept programs with the reason, a GPU point
local unmeasurable = require("rot.compare.remeasure").unmeasurable
local rec = { id = 3, hows = { "{}" } }
t.is(unmeasurable(rec, { how = 1, point = { region = "outer" } }), nil,
  "an application's region with its how is measured again")
t.ok((unmeasurable(rec, { point = { region = "outer" } })
  or ""):find("^run 3 was recorded without a copy of its program %(by an older rot%)") ~= nil,
  "one recorded before rot kept programs says so")
t.is(unmeasurable(rec, { point = { n = 1 } }), "a GPU point is not measured again here",
  "a point without a how in a record with hows: a GPU point")

-- -remeasure of a program: its rows show one round together (the issue's "timestep loop
-- 149.73 ms" against "(program) 145.89 ms" came from two rounds): no region is longer than its
-- program on either side
local compare = require "rot.compare"
local function side(region, t) return { point = { command = "prog", region = region }, time = t, runs = 2 } end
-- 8 rounds; the region takes 0.97 of its program's time in every round and invocation; the
-- machine's speed moves from round to round, both sides' together
local speed = { 1.00, 1.04, 0.97, 0.95, 1.10, 1.02, 1.06, 1.01 }
-- round 4 lies nearest the program's median, round 5 the region's
local p_ratio = { 1.03, 0.98, 1.01, 1.00, 1.02, 0.97, 1.04, 0.99 }
local r_ratio = { 0.98, 1.03, 0.99, 1.04, 1.00, 1.02, 0.97, 1.01 }
local prog_a, prog_b, reg_a, reg_b = {}, {}, {}, {}
for r, f in ipairs(speed) do
  prog_a[r], prog_b[r] = 0.100 * f, 0.100 * f * p_ratio[r]
  reg_a[r], reg_b[r] = 0.097 * f, 0.097 * f * r_ratio[r]
end
local function remeasured(ta, tb)
  local ratios = {}
  for r = 1, #ta do ratios[r] = tb[r] / ta[r] end
  return { ta = ta, tb = tb, ratios = ratios, rounds = #ta }
end
local P = { a = side("(program)", 0.1), b = side("(program)", 0.1), remeasured = remeasured(prog_a, prog_b) }
local R = { a = side("loop", 0.097), b = side("loop", 0.097), remeasured = remeasured(reg_a, reg_b) }
compare.rejudge({ P, R }, 0.02)
t.ok(P.round == R.round and R.a.time <= P.a.time and R.b.time <= P.b.time,
  string.format("a program's rows show one round (%s, %s): region %.4f <= program %.4f (A), %.4f <= %.4f (B)",
    tostring(P.round), tostring(R.round), R.a.time, P.a.time, R.b.time, P.b.time))
local K = { a = { point = { n = 1 }, time = 1 }, b = { point = { n = 1 }, time = 1 }, remeasured = remeasured({ 1,
  1.1, 1 }, { 1.05, 1.1, 1.3 }) }
compare.rejudge({ K }, 0.02)
t.is(K.round, 1, "a kernel's point: its own round nearest its median ratio (x1.05: round 1)")

-- the compare plot's labels: the coordinates its points differ in (a profiled program's command
-- and threads, the same in every pair, left to the title and the hover text)
do
  local out = require "rot.compare.output"
  local ps = { { point = { command = "prog", threads = 2, region = "prog.c:21 loop in main" } },
    { point = { command = "prog", threads = 2, region = "(program)" } } }
  local v = out.varying(ps)
  t.ok(v.region and not v.command and not v.threads and out.coords_of(ps[1].point, { "command", "threads", "region" },
    v) == "region=prog.c:21 loop in main", "a program's pairs differ in their region alone")
  ps[3] = { point = { command = "prog", threads = 1, region = "(program)" } }
  t.ok(out.varying(ps).threads, "and in their threads where two counts are paired")
end

t.done()
