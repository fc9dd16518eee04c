-- check-plots.lua DIR: every gnuplot script in DIR, its label boxes, points, lines, arrows and key
-- computed from the script and its data (rot.plot.check): one line per script, "PLOT name labels
-- N overlaps M crossed C key K unlabelled U bands B hidden H online O colours R [first pair: a
-- label on a label, a point, a series' line or an arrow] [first label a ceiling line runs
-- through] [first key entry past the canvas] [first point neither labelled nor named in the key]
-- [widest band] [first point hidden under another and not said so] [first ceiling label on its
-- own line] [first mark in a series' colour]".
local plot = require "rot.plot.check"
local sys = require "rot.sys"
local dir = arg[1]
local names = {}
for _, f in ipairs(sys.listdir(dir) or {}) do if f:match("%.gp$") then names[#names + 1] = f end end
table.sort(names)
for _, f in ipairs(names) do
  local boxes, overlaps, crossed, d = plot.check(assert(sys.readfile(dir .. "/" .. f)),
    function(name) return sys.readfile(dir .. "/" .. name) end)
  io.write(string.format("PLOT %s labels %d overlaps %d crossed %d key %d unlabelled %d bands %d "
    .. "hidden %d online %d colours %d",
    f, #boxes, #overlaps, #crossed, #d.key, #d.unlabelled, #d.bands, #d.hidden, #d.on_line, #d.colours))
  if overlaps[1] then io.write(string.format(" ('%s' on '%s')", overlaps[1][1], overlaps[1][2])) end
  if crossed[1] then io.write(string.format(" (a ceiling through '%s')", crossed[1])) end
  if d.key[1] then io.write(string.format(" (key entry past the canvas: '%s')", d.key[1])) end
  if d.unlabelled[1] then
    io.write(string.format(" (a point neither labelled nor in the key: '%s')", d.unlabelled[1]))
  end
  if d.bands[1] then io.write(string.format(" (a band of x%.2f)", math.max(table.unpack(d.bands)))) end
  if d.hidden[1] then io.write(string.format(" (a point hidden under another, not said so: '%s')", d.hidden[1])) end
  if d.on_line[1] then io.write(string.format(" (a ceiling label on its own line: '%s')", d.on_line[1])) end
  if d.colours[1] then io.write(string.format(" (%s)", d.colours[1])) end
  io.write("\n")
end
