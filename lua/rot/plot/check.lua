-- rot.plot.check: the labels a gnuplot script draws and what they overlap, recomputed from the
-- script (its geometry) and its data files: how tests hold the placer to its word.
local place = require "rot.plot.place"
local key = require "rot.plot.key"
local roofs = require "rot.plot.roofs"

local M = {}

local NUM = "([%d.eE+-]+)"

-- The plot area of a script: rot's geometry line, else gnuplot's usual one (an estimate).
local function geometry(gp)
  local g = { width = 640, height = 480, left = 0.1, right = 0.95, bottom = 0.12, top = 0.9, small = 10 }
  local geo = gp:match("# rot geometry ([^\n]+)")
  if geo then
    local w, h, l, r, b, t, s, lx, ly = geo:match("^(%S+) (%S+) (%S+) (%S+) (%S+) (%S+) (%S+) (%S+) (%S+)")
    return { width = tonumber(w), height = tonumber(h), left = tonumber(l), right = tonumber(r), bottom = tonumber(b),
      top = tonumber(t), small = tonumber(s) }, lx == "logx", ly == "logy"
  end
  local w, h = gp:match("set terminal %a+ size (%d+),(%d+)")
  if w then g.width, g.height = tonumber(w), tonumber(h) end
  local ls = gp:match("set logscale (%a+)")
  g.small = tonumber(gp:match('font "Helvetica,(%d+)"')) or 10
  return g, ls and ls:find("x") ~= nil, ls and ls:find("y") ~= nil
end

