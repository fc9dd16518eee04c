-- A plot's memo (rot.plot.memo): an unchanged rerun draws nothing and leaves its files as they
-- are; a change of any one input draws it again: a point's value, a label, an option, the plot
-- code's source, a file removed or edited by hand. Rooflines and xy plots (staircases) alike.
-- judges no time
local t = require "tap"
local sys = require "rot.sys"
local place = require "rot.plot.place"

local tmp = os.getenv("ROT_TEST_TMP") or ((os.getenv("TMPDIR") or "/tmp") .. "/rot-unit-memo-" .. sys.pid())
local dir, store, code = tmp .. "/out", tmp .. "/memo", tmp .. "/lua/rot"
assert(sys.mkdir(dir) and sys.mkdir(code .. "/plot"))

-- A copy of rot's plot code, whose source the memo hashes (edited below, never the real one).
local src = debug.getinfo(place.frame, "S").source:match("^@(.*)/place%.lua$")
for _, n in ipairs(sys.listdir(src)) do
  if n:match("%.lua$") then assert(sys.writefile(code .. "/plot/" .. n, assert(sys.readfile(src .. "/" .. n)))) end
end
assert(sys.writefile(code .. "/util.lua", assert(sys.readfile(src .. "/../util.lua"))))

-- rot.plot with a fresh memo from the copy (which hashes the copy's source once), counting its
-- drawings: each starts with the plot's frame.
local drawn = 0
local frame = place.frame
place.frame = function(...) drawn = drawn + 1; return frame(...) end
local function fresh_plot()
  package.loaded["rot.plot.memo"] = dofile(code .. "/plot/memo.lua")
  package.loaded["rot.plot"] = nil
  return require "rot.plot"
end
local plot = fresh_plot()

-- Each file's state: its size, time and inode (a file written again is renamed into place).
local function state(name)
  local out = {}
  for _, ext in ipairs({ ".gp", ".dat", ".svg", ".png" }) do
    local kind, size, mtime, inode = sys.stat(dir .. "/" .. name .. ext)
    out[#out + 1] = kind and string.format("%d %.9f %d", size, mtime, inode) or "none"
  end
  return out
end
local function same(a, b)
  for i = 1, #a do if a[i] ~= b[i] then return false end end
  return true
end

local rows = { { s = "triad", intensity = 0.083, gflops = 4.1, lab = "1 KiB" }, { s = "triad", intensity = 0.083,
  gflops = 2.2, lab = "1 MiB" },
  { s = "copy", intensity = 0.5, gflops = 9.5, lab = "4 KiB" } }
local function opts(change)
  local o = { rows = rows, name = "memo", dir = dir, title = "memo", memo = store,
    series = function(r) return r.s end, label = function(r) return r.lab end,
    compute = { { label = "double avx2 fma", gflops = 56.3 } }, bandwidth = { { label = "L1 triad", gbs = 120 } } }
  if change then change(o) end
  return o
end

-- Draws o's roofline (twice: the second a rerun): whether it drew, whether the first wrote a
-- file, and that the rerun drew nothing and left every file as it was.
local function twice(o, what, want_written)
  local before, n = state("memo"), drawn
  local svg = plot.roofline(o)
  local after = state("memo")
  t.ok(drawn == n + 1 and svg == dir .. "/memo.svg", what .. ": drawn again")
  if want_written ~= nil then
    t.ok(not same(before, after) == want_written, what .. (want_written and ": a file written"
      or ": no file written (same text)"))
  end
  t.ok(plot.roofline(o) == svg and drawn == n + 1 and same(state("memo"), after), what
    .. ": its rerun draws nothing, every file's time stays")
end

twice(opts(), "a new plot", true)
twice(opts(function() rows[2] = { s = "triad", intensity = 0.083, gflops = 2.3, lab = "1 MiB" } end),
  "a point's value", true)
twice(opts(function() rows[3] = { s = "copy", intensity = 0.5, gflops = 9.5, lab = "8 KiB" } end), "a label", true)
twice(opts(function(o) o.title = "memo, retitled" end), "an option (title)", true)
twice(opts(function(o) o.title = "memo, retitled"; o.bandwidth[1].gbs = 119 end), "a ceiling", true)
twice(opts(function(o) o.title = "memo, retitled"; o.labels = "none" end), "an option (labels)", true)
local o = opts(function(x) x.title = "memo, retitled"; x.labels = "none" end)

-- the plot code's source: drawn again, to the same files (nothing to write)
local placed = assert(sys.readfile(code .. "/plot/place.lua"))
assert(sys.writefile(code .. "/plot/place.lua", placed .. "-- an edit\n"))
plot = fresh_plot()
twice(o, "the plot code's source", false)

-- the files: one removed is drawn again, one edited by hand is written again
sys.remove(dir .. "/memo.svg")
twice(o, "its SVG removed", true)
local gp = assert(sys.readfile(dir .. "/memo.gp"))
assert(sys.writefile(dir .. "/memo.gp", gp .. "# a user's line\n"))
twice(o, "its script edited by hand", true)
t.is(sys.readfile(dir .. "/memo.gp"), gp, "and its script is rot's again")

-- another gnuplot (here a wrapper of this one): drawn again, to the same files
local wrapper = tmp .. "/gnuplot-wrapper"
assert(sys.writefile(wrapper, '#!/bin/sh\nexec gnuplot "$@"\n'))
assert(sys.run({ "chmod", "+x", wrapper }) == 0)
o.gnuplot = wrapper
twice(o, "another gnuplot", false)
o.gnuplot = nil

-- no memo: drawn every time
local n = drawn
o.memo = nil
plot.roofline(o)
plot.roofline(o)
t.is(drawn, n + 2, "without a memo directory a plot is drawn every time")

-- an xy plot (a staircase): the same
local xy = { rows = rows, name = "memo-xy", dir = dir, memo = store, x = "intensity", y = "gflops", logx = true,
  series = function(r) return r.s end }
n = drawn
plot.xy(xy)
plot.xy(xy)
t.is(drawn, n + 1, "an xy plot's rerun draws nothing")
rows[1] = { s = "triad", intensity = 0.083, gflops = 4.2, lab = "1 KiB" }
plot.xy(xy)
t.is(drawn, n + 2, "an xy plot whose point moved is drawn again")

place.frame = frame
sys.removetree(tmp)
t.done()
