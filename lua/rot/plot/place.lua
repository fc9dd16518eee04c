-- rot.plot.place: where labels go: a frame mapping data to pixels of the plot area, each
-- label's box (rotation included), and the placer that keeps labels off each other, off
-- points and off series' lines; also the point labels, series data and line labels it places.
local M = {}

-- Okabe & Ito's colour-blind-safe palette, the most distinct first.
M.palette = { "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442" }

-- A gnuplot string literal: backslash, quote and backquote (gnuplot runs a command in
-- backquotes, even inside double quotes) escaped, a newline as \n: no text reaches a shell.
local function q(s) return '"' .. tostring(s):gsub('[\\"`]', "\\%0"):gsub("\n", "\\n") .. '"' end
M.quote = q

-- Characters of a label as displayed (UTF-8 aware; enhanced-text markup is not used).
local function textlen(s) return utf8.len(s) or #s end

-- Width and height in pixels of one character at font size f (Helvetica, as the terminals use).
local function charsize(f) return 0.55 * f, 1.25 * f end

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
  {x=, y= (data) or py= (pixels), text=, align="left"|"right"|"center", angle=deg, font=, dx=, dy=
  (offset in characters)}. gnuplot anchors text at its point, vertically centred, and rotates
  it about that point. ]]
function M.box(f, lab)
  local cw, ch = charsize(lab.font or f.g.small)
  local px, py
  if lab.x then px, py = f.px(lab.x, lab.y) else px, py = lab.px, lab.py end
  if lab.gy then py = lab.gy * f.H end -- "graph" y
  px, py = px + (lab.dx or 0) * cw, py + (lab.dy or 0) * ch
  local w = textlen(lab.text) * cw
  local a0 = lab.align == "right" and -w or lab.align == "center" and -w / 2 or 0
  local a = math.rad(lab.angle or 0)
  local c, s = math.cos(a), math.sin(a)
  local corners = {}
  for _, p in ipairs({ { a0, -ch / 2 }, { a0 + w, -ch / 2 }, { a0 + w, ch / 2 }, { a0, ch / 2 } }) do
    corners[#corners + 1] = { px + p[1] * c - p[2] * s, py + p[1] * s + p[2] * c }
  end
  return M.bounded({ corners = corners, text = lab.text })
end

-- Adds a box's axis-aligned bounds (x0, y0, x1, y1): most pairs are told apart by them alone.
function M.bounded(b)
  local x0, y0, x1, y1 = math.huge, math.huge, -math.huge, -math.huge
  for _, v in ipairs(b.corners) do
    x0, x1, y0, y1 = math.min(x0, v[1]), math.max(x1, v[1]), math.min(y0, v[2]), math.max(y1, v[2])
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
  for _, poly in ipairs({ a.corners, b.corners }) do
    for i = 1, 4 do
      local p, r = poly[i], poly[i % 4 + 1]
      local nx, ny = r[2] - p[2], p[1] - r[1]
      local amin, amax, bmin, bmax = math.huge, -math.huge, math.huge, -math.huge
      for _, v in ipairs(a.corners) do local d = v[1] * nx + v[2] * ny; amin, amax = math.min(amin, d), math.max(amax, d) end
      for _, v in ipairs(b.corners) do local d = v[1] * nx + v[2] * ny; bmin, bmax = math.min(bmin, d), math.max(bmax, d) end
      local len = math.sqrt(nx * nx + ny * ny)
      if amax + gap * len <= bmin or bmax + gap * len <= amin then return false end
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

-- A placer keeps the boxes already placed; try() places a label where it overlaps none.
local function placer(f)
  local p = { boxes = {} }
  function p.free(b) -- labels keep 3 pixels apart; a marker only needs not to be covered
    for _, o in ipairs(p.boxes) do if M.overlap(b, o, o.marker and 0 or 3) then return false end end
    return true
  end
  function p.try(lab)
    local b = M.box(f, lab)
    if inside(f, b) and p.free(b) then p.boxes[#p.boxes + 1] = b; return true end
    return false
  end
  function p.block(px, py, r) -- a marker: labels keep off it
    p.boxes[#p.boxes + 1] = { marker = true, x0 = px - r, y0 = py - r, x1 = px + r, y1 = py + r,
      corners = { { px - r, py - r }, { px + r, py - r }, { px + r, py + r }, { px - r, py + r } } }
  end
  return p
end

-- "set label" for a placed label.
local function label_cmd(n, lab, color)
  local at = lab.x and string.format("%.9g,%.9g", lab.x, lab.y) or string.format("%.9g,graph %.6g", lab.gx, lab.gy)
  return string.format("set label %d %s at %s %s rotate by %.4g font ',%d' offset %.3g,%.3g tc rgb '%s' front", n, q(lab.text),
    at, lab.align or "left", lab.angle or 0, lab.font, lab.dx or 0, lab.dy or 0, color or "#000000")
end

--[[ Point labels of every series, placed greedily: right of the point, else left of it, else
  left out (mode "auto"); "all" keeps every one (overlapping or not), "ends" only each series'
  first and last, "none" none. points = {{x=, y=, text=, series=}}; returns label commands. ]]
local function point_labels(f, pl, points, mode, first)
  local out, n = {}, first
  if mode == "none" then return out, n end
  for _, pt in ipairs(points) do
    local keep = pt.text ~= "" and (mode ~= "ends" or pt.first or pt.last)
    if keep then
      local right = { x = pt.x, y = pt.y, text = pt.text, align = "left", dx = 1.2, font = f.g.small }
      local left = { x = pt.x, y = pt.y, text = pt.text, align = "right", dx = -1.2, font = f.g.small }
      local chosen = mode == "all" and right or (pl.try(right) and right) or (pl.try(left) and left)
      if chosen then
        n = n + 1
        out[#out + 1] = label_cmd(n, chosen, pt.color)
      end
    end
  end
  return out, n
end

-- Keeps labels off the straight pixel segment from (ax, ay) to (bx, by): a series' line, an
-- arrow's shaft, a ceiling.
function M.block_segment(pl, ax, ay, bx, by)
  local steps = math.floor(math.sqrt((bx - ax) ^ 2 + (by - ay) ^ 2) / 4)
  for k = 1, steps - 1 do pl.block(ax + (bx - ax) * k / steps, ay + (by - ay) * k / steps, 1.5) end
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
  label" lines), its points (radius r) and the lines between them kept free of labels. lists
  = {NAME = {{x=, y=, label=}, ...}} in drawing order, names in legend order. Returns the
  points for point_labels. ]]
function M.add_series(f, pl, dat, names, lists, r)
  local points = {}
  for i, s in ipairs(names) do
    local pts = lists[s]
    dat[#dat + 1] = "# series " .. i - 1 .. ": " .. s
    for j, p in ipairs(pts) do
      dat[#dat + 1] = string.format("%.9g %.9g %s", p.x, p.y, q(p.label))
      local bx, by = f.px(p.x, p.y)
      pl.block(bx, by, r)
      if j > 1 then -- labels keep off the series' line too
        local ax, ay = f.px(pts[j - 1].x, pts[j - 1].y)
        M.block_segment(pl, ax, ay, bx, by)
      end
      points[#points + 1] = { x = p.x, y = p.y, text = p.label, first = j == 1, last = j == #pts,
        color = M.palette[(i - 1) % #M.palette + 1] }
    end
    dat[#dat + 1] = "\n"
  end
  return points
end

--[[ A label along the line y = k*x of a log-log plot (a bandwidth roof, a kernel's line in
  the quadrant split), rotated with it, just above it, at the first place from the left (up to
  x = xend) where it overlaps nothing; nil when there is none. ]]
local function line_label(f, pl, k, text, xr, yr, xend)
  local ppx, ppy = f.W / math.log(xr[2] / xr[1], 10), f.H / math.log(yr[2] / yr[1], 10)
  local angle = math.deg(math.atan(ppy, ppx))
  local xstart = math.max(xr[1], yr[1] / k)
  xend = math.min(xend or xr[2], yr[2] / k)
  if xend <= xstart then return nil end
  local _, chh = charsize(f.g.small)
  local nx, ny = -math.sin(math.rad(angle)), math.cos(math.rad(angle))
  for i = 0, 30 do
    local x = xstart * (xend / xstart) ^ (0.03 + i * 0.03)
    local px, py = f.px(x, k * x)
    local ax, ay = f.data(px + nx * 0.7 * chh, py + ny * 0.7 * chh)
    local lab = { x = ax, y = ay, text = text, align = "left", angle = angle, font = f.g.small }
    if pl.try(lab) then return lab end
  end
  return nil
end
M.frame, M.placer, M.line_label, M.label_cmd, M.point_labels = frame, placer, line_label, label_cmd, point_labels

return M
