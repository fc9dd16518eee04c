-- Label placement (rot.plot.place) and its checker (rot.plot.check) against recorded plots whose
-- labels overlapped (tests/fixtures/plots): text as wide as the PNG draws it, points and arrows
-- counted, a compare plot's ceiling labels placed after its points, every cache size labelled;
-- the points labelled by their working sets.
-- judges no time
local t = require "tap"
local rot = require "rot"
local sys = require "rot.sys"
local plot = require "rot.plot"
local place = require "rot.plot.place"
local textsize = require "rot.plot.text"
local check = require "rot.plot.check"
local cplot = require "rot.compare.plot"

local FIX = "tests/fixtures/plots"
local dir = (os.getenv("TMPDIR") or "/tmp") .. "/rot-unit-plots-" .. sys.pid()
assert(sys.mkdir(dir))

-- check() of a script in d: its label boxes, what overlaps and what a ceiling crosses.
local function checked(d, name)
  return check.check(assert(sys.readfile(d .. "/" .. name)), function(f) return sys.readfile(d .. "/" .. f) end)
end

-- Whether a pair of overlaps names a label starting with text and an obstacle matching what.
local function has(overlaps, text, what)
  for _, o in ipairs(overlaps) do
    if o[1]:sub(1, #text) == text and o[2]:find(what) then return true end
  end
  return false
end

-- text as wide as drawn: the PNG (pngcairo, 96 dpi) draws this label 185 pixels wide at font 9,
-- the SVG 138; a box at least as wide as the widest, on its line's angle too
local long = "L4 triad 49.25 GB/s (unstable, 9%)"
local f = place.frame(plot.geometry, { 1, 10 }, { 1, 10 }, false, false)
local b = place.box(f, { px = 100, py = 100, text = long, font = 9 })
t.ok(b.x1 - b.x0 >= 184 and b.x1 - b.x0 < 200, "a label's box is as wide as the PNG draws it: " .. (b.x1 - b.x0))
t.ok(math.abs(textsize.width("MMMMMMMMMM") - 8.33) < 0.01 and textsize.width("iiiiiiiiii") < 2.3,
  "widths per character (Helvetica's): ten M 8.33 em, ten i 2.22")
local r = place.box(f, { px = 100, py = 100, text = long, font = 9, angle = 41.49 })
t.ok(r.x1 - r.x0 > 0.74 * 184 and r.y1 - r.y0 > 0.66 * 184, "and so is its box rotated with a roof")

-- a recorded roofline (tests/fixtures/plots/unstable-triad.gp): the tail of the L4 label runs
-- under the column of points; the checker says so, and rot's placement of the same plot does not
local boxes, overlaps = checked(FIX, "unstable-triad.gp")
t.ok(#boxes == 13 and has(overlaps, "L4 triad 55 GB/s (unstable, 9%)", "^the line of '%-O3"),
  "the checker finds the L4 label on the column's line ("
  .. #overlaps .. " overlaps)")
local function rows_of(file)
  local rows, series = {}, nil
  for l in assert(sys.readfile(file)):gmatch("[^\n]+") do
    series = l:match("^# series %d+: (.*)") or series
    local x, y, lab = l:match('^(%S+) (%S+) "(.*)"$')
    if x then rows[#rows + 1] = { intensity = tonumber(x), gflops = tonumber(y), s = series, lab = lab } end
  end
  return rows
end
local compute = { { label = "double avx512 fma", gflops = 114.5 }, { label = "double avx2 fma", gflops = 56.27 },
  { label = "double scalar fma", gflops = 14.36 }, { label = "double sse add", gflops = 13.9 },
  { label = "double scalar add", gflops = 7.13 } }
local function bandwidth(l4)
  return { { label = "L1 triad", gbs = 590.9 }, { label = "L2 triad", gbs = 206.4 },
    { label = "L3 triad", gbs = 109.9 },
    { label = "L4 triad", gbs = l4, spread = 0.09, unstable = true },
    { label = "DRAM triad", gbs = 25.27, spread = 0.49, unstable = true } }
end
plot.roofline { rows = rows_of(FIX .. "/unstable-triad.dat"), name = "triad", dir = dir,
  title = "STREAM triad, 1 thread",
  series = function(row) return row.s end, label = function(row) return row.lab end, compute = compute,
    bandwidth = bandwidth(55) }
local gp = assert(sys.readfile(dir .. "/triad.gp"))
local crossed
boxes, overlaps, crossed = checked(dir, "triad.gp")
t.ok(#boxes >= 10 and #overlaps == 0 and #crossed == 0,
  string.format("rot places the same roofline's %d labels on nothing "
  .. "(%d overlaps%s, %d crossed)", #boxes, #overlaps, overlaps[1] and (": '" .. overlaps[1][1] .. "' on '"
    .. overlaps[1][2] .. "'") or "", #crossed))
t.ok(gp:find('set label %d+ "L4 triad 55 GB/s %(unstable, 9%%%)"')
  or gp:find('title "L4 triad 55 GB/s %(unstable, 9%%%)"'),
  "the L4 ceiling is still named: on its line, or in the key (here: the compute ceilings cross "
    .. "every stretch of its line "
  .. "long enough for its label)")
t.ok(not gp:find("offset [^0]") and not gp:find("offset 0,[^0]"),
  "its labels are anchored where they go (no offset: one per terminal)")

-- a recorded compare plot (covered-compare.gp): its ceiling labels are placed before its points
-- and arrows, which cover the L4 label; rot.compare.plot, same runs, places them after
boxes, overlaps = checked(FIX, "covered-compare.gp")
t.ok(has(overlaps, "L4 triad 49.25 GB/s (unstable, 9%)", "^arrow %d") and has(overlaps,
  "L4 triad 49.25", "^a point of "),
  "the checker finds arrows and B points on the compare plot's L4 label (" .. #overlaps .. " overlaps)")
local pairs_ = {}
for i, g in ipairs({ 7.1, 6.9, 6.8, 6.6, 5.1, 3.9, 3.3, 2.9 }) do
  pairs_[i] = { point = { n = 1024 * 2 ^ (i - 1) }, verdict = "slower", ratio = 2.01, band = 1.04,
    a = { intensity = 1 / 12, gflops = g, status = "hit" }, b = { intensity = 1 / 12,
      gflops = g / 2.01, status = "hit" } }
end
cplot.plot { name = "study-compare", dir = dir, title = "study: run 1 vs run 2", A = { label = "run 1", record = {} },
  B = { label = "run 2", record = {} }, pairs = pairs_, coords = function(p) return string.format("n=%d", p.n) end,
  ceilings = { compute = { compute[1], compute[2], compute[3], compute[5] }, bandwidth = bandwidth(49.25) } }
boxes, overlaps, crossed = checked(dir, "study-compare.gp")
t.ok(#boxes >= 5 and #overlaps == 0 and #crossed == 0,
  string.format("rot's compare plot puts its %d labels on nothing (%d overlaps%s)",
  #boxes, #overlaps, overlaps[1] and (": '" .. overlaps[1][1] .. "' on '" .. overlaps[1][2] .. "'") or ""))

-- every cache size of a staircase is marked and named: along its line, beside it when series
-- cross the line, in the key when they cross it everywhere near it
local function zigzag(l1, from, to, n) -- a series from l1*from to l1*to, its y from 1000 to 0 and back, ending at 0
  local rows = {}
  for i = 0, n - 1 do
    rows[#rows + 1] = { ws = l1 * from * (to / from) ^ (i / (n - 1)), gbs = (n - 1 - i) % 2 * 1000, s = "zigzag" }
  end
  return rows
end
local function staircase(name, rows, l1)
  plot.xy { rows = rows, name = name, dir = dir, x = function(row) return row.ws end,
    y = function(row) return row.gbs end,
    logx = true, xbytes = true, series = function(row) return row.s end,
    vlines = { { x = l1, label = "L1 56.8 KiB (effective)" }, { x = 4e6, label = "L2 1.73 MiB (effective)" } } }
  return assert(sys.readfile(dir .. "/" .. name .. ".gp"))
end
gp = staircase("beside", zigzag(58154, 1 / 1.3, 1, 12), 58154) -- a series up to the line, from its left
boxes, overlaps = checked(dir, "beside.gp")
local at = gp:match('set label %d+ "L1 56.8 KiB %(effective%)" at ([%d.e+]+),graph')
t.ok(at and tonumber(at) > 58154 and #overlaps == 0,
  "a cache size whose line a series crosses is labelled beside it (at x = "
  .. tostring(at) .. ", " .. #overlaps .. " overlaps)")
gp = staircase("keyed", zigzag(58154, 1 / 1.3, 1.3, 24), 58154) -- one across it, both sides, at every height
t.ok(not gp:find('set label %d+ "L1')
  and gp:find("NaN with lines dt 3 lc rgb '#888888' title \"L1 56.8 KiB %(effective%)\"") and
  gp:find('set label %d+ "L2 1.73 MiB %(effective%)"'),
    "one that fits nowhere is named in the key, the others on their lines")

-- four B points at one place (four sizes that ran alike): two labelled either side, the others
-- named in the key, the one under another's marker said to be hidden there (readme.t's compare
-- plot drew one such, unsaid, before rot.compare.plot marked them)
local twins = {}
for i = 1, 4 do
  twins[i] = { point = { n = i }, verdict = "slower", ratio = 2.0, band = 1.04, a = { intensity = 1 / 12,
    gflops = 8, status = "hit" },
    b = { intensity = 1 / 12, gflops = 4, status = "hit" } }
end
cplot.plot { name = "twins", dir = dir, title = "t", A = { label = "run 1", record = {} },
  B = { label = "run 2", record = {} },
  pairs = twins, coords = function(p) return "n=" .. p.n end, ceilings = { compute = { compute[1] },
    bandwidth = bandwidth(49.25) } }
_, _, _, d = checked(dir, "twins.gp")
gp = assert(sys.readfile(dir .. "/twins.gp"))
t.ok(#d.hidden == 0 and #d.unlabelled == 0 and gp:find("n=3 time x2.00 (hidden)", 1, true),
  "a compare plot's B point under "
  .. "another's marker, unlabelled, is said to be hidden in the key (" .. #d.hidden .. " not)")

-- compare plots with slanted arrows (B at another intensity), 20 drawn from a fixed seed: no
-- label on an arrow's shaft or head, on a point of A or B, or crossed by a ceiling (the heads and
-- A's larger rings are in the placer's map)
local seed = 12345
local function rnd() seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 end
local found, first = 0, nil
for k = 1, 20 do
  local ps = {}
  for i = 1, 12 do
    local ia, r = 10 ^ (-2 + 3 * rnd()), 0.5 + 1.5 * rnd()
    local ga, ib = math.min(100, ia * 25 * (0.2 + rnd())), ia * (0.5 + rnd())
    ps[i] = { point = { n = i }, verdict = r > 1.05 and "slower" or r < 0.95 and "faster" or "same",
      ratio = r, band = 1.04,
      a = { intensity = ia, gflops = ga, status = "hit" }, b = { intensity = ib, gflops = ga / r, status = "hit" } }
  end
  cplot.plot { name = "slanted", dir = dir, title = "t", A = { label = "run 1", record = {} },
    B = { label = "run 2", record = {} },
    pairs = ps, coords = function(p) return "n=" .. p.n end, ceilings = { compute = { compute[1], compute[2] },
      bandwidth = bandwidth(49.25) } }
  boxes, overlaps, crossed = checked(dir, "slanted.gp")
  found = found + #overlaps + #crossed
  first = first or (overlaps[1] and string.format("plot %d: '%s' on '%s'", k, overlaps[1][1], overlaps[1][2]))
end
t.ok(found == 0, "20 compare plots with slanted arrows: no label on an arrow, a point or a ceiling ("
  .. found .. " found"
  .. (first and ("; " .. first) or "") .. ")")

-- a label function may give a number: drawn as its text
plot.roofline { rows = { { intensity = 0.1, gflops = 1, n = 4096 } }, name = "numbers", dir = dir, title = "t",
  label = function(row) return row.n end, compute = compute, bandwidth = bandwidth(55) }
t.ok(assert(sys.readfile(dir .. "/numbers.dat")):find('0.1 1 "4096"', 1, true),
  "a point label that is a number is drawn as its text")

-- rows that ran with no place on a roofline (a copy kernel, regions without work or of a failed
-- point): the ceilings drawn all the same, the key saying why each is missing; rows none of
-- which ran (rot build): nothing rendered
local svg = plot.roofline { rows = { { gflops = 0, gbs = 10, entry = {}, s = "copy" }, { gflops = 0, gbs = 9,
  entry = {}, s = "copy" } },
  name = "flopless", dir = dir,
  title = "t", series = function(row) return row.s end, compute = compute, bandwidth = bandwidth(55) }
t.ok(svg and sys.stat(dir .. "/flopless.png") == "file" and
  assert(sys.readfile(dir .. "/flopless.gp")):find('title "not drawn (no flops): copy"', 1, true),
  "a measured copy kernel alone: its roofline drawn, the key saying why it has no point")
local why = function(row) return row.why end
svg = plot.roofline { rows = { { region = "ok", gflops = 1, why = "no bytes", partial = {} },
  { region = "cross", why = "no completed call", partial = {} }, { region = "w", why = "no bytes", partial = {} } },
  name = "regions", dir = dir, title = "t", not_drawn = why, label = function(row) return row.region end,
  compute = compute, bandwidth = bandwidth(55) }
local rgp = assert(sys.readfile(dir .. "/regions.gp"))
t.ok(svg and rgp:find('"not drawn (no bytes): ok, w"', 1, true)
  and rgp:find('"not drawn (no completed call): cross"', 1, true),
  "a failed application point's regions, none drawable: the roofline drawn, each reason with its regions")
t.is(plot.roofline { rows = { { planned = true } }, name = "planned", dir = dir, title = "t",
  compute = compute, bandwidth = bandwidth(55) }, nil, "rows none of which ran (rot build): no roofline rendered")

-- the key and the points a reader must be told apart. A recorded stream roofline (cut-stream.gp,
-- quick) cuts a key entry at the PNG's right edge ("... 14.7 GFLO"), leaves 5 of its 6 points,
-- two per strip, without a label or a word in the key, and draws bands of 39%; a threads
-- roofline (wide-threads.gp) a band of 94% over half the plot
local key = require "rot.plot.key"
local _, _, _, d = checked(FIX, "cut-stream.gp")
t.ok(d.key[1] == "double sse add = double scalar fma 14.7 GFLOP/s" and #d.unlabelled == 5 and #d.bands == 2,
  string.format("the checker finds the old stream plot's key entry past the canvas ('%s'), its "
    .. "%d unlabelled points and "
    .. "its %d bands wider than 10%%", tostring(d.key[1]), #d.unlabelled, #d.bands))
_, _, _, d = checked(FIX, "wide-threads.gp")
t.ok(#d.key == 1 and #d.bands >= 1 and math.max(table.unpack(d.bands)) > 1.9,
  "and the old threads plot's 94% band (x" .. string.format("%.2f", math.max(table.unpack(d.bands))) .. ")")
local stream_compute = { { label = "double avx2 fma", gflops = 58.72, spread = 0.01 },
  { label = "double avx512 fma", gflops = 58.7 },
  { label = "double sse add", gflops = 14.74, spread = 0.02 }, { label = "double scalar fma",
    gflops = 14.54, spread = 0.02 },
  { label = "double scalar add", gflops = 7.32 } }
local stream_bw = { { label = "L1 triad", gbs = 245.5, spread = 0.235, unstable = true },
  { label = "L2 triad", gbs = 117.1 },
  { label = "L3 triad", gbs = 97.44 }, { label = "DRAM triad", gbs = 24.31, spread = 0.391, unstable = true } }
plot.roofline { rows = rows_of(FIX .. "/cut-stream.dat"), name = "stream", dir = dir,
  title = "STREAM operations, 1 thread",
  series = function(row) return row.s end, label = function(row) return row.lab end,
    compute = stream_compute, bandwidth = stream_bw }
boxes, overlaps, crossed, d = checked(dir, "stream.gp")
gp = assert(sys.readfile(dir .. "/stream.gp"))
t.ok(#overlaps == 0 and #crossed == 0 and #d.key == 0 and #d.unlabelled == 0 and #d.bands == 0,
  string.format("rot draws the same plot with every key entry on the canvas, every point labelled or named in the key "
    .. "and no band past 10%% (%d overlaps, %d crossed, %d key entries off, %d unlabelled: %s, %d wide bands)",
      #overlaps, #crossed,
    #d.key, #d.unlabelled, tostring(d.unlabelled[1]), #d.bands))
t.ok(gp:find('keyentry with lines lt nodraw title "  unlabelled, top to bottom: 16.0 KiB, 1024 KiB"', 1, true),
  "a strip's unlabelled points are named in the key under their series, top to bottom")
t.ok(gp:find('title "double sse add = double scalar fma 14.7"', 1, true) and gp:find('title "  GFLOP/s"', 1, true)
  or gp:find('set label %d+ "double sse add = double scalar fma 14.7 GFLOP/s"'),
  "the long ceiling name is wrapped onto an entry of its own (or labelled on its line)")
t.ok(gp:find("'+' using 1:(0.000000000*[%d.]+%*%$1") == nil
  and gp:find("a ceiling's spread (band, drawn up to 10%)", 1, true),
  "the key says what a band is and how much of it is drawn")
t.ok(gp:find('"DRAM triad 24.31 GB/s (unstable, 39%)"', 1, true),
  "a cut band's ceiling still says its whole spread, 39%")
local lines = key.wrap(plot.geometry, "  unlabelled, left to right: " .. string.rep("1.00 MiB, ", 12)
  .. "Supercalifragilisticexpialidocious-" .. string.rep("x", 60))
local fits = true
for _, l in ipairs(lines) do fits = fits and key.fits(plot.geometry, 0.715, 0.91, 1, l) end
t.ok(#lines >= 4 and fits and lines[2]:match("^    1%.00 MiB,") and table.concat(lines, " "):gsub("%s+",
  " "):find("1.00 MiB, 1.00 MiB", 1, true),
  "key.wrap: every line fits, a list breaks after its commas, a word too long for a line is cut ("
    .. #lines .. " lines)")

-- recorded plots (their data files renamed): a triad roofline draws its above-bound triangles
-- in the -O3 series' vermillion and its L1 label 1 pixel from its own line (review-triad.gp); a
-- solver's n=100000, 1-thread 'solve' point lies under the n=1000000 one's marker, the key
-- silent on it (review-solver.gp). The checker finds each; rot draws the same points without
-- them
local function has_text(list, text)
  for _, x in ipairs(list) do if x == text then return true end end
  return false
end
_, _, _, d = checked(FIX, "review-triad.gp")
t.ok(#d.colours == 1 and d.colours[1]:find("#D55E00", 1, true) and d.colours[1]:find("-O3 -march=native", 1, true)
  and has_text(d.on_line, "L1 triad 280.9 GB/s") and has_text(d.hidden, "6.00 KiB"), string.format("the checker finds "
  .. "review-1's triad roofline's triangles in a series' colour (%s), its L1 label on its line (%d such) and %d points "
  .. "hidden under others, unsaid", tostring(d.colours[1]), #d.on_line, #d.hidden))
_, _, _, d = checked(FIX, "review-solver.gp")
t.ok(has_text(d.hidden, "solve") and #d.unlabelled == 0,
  "and the solver roofline's 'solve' hidden under another point, "
  .. "named in the key only as unlabelled (" .. table.concat(d.hidden, ", ") .. ")")
local triad_rows = rows_of(FIX .. "/review-triad.dat")
for _, r in ipairs(triad_rows) do
  r.above = r.s:match("^%-O2") and (r.lab == "96.0 MiB" or r.lab == "192 MiB") or nil
end
plot.roofline { rows = triad_rows, name = "review-triad", dir = dir, title = "STREAM triad, 1 thread (AMD EPYC)",
  series = function(row) return row.s end, label = function(row) return row.lab end,
  compute = { { label = "double avx512 fma", gflops = 58.95 }, { label = "double avx2 fma", gflops = 58.75 },
    { label = "double scalar fma", gflops = 14.78 }, { label = "double sse add", gflops = 14.74 },
      { label = "double scalar add", gflops = 7.31 } },
  bandwidth = { { label = "L1 triad", gbs = 280.9, spread = 0.0137 }, { label = "L2 triad", gbs = 121, spread = 0.006 },
    { label = "L3 triad", gbs = 102.4, spread = 0.014 }, { label = "DRAM triad", gbs = 23.79,
      spread = 0.06, unstable = true } } }
boxes, overlaps, crossed, d = checked(dir, "review-triad.gp")
gp = assert(sys.readfile(dir .. "/review-triad.gp"))
t.ok(#overlaps == 0 and #crossed == 0 and #d.unlabelled == 0 and #d.hidden == 0 and #d.on_line == 0 and #d.colours == 0
  and gp:find("%$above using 1:2 with points pt 8 ps 2 lw 1.5 lc rgb '#000000'"), string.format("rot draws the same "
  .. "roofline with its triangles black (no series' colour), every ceiling label 3 pixels off "
    .. "its line (%d on one), and "
  .. "each hidden point labelled or said hidden in the key (%d not; %d overlaps, %d crossed, %d unlabelled)",
    #d.on_line,
  #d.hidden, #overlaps, #crossed, #d.unlabelled))
t.ok(gp:find("(hidden)", 1, true), "the key says which of its unlabelled points lie under another")
local solver_rows = {}
for l in assert(sys.readfile(FIX .. "/review-solver.dat")):gmatch("[^\n]+") do
  local series = l:match("^# series %d+: (.*)")
  if series then solver_rows.s = series end
  local x, y, lab, ps = l:match('^(%S+) (%S+) "(.*)" (%S+)$')
  if x then solver_rows[#solver_rows + 1] = { intensity = tonumber(x), gflops = tonumber(y),
    s = solver_rows.s, lab = lab,
    share = (tonumber(ps) / 3) ^ 2 } end
end
plot.roofline { rows = solver_rows, name = "review-solver", dir = dir, title = "solver",
  series = function(row) return row.s end,
  label = function(row) return row.lab end, size = function(row) return row.share end,
  notes = { "ceilings of 2 threads; the points at 1 thread are bounded by their own (marked)" },
  compute = { { label = "double avx512 fma", gflops = 117.3 }, { label = "double scalar add", gflops = 14.47 } },
  bandwidth = { { label = "L1 triad", gbs = 489.3 }, { label = "L2 triad", gbs = 236.9 },
    { label = "L3 triad", gbs = 205 },
    { label = "DRAM triad", gbs = 32.78 } } }
boxes, overlaps, crossed, d = checked(dir, "review-solver.gp")
gp = assert(sys.readfile(dir .. "/review-solver.gp"))
t.ok(#overlaps == 0 and #crossed == 0 and #d.unlabelled == 0 and #d.hidden == 0 and #d.on_line == 0
  and gp:find("solve (hidden)", 1, true)
    and gp:find('plot keyentry with lines lt nodraw title "ceilings of 2 threads;', 1, true),
  string.format("and the solver roofline with its hidden 'solve' said so in the key, the thread count of its ceilings "
    .. "first in the key (%d hidden unsaid, %d overlaps, %d on a line)", #d.hidden, #overlaps, #d.on_line))

-- a key longer than the plot area is high: gnuplot stacks as many entries as that height holds
-- (36 in the SVG), then starts another column beside the first, past the canvas' edge. A recorded
-- loop survey's roofline (survey-key.gp: 17 loops, each hidden under another at one intensity, the
-- key naming every one) lost 34 of its 68 entries so; the checker counted 28 off, from the
-- canvas' bottom
_, _, _, d = checked(FIX, "survey-key.gp")
local sk = key.entries(assert(sys.readfile(FIX .. "/survey-key.gp")))
t.ok(#sk == 69 and #d.key == 34 and d.key[1] == sk[36].text and d.key[34] == sk[69].text,
  string.format("the checker finds the survey key's second column past the canvas: %d of its %d entries, from '%s'",
    #d.key, #sk, tostring(d.key[1])))
do
  local long = {}
  for i = 1, 40 do long[i] = key.entry(string.format("entry %02d, loop in f1 (depth 2 of 2)", i)) end
  local lgp = key.command(plot.geometry) .. "\nplot " .. table.concat(long, ", \\\n     ") .. "\n"
  local off = key.check(lgp, plot.geometry)
  t.ok(#off == 20 and off[1]:find("^entry 21,"),
    "a key of 40 long entries, all above the canvas' bottom: the 20 gnuplot puts in a second column are off ("
      .. #off .. ")")
end
local survey_rows = {}
for l in assert(sys.readfile(FIX .. "/survey-key.dat")):gmatch("[^\n]+") do
  survey_rows.s = l:match("^# series %d+: (.*)") or survey_rows.s
  local x, y, lab, ps = l:match('^(%S+) (%S+) "(.*)" (%S+)$')
  if x then survey_rows[#survey_rows + 1] = { intensity = tonumber(x), gflops = tonumber(y), s = survey_rows.s,
    lab = lab, share = (tonumber(ps) / 3) ^ 2 } end
end
plot.roofline { rows = survey_rows, name = "survey-key", dir = dir, title = "rot profile many 2000",
  series = function(row) return row.s end, label = function(row) return row.lab end,
  size = function(row) return row.share end, compute = compute, bandwidth = bandwidth(55) }
boxes, overlaps, crossed, d = checked(dir, "survey-key.gp")
gp = assert(sys.readfile(dir .. "/survey-key.gp"))
local skn = #key.entries(gp)
t.ok(#d.key == 0 and #d.unlabelled == 0 and #d.hidden == 0 and skn <= key.capacity(plot.geometry, 0.91)
  and gp:find('"  unlabelled: %d+ points %(%d+ hidden%)"'),
  string.format("rot draws the same rows with its key in one column on the canvas (%d entries of %d), its long "
    .. "notes counted (%d off, %d unlabelled, %d hidden unsaid)", skn, key.capacity(plot.geometry, 0.91), #d.key,
    #d.unlabelled, #d.hidden))
local said_n = tonumber(gp:match('"  unlabelled: (%d+) points'))
local fewer = gp:gsub('"  unlabelled: %d+ points', '"  unlabelled: ' .. (said_n - 1) .. ' points', 1)
_, _, _, d = check.check(fewer, function(f) return sys.readfile(dir .. "/" .. f) end)
t.ok(#d.unlabelled == said_n, "a count one short of its series' unlabelled points speaks for none of them ("
  .. #d.unlabelled .. " of " .. said_n .. ")")
do -- more series than a column holds, none with a short form: the key cut, and saying so
  local many = {}
  for i = 1, 45 do many[i] = { intensity = 0.1 * i, gflops = 1, s = string.format("series %02d", i), lab = "" } end
  plot.roofline { rows = many, name = "many-series", dir = dir, title = "t", labels = "none",
    series = function(row) return row.s end, compute = compute, bandwidth = bandwidth(55) }
  _, _, _, d = checked(dir, "many-series.gp")
  local mgp = assert(sys.readfile(dir .. "/many-series.gp"))
  t.ok(#d.key == 0 and mgp:find("more key entries: no room", 1, true)
    and select(2, mgp:gsub("index %d+ using", "")) == 45,
    "45 series: every series drawn, the key cut to a column on the canvas, saying how many entries it left out")
end

-- a compare plot's arrows in one strip (8 sizes at one intensity): each B point labelled beside
-- it or named in the key under its verdict, with each label in its data to check
boxes, overlaps, crossed, d = checked(dir, "study-compare.gp")
local cdat = assert(sys.readfile(dir .. "/study-compare.dat"))
local with_text = select(2, cdat:gsub('"n=%d+ time x2.01"', ""))
t.ok(with_text == 8 and #d.unlabelled == 0 and #d.key == 0,
  string.format("every arrow of the compare plot is labelled or named in "
  .. "the key (%d B points with a label text, %d unlabelled, %d key entries off)", with_text, #d.unlabelled, #d.key))

-- a series named after a memory level its points are not in ("data in DRAM" at 1.00 MiB, in
-- L2), found; "beyond L2" past L2, the level's own name, "in cache" pass
local levelnames = require "rot.results.seriesnames"
local names = { "L1", "L2", "L3", "DRAM" }
local function misnamed(series_of)
  local rows = { { s = "x", level = "L2", workingSet = 65536 }, { s = "x", level = "L2", workingSet = 1048576 },
    { s = "y", level = "L3", workingSet = 6291456 }, { s = "z", level = "L3-DRAM", workingSet = 50331648 } }
  return levelnames.misnamed(rows, function(r) return series_of[r.s] end, function(r) return r.level end, names)
end
local m = misnamed({ x = "data in DRAM", y = "beyond_L2", z = "data in L3-DRAM" })
t.ok(#m == 1 and m[1].series == "data in DRAM" and m[1].levels[1] == "L2" and
  levelnames.warning("intensity",
    m[1]):find("series 'data in DRAM' is named after DRAM, but points of it have their data in L2 %(64%.0 KiB%)"),
  "a series named after DRAM whose data are in L2 is found, with where they are")
m = misnamed({ x = "beyond L2", y = "dram", z = "in cache" })
t.ok(#m == 2 and m[1].said == "beyond L2" and m[2].series == "dram",
  "'beyond L2' in L2 and 'dram' (any case) in L3 are found too")
m = misnamed({ x = "data in L2 (64 KiB)", y = "past L2", z = "in cache" })
t.ok(#m == 0, "the level's own name, 'past L2' in L3 and a name without a level pass")
local could = {}
for _, n in ipairs({ "data in DRAM", "beyond_L2", "dram", "L3-DRAM step", "fma", "load", "triad, 2 threads", "in cache",
  "l1d", "dramatic" }) do
  if levelnames.might_name(n) then could[#could + 1] = n end
end
t.is(table.concat(could, ", "), "data in DRAM, beyond_L2, dram, L3-DRAM step",
  "only a name with a word a level could have "
  .. "needs the machine's levels (the pipeline's fma, add, ... load ask for no peaks)")

-- gpu-pipeline's series "global load (L1)" and "shared load" name the GPU's L1: on a GPU machine
-- without CPU peaks, its plot would measure them first
local results = require "rot.results"
local asked = 0
local gpu_rows = {}
for i, name in ipairs({ "global load (L1)", "shared load" }) do
  gpu_rows[i] = { entry = { runs = {} }, desc = { device = "gpu" }, point = { op = name, warps = 1 }, time = 1e-5 }
end
results.new(gpu_rows, { "op", "warps" }, function() asked = asked + 1; return {} end):xy { name = "gpu-pipeline",
  x = function(r) return r.point.warps end, y = function(r) return r.time end,
    series = function(r) return r.point.op end }
t.is(asked, 0,
  "a plot of GPU points with a series named 'global load (L1)' asks for no CPU peaks (the L1 is the GPU's)")
gpu_rows[3] = { entry = { runs = {} }, point = { op = "data in L1", warps = 1 }, time = 1e-5, workingSet = 4096 }
pcall(function()
  results.new(gpu_rows, { "op", "warps" }, function() asked = asked + 1; return {} end):xy { name = "gpu-pipeline",
    x = function(r) return r.point.warps end, y = function(r) return r.time end,
      series = function(r) return r.point.op end }
end)
t.is(asked, 1, "while a CPU point of the same plot named after L1 still has its level checked")

-- labels = "all" without a label function: each point is labelled by its working set
local out0 = rot.get("outputDir")
rot.set("outputDir", dir)
local lrows = {}
for i, ws in ipairs({ 24576, 3145728 }) do
  lrows[i] = { point = { n = ws / 24 }, desc = { workloads = { { kernel = "triad" } } }, intensity = 1 / 12,
    gflops = 2 / i, gbs = 24 / i, workingSet = ws, time = 1e-6, spread = 0 }
end
rot.results(lrows, { "n" }):roofline { name = "alllabels", labels = "all",
  compute = { { label = "FMA", gflops = 100 } },
  bandwidth = { { label = "L1", gbs = 300 } } }
local ldat = sys.readfile(dir .. "/alllabels.dat") or ""
t.ok(ldat:find("\"24.0 KiB\"", 1, true) and ldat:find("\"3.00 MiB\"", 1, true),
  "labels=\"all\" without label=: the points are labelled by their working sets: " .. ldat:gsub("\n", " | "))

-- a row with declared work that was counted too: its own point and its L1 point (its counted loads
-- and stores, the same bytes) fall on one place; the key says the row's point is under its L1
-- point, not that it is hidden (where every entry of a series would be said to be hidden)
local A, B = {}, {}
local under = place.hidden({ { px = 10, py = 10, r = 4, of = A, text = "declared" },
  { px = 10, py = 10, r = 4, of = A, level = "L1", text = "declared L1" },
  { px = 50, py = 50, r = 4, of = B, text = "other" }, { px = 50, py = 51, r = 4, of = A, level = "L2",
    text = "declared L2" } })
local unote = key.note({ under[1], under[3] })
t.ok(under[1].hidden == "under its L1 point" and under[3].hidden == "hidden" and not under[2].hidden
  and unote:find("declared (under its L1 point)", 1, true) and unote:find("other (hidden)", 1, true),
  "a row's point under its own level's point is said to be under it; under another row's, hidden: " .. unote)

-- a row with declared work, counted too, whose declared point is its counted L1 point: drawn once,
-- as its L1 point, with no series of its own in the key
local F, B = 4.8e6, 57.6e6
local drow = { point = { region = "declared" }, region = "declared", desc = { workloads = { { kernel = "app" } } },
  intensity = F / B, gflops = 11.4, flops = F, bytes = B, time = F / 11.4e9, spread = 0, flopsCounted = F,
  bytesCounted = B * 1.001, traffic = { L2 = 1.3 * B, L3 = 0, DRAM = 0 }, counts = "declared", calls = 1 }
rot.set("outputDir", dir)
rot.results({ drow }, { "region" }):roofline { name = "underl1", compute = { { label = "FMA", gflops = 100 } },
  bandwidth = { { label = "L1", gbs = 300 } } }
local ugp = sys.readfile(dir .. "/underl1.gp") or ""
t.ok(not ugp:find('title "points', 1, true) and ugp:find('title "L1: loads and stores', 1, true)
  and ugp:find('title "L2 traffic', 1, true), "a declared point on its counted L1 point is drawn once, as that")
-- text is drawn as written: a C function's name keeps its underscores (no enhanced-text subscripts)
local ugp2 = sys.readfile(dir .. "/underl1.gp") or ""
local terms = 0
for line in ugp2:gmatch("set terminal [^\n]*") do
  if line:find(" noenhanced ", 1, true) then terms = terms + 1 else terms = -100 end
end
t.ok(terms >= 2, "every terminal draws text as written (noenhanced): by_rows is no 'by' with a subscript")
rot.set("outputDir", out0)

sys.removetree(dir)

t.done()
