-- rot.plot.roofs: a roofline's ceilings as drawn: compute and bandwidth roofs, their spread
-- bands, ridge points and labels, placed once every point, line and arrow is known (else in the key);
-- and reference curves on a staircase (the step to DRAM as the peaks' sweep measured it).
local place = require "rot.plot.place"
local textsize = require "rot.plot.text"

local M = {}
local q, label_cmd, line_label = place.quote, place.label_cmd, place.line_label

-- ceilings are grey (their labels name them), so they never look like a series
local CEILING = "#555555"
M.GREY = CEILING
local ROOFS = { { "#3a3a3a", 1 }, { "#6a6a6a", 1 }, { "#8a8a8a", 4 }, { "#9a9a9a", 5 }, { "#b0b0b0",
  1 }, { "#7a7a7a", 4 } }
-- the read and write ceilings (drawn where a read- or write-only kernel is shown): tinted greys
local FAMILY_ROOFS = { read = { { "#1f4e70", 1 }, { "#4f7b9b", 4 }, { "#8fb0c8", 5 }, { "#2f6f9f", 2 },
  { "#a9c4d8", 1 } },
  write = { { "#6e4222", 1 }, { "#9b6f4f", 4 }, { "#c8a88f", 5 }, { "#9f5f2f", 2 }, { "#d8c1a9", 1 } } }

-- " (unstable, 12%)" for a ceiling whose rounds still disagree by more than 5%.
local function unstable_note(c)
  return c.unstable and string.format(" (unstable, %.0f%%)", (c.spread or 0) * 100) or ""
end

--[[ The ceilings a roofline draws, from {label=, gflops=, spread=, unstable=} and {label=, gbs=,
  family=, ...} lists: compute highest first, equal ones (within 2%) merged into one line;
  bandwidth with a value, highest first. ]]
function M.lists(compute_in, bandwidth_in)
  local compute = {}
  for _, c in ipairs(compute_in or {}) do
    if c.gflops and c.gflops > 0 then
      compute[#compute + 1] = { label = c.label, gflops = c.gflops, spread = c.spread, unstable = c.unstable }
    end
  end
  table.sort(compute, function(a, b) return a.gflops > b.gflops end)
  local merged = {}
  for _, c in ipairs(compute) do
    local last = merged[#merged]
    if last and last.gflops / c.gflops < 1.02 then
      last.label = last.label .. " = " .. c.label
      last.spread, last.unstable = math.max(last.spread or 0, c.spread or 0), last.unstable or c.unstable
    else
      merged[#merged + 1] = c
    end
  end
  local bandwidth = {}
  for _, b in ipairs(bandwidth_in or {}) do if b.gbs and b.gbs > 0 then bandwidth[#bandwidth + 1] = b end end
  table.sort(bandwidth, function(a, b) return a.gbs > b.gbs end)
  return merged, bandwidth
end

--[[ A ceiling's plot element (its line, with style), in the key under text until its label is
  placed: that is left to the placer's flush (place.point_labels calls it first), when every
  point, line and arrow of the plot is known, whatever order a plot drew them in. place_fn()
  returns the placed label or nil (then the key keeps naming the ceiling). ]]
local function ceiling_later(pl, plots, labels, element, text, color, place_fn)
  local titled = element .. " title " .. q(text)
  plots[#plots + 1] = titled
  pl.later(function(n)
    local lab = place_fn()
    if not lab then return n end
    for i = #plots, 1, -1 do
      if plots[i] == titled then plots[i] = element .. " notitle"; break end
    end
    labels[#labels + 1] = label_cmd(n + 1, lab, color)
    return n + 1
  end)
end

-- A compute ceiling's label: at the right end, just above its line (its ink 3 pixels clear of
-- the line: place.LINE_CLEAR), else just below it, else above the ridge points' rings on it,
-- else a sixteenth of the plot further left, and so on; nil when nowhere.
local function compute_label(f, pl, c, text, xr)
  local _, py = f.px(xr[2], c.gflops)
  local below, above = textsize.ink(f.g.small)
  local shape = {}
  for i = 0, 8 do
    for _, lift in ipairs({ below + place.LINE_CLEAR, -(above + place.LINE_CLEAR), below + 8 }) do
      local lab = place.at_pixel(f, f.W - 3 - i * f.W / 16, py + lift, { text = text,
        align = "right", font = f.g.small })
      if pl.try(lab, shape) then return lab end
    end
  end
  return nil
end

--[[ The ceilings' lines, kept free of labels from now on, and their labels: each compute
  ceiling labelled above its line at the right end, each bandwidth ceiling along its line
  (rotated with it), a read or write ceiling in tinted greys; a ceiling whose label finds no
  room is named in the key. Appends to plots; the labels go to labels when the placer is
  flushed (ceiling_later), numbered from 1. ]]
function M.draw(f, pl, compute, bandwidth, peak, xr, yr, plots, labels)
  local nth = {}
  place.block_ceilings(f, pl, compute, bandwidth, peak, xr, yr)
  for _, c in ipairs(compute) do
    local text = string.format("%s %.3g GFLOP/s%s", c.label, c.gflops, unstable_note(c))
    ceiling_later(pl, plots, labels, string.format("%.9g with lines lw 1.5 dt 2 lc rgb '%s'", c.gflops, CEILING), text,
      CEILING, function() return compute_label(f, pl, c, text, xr) end)
  end
  for _, b in ipairs(bandwidth) do
    local styles = FAMILY_ROOFS[b.family] or ROOFS
    nth[styles] = (nth[styles] or 0) + 1
    local roof = styles[(nth[styles] - 1) % #styles + 1]
    local text = string.format("%s %.4g GB/s%s", b.label, b.gbs, unstable_note(b))
    local line = peak and string.format("(%.9g*x < %.9g ? %.9g*x : 1/0)", b.gbs, peak, b.gbs)
      or string.format("%.9g*x", b.gbs)
    ceiling_later(pl, plots, labels, string.format("%s with lines lw 2 dt %d lc rgb '%s'", line, roof[2],
      roof[1]), text,
      roof[1], function() return line_label(f, pl, b.gbs, text, xr, yr, peak and math.min(peak / b.gbs,
        xr[2]) or xr[2]) end)
  end
end

-- The roofs of points bounded at another thread count than the ceilings drawn: lighter, dotted.
local OWN = "#999999"
-- A titled group (counted points') names each of up to this many roofs in an entry of its own.
M.ROOFS = 4

--[[ The roofs that bound points of other thread counts than the ceilings drawn (groups: {{label=
  (the count, "1 thread"), peak= (its top compute ceiling, where its bandwidth roofs end),
  bandwidth = {{label=, gbs=}}, compute = {{label=, gflops=}}}}, rot.results.backdrop's), or
  counted points (a group's title= names them in the key, its roofs' labels the points they
  limit): each a dotted line kept free of labels, unlabelled on the plot (a second set of
  labels would crowd out the first), each group named in the key with its values. ]]
function M.own(f, pl, groups, xr, yr, plots)
  for _, g in ipairs(groups or {}) do
    local names = {}
    place.block_ceilings(f, pl, g.compute, g.bandwidth, g.peak, xr, yr)
    for _, c in ipairs(g.compute) do
      plots[#plots + 1] = string.format("%.9g with lines lw 1.2 dt 3 lc rgb '%s' notitle", c.gflops, OWN)
      names[#names + 1] = string.format("%s %.3g GFLOP/s%s", c.label, c.gflops, c.limits and (": " .. c.limits) or "")
    end
    for _, b in ipairs(g.bandwidth) do
      local line = g.peak and string.format("(%.9g*x < %.9g ? %.9g*x : 1/0)", b.gbs, g.peak, b.gbs)
        or string.format("%.9g*x", b.gbs)
      plots[#plots + 1] = string.format("%s with lines lw 1.2 dt 3 lc rgb '%s' notitle", line, OWN)
      names[#names + 1] = string.format("%s %.4g%s%s", b.label, b.gbs, g.title and "" or " GB/s", b.limits
        and (": " .. b.limits) or "")
    end
    if g.title and #names <= M.ROOFS then -- one entry a roof, under the title
      plots[#plots + 1] = string.format("keyentry with lines lw 1.2 dt 3 lc rgb '%s' title %s", OWN, q(g.title .. ":"))
      for _, n in ipairs(names) do
        plots[#plots + 1] = "keyentry with lines lt nodraw title " .. q("  " .. n) .. " noenhanced"
      end
    elseif g.title then -- more: one entry, wrapped (rot.plot.key), each roof with how many points it limits
      local short = {}
      for _, x in ipairs(g.compute) do
        short[#short + 1] = string.format("%s %.3g GFLOP/s (%d)", x.label, x.gflops, x.count or 1)
      end
      for _, x in ipairs(g.bandwidth) do
        short[#short + 1] = string.format("%s %.4g (%d)", x.label, x.gbs, x.count or 1)
      end
      plots[#plots + 1] = string.format("keyentry with lines lw 1.2 dt 3 lc rgb '%s' title %s noenhanced", OWN,
        q(g.title .. ", the points each limits: " .. table.concat(short, "; ")))
    else
      plots[#plots + 1] = string.format("keyentry with lines lw 1.2 dt 3 lc rgb '%s' title %s", OWN,
        q(g.label .. "'s own roofs (dotted): " .. table.concat(names, ", ")))
    end
  end
end

-- The widest band drawn: a spread of 10 % (twice the 5 % past which a ceiling is unstable);
-- a wider spread is cut there, its label (or key entry) saying the whole ("unstable, 80%").
M.BAND = 0.10

--[[ Each ceiling's band: from the value down by its spread (how far below the best its other
  rounds lay), at most M.BAND, drawn under the line, so a reader sees how firm the roof is and
  a wide one never buries the lines; the key says what a band is. Bands go first in `plots`,
  behind everything else. ]]
function M.bands(plots, compute, bandwidth, peak)
  local out = {}
  local function drop(spread) return 1 + math.min(spread, M.BAND) end
  for _, c in ipairs(compute) do
    if (c.spread or 0) > 0 then
      out[#out + 1] = string.format("'+' using 1:(%.9g):(%.9g) with filledcurves fc rgb '%s' fs transparent solid 0.18 "
        .. "noborder notitle", c.gflops / drop(c.spread), c.gflops, CEILING)
    end
  end
  for _, b in ipairs(bandwidth) do
    if (b.spread or 0) > 0 then
      local lo, hi = b.gbs / drop(b.spread), b.gbs
      local cap = peak and string.format("%.9g", peak) or "1/0"
      out[#out + 1] = string.format("'+' using 1:(%.9g*$1 < %s ? %.9g*$1 : 1/0):(%.9g*$1 < %s ? %.9g*$1 : %s) with "
        .. "filledcurves fc rgb '%s' fs transparent solid 0.18 noborder notitle", lo, cap, lo, hi, cap, hi,
          cap, CEILING)
    end
  end
  if #out > 0 then
    plots[#plots + 1] = string.format("keyentry with filledcurves fc rgb '%s' fs transparent "
      .. "solid 0.18 noborder title %s",
      CEILING, q(string.format("a ceiling's spread (band, drawn up to %.0f%%)", M.BAND * 100)))
  end
  for i = #out, 1, -1 do table.insert(plots, 1, out[i]) end
end

--[[ The bands of a script wider than M.BAND (a spread past it drawn whole): the ratio of each
  band's top to its bottom, from the elements M.bands writes. ]]
function M.wide_bands(gp)
  local out = {}
  for lo, hi in gp:gmatch("'%+' using 1:%(([%d.e+-]+)%):%(([%d.e+-]+)%) with filledcurves") do
    out[#out + 1] = tonumber(hi) / tonumber(lo)
  end
  for lo, hi in gp:gmatch("'%+' using 1:%(([%d.e+-]+)%*%$1 < [^?]+%? [^:]+:[^)]+%):%(([%d.e+-]+)%*%$1") do
    out[#out + 1] = tonumber(hi) / tonumber(lo)
  end
  local wide = {}
  for _, r in ipairs(out) do if r > 1 + M.BAND + 1e-6 then wide[#wide + 1] = r end end
  return wide
end

-- The marker of a ridge point.
M.RIDGE = "pt 6 ps 1.3"

-- The ridge points, where each bandwidth roof meets the top compute roof: ringed, labels kept
-- off the rings.
function M.ridges(f, pl, bandwidth, peak, gp, plots)
  if not peak or #bandwidth == 0 then return end
  gp[#gp + 1] = "$ridges << EOD"
  for _, b in ipairs(bandwidth) do
    gp[#gp + 1] = string.format("%.9g %.9g", peak / b.gbs, peak)
    local px, py = f.px(peak / b.gbs, peak)
    pl.block(px, py, place.marker_radius(M.RIDGE))
  end
  gp[#gp + 1] = "EOD"
  plots[#plots + 1] = "$ridges using 1:2 with points " .. M.RIDGE .. " lw 1.5 lc rgb '" .. CEILING
    .. "' title 'ridge points'"
end

-- The marker of a reference curve's points.
local CURVE = "pt 6 ps 0.7"

-- Reference curves (a measured step between two levels) into gp: grey, dashed, each named in
-- the key, their markers and lines kept free of labels (so blocked before any is placed).
-- Returns their plot elements.
function M.curves(f, pl, curves, gp)
  local plots = {}
  for i, c in ipairs(curves or {}) do
    gp[#gp + 1] = "$curve" .. i .. " << EOD"
    for j, p in ipairs(c.points) do
      gp[#gp + 1] = string.format("%.9g %.9g", p.x, p.y)
      local px, py = f.px(p.x, p.y)
      pl.block(px, py, place.marker_radius(CURVE))
      if j > 1 then
        local ax, ay = f.px(c.points[j - 1].x, c.points[j - 1].y)
        place.block_segment(pl, ax, ay, px, py)
      end
    end
    gp[#gp + 1] = "EOD"
    plots[#plots + 1] = string.format("$curve%d using 1:2 with linespoints %s dt 2 lw 1.5 lc rgb '%s' title %s",
      i, CURVE, CEILING, q(c.label))
  end
  return plots
end

return M