-- The rows of a data text, block by block (a blank line ends one): {{x, y, text, ps}, ...} each
-- (ps: a point's own size, after its label).
local function blocks(text)
  local out, cur = {}, {}
  for l in (text .. "\n\n\n"):gmatch("([^\n]*)\n") do
    local x, y = l:match("^%s*" .. NUM .. "%s+" .. NUM)
    if x and tonumber(x) and tonumber(y) then
      local label, ps = l:match('^%S+%s+%S+%s+"(.*)"%s+' .. NUM .. "$")
      cur[#cur + 1] = { tonumber(x), tonumber(y), label or l:match('^%S+%s+%S+%s+"(.*)"$'), tonumber(ps) }
    elseif l:match("^%s*$") and #cur > 0 then out[#out + 1] = cur; cur = {} end
  end
  return out
end

-- The script's `set label`s as label tables for place.box.
local function set_labels(gp, f, g, y1)
  local labs = {}
  for line in gp:gmatch("[^\n]+") do
    local text, rest = line:match('^set label %d+ "(.-)" at (.*)$')
    if text then
      local lab = { text = text:gsub('\\(.)', "%1"), font = tonumber(rest:match("font ',(%d+)'")) or g.small,
        color = rest:match("tc rgb '([^']+)'"),
        align = rest:match(" (right) ") or rest:match(" (center) ") or "left",
          angle = tonumber(rest:match("rotate by (%S+)")) or 0 }
      local gx, gy = rest:match("^(%S+),graph (%S+)")
      if gx then
        lab.px = f.px(tonumber(gx), y1); lab.py = 0; lab.gy = tonumber(gy)
      else
        local x, y = rest:match("^(%S+),(%S+)")
        lab.x, lab.y = tonumber(x), tonumber(y)
      end
      local dx, dy = rest:match("offset (%S+),(%S+)")
      lab.dx, lab.dy = tonumber(dx) or 0, tonumber(dy) or 0
      labs[#labs + 1] = lab
    end
  end
  return labs
end

-- Labels drawn from data files: "FILE" index I using 1:2:3 with labels [left|right] offset DX,DY font ',F'.
local function data_labels(gp, g, read)
  local labs = {}
  for file, idx, rest in gp:gmatch('"([^"]+)" index (%d+) using 1:2:3 with labels([^,\n]*)') do
    local text = read and read(file)
    local rows = text and blocks(text)[tonumber(idx) + 1] or {}
    local dx, dy = rest:match("offset (%S+),(%S+)")
    local font = tonumber(rest:match("font ',(%d+)'")) or g.small
    for _, r in ipairs(rows) do
      if r[3] and r[3] ~= "" then
        labs[#labs + 1] = { x = r[1], y = r[2], text = r[3], font = font, align = rest:match("right")
          and "right" or "left",
          dx = tonumber(dx) or 0, dy = tonumber(dy) or 0 }
      end
    end
  end
  return labs
end

--[[ check(gp_text, read) -> boxes, overlaps, crossings, defects: every label a gnuplot script
  draws (its `set label`s, and `with labels` from its data files, read(name) giving a file's
  text), as boxes on the canvas; what overlaps, {{a.text, b.text}, ...}: two labels, or a label
  and a point, a series' line or an arrow (M.obstacles, named); the labels a ceiling line runs
  through (M.crossings); and what else a reader would miss: defects.key, the key entries that
  leave the canvas (rot.plot.key); defects.unlabelled, the points with a label text of their own
  that is neither beside them nor in the key under their series, and defects.hidden, those
  another point hides, unlabelled and not said to be hidden in the key (M.unlabelled);
  defects.bands, the bands wider than a plot bears (rot.plot.roofs); defects.on_line, the
  ceiling labels that sit on their own line (M.on_line); defects.colours, marks drawn in a
  series' colour (M.colours). Scripts rot writes carry their
  geometry; others get gnuplot's usual plot area (an estimate). ]]
function M.check(gp, read)
  local g, logx, logy = geometry(gp)
  local x1, x2 = gp:match("set xrange %[([^:]+):([^%]]+)%]")
  local y1, y2 = gp:match("set yrange %[([^:]+):([^%]]+)%]")
  local defects = { key = key.check(gp, g), unlabelled = {}, hidden = {}, on_line = {}, colours = {},
    bands = roofs.wide_bands(gp) }
  if not x1 or not y1 then return {}, {}, {}, defects end
  local xr, yr = { tonumber(x1), tonumber(x2) }, { tonumber(y1), tonumber(y2) }
  local f = place.frame(g, xr, yr, logx, logy)
  local boxes = {}
  for _, lab in ipairs(set_labels(gp, f, g, yr[1])) do
    boxes[#boxes + 1] = place.box(f, lab)
    boxes[#boxes].color = lab.color
  end
  for _, lab in ipairs(data_labels(gp, g, read)) do boxes[#boxes + 1] = place.box(f, lab) end
  local overlaps = {}
  for i = 1, #boxes do
    for j = i + 1, #boxes do
      if place.overlap(boxes[i], boxes[j]) then overlaps[#overlaps + 1] = { boxes[i].text, boxes[j].text } end
    end
  end
  local obstacles = M.obstacles(gp, f, read)
  for _, b in ipairs(boxes) do
    local seen = {}
    for _, o in ipairs(obstacles) do
      if not seen[o.name] and place.overlap(b, o, 0) then
        seen[o.name] = true
        overlaps[#overlaps + 1] = { b.text, o.name }
      end
    end
  end
  defects.unlabelled, defects.hidden = M.unlabelled(gp, f, read, boxes)
  defects.on_line, defects.colours = M.on_line(gp, f, boxes, xr, yr), M.colours(gp)
  return boxes, overlaps, M.crossings(gp, f, boxes, xr, yr), defects
end

-- A plot element as the key knows it: its line of the `plot` command without "plot " or the
-- continuation.
local function element_of(line) return (line:gsub("^plot ", ""):gsub("^%s+", ""):gsub(", \\$", "")) end

--[[ The texts of the points a script draws with a label text of their own (a data file's third
  column) that have neither a label of that text and their colour beside them (its box within
  the marker's radius, or a ring's drawn on it, and 6 pixels; each label counts for one point,
  the closest pairs first)
  nor a place in the key's text for their series (its title and the entries of its own after
  it); and, second, those of them that a point drawn after them hides (rot.plot.place.hidden:
  the same x, within its marker) with no label beside them nor "TEXT (hidden)" or "TEXT (under
  its LEVEL point)" in that key
  text. boxes: the script's label boxes (with their colour, where the script gives one). ]]
-- The marks a script draws from its datablocks ($above: the rings of points above their bound,
-- ...): {{px=, py=, r=}} in pixels, r its marker's radius.
local function block_marks(gp, f)
  local out = {}
  for name, body in gp:gmatch("%$(%w+) << EOD\n(.-)\nEOD") do
    local style = gp:match("%$" .. name .. " using 1:2 with points ([^\n]-) lc ")
    for x, y in body:gmatch(NUM .. " " .. NUM) do
      if style then
        local px, py = f.px(tonumber(x), tonumber(y))
        out[#out + 1] = { px = px, py = py, r = place.marker_radius(style) }
      end
    end
  end
  return out
end

function M.unlabelled(gp, f, read, boxes)
  local speaks, points, pairs_, all = key.speaks_for(gp), {}, {}, {}
  local rings = block_marks(gp, f)
  local function dist(b, px, py)
    local dx = math.max(b.x0 - px, 0, px - b.x1)
    local dy = math.max(b.y0 - py, 0, py - b.y1)
    return math.sqrt(dx * dx + dy * dy)
  end
  for line in gp:gmatch("[^\n]+") do
    local file, rest = line:match('"([^"]+)"%s+(.*)$')
    local idx, with, style
    if file and (line:match("^plot ") or line:match("^%s+")) then
      idx, with, style = rest:match("^index (%d+) using 1:2[:%d]* with (%a+)(.*)$")
    end
    local text = idx and (with == "points" or with == "linespoints") and read and read(file)
    for _, row in ipairs(text and blocks(text)[tonumber(idx) + 1] or {}) do
      local t = row[3] and row[3]:gsub('\\(.)', "%1")
      local px, py = f.px(row[1], row[2])
      local r = style:match("ps variable") and row[4] and place.marker_radius("pt 7 ps " .. row[4])
        or place.marker_radius(style)
      all[#all + 1] = { px = px, py = py, r = r }
      for _, m in ipairs(rings) do -- a ring drawn on it: its label goes beyond the ring
        if math.abs(m.px - px) < 1 and math.abs(m.py - py) < 1 then r = math.max(r, m.r) end
      end
      if t and t ~= "" then
        local p = { text = t, element = element_of(line), color = style:match("lc rgb '([^']+)'"),
          labelled = false, at = all[#all] }
        points[#points + 1] = p
        for k, b in ipairs(boxes) do
          local d = b.text == t and (not b.color or not p.color or b.color:upper() == p.color:upper())
            and dist(b, px, py)
          if d and d <= r + 6 then pairs_[#pairs_ + 1] = { p = p, k = k, d = d } end
        end
      end
    end
  end
  table.sort(pairs_, function(a, b) return a.d < b.d end)
  local used = {}
  for _, c in ipairs(pairs_) do
    if not used[c.k] and not c.p.labelled then used[c.k], c.p.labelled = true, true end
  end
  local out, hidden = {}, {}
  place.hidden(all)
  local counted = M.counted(points, speaks)
  for _, p in ipairs(points) do
    if counted[p.element] then -- said as a count: its points unlabelled all of them, its hidden ones at most
    elseif not p.labelled and not M.keyed(p.text, speaks[p.element]) then out[#out + 1] = p.text end
    local said = counted[p.element] or M.keyed(p.text .. " (hidden)", speaks[p.element])
      or (speaks[p.element] or ""):find(p.text .. " (under its ", 1, true)
    if p.at.hidden and not p.labelled and not said then hidden[#hidden + 1] = p.text end
  end
  return out, hidden
end

--[[ The elements whose unlabelled points their key's text counts (rot.plot.key.short_note:
  "unlabelled: 16 points (15 hidden)") rightly: element -> true where the count is that of its
  unlabelled points, and no more of them are hidden than it says. ]]
function M.counted(points, speaks)
  local n, hid = {}, {}
  for _, p in ipairs(points) do
    if not p.labelled then
      n[p.element] = (n[p.element] or 0) + 1
      hid[p.element] = (hid[p.element] or 0) + (p.at.hidden and 1 or 0)
    end
  end
  local out = {}
  for el, c in pairs(n) do
    local said, hidden = key.said(speaks[el])
    out[el] = said == c and hid[el] <= hidden or nil
  end
  return out
end

-- Whether a point's text is an item of the key's text for its series (said): "16.0 KiB" in
-- "unlabelled, top to bottom: 16.0 KiB, 1.00 MiB", not in "116.0 KiB".
function M.keyed(text, said)
  local from = 1
  while said do
    local i, j = said:find(text, from, true)
    if not i then return false end
    local before, after = said:sub(i - 1, i - 1), said:sub(j + 1, j + 1)
    if (i == 1 or before == " ") and (after == "" or after == "," or after == " ") then return true end
    from = i + 1
  end
  return false
end

-- Adds the points (and, with linespoints or lines, the lines between them) of one plot
-- element, its rows {{x, y}, ...}, to out, named after its title (ps variable: each row's size).
local function add_element(f, out, rows, with, style)
  local title = style:match('title "(.-)"') or style:match("title '(.-)'") or "?"
  local r, variable = place.marker_radius(style), style:match("ps variable") ~= nil
  local prev
  for _, row in ipairs(rows) do
    local px, py = f.px(row[1], row[2])
    if math.abs(px) < math.huge and math.abs(py) < math.huge then -- not NaN nor infinite (a log axis' 0)
      local rr = variable and row[4] and place.marker_radius("pt 7 ps " .. row[4]) or r
      if with ~= "lines" then
        out[#out + 1] = place.square(px, py, rr); out[#out].name = "a point of '" .. title .. "'"
      end
      if prev and with ~= "points" then
        out[#out + 1] = place.segment(prev[1], prev[2], px, py, 1.5); out[#out].name = "the line of '" .. title .. "'"
      end
      prev = { px, py }
    end
  end
end

-- The script's datablocks ($NAME << EOD ... EOD), name -> text.
local function datablocks(gp)
  local out = {}
  for name, body in gp:gmatch("%$(%w+) << EOD\n(.-)\nEOD") do out[name] = body end
  return out
end

--[[ What a label must not touch, as boxes with a name: every point and series line drawn from
  a data file or a datablock (not the hover points, which are transparent), and every arrow
  between two data points, shaft and head ("set arrow N from X,Y to X,Y": not the vertical
  lines at a cache size, from graph 0 to graph 1, which their labels sit on). ]]
function M.obstacles(gp, f, read)
  local out, db = {}, datablocks(gp)
  for line in gp:gmatch("[^\n]+") do
    local file, rest = line:match('"([^"]+)"%s+(.*)$')
    if file and (line:match("^plot ") or line:match("^%s+")) then
      local idx, with, style = rest:match("^index (%d+) using 1:2[:%d]* with (%a+)(.*)$")
      if not idx then with, style = rest:match("^using 1:2 with (%a+)(.*)$") end
      local text = with and with ~= "labels" and read and read(file)
      if text then add_element(f, out, blocks(text)[tonumber(idx or 0) + 1] or {}, with, style) end
    end
    local name, dwith, dstyle = line:match("%$(%w+) using 1:2 with (%a+)(.*)$")
    if name and name ~= "hover" and dwith ~= "labels" and db[name] then
      add_element(f, out, blocks(db[name])[1] or {}, dwith, dstyle)
    end
    local n, ax, ay, bx, by, arest = line:match("^set arrow (%d+) from " .. NUM .. "," .. NUM .. " to " .. NUM
      .. "," .. NUM .. "(.*)$")
    if n then
      local pax, pay = f.px(tonumber(ax), tonumber(ay))
      local pbx, pby = f.px(tonumber(bx), tonumber(by))
      out[#out + 1] = place.segment(pax, pay, pbx, pby, 1.5); out[#out].name = "arrow " .. n
      if not arest:match("nohead") then
        local len, angle = arest:match("size screen ([%d.]+),([%d.]+)")
        len = len and tonumber(len) * f.g.width or 10
        out[#out + 1] = place.head(pax, pay, pbx, pby, len, tonumber(angle) or 15); out[#out].name = "arrow " .. n
      end
    end
  end
  return out
end

--[[ The labels a ceiling line runs through: the script's compute ceilings ("Y with lines") and
  bandwidth roofs ("(K*x < P ? K*x : 1/0) with lines", "K*x with lines"), drawn as the placer
  blocks them. Returns the texts of the boxes any of them crosses. ]]
function M.crossings(gp, f, boxes, xr, yr)
  local compute, bandwidth, peak = {}, {}, nil
  for y in gp:gmatch("[\n ]" .. NUM .. " with lines") do compute[#compute + 1] = { gflops = tonumber(y) } end
  for k, p in gp:gmatch("%(" .. NUM .. "%*x < " .. NUM .. " %?") do
    bandwidth[#bandwidth + 1] = { gbs = tonumber(k) }
    peak = tonumber(p)
  end
  for k in gp:gmatch("[\n ]" .. NUM .. "%*x with lines") do bandwidth[#bandwidth + 1] = { gbs = tonumber(k) } end
  local marks = place.placer(f)
  place.block_ceilings(f, marks, compute, bandwidth, peak, xr, yr)
  local out = {}
  for _, b in ipairs(boxes) do
    for _, m in ipairs(marks.boxes) do
      if place.overlap(b, m, 0) then out[#out + 1] = b.text; break end
    end
  end
  return out
end

--[[ The ceiling labels that sit on their own line: a label (a `set label` in a ceiling line's
  colour) closer to a ceiling line of that colour than the 3 pixels labels keep from each
  other (rot.plot.place's LINE_GAP), the line drawn as wide as the placer blocks it. ]]
function M.on_line(gp, f, boxes, xr, yr)
  local lines = {}
  for y, c in gp:gmatch("[\n ]" .. NUM .. " with lines [^\n]-lc rgb '([^']+)'") do
    lines[#lines + 1] = { colour = c:upper(), compute = { { gflops = tonumber(y) } }, bandwidth = {} }
  end
  for k, p, c in gp:gmatch("%(" .. NUM .. "%*x < " .. NUM .. " %? [^)]+%) with lines [^\n]-lc rgb '([^']+)'") do
    lines[#lines + 1] = { colour = c:upper(), compute = {}, bandwidth = { { gbs = tonumber(k) } }, peak = tonumber(p) }
  end
  for k, c in gp:gmatch("[\n ]" .. NUM .. "%*x with lines [^\n]-lc rgb '([^']+)'") do
    lines[#lines + 1] = { colour = c:upper(), compute = {}, bandwidth = { { gbs = tonumber(k) } } }
  end
  local out = {}
  for _, b in ipairs(boxes) do
    local near = false
    for _, l in ipairs(lines) do
      if b.color and b.color:upper() == l.colour and not near then
        local marks = place.placer(f)
        place.block_ceilings(f, marks, l.compute, l.bandwidth, l.peak, xr, yr)
        for _, m in ipairs(marks.boxes) do near = near or place.overlap(b, m, place.LINE_GAP - 0.01) end
      end
    end
    if near then out[#out + 1] = b.text end
  end
  return out
end

--[[ The marks a script draws (points of a datablock: points above their bound, bounds, ridge
  points) in the colour of one of its series (a data file's points), which a reader would
  take for that series' points: "NAME's colour C is series 'S''s". ]]
function M.colours(gp)
  local series, out = {}, {}
  for line in gp:gmatch("[^\n]+") do
    local style = line:match('^[plot%s]*"[^"]+"%s+index %d+ using [^\n]- with (.*)$')
    local c = style and style:match("lc rgb '([^']+)'")
    if c then series[c:upper()] = series[c:upper()] or (key.title(line) or "?") end
  end
  for line in gp:gmatch("[^\n]+") do
    local name, c = line:match("%$(%w+) using 1:2 with points [^\n]-lc rgb '([^']+)'")
    if name and name ~= "hover" and series[c:upper()] then
      out[#out + 1] = string.format("%s's colour %s is series '%s''s", name, c, series[c:upper()])
    end
  end
  return out
end

return M
