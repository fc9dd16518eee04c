-- rot.plot.key: the key (legend) as every terminal draws it: each entry's box on the canvas,
-- titles too wide for it wrapped onto entries of their own, and notes naming the points a plot
-- left unlabelled.
local util = require "rot.util"
local place = require "rot.plot.place"
local textsize = require "rot.plot.text"

local M = {}

--[[ Where rot's key puts an entry's text, per terminal (gnuplot 5.4 with rot's `set key ... left
  top vertical Left reverse samplen 1.5 spacing 1.1 font ',9'`, measured in pixels of the
  1000-pixel canvas): from the key's x to the text's start (its sample first), and from one
  entry to the next; an entry's text is centred (about its capitals) half a step below the
  key's top, and so on down. A title with "\n" in it is drawn as several lines about the same
  centre (gnuplot gives it no more room): rot writes none, it wraps onto entries of its own. ]]
M.terminals = {
  svg = { text = 30.3, step = 14.85 },
  png = { text = 29, step = 13.25 },
  pdf = { text = 19.2, step = 9.15 },
}

-- Where the key sits (screen fractions of the canvas): its left and top.
function M.at(g) return g.right + 0.015, g.top end

-- The `set key` command of a plot of geometry g.
function M.command(g)
  local x, y = M.at(g)
  return string.format("set key at screen %.4g, screen %.4g left top vertical Left reverse samplen "
    .. "1.5 spacing 1.1 font ',%d'",
    x, y, g.small)
end

-- The entries one column of the key holds on terminal k: as many as the plot area's height does.
function M.rows(g, k) return math.max(1, math.floor((g.top - g.bottom) * g.height / k.step)) end

--[[ The rows and columns gnuplot lays n key entries out in on terminal k (M.terminals): as many
  rows as the plot area's height holds (gnuplot 5.4's do_key_layout, wherever the key is
  put), and when n is more, as many columns as they need, the rows then evened out over them. ]]
function M.layout(g, k, n)
  local most = M.rows(g, k)
  if n <= most then return n, 1 end
  local cols = math.ceil(n / most)
  return math.ceil(n / cols), cols
end

--[[ The entries a key at ky keeps in one column on the canvas, on every terminal: what the
  plot area's height holds, and what lies above the canvas' bottom. ]]
function M.capacity(g, ky)
  local n = math.huge
  for _, t in ipairs(textsize.terminals) do
    local k = M.terminals[t.name]
    local below = math.floor((ky * g.height - 3 - (textsize.ink(g.small))) / k.step)
    n = math.min(n, M.rows(g, k), below)
  end
  return n
end

--[[ The box of the i-th key entry (from 1) of a text, in canvas pixels (x right, y down), as
  the union over the terminals: {x0, y0, x1, y1}. g: the geometry (width, height, small); kx,
  ky: the key's corner in screen fractions; n: the key's entries (M.layout: past a column's
  rows they go on in the next one, as wide as the widest entry's text, widest, in ems; by
  default one column). ]]
function M.box(g, kx, ky, i, text, n, widest)
  local w = textsize.width(text)
  local below, above = textsize.ink_of(text)
  local x0, y0, x1, y1 = math.huge, math.huge, -math.huge, -math.huge
  for _, t in ipairs(textsize.terminals) do
    local k = M.terminals[t.name]
    local e = t.em * g.small
    local rows = M.layout(g, k, n or i)
    local col, row = (i - 1) // rows, (i - 1) % rows + 1
    local x = kx * g.width + k.text + col * (k.text + (widest or w) * e)
    local y = (1 - ky) * g.height + (row - 0.5) * k.step
    x0, x1 = math.min(x0, x), math.max(x1, x + w * e)
    y0, y1 = math.min(y0, y - above * e), math.max(y1, y + below * e)
  end
  return { x0 = x0, y0 = y0, x1 = x1, y1 = y1 }
end

-- Whether an entry's text fits the canvas (3 pixels kept from its edges).
function M.fits(g, kx, ky, i, text, n, widest)
  local b = M.box(g, kx, ky, i, text, n, widest)
  return b.x1 <= g.width - 3 and b.y1 <= g.height - 3
end

--[[ A title as lines that each fit the key's width: broken after the last comma or colon that
  fits (but for one in the line's first third), else at the last space, else inside the word; lines after the first
  indented two more spaces than
  the title's own indentation. ]]
function M.wrap(g, text)
  local kx, ky = M.at(g)
  local indent = text:match("^ *")
  local out, rest, pad = {}, text, indent
  while not M.fits(g, kx, ky, 1, rest) do
    local cut, comma, space = nil, nil, nil
    for i = #pad + 2, #rest do
      local c = rest:sub(i, i)
      if c == " " and M.fits(g, kx, ky, 1, rest:sub(1, i - 1)) then
        space = i
        if rest:find("^[,:]", i - 1) then comma = i end
      end
    end
    cut = (comma and comma > (space or 0) / 3) and comma or space -- a comma, unless it leaves a short line
    local line, after
    if cut then
      line, after = rest:sub(1, cut - 1), rest:sub(cut + 1)
    else -- one word too long: as many characters as fit (whole UTF-8 sequences)
      local n = #pad + 1
      for p in rest:gmatch("()[\0-\127\192-\255]") do
        if p > #pad + 1 and not M.fits(g, kx, ky, 1, rest:sub(1, p - 1)) then break end
        n = p
      end
      if n <= #pad + 1 then break end
      line, after = rest:sub(1, n - 1), rest:sub(n)
    end
    out[#out + 1] = line
    pad = indent .. "  "
    rest = pad .. after:gsub("^ +", "")
  end
  out[#out + 1] = rest
  return out
end

--[[ A plot element's title: text, and where it starts and ends in the element (with its quotes),
  or nil for an element without one (notitle). Both of gnuplot's quotes are read, "..." with
  rot.plot.place's escapes. ]]
function M.title(element)
  local s, q = element:match("%f[%w]title ()([\"'])")
  if not s then return nil end
  local i, text = s + 1, {}
  while i <= #element do
    local c = element:sub(i, i)
    if q == '"' and c == "\\" then
      local n = element:sub(i + 1, i + 1)
      text[#text + 1] = n == "n" and "\n" or n
      i = i + 2
    elseif c == q and q == "'" and element:sub(i + 1, i + 1) == "'" then
      text[#text + 1] = "'"
      i = i + 2
    elseif c == q then
      return table.concat(text), s, i
    else
      text[#text + 1] = c
      i = i + 1
    end
  end
  return nil
end

-- A key entry of its own holding text (no sample): a continuation, or a note.
function M.entry(text, noenhanced)
  return "keyentry with lines lt nodraw title " .. place.quote(text) .. (noenhanced and " noenhanced" or "")
end

-- Why a measured row has no place on a roofline, by default: a kernel without flops (copy).
function M.flopless(r) return r.gflops == 0 and r.gbs and "no flops" or nil end

-- Whether any of rows ran (measured, cached, or a failed application point's completed
-- invocations): a roofline of them is drawn, with the notes on what it does not draw.
function M.ran(rows)
  for _, r in ipairs(rows) do if r.entry or r.partial then return true end end
  return false
end

--[[ Gives entry (a key entry of plots, a long list) a short form, short, that M.fit puts in
  its place where the key is too long for the canvas. ]]
function M.shorten(plots, entry, short)
  plots.short = plots.short or {}
  plots.short[entry] = short
end

--[[ The notes on rows a plot does not draw, into plots: one entry per reason why(row) gives
  ("not drawn (no bytes): work, copy"), each name(row) once, in the order first seen; its
  short form counts them ("not drawn (no bytes): 2 rows, named in the table"). ]]
function M.not_drawn(plots, rows, why, name)
  local seen = {}
  local by, order = util.group_by(rows, function(r)
    local w = why(r)
    local n = w and name(r)
    if not w or seen[w .. "\0" .. n] then return nil end
    seen[w .. "\0" .. n] = true
    return w, n
  end)
  for _, w in ipairs(order) do
    plots[#plots + 1] = M.entry("not drawn (" .. w .. "): " .. table.concat(by[w], ", "), true)
    M.shorten(plots, plots[#plots], M.entry("not drawn (" .. w .. "): " .. util.count(#by[w], "row")
      .. ", named in the table", true))
  end
end

-- Every titled element of plots with its title wrapped (M.wrap): its lines after the first
-- entries of their own.
local function wrapped(g, plots)
  local out = {}
  for _, p in ipairs(plots) do
    local text, s, e = M.title(p)
    local lines = text and M.wrap(g, text)
    if lines and #lines > 1 then
      local noenh = p:find("noenhanced", 1, true) ~= nil
      out[#out + 1] = p:sub(1, s - 1) .. place.quote(lines[1]) .. p:sub(e + 1)
      for i = 2, #lines do out[#out + 1] = M.entry(lines[i], noenh) end
    else
      out[#out + 1] = p
    end
  end
  return out
end

--[[ Past the n-th entry of a key: its entries of their own left out, the other elements drawn
  untitled, and one last entry saying how many it left out. ]]
local function cut(out, n)
  local kept, titled, left = {}, 0, 0
  for _, p in ipairs(out) do
    local text, s, e = M.title(p)
    if not text then
      kept[#kept + 1] = p
    elseif titled < n - 1 then
      kept[#kept + 1], titled = p, titled + 1
    else
      left = left + 1
      if not p:match("^keyentry ") then kept[#kept + 1] = p:sub(1, s - 7) .. "notitle" .. p:sub(e + 1) end
    end
  end
  kept[#kept + 1] = M.entry(string.format("(%d more key entries: no room)", left))
  return kept
end

--[[ Every titled element of plots whose title is wider than the key has room for: its title cut
  to the first line, the others entries of their own right after it. A key longer than one
  column on the canvas holds (M.capacity: gnuplot would start a column past the canvas' edge)
  takes the short forms of its long lists (M.shorten), the longest first, until it fits; one
  still too long is cut, and says so. ]]
function M.fit(g, plots)
  local out, cap = wrapped(g, plots), M.capacity(g, select(2, M.at(g)))
  if #out > cap and plots.short then
    local long = {}
    for i, p in ipairs(plots) do
      if plots.short[p] then long[#long + 1] = { i = i, lines = #wrapped(g, { p }) } end
    end
    table.sort(long, function(a, b) return a.lines > b.lines or a.lines == b.lines and a.i < b.i end)
    local list = table.move(plots, 1, #plots, 1, {})
    for _, l in ipairs(long) do
      if #out <= cap then break end
      list[l.i] = plots.short[list[l.i]]
      out = wrapped(g, list)
    end
  end
  if #out > cap then out = cut(out, cap) end
  for i = 1, math.max(#plots, #out) do plots[i] = out[i] end
end

--[[ A note on the points of one plot element its labels left out, in an order a reader can
  follow: "unlabelled, top to bottom: 16.0 KiB, 1.00 MiB" where they share one x (a working
  set swept at one intensity: a strip), else left to right ("unlabelled: 16.0 KiB" for one);
  a point another one's marker hides says so ("6.00 KiB (hidden)", "declared (under its L1
  point)": rot.plot.place.hidden).
  points: {{px=, py=, text=, hidden=}}. ]]
function M.note(points)
  local strip = true
  for _, p in ipairs(points) do strip = strip and math.abs(p.px - points[1].px) < 1.5 end
  table.sort(points, function(a, b)
    if strip or math.abs(a.px - b.px) < 1.5 then return a.py > b.py end
    return a.px < b.px
  end)
  local texts = {}
  for _, p in ipairs(points) do texts[#texts + 1] = p.text .. (p.hidden and (" (" .. p.hidden .. ")") or "") end
  local order = #points == 1 and "" or strip and ", top to bottom" or ", left to right"
  return "  unlabelled" .. order .. ": " .. table.concat(texts, ", ")
end

--[[ The short form of a note on points (M.note): how many, and how many of them others hide
  ("  unlabelled: 16 points (15 hidden)"); rot.plot.check reads it back (M.said). ]]
function M.short_note(points)
  local hidden = 0
  for _, p in ipairs(points) do hidden = hidden + (p.hidden and 1 or 0) end
  return "  unlabelled: " .. util.count(#points, "point") .. (hidden > 0 and " (" .. hidden .. " hidden)" or "")
end

-- What a key's text for an element (M.speaks_for) says in a short note: how many unlabelled
-- points, and how many of them hidden (nil where it has none).
function M.said(text)
  local n = (text or ""):match("unlabelled: (%d+) points?")
  if not n then return nil end
  return tonumber(n), tonumber(text:match("unlabelled: %d+ points? %((%d+) hidden%)")) or 0
end

--[[ Adds, right after each element of plots that drew points a plot's labels left out, the key
  entry naming them (M.note). missed: place.point_labels' {{series=, px=, py=, text=}} (pixels
  of the plot area, y up), elements[i]: the element that drew series i. ]]
function M.add_notes(plots, elements, missed)
  for _, p in ipairs(missed) do p.element = elements[p.series] end
  local by, order = util.group_by(missed, function(p) return p.element end)
  for _, el in ipairs(order) do
    for i, p in ipairs(plots) do
      if p == el then
        table.insert(plots, i + 1, M.entry(M.note(by[el])))
        M.shorten(plots, plots[i + 1], M.entry(M.short_note(by[el])))
        break
      end
    end
  end
end

--[[ The entries a script's key draws, in order: {{text=, element=, continues=}} (continues: an
  entry of its own after a titled element, a continuation or a note). From the `plot` command
  as rot.plot writes it, one element a line. ]]
function M.entries(gp)
  local cmd = gp:match("\nplot (.-[^\\])\n") or gp:match("^plot (.-[^\\])\n")
  local out = {}
  if not cmd then return out end
  for el in (cmd .. ", \\\n"):gmatch("(.-), \\\n%s*") do
    local text = M.title(el)
    if text then out[#out + 1] = { text = text, element = el, continues = el:match("^keyentry ") ~= nil } end
  end
  return out
end

--[[ check(gp, g) -> the texts of the key entries that leave the canvas, as every terminal draws
  them (the key's corner from the script's `set key at screen X, screen Y`): down the canvas,
  or in a column gnuplot starts beside the first where the plot area's height holds too few
  (M.layout). ]]
function M.check(gp, g)
  local kx, ky = gp:match("set key at screen ([%d.]+), screen ([%d.]+)")
  local out = {}
  if not kx then return out end
  local entries, widest = M.entries(gp), 0
  for _, e in ipairs(entries) do widest = math.max(widest, textsize.width(e.text)) end
  for i, e in ipairs(entries) do
    if not M.fits(g, tonumber(kx), tonumber(ky), i, e.text, #entries, widest) then out[#out + 1] = e.text end
  end
  return out
end

--[[ The text of the key that speaks for an element (its title, the entries of its own after it
  joined with a space): where a point its labels left out must be named. ]]
function M.speaks_for(gp)
  local out, cur = {}, nil
  for _, e in ipairs(M.entries(gp)) do
    if e.continues and cur then
      out[cur] = out[cur] .. " " .. e.text:gsub("^ +", "")
    elseif not e.continues then
      cur = e.element
      out[cur] = e.text
    end
  end
  return out
end

-- The key entry of points whose rounds disagree: how far apart, at most.
function M.unsettled(rows)
  local r = 1
  for _, x in ipairs(rows or {}) do if x.roundsAgree == false then r = math.max(r, x.roundsRatio or 1) end end
  return string.format("rounds disagree, up to x%.2f apart (~ in the table)", r)
end

return M
