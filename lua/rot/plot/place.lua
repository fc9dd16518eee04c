-- rot.plot.place: where labels go: data to pixels, each label's box as the largest terminal
-- draws it, and the placer that keeps labels off each other, points, lines and arrows.
local textsize = require "rot.plot.text"

local M = {}

-- Okabe & Ito's colour-blind-safe palette, the most distinct first.
M.palette = { "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442" }

-- The colour of marks a reader must not take for a series' points (those above their bound)
-- on a plot of n series: black, the palette's seventh, while no series has it; then the first
-- colour no series has; with every one taken (series' colours repeat), black.
function M.mark_colour(n)
  if n < 7 then return "#000000" end
  return M.palette[n + 1] or "#000000"
end

-- A gnuplot string literal: backslash, quote and backquote (gnuplot runs a command in
-- backquotes, even inside double quotes) escaped, a newline as \n: no text reaches a shell.
local function q(s) return '"' .. tostring(s):gsub('[\\"`]', "\\%0"):gsub("\n", "\\n") .. '"' end
M.quote = q

-- How far a label's ink keeps from the middle of the line it labels, in pixels beyond its
-- ink's reach: the line's half width (1.5) and the 3 pixels labels keep from each other, with
-- half a pixel to spare (closer, a label sits on its line: rot.plot.check counts it).
M.LINE_GAP = 3
M.LINE_CLEAR = 1.5 + M.LINE_GAP + 0.5

--[[ A frame maps data coordinates to pixels of the plot area and back. ]]
local function frame(g, xr, yr, logx, logy)
  local W, H = (g.right - g.left) * g.width, (g.top - g.bottom) * g.height
  local function t(v, lg) return lg and math.log(v, 10) or v end
  local function u(v, lg) return lg and 10 ^ v or v end
  local x0, x1, y0, y1 = t(xr[1], logx), t(xr[2], logx), t(yr[1], logy), t(yr[2], logy)
  local f = { W = W, H = H, g = g }
  function f.px(x, y) return (t(x, logx) - x0) / (x1 - x0) * W, (t(y, logy) - y0) / (y1 - y0) * H end
  function f.data(px, py) return u(x0 + px / W * (x1 - x0), logx), u(y0 + py / H * (y1 - y0), logy) end
  return f
end

--[[ The box of a label, in pixels: {corners = 4 points} (rotated text) for a label
  {x=, y= (data) or px=, py= (pixels), gy= ("graph" y), text=, align="left"|"right"|"center",
  angle=deg, font=, dx=, dy= (offset in characters)}. gnuplot anchors text at its point,
  vertically about its capitals, and rotates it about that point; an offset moves the anchor
  on the canvas (not rotated), by the terminal's own character. The box holds the text as
  every terminal draws it (rot.plot.text.terminals): in the text's own frame, the union of theirs. shape: a
  table a caller passes with every label of one text, font, angle, align and offset (one label
  tried at many places), where the text's frame is kept from the first. ]]
function M.box(f, lab, shape)
  local px, py
  if lab.x then px, py = f.px(lab.x, lab.y) else px, py = lab.px, lab.py end
  if lab.gy then py = lab.gy * f.H end
  local c, s, text, u0, u1, v0, v1
  if shape and shape.text then
    c, s, text, u0, u1, v0, v1 = shape.c, shape.s, shape.text, shape.u0, shape.u1, shape.v0, shape.v1
  else
    local font = lab.font or f.g.small
    local a = math.rad(lab.angle or 0)
    c, s = math.cos(a), math.sin(a)
    text = tostring(lab.text) -- a label function may give a number
    local w, down = textsize.width(text), textsize.below(text)
    local dx, dy, align = lab.dx or 0, lab.dy or 0, lab.align
    u0, u1, v0, v1 = math.huge, -math.huge, math.huge, -math.huge
    for _, t in ipairs(textsize.terminals) do
      local ox, oy = dx * t.hchar, dy * t.vchar
      local u, v = ox * c + oy * s, oy * c - ox * s -- the offset, along and across the text
      local e = t.em * font
      local start = align == "right" and -w * e or align == "center" and -w * e / 2 or 0
      local lo, hi, bottom, top = u + start, u + start + w * e, v - down * e, v + textsize.ABOVE * e
      if lo < u0 then u0 = lo end
      if u1 < hi then u1 = hi end
      if bottom < v0 then v0 = bottom end
      if v1 < top then v1 = top end
    end
    if shape then shape.c, shape.s, shape.text, shape.u0, shape.u1, shape.v0, shape.v1 = c, s, text, u0, u1, v0, v1 end
  end
  return M.bounded({ corners = { { px + u0 * c - v0 * s, py + u0 * s + v0 * c },
    { px + u1 * c - v0 * s, py + u1 * s + v0 * c },
    { px + u1 * c - v1 * s, py + u1 * s + v1 * c }, { px + u0 * c - v1 * s, py + u0 * s + v1 * c } }, text = text })
end

-- Adds a box's axis-aligned bounds (x0, y0, x1, y1): most pairs are told apart by them alone.
function M.bounded(b)
  local x0, y0, x1, y1 = math.huge, math.huge, -math.huge, -math.huge
  local corners = b.corners
  for i = 1, #corners do
    local x, y = corners[i][1], corners[i][2]
    if x < x0 then x0 = x end
    if x1 < x then x1 = x end
    if y < y0 then y0 = y end
    if y1 < y then y1 = y end
  end
  b.x0, b.y0, b.x1, b.y1 = x0, y0, x1, y1
  return b
end

-- Whether two boxes overlap (separating axes of two convex quadrilaterals), or come closer
-- than gap pixels.
function M.overlap(a, b, gap)
  gap = gap or 0
  if a.x0 and b.x0 and (a.x1 + gap < b.x0 or b.x1 + gap < a.x0 or a.y1 + gap < b.y0 or b.y1 + gap < a.y0) then
    return false -- apart by their bounds: no need for the separating axes
  end
  local ac, bc = a.corners, b.corners
  for pass = 1, 2 do
    local poly = pass == 1 and ac or bc
    for i = 1, 4 do
      local p, r = poly[i], poly[i % 4 + 1]
      local nx, ny = r[2] - p[2], p[1] - r[1]
      local len = math.sqrt(nx * nx + ny * ny)
      if len > 0 then -- (an edge of no length, as a square of radius 0 has, separates nothing)
        local amin, amax, bmin, bmax = math.huge, -math.huge, math.huge, -math.huge
        for j = 1, #ac do
          local v = ac[j]
          local d = v[1] * nx + v[2] * ny
          if d < amin then amin = d end
          if amax < d then amax = d end
        end
        for j = 1, #bc do
          local v = bc[j]
          local d = v[1] * nx + v[2] * ny
          if d < bmin then bmin = d end
          if bmax < d then bmax = d end
        end
        if amax + gap * len <= bmin or bmax + gap * len <= amin then return false end
      end
    end
  end
  return true
end

-- Whether a box lies inside the plot area (within slack pixels).
local function inside(f, b, slack)
  slack = slack or 2
  for _, v in ipairs(b.corners) do
    if v[1] < -slack or v[1] > f.W + slack or v[2] < -slack or v[2] > f.H + slack then return false end
  end
  return true
end

--[[ What labels keep off, as boxes: a marker's square of radius r about (px, py); a straight
  line from (ax, ay) to (bx, by), hw pixels either side (a series' line, a ceiling, an arrow's
  shaft); an arrowhead at (bx, by), len pixels long and angle degrees either side of its shaft. ]]
function M.square(px, py, r)
  return M.bounded({ marker = true, corners = { { px - r, py - r }, { px + r, py - r }, { px + r, py + r },
    { px - r, py + r } } })
end

function M.segment(ax, ay, bx, by, hw)
  local len = math.sqrt((bx - ax) ^ 2 + (by - ay) ^ 2)
  if len < 1e-9 then return M.square(ax, ay, hw) end
  local nx, ny = (ay - by) / len * hw, (bx - ax) / len * hw
  return M.bounded({ marker = true, corners = { { ax + nx, ay + ny }, { bx + nx, by + ny }, { bx - nx, by - ny },
    { ax - nx, ay - ny } } })
end

function M.head(ax, ay, bx, by, len, angle)
  local d = math.sqrt((bx - ax) ^ 2 + (by - ay) ^ 2)
  if d < 1e-9 then return M.square(bx, by, len / 2) end
  local ux, uy = (ax - bx) / d, (ay - by) / d -- from the tip back along the shaft
  local back, half = len * math.cos(math.rad(angle)), len * math.sin(math.rad(angle))
  local cx, cy = bx + ux * back, by + uy * back
  return M.bounded({ marker = true, corners = { { bx, by }, { cx - uy * half, cy + ux * half }, { cx, cy },
    { cx + uy * half, cy - ux * half } } })
end

--[[ A placer keeps the boxes already placed; try() places a label where it overlaps none;
  later(fn) keeps a placement for flush(n), which runs them in order once everything labels
  keep off is known (each fn(n) returns n and the labels it numbered). ]]
local function placer(f)
  local p = { boxes = {}, pending = {} }
  -- Whether box b stays clear of box o: labels keep 3 pixels apart; a marker only needs not to
  -- be covered. (Most boxes are apart by their bounds: told without a call to M.overlap.)
  local function clear(b, o)
    local gap = o.marker and 0 or 3
    return b.x1 + gap < o.x0 or o.x1 + gap < b.x0 or b.y1 + gap < o.y0 or o.y1 + gap < b.y0 or not M.overlap(b, o, gap)
  end
  function p.free(b) -- the box that stopped the last label is asked first: it often stops the next
    local last = p.stopper
    if last and not clear(b, last) then return false end
    local boxes = p.boxes
    for i = 1, #boxes do
      local o = boxes[i]
      if not clear(b, o) then p.stopper = o; return false end
    end
    return true
  end
  function p.try(lab, shape) -- (shape: M.box's)
    local b = M.box(f, lab, shape)
    if inside(f, b) and p.free(b) then p.boxes[#p.boxes + 1] = b; return true end
    return false
  end
  function p.mark(b) p.boxes[#p.boxes + 1] = b end -- a marker (M.square, M.segment, M.head)
  function p.block(px, py, r) p.mark(M.square(px, py, r)) end -- a point: labels keep off it
  function p.later(fn) p.pending[#p.pending + 1] = fn end
  function p.flush(n)
    local todo = p.pending
    p.pending = {}
    for _, fn in ipairs(todo) do n = fn(n) end
    return n
  end
  return p
end

-- "set label" for a placed label.
local function label_cmd(n, lab, color)
  local at = lab.x and string.format("%.9g,%.9g", lab.x, lab.y) or string.format("%.9g,graph %.6g", lab.gx, lab.gy)
  return string.format("set label %d %s at %s %s rotate by %.4g font ',%d' offset %.3g,%.3g tc rgb '%s' front",
    n, q(lab.text),
    at, lab.align or "left", lab.angle or 0, lab.font, lab.dx or 0, lab.dy or 0, color or "#000000")
end

-- A label whose anchor is (px, py) pixels of the plot area, in data coordinates: no offset,
-- so every terminal puts it at the same place.
local function at_pixel(f, px, py, lab)
  lab.x, lab.y = f.data(px, py)
  return lab
end

--[[ Point labels of every series, placed greedily: right of the point, else left of it (a
  strip of points, one over the other, labelled on alternating sides where they are far enough
  apart), else left out (mode "auto": the caller names it in the key, rot.plot.key); "all" keeps every one
  (overlapping or not), "ends" only each series' first and
  last, "none" none. points = {{x=, y=, text=, r= (the marker's radius, pixels), first=, last=,
  color=, series=}}. Placements kept for later (a plot's ceiling labels) go first: every point,
  line and arrow is known by now. Returns the label commands, the last number and the points
  left out ({series=, px=, py=, text=, hidden=}). A point with once = true shares its text
  with others of its series (a level's points): the first of them with room is labelled and
  the others carry none (their text is taken out of dat, the data lines, by pt.line); where
  none has room, the first is left out. ]]
local function point_labels(f, pl, points, mode, first, dat)
  local out, n, missed = {}, pl.flush(first), {}
  if mode == "none" then return out, n, missed end
  local done, first_of, groups = {}, {}, {}
  for _, pt in ipairs(points) do
    local group = pt.once and (pt.series .. "\0" .. pt.text)
    local keep = pt.text ~= "" and (mode ~= "ends" or pt.first or pt.last) and not (group and done[group])
    if group and not first_of[group] then first_of[group], groups[#groups + 1] = pt, group end
    if keep then
      local px, py = f.px(pt.x, pt.y)
      local gap = (pt.r or 5) + 3
      local chosen
      for _, at in ipairs({ gap, -gap }) do
        local lab = at_pixel(f, px + at, py, { text = pt.text, align = at > 0 and "left" or "right", font = f.g.small })
        if mode == "all" or pl.try(lab) then chosen = lab; break end
      end
      if chosen then
        n = n + 1
        out[#out + 1] = label_cmd(n, chosen, pt.color)
        if group then done[group] = pt end
      elseif not group then
        missed[#missed + 1] = { series = pt.series, px = px, py = py, text = pt.text, hidden = pt.hidden }
      end
    end
  end
  for _, group in ipairs(groups) do -- a group's text stays with the point that carries it
    local pt = first_of[group]
    local kept = done[group] or pt
    if not done[group] then
      missed[#missed + 1] = { series = pt.series, px = pt.px, py = pt.py, text = pt.text, hidden = pt.hidden }
    end
    for _, other in ipairs(points) do
      if other.once and other ~= kept and other.series == pt.series and other.text == pt.text
        and dat and other.line then
        dat[other.line] = dat[other.line]:gsub(' "[^"]*"', ' ""', 1)
      end
    end
  end
  return out, n, missed
end

-- Keeps labels off the straight pixel segment from (ax, ay) to (bx, by): a series' line, an
-- arrow's shaft, a ceiling (hw pixels either side, 1.5 unless given).
function M.block_segment(pl, ax, ay, bx, by, hw)
  pl.mark(M.segment(ax, ay, bx, by, hw or 1.5))
end

-- A marker's radius in pixels for a plot element's style: 5 per unit of ps (gnuplot's circles
-- and squares on the 1000 px canvas), 6.5 for its triangles (pt 8 to 11).
function M.marker_radius(style)
  local pt, ps = tonumber(style:match("pt (%d+)")) or 7, tonumber(style:match("ps ([%d.]+)")) or 1
  return (pt >= 8 and pt <= 11 and 6.5 or 5) * ps
end

-- Keeps labels off an arrow from (ax, ay) to (bx, by) pixels: its shaft and its head (len
-- pixels, angle degrees: gnuplot's "head size screen 0.012,18" on the 1000 px canvas is 12, 18).
function M.block_arrow(pl, ax, ay, bx, by, len, angle)
  M.block_segment(pl, ax, ay, bx, by)
  if len and len > 0 then pl.mark(M.head(ax, ay, bx, by, len, angle or 18)) end
end

--[[ Keeps labels off the ceilings of a log-log roofline as drawn: each compute ceiling across
  the plot, each bandwidth roof y = gbs*x up to the top compute roof (peak) and the plot's edges.
  Labels placed after it cross none (one that fits nowhere goes to the legend). ]]
function M.block_ceilings(f, pl, compute, bandwidth, peak, xr, yr)
  for _, c in ipairs(compute) do
    if c.gflops > yr[1] and c.gflops < yr[2] then
      local ax, ay = f.px(xr[1], c.gflops)
      local bx, by = f.px(xr[2], c.gflops)
      M.block_segment(pl, ax, ay, bx, by)
    end
  end
  for _, b in ipairs(bandwidth) do
    local x0 = math.max(xr[1], yr[1] / b.gbs)
    local x1 = math.min(xr[2], yr[2] / b.gbs, peak and peak / b.gbs or math.huge)
    if x1 > x0 then
      local ax, ay = f.px(x0, b.gbs * x0)
      local bx, by = f.px(x1, b.gbs * x1)
      M.block_segment(pl, ax, ay, bx, by)
    end
  end
end

--[[ The series of a plot: each one's data block into dat ("# series I: NAME", then "x y
  label" lines: the label a point is to have, none where mode, point_labels' mode, asks for
  none; "x y label ps" for a point of its own size), its points (radius, or p.ps's) and the lines
  between them kept free of labels (none where apart[NAME]: not joined). lists =
  {NAME = {{x=, y=, label=, ps=, once=}, ...}} in drawing order, names in legend order. Returns
  the points for point_labels (series: the index of its series in names). ]]
function M.add_series(f, pl, dat, names, lists, radius, mode, apart)
  local points = {}
  for i, s in ipairs(names) do
    local pts = lists[s]
    dat[#dat + 1] = "# series " .. i - 1 .. ": " .. s
    for j, p in ipairs(pts) do
      local text = p.label ~= nil and tostring(p.label) or "" -- a label function may give a number
      if mode == "none" or (mode == "ends" and j > 1 and j < #pts) then text = "" end -- a label not asked for
      -- a point of its own size (p.ps: gnuplot's ps of pt 7) is drawn alone, with no line
      local r = p.ps and M.marker_radius("pt 7 ps " .. p.ps) or radius
      dat[#dat + 1] = string.format("%.9g %.9g %s", p.x, p.y, q(text)) .. (p.ps and string.format(" %.4g", p.ps) or "")
      local bx, by = f.px(p.x, p.y)
      pl.block(bx, by, r)
      if j > 1 and not p.ps and not (apart and apart[s]) then -- labels keep off the series' line too
        local ax, ay = f.px(pts[j - 1].x, pts[j - 1].y)
        M.block_segment(pl, ax, ay, bx, by)
      end
      points[#points + 1] = { x = p.x, y = p.y, text = text, first = j == 1, last = j == #pts, r = r,
        color = M.palette[(i - 1) % #M.palette + 1], series = i, px = bx, py = by, once = p.once, line = #dat,
        of = p.of, level = p.level }
    end
    dat[#dat + 1] = "\n"
  end
  M.hidden(points)
  return points
end

-- Whether a roofline series' rows all lie at one intensity (a sweep over sizes of one kernel): a
-- line joining them would only run up and down its own points, so none is drawn.
function M.upright(rows)
  for _, r in ipairs(rows) do
    if math.abs(r.intensity - rows[1].intensity) > 1e-9 * rows[1].intensity then return false end
  end
  return #rows > 1
end

--[[ Marks the points (in drawing order, {px=, py=, r=, of=, level=} in pixels) that a point
  drawn after them hides: at the same x (within a pixel), their centre under its marker (within
  its radius). p.hidden says how: "under its L1 point" where the point on top is one of the same
  row's levels (of: the row; level: its level's name), else "hidden". rot.plot.key names them
  so in the key where they have no label. ]]
function M.hidden(points)
  for i, p in ipairs(points) do
    for j = i + 1, #points do
      local o = points[j]
      if math.abs(o.px - p.px) < 1 and math.abs(o.py - p.py) < o.r then
        p.hidden = (o.of ~= nil and o.of == p.of and o.level) and ("under its " .. o.level .. " point") or "hidden"
        break
      end
    end
  end
  return points
end

--[[ A label along the line y = k*x of a log-log plot (a bandwidth roof, a kernel's line in
  the quadrant split), rotated with it, its ink 3 pixels clear of the line (LINE_CLEAR): at the
  first place from the left (up to x = xend) where it overlaps nothing, above the line, else
  below it; nil when there is none. ]]
local function line_label(f, pl, k, text, xr, yr, xend)
  local ppx, ppy = f.W / math.log(xr[2] / xr[1], 10), f.H / math.log(yr[2] / yr[1], 10)
  local angle = math.deg(math.atan(ppy, ppx))
  local xstart = math.max(xr[1], yr[1] / k)
  xend = math.min(xend or xr[2], yr[2] / k)
  if xend <= xstart then return nil end
  local below, above = textsize.ink(f.g.small)
  local nx, ny = -math.sin(math.rad(angle)), math.cos(math.rad(angle))
  local shape = {}
  for _, lift in ipairs({ below + M.LINE_CLEAR, -(above + M.LINE_CLEAR) }) do
    for i = 0, 60 do
      local x = xstart * (xend / xstart) ^ (0.015 + i * 0.015)
      local px, py = f.px(x, k * x)
      local lab = at_pixel(f, px + nx * lift, py + ny * lift, { text = text, align = "left",
        angle = angle, font = f.g.small })
      if pl.try(lab, shape) then return lab end
    end
  end
  return nil
end
M.frame, M.placer, M.line_label, M.label_cmd, M.point_labels, M.at_pixel = frame, placer, line_label,
  label_cmd, point_labels, at_pixel

return M
