-- rot.plot: plots through gnuplot (rooflines, staircases, xy plots): writes the data and a
-- gnuplot script beside the SVG and PNG (so a user can edit and re-render), then renders
-- atomically (temp file, rename). Ceilings are labelled on their lines (rot.plot.roofs),
-- point labels are placed where they overlap nothing (or left out: the table carries them),
-- the legend sits outside the plot area, colours are the Okabe-Ito set (colour-blind safe).
local sys = require "rot.sys"
local util = require "rot.util"
local place = require "rot.plot.place"
local textsize = require "rot.plot.text"
local roofs = require "rot.plot.roofs"
local hover = require "rot.plot.hover"
local key = require "rot.plot.key"
local memo = require "rot.plot.memo"
local data = require "rot.plot.data"
local M = {}

-- Okabe & Ito's colour-blind-safe palette, the most distinct first (rot.plot.place).
M.palette = place.palette

--[[ Where things are on the canvas: size in pixels, the plot area in screen fractions, font
  sizes. Everything a label's box depends on is written into each script ("# rot geometry"),
  so M.check can recompute the boxes from the script alone. ]]
M.geometry = { width = 1000, height = 680, left = 0.085, right = 0.70, bottom = 0.11, top = 0.91, font = 11, small = 9 }

-- A gnuplot string literal.
local q = place.quote
M.quote = q

local function check_name(name)
  if type(name) ~= "string" or not name:match("^[%w_.-]+$") then
    util.fail("plot name '" .. tostring(name) .. "' must use letters, digits and _.- only")
  end
end

local frame, placer, line_label, label_cmd, point_labels, add_series = place.frame, place.placer, place.line_label,
  place.label_cmd, place.point_labels, place.add_series
M.frame, M.placer, M.line_label, M.label_cmd, M.point_labels = frame, placer, line_label, label_cmd, point_labels

