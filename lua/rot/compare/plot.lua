--[[ rot.compare.plot: the compare roofline: run B's ceilings (as its record stored them), every
  point of A (hollow) and of B (filled, coloured by verdict), an arrow from each matched A point
  to its B point coloured by verdict and labelled (coordinates and B/A) where the label placer
  (rot.plot.place) finds room, and every point's hover text (rot.plot.hover). ]]
local util = require "rot.util"
local plot = require "rot.plot"
local place = require "rot.plot.place"
local hover = require "rot.plot.hover"
local key = require "rot.plot.key"

local M = {}

-- Okabe-Ito colours per verdict; points only one run has are orange.
M.colors = { faster = "#009E73", slower = "#D55E00", same = "#0072B2", inconclusive = "#CC79A7", other = "#E69F00" }
local VERDICTS = { "slower", "faster", "same", "inconclusive", "other" }

-- Where a summary sits on the roofline ({x=, y=}), or nil when it cannot be drawn.
local function at(x)
  if x and x.intensity and x.gflops and x.intensity > 0 and x.gflops > 0 then
    return { x = x.intensity, y = x.gflops }
  end
  return nil
end

-- The hover text of one side of a pair: coordinates, verdict, the build, the summary.
local function hover_text(o, pair, which)
  local side = which == "a" and o.A or o.B
  local x = pair[which]
  local lines = { o.coords(pair.point) ~= "" and o.coords(pair.point) or "(no coordinates)" }
  lines[#lines + 1] = string.format("%s (%s): %s", which == "a" and "A" or "B", side.label, pair.verdict) ..
    (pair.ratio and string.format(", B/A %.3f", pair.ratio) or "")
  if pair.noise then lines[#lines + 1] = "noise: " .. pair.noise end
  local b = x.build and side.record.builds and side.record.builds[x.build]
  if b then
    lines[#lines + 1] = "kernel " .. tostring(b.kernels) .. ", flags " .. tostring(b.flags)
    local m = util.assignments(b.macros)
    if #m > 0 then lines[#lines + 1] = "macros " .. table.concat(m, " ") end
  end
  hover.summary_lines(x, lines)
  lines[#lines + 1] = x.status == "hit" and "from the cache" or tostring(x.status)
  return hover.join(lines)
end

-- The ranges that hold every point (both ends of each arrow), the ceilings and their ridge points.
local function ranges(drawn, compute, bandwidth)
  local xlo, xhi, ylo, yhi = math.huge, 0, math.huge, 0
  for _, d in ipairs(drawn) do
    for _, p in ipairs({ d.pa, d.pb }) do
      xlo, xhi, ylo, yhi = math.min(xlo, p.x), math.max(xhi, p.x), math.min(ylo, p.y), math.max(yhi, p.y)
    end
  end
  return plot.roofline_ranges(xlo, xhi, ylo, yhi, compute, bandwidth)
end

-- The label of a matched B point: its coordinates (those the plot's points differ in: the title
-- names the rest) and B/A.
local function label_of(o, d)
  local c = (o.label_coords or o.coords)(d.pair.point)
  return (c ~= "" and (c .. " ") or "") .. string.format("time x%.2f", d.pair.ratio)
end

-- The data blocks (A's points, then B's per verdict, each B point with its label), their plot
-- elements and the markers the placer keeps labels off; a B point a later marker hides is
-- marked (d.hidden: the key says so). Returns each verdict's element.
local function points(o, f, pl, drawn, only, dat, plots)
  local dfile = o.name .. ".dat"
  local blocks = { { name = "A: " .. o.A.label, list = {}, style = "pt 6 ps 1.1 lw 1.2 lc rgb '#777777'" } }
  local per = {}
  for _, v in ipairs(VERDICTS) do
    per[v] = { name = v, list = {}, style = "pt 7 ps 0.9 lc rgb '" .. M.colors[v] .. "'" }
  end
  for _, d in ipairs(drawn) do
    table.insert(blocks[1].list, d.pa)
    table.insert(per[d.pair.verdict].list, { x = d.pb.x, y = d.pb.y, label = o.labels ~= "none" and label_of(o,
      d) or nil, of = d })
  end
  for _, d in ipairs(only) do table.insert(d.which == "a" and blocks[1].list or per.other.list, d.p) end
  for _, v in ipairs(VERDICTS) do
    local b = per[v]
    b.name = (v == "other" and "only in A or B, or failed in one" or ("B " .. v)) .. " (" .. #b.list .. ")"
    if #b.list > 0 then blocks[#blocks + 1] = b end
  end
  dat[#dat + 1] = "# rot compare data: one block per set; columns: intensity[flop/B] performance[GFLOP/s] label"
  local elements, marks = {}, {}
  for i, b in ipairs(blocks) do
    dat[#dat + 1] = "# series " .. (i - 1) .. ": " .. b.name
    for _, p in ipairs(b.list) do
      dat[#dat + 1] = string.format("%.9g %.9g %s", p.x, p.y, plot.quote(p.label or ""))
      local px, py = f.px(p.x, p.y)
      pl.block(px, py, place.marker_radius(b.style))
      marks[#marks + 1] = { px = px, py = py, r = place.marker_radius(b.style), of = p.of }
    end
    dat[#dat + 1] = "\n"
    plots[#plots + 1] = string.format("%s index %d using 1:2 with points %s title %s", plot.quote(dfile),
      i - 1, b.style,
      plot.quote(b.name))
    for v, x in pairs(per) do if x == b then elements[v] = plots[#plots] end end
  end
  -- a B point under another: said so
  for _, m in ipairs(place.hidden(marks)) do if m.of then m.of.hidden = m.hidden end end
  return elements
end

-- One arrow per matched point, A to B, coloured by verdict; its shaft and head kept free of
-- labels (the head: HEAD of the canvas's width long, its sides 18 degrees off the shaft).
local HEAD = 0.012
local function arrows(f, pl, drawn, gp)
  for i, d in ipairs(drawn) do
    gp[#gp + 1] = string.format("set arrow %d from %.9g,%.9g to %.9g,%.9g head filled size screen %g,18 "
      .. "lw 1.6 lc rgb '%s' front",
      i, d.pa.x, d.pa.y, d.pb.x, d.pb.y, HEAD, M.colors[d.pair.verdict])
    local ax, ay = f.px(d.pa.x, d.pa.y)
    local bx, by = f.px(d.pb.x, d.pb.y)
    place.block_arrow(pl, ax, ay, bx, by, HEAD * f.g.width, 18)
  end
end

--[[ plot{name=, dir=, gnuplot=, pdf=, title=, A=, B= (the runs: {record=, label=}), pairs=
  (rot.compare.match), coords=fn(point) -> text (the hover text's), label_coords=fn(point) -> text
  (the labels', by default coords'), ceilings= {compute=, bandwidth=}} -> the SVG's
  path (nil when no point can be drawn). ]]
function M.plot(o)
  local drawn, only = {}, {}
  for _, p in ipairs(o.pairs) do
    local pa, pb = at(p.a), at(p.b)
    if pa and pb and p.ratio then drawn[#drawn + 1] = { pair = p, pa = pa, pb = pb }
    elseif pa then only[#only + 1] = { which = "a", p = pa, pair = p }
    elseif pb then only[#only + 1] = { which = "b", p = pb, pair = p } end
  end
  local compute, bandwidth = plot.ceiling_lists(o.ceilings and o.ceilings.compute, o.ceilings and o.ceilings.bandwidth)
  local all = {}
  for _, d in ipairs(drawn) do all[#all + 1] = d end
  for _, d in ipairs(only) do all[#all + 1] = { pa = d.p, pb = d.p } end
  local xr, yr, peak = ranges(all, compute, bandwidth)
  local f = place.frame(plot.geometry, xr, yr, true, true)
  local pl = place.placer(f)
  local gp = plot.header("compare", o, "operational intensity [flop/byte]", "performance [GFLOP/s]", xr, yr, true, true)
  local plots, labels, dat = {}, {}, {}
  plot.draw_ceilings(f, pl, compute, bandwidth, peak, xr, yr, plots, labels)
  local elements = points(o, f, pl, drawn, only, dat, plots)
  arrows(f, pl, drawn, gp)
  local lp = {}
  for _, d in ipairs(drawn) do
    lp[#lp + 1] = { x = d.pb.x, y = d.pb.y, text = label_of(o, d), color = M.colors[d.pair.verdict],
      series = d.pair.verdict,
      hidden = d.hidden }
  end
  local pls, _, missed = place.point_labels(f, pl, lp, o.labels or "auto", 0) -- the ceilings' labels numbered first
  key.add_notes(plots, elements, missed)
  for _, l in ipairs(labels) do gp[#gp + 1] = l end
  for _, l in ipairs(pls) do gp[#gp + 1] = l end
  local items = {}
  for _, d in ipairs(drawn) do
    items[#items + 1] = { x = d.pa.x, y = d.pa.y, text = hover_text(o, d.pair, "a") }
    items[#items + 1] = { x = d.pb.x, y = d.pb.y, text = hover_text(o, d.pair, "b") }
  end
  for _, d in ipairs(only) do items[#items + 1] = { x = d.p.x, y = d.p.y, text = hover_text(o, d.pair, d.which) } end
  hover.add(gp, plots, items)
  return plot.finish(o, gp, plots, dat, #all == 0)
end

return M