-- Tick marks of a byte axis: 1 KiB, 4 KiB, ... 1 GiB (powers of four) within [lo, hi].
local function byte_tics(lo, hi)
  local t = {}
  local v = 1024
  while v <= hi do
    if v >= lo then t[#t + 1] = string.format("%s %.0f", q(util.bytes(v):gsub("%.00 ", " "):gsub("%.0 ", " ")), v) end
    v = v * 4
  end
  return #t > 0 and ("set xtics (" .. table.concat(t, ", ") .. ")") or nil
end

-- Runs gnuplot on script (in dir) with a temp suffix, then moves each temp output into place.
function M.render(gnuplot, dir, script, outputs)
  local exe = sys.locate(gnuplot)
  if not exe then
    util.fail("gnuplot ('" .. gnuplot .. "') not found: wrote the data and " .. script ..
      " in '" .. dir .. "' but no plot", "sudo apt-get install gnuplot-nox", 2)
  end
  local suffix = ".tmp" .. sys.pid() -- two rot processes may render into one directory
  local st, out = sys.run({ exe, "-e", 'suffix="' .. suffix .. '"', script }, { capture = true, dir = dir })
  if st ~= 0 then
    for _, o in ipairs(outputs) do sys.remove(dir .. "/" .. o .. suffix) end
    util.fail("gnuplot failed on '" .. dir .. "/" .. script .. "':\n" .. (out or ""):gsub("%s+$", ""))
  end
  for _, o in ipairs(outputs) do
    local ok, err = sys.rename(dir .. "/" .. o .. suffix, dir .. "/" .. o)
    if not ok then util.fail("cannot write '" .. o .. "': " .. err) end
  end
  return dir .. "/" .. outputs[1]
end

local write = util.write_changed -- (unless the file holds the text: true when written)

-- Log-scale range [lo, hi] padded by `pad` decades, snapped to a quarter decade.
local function logrange(lo, hi, pad)
  local a, b = math.log(lo, 10) - pad, math.log(hi, 10) + pad
  return 10 ^ (math.floor(a * 4) / 4), 10 ^ (math.ceil(b * 4) / 4)
end

-- The opening of every script: title, axes, ranges, grid, the plot area at fixed screen
-- fractions (the geometry line lets M.check recompute label boxes), the key outside it.
local function header(kind, o, xlabel, ylabel, xr, yr, logx, logy)
  local g = M.geometry
  local gp = {
    "# rot " .. kind .. " '" .. o.name .. "'. Re-render: gnuplot " .. o.name .. ".gp",
    string.format("# rot geometry %d %d %.4g %.4g %.4g %.4g %d %s %s", g.width, g.height, g.left, g.right,
      g.bottom, g.top,
      g.small, logx and "logx" or "linx", logy and "logy" or "liny"),
    'if (!exists("suffix")) suffix = ""',
    "set title " .. q(o.title or o.name) .. " font '," .. g.font + 1 .. "'",
    "set xlabel " .. q(xlabel),
    "set ylabel " .. q(ylabel),
    string.format("set xrange [%.9g:%.9g]", xr[1], xr[2]),
    string.format("set yrange [%.9g:%.9g]", yr[1], yr[2]),
    "set grid xtics ytics mxtics mytics lc rgb '#e4e4e4'",
    string.format("set lmargin at screen %.4g\nset rmargin at screen %.4g\nset bmargin at screen "
      .. "%.4g\nset tmargin at screen %.4g",
      g.left, g.right, g.bottom, g.top),
    key.command(g),
    "set samples 600",
  }
  if logx or logy then gp[#gp + 1] = "set logscale " .. (logx and "x" or "") .. (logy and "y" or "") end
  return gp
end
M.header = header
M.ceiling_lists, M.draw_ceilings = roofs.lists, roofs.draw

--[[ A roofline's ranges, [lo, hi] on each axis: the points' box (xlo, xhi, ylo, yhi: math.huge,
  0 when there are none) widened to every ceiling and ridge point, with room for the top
  ceiling's label and the slowest roof visible at the left edge. Returns xr, yr and the peak
  (the top compute ceiling, nil when there is none). ]]
function M.roofline_ranges(xlo, xhi, ylo, yhi, compute, bandwidth)
  local peak = compute[1] and compute[1].gflops
  for _, c in ipairs(compute) do ylo, yhi = math.min(ylo, c.gflops), math.max(yhi, c.gflops) end
  for _, b in ipairs(bandwidth) do -- room for each ridge point
    if peak then xlo, xhi = math.min(xlo, peak / b.gbs), math.max(xhi, peak / b.gbs) end
  end
  if xhi == 0 then xlo, xhi, ylo, yhi = 0.1, 1, 0.1, 1 end
  local xr, yr = { logrange(xlo, xhi, 0.45) }, { logrange(ylo, yhi, 0.3) }
  yr[2] = math.max(yr[2], yhi * 10 ^ 0.3) -- the top ceiling's label fits above it
  if #bandwidth > 0 then -- the slowest roof is visible at the left edge
    yr[1] = math.min(yr[1], 10 ^ (math.floor(math.log(math.max(bandwidth[#bandwidth].gbs * xr[1], 1e-12), 10) * 4) / 4))
    yr[1] = math.max(yr[1], ylo / 100)
  end
  return xr, yr, peak
end

M.share_size = data.share_size

-- The markers of a roofline's series, its ridge points and the rings of points above their
-- bound, and of an xy plot's series: drawn with these, kept free of labels as large as drawn.
local ROOF_POINT, ABOVE, XY_POINT, STEP, UNSETTLED = "pt 7 ps 0.8", "pt 8 ps 2", "pt 7 ps 0.6",
  "pt 3 ps 1.2", "pt 4 ps 1.6"

--[[ Marks at some of a roofline's points, kept free of labels, in a datablock: at each of
  list's {i=, x=, y=, on=} (on: at the point itself, the i-th of points), drawn as style in
  colour with title. Points above their bound (beyond their spread and the ceiling's) are
  ringed, never silent; points where the sweep falls between two levels get their bound marked
  (what the peaks' sweep measured at their working set: a roof no ceiling line draws). points:
  add_series' (in the same order): a point ringed where it is gets its label beyond the ring. ]]
local function marks(f, pl, list, gp, plots, name, style, colour, title, points)
  if #list == 0 then return end
  gp[#gp + 1] = "$" .. name .. " << EOD"
  for _, m in ipairs(list) do
    gp[#gp + 1] = string.format("%.9g %.9g", m.x, m.y)
    local px, py = f.px(m.x, m.y)
    pl.block(px, py, place.marker_radius(style)) -- a ring's triangle up to 26 pixels wide
    local p = points[m.i]
    if p and m.on then p.r = math.max(p.r or 0, place.marker_radius(style)) end
  end
  gp[#gp + 1] = "EOD"
  plots[#plots + 1] = string.format("$%s using 1:2 with points %s lw 1.5 lc rgb '%s' title %s noenhanced",
    name, style, colour, q(title))
end

-- Draws a roofline from its data (rot.plot.data.roofline): its files, the path of its SVG.
local function draw_roofline(d)
  local order, box, lists = d.order, d.box, d.lists
  local compute, bandwidth = M.ceiling_lists(d.compute, d.bandwidth)
  local xr, yr, peak = M.roofline_ranges(box[1], box[2], box[3], box[4], compute, bandwidth)
  local f = frame(M.geometry, xr, yr, true, true)
  local pl = placer(f)
  local dat = { "# rot roofline data: one block per series; columns: intensity[flop/B] performance[GFLOP/s] label" }
  local points = add_series(f, pl, dat, order, lists, place.marker_radius(ROOF_POINT), d.labels, d.apart)
  local gp = header("roofline", d, "operational intensity [flop/byte]", "performance [GFLOP/s]", xr, yr, true, true)
  local plots, labels, elements = {}, {}, {}
  for _, n in ipairs(d.notes or {}) do plots[#plots + 1] = key.entry(n) end -- first in the key: which ceilings
  M.draw_ceilings(f, pl, compute, bandwidth, peak, xr, yr, plots, labels)
  roofs.own(f, pl, d.own_roofs, xr, yr, plots)
  roofs.bands(plots, compute, bandwidth, peak)
  roofs.ridges(f, pl, bandwidth, peak, gp, plots)
  local dfile = d.name .. ".dat"
  for i, s in ipairs(order) do
    local color = M.palette[(i - 1) % #M.palette + 1]
    if d.sized then -- a point each (an application's regions), sized by its share: no line joins them
      elements[i] = string.format("%s index %d using 1:2:4 with points pt 7 ps variable lc rgb '%s' title %s",
        q(dfile), i - 1, color, q(s .. d.counts_note))
    else -- joined in working-set order, but a series at one intensity (d.apart)
      elements[i] = string.format("%s index %d using 1:2 with %s %s lw 1.5 lc rgb '%s' title %s",
        q(dfile), i - 1, d.apart[s] and "points" or "linespoints", ROOF_POINT, color, q(s .. d.counts_note))
    end
    plots[#plots + 1] = elements[i]
  end
  if d.sized and #order > 0 then
    plots[#plots + 1] = "NaN with points pt 6 ps 1.5 lc rgb '#888888' title 'marker area: share of time'"
  end
  marks(f, pl, d.marks.above, gp, plots, "above", ABOVE, place.mark_colour(#order),
    "above its bound (^ in the table)", points)
  marks(f, pl, d.marks.unsettled, gp, plots, "unsettled", UNSETTLED, place.mark_colour(#order), d.unsettled, points)
  marks(f, pl, d.marks.stepbounds, gp, plots, "stepbounds", STEP, roofs.GREY,
    d.bound_title or "bound between two levels (peaks' sweep)", points)
  table.move(d.not_drawn, 1, #d.not_drawn, #plots + 1, plots)
  local pls, _, missed = point_labels(f, pl, points, d.labels or "auto", 0, dat) -- the ceilings' labels numbered first
  key.add_notes(plots, elements, missed)
  for _, l in ipairs(pls) do labels[#labels + 1] = l end
  for _, l in ipairs(labels) do gp[#gp + 1] = l end
  hover.add(gp, plots, d.hover)
  return M.finish(d, gp, plots, dat, d.empty)
end

--[[ roofline{
  rows = results, name = "triad", dir = outputDir, gnuplot = "gnuplot", title = "...",
  series = function(row) -> series name, label = function(row) -> point label,
  labels = "auto" | "all" | "ends" | "none"  (point labels; auto: those that fit),
  compute = { {label=, gflops=}, ... },       horizontal ceilings
  bandwidth = { {label=, gbs=}, ... },        sloped ceilings
  notes = { text, ... },                      key entries first (which thread count's ceilings)
  label_once = true: points of a series with the same label are labelled once (a level's),
  bound_mark = fn(row) -> GFLOP/s, bound_title = text: a bound no ceiling draws (the sweep's),
  own_roofs = {{label=, peak=, bandwidth=, compute=}}: the roofs of points bounded at another
  thread count (rot.plot.roofs.own),
  memo = directory: where rot.plot.memo keeps what the files were drawn from (a rerun that
  would draw the same leaves them as they are; none: drawn every time),
} -> path of the SVG. Each ceiling is labelled on its line with its value; ceilings equal
  within 2% share one line; ridge points are marked. ]]
function M.roofline(o)
  check_name(o.name)
  return memo.draw(o.memo, data.roofline(o), draw_roofline, { "roofline", M.geometry, M.palette })
end

-- The log-log opening of a script (roofline-like plots: the quadrant split).
function M.loglog_header(kind, o, xlabel, ylabel, xr, yr)
  return header(kind, o, xlabel, ylabel, xr, yr, true, true)
end

--[[ Adds the output commands (SVG, PNG, and PDF when o.pdf), writes data and script (the key's
  titles wrapped to fit the canvas: rot.plot.key), renders unless data and script are unchanged
  and every output exists. A plot of rows none of which has a point is not rendered where
  empty (a roofline: none ran, as in rot build, which measures nothing): returns nil; a roofline
  of rows that ran without a point (regions without work) shows the ceilings and why. ]]
function M.finish(o, gp, plots, dat, empty)
  local g = M.geometry
  key.fit(g, plots)
  local outputs = { o.name .. ".svg", o.name .. ".png" }
  gp[#gp + 1] = string.format('set terminal svg size %d,%d dynamic noenhanced font "Helvetica,%d" background "white"%s',
    g.width, g.height, g.font, hover.terminal(plots))
  gp[#gp + 1] = "set output " .. q(o.name .. ".svg") .. ".suffix"
  gp[#gp + 1] = "plot " .. table.concat(plots, ", \\\n     ")
  gp[#gp + 1] = string.format('set terminal pngcairo size %d,%d noenhanced font "Helvetica,%d" background "white"',
    g.width, g.height, g.font - 2)
  gp[#gp + 1] = "set output " .. q(o.name .. ".png") .. ".suffix"
  gp[#gp + 1] = "replot"
  if o.pdf then
    outputs[#outputs + 1] = o.name .. ".pdf"
    gp[#gp + 1] = 'set terminal pdfcairo size 10in,6.8in noenhanced font "Helvetica,9"'
    gp[#gp + 1] = "set output " .. q(o.name .. ".pdf") .. ".suffix"
    gp[#gp + 1] = "replot"
  end
  local changed = write(o.dir .. "/" .. o.name .. ".dat", table.concat(dat, "\n") .. "\n")
  changed = write(o.dir .. "/" .. o.name .. ".gp", table.concat(gp, "\n") .. "\n") or changed
  if empty then return nil end
  for _, f in ipairs(outputs) do changed = changed or sys.stat(o.dir .. "/" .. f) ~= "file" end
  if not changed then return o.dir .. "/" .. outputs[1] end -- same data, same script: same picture
  return M.render(o.gnuplot or "gnuplot", o.dir, o.name .. ".gp", outputs)
end

-- The colour of an xy plot's vertical lines (cache sizes).
local VLINE = "#888888"

--[[ The label of a vertical line at x (a cache size): rotated along it, reading upward, ending
  near the top, else a sixteenth of the plot lower, and so on: on the line, else beside it
  (right, then left), at the first place where it overlaps nothing; nil when there is none. ]]
local function vline_label(f, pl, x, yr, text)
  local px = f.px(x, yr[1])
  local below, above = textsize.ink(M.geometry.small)
  local shape = {}
  for i = 0, 15 do
    local top = f.H - 3 - i * f.H / 16
    for _, shift in ipairs({ 0, above + 2, -(below + 2) }) do -- (its ink above the baseline is on the left)
      local lab = { gx = f.data(px + shift, 0), px = px + shift, py = 0, gy = top / f.H, text = text, align = "right",
        angle = 90, font = M.geometry.small }
      if pl.try(lab, shape) then return lab end
    end
  end
  return nil
end

-- An xy plot's range on one axis from its data's lo and hi: a log range with room, else 6 % on
-- each side (a default where there is no data).
local function xy_range(lo, hi, log)
  if lo == math.huge then return log and { 1, 10 } or { 0, 1 } end
  if log then return { logrange(lo, hi, 0.15) } end
  local pad = (hi - lo) * 0.06
  if pad == 0 then pad = math.abs(hi) * 0.1 + 1 end
  return { lo - pad, hi + pad }
end

-- The vertical lines (cache sizes) into gp, each labelled along its line where it fits, else
-- named in the key: returns the labels' count and the key's plot elements.
local function xy_vlines(f, pl, vlines, yr, gp)
  local n, keyed = 0, {}
  for i, v in ipairs(vlines or {}) do
    gp[#gp + 1] = string.format("set arrow %d from %.9g, graph 0 to %.9g, graph 1 nohead dt 3 lc rgb '%s'", i,
      v.x, v.x, VLINE)
    local lab = vline_label(f, pl, v.x, yr, v.label)
    if lab then
      n = n + 1
      gp[#gp + 1] = label_cmd(n, lab, "#555555")
    else -- no room on its line: the key names it
      keyed[#keyed + 1] = string.format("NaN with lines dt 3 lc rgb '%s' title %s", VLINE, q(v.label))
    end
  end
  return n, keyed
end

-- Draws an xy plot from its data (rot.plot.data.xy): its files, the path of its SVG.
local function draw_xy(d)
  local order, box = d.order, d.box
  local xr, yr = xy_range(box[1], box[2], d.logx), xy_range(box[3], box[4], d.logy)
  yr[2] = d.logy and yr[2] * 10 ^ 0.12 or yr[2] + (yr[2] - yr[1]) * 0.08 -- room at the top for the vline labels
  local f = frame(M.geometry, xr, yr, d.logx, d.logy)
  local pl = placer(f)
  local dat = { "# rot plot data: one block per series; columns: x y label" }
  local points = add_series(f, pl, dat, order, d.series, place.marker_radius(XY_POINT), d.labels)
  local gp = header("plot", d, d.xlabel or "x", d.ylabel or "y", xr, yr, d.logx, d.logy)
  if d.xbytes and d.logx then gp[#gp + 1] = byte_tics(xr[1], xr[2]) end
  local curves = roofs.curves(f, pl, d.curves, gp)
  local n, keyed = xy_vlines(f, pl, d.vlines, yr, gp)
  local plots, dfile, elements = {}, d.name .. ".dat", {}
  for i, s in ipairs(order) do
    elements[i] = string.format("%s index %d using 1:2 with linespoints %s lw 1.5 lc rgb '%s' title %s",
      q(dfile), i - 1, XY_POINT, M.palette[(i - 1) % #M.palette + 1], q(s))
    plots[#plots + 1] = elements[i]
  end
  for _, c in ipairs(curves) do plots[#plots + 1] = c end
  for _, k in ipairs(keyed) do plots[#plots + 1] = k end
  local pls, _, missed = point_labels(f, pl, points, d.labels or "auto", n)
  key.add_notes(plots, elements, missed)
  for _, l in ipairs(pls) do gp[#gp + 1] = l end
  if #plots == 0 then plots[1] = "NaN notitle" end
  hover.add(gp, plots, d.hover)
  return M.finish(d, gp, plots, dat, d.empty)
end

--[[ xy{ rows=, name=, dir=, gnuplot=, title=, xlabel=, ylabel=, x=fn(row) or field name,
  y=fn(row) or field name, series=fn(row), label=fn(row), labels="auto"|"all"|"ends"|"none",
  logx=bool, logy=bool, vlines={{x=, label=}}, curves={{label=, points={{x=, y=}, ...}}},
  memo=directory (as roofline's) } -> SVG path. Points per series connected, in x order; vlines
  mark e.g. cache sizes, each labelled along its line where it fits (from the top down), else
  named in the key; curves are reference lines (grey, dashed) named in the key. ]]
function M.xy(o)
  check_name(o.name)
  return memo.draw(o.memo, data.xy(o), draw_xy, { "xy", M.geometry, M.palette })
end

return M
