-- rot.plot: roofline plots through gnuplot: writes the data and a gnuplot script beside the
-- SVG and PNG (so a user can edit and re-render), then renders atomically (temp file, rename).
local sys = require "rot.sys"
local util = require "rot.util"
local M = {}

local SERIES_COLORS = { "#e41a1c", "#377eb8", "#4daf4a", "#984ea3", "#ff7f00", "#a65628", "#f781bf", "#000000" }

-- A gnuplot string literal.
local function q(s) return '"' .. tostring(s):gsub('[\\"]', "\\%0") .. '"' end
M.quote = q

local function check_name(name)
  if type(name) ~= "string" or not name:match("^[%w_.-]+$") then
    util.fail("plot name '" .. tostring(name) .. "' must use letters, digits and _.- only")
  end
end

-- Runs gnuplot on script (in dir) with a temp suffix, then moves each temp output into place.
function M.render(gnuplot, dir, script, outputs)
  if require("rot.runner").building() then return dir .. "/" .. outputs[1] end -- rot build draws nothing
  local exe = sys.locate(gnuplot)
  if not exe then
    util.fail("gnuplot ('" .. gnuplot .. "') not found: wrote the data and " .. script ..
      " in '" .. dir .. "' but no plot", "sudo apt-get install gnuplot-nox")
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

-- Writes text unless the file already holds it; returns true when written.
local function write(path, text)
  if sys.readfile(path) == text then return false end
  local ok, err = sys.writefile(path, text)
  if not ok then util.fail("cannot write '" .. path .. "': " .. err, "set -outputDir=DIR to a writable directory") end
  return true
end

--[[ roofline{
  rows = results, name = "triad", dir = outputDir, gnuplot = "gnuplot", title = "...",
  series = function(row) -> series name, label = function(row) -> point label,
  compute = { {label=, gflops=}, ... },       horizontal ceilings
  bandwidth = { {label=, gbs=}, ... },        sloped ceilings
} -> path of the SVG ]]
function M.roofline(o)
  check_name(o.name)
  local series, order = {}, {}
  local xmin, xmax, ymin, ymax = math.huge, 0, math.huge, 0
  for _, r in ipairs(o.rows) do
    if r.gflops and r.intensity then
      local s = o.series and o.series(r) or "points"
      if not series[s] then series[s] = {}; order[#order + 1] = s end
      table.insert(series[s], r)
      xmin, xmax = math.min(xmin, r.intensity), math.max(xmax, r.intensity)
      ymin, ymax = math.min(ymin, r.gflops), math.max(ymax, r.gflops)
    end
  end
  for _, c in ipairs(o.compute or {}) do ymax = math.max(ymax, c.gflops); ymin = math.min(ymin, c.gflops) end
  if xmax == 0 then xmin, xmax, ymin, ymax = 0.1, 1, 0.1, 1 end
  -- room for every ridge point
  for _, b in ipairs(o.bandwidth or {}) do
    for _, c in ipairs(o.compute or {}) do xmax = math.max(xmax, c.gflops / b.gbs) end
  end
  xmin, xmax = 10 ^ math.floor(math.log(xmin, 10) - 0.5), 10 ^ math.ceil(math.log(xmax, 10) + 0.5)
  ymin, ymax = 10 ^ math.floor(math.log(ymin, 10) - 0.3), 10 ^ math.ceil(math.log(ymax, 10) + 0.3)

  local counts = {}
  local dat = { "# rot roofline data: one block per series; columns: intensity[flop/B] performance[GFLOP/s] label" }
  for i, s in ipairs(order) do
    local rows = series[s]
    table.sort(rows, function(a, b) return (a.workingSet or 0) < (b.workingSet or 0) end)
    dat[#dat + 1] = "# series " .. i - 1 .. ": " .. s
    for _, r in ipairs(rows) do
      counts[r.counts or "declared"] = true
      local label = o.label and o.label(r) or ""
      dat[#dat + 1] = string.format("%.9g %.9g %s", r.intensity, r.gflops, q(label))
    end
    dat[#dat + 1] = "\n"
  end
  local how = {}
  for c in pairs(counts) do how[#how + 1] = c end
  table.sort(how)
  local counts_note = #how > 0 and (" (" .. table.concat(how, "/") .. " counts)") or ""

  local gp = M.loglog_header("roofline", o, "operational intensity [flop/byte]", "performance [GFLOP/s]",
    { xmin, xmax }, { ymin, ymax })
  local peak = 0
  for _, c in ipairs(o.compute or {}) do peak = math.max(peak, c.gflops) end
  local plots = {}
  for i, c in ipairs(o.compute or {}) do
    gp[#gp + 1] = string.format("peak%d = %.9g", i, c.gflops)
    plots[#plots + 1] = string.format("peak%d with lines lw 2 dt 2 lc rgb '#444444' title %s", i,
      q(string.format("%s: %.1f GFLOP/s", c.label, c.gflops)))
  end
  local colors = { "#1f77b4", "#2ca02c", "#ff7f0e", "#d62728", "#9467bd" }
  for i, b in ipairs(o.bandwidth or {}) do
    gp[#gp + 1] = string.format("bw%d = %.9g", i, b.gbs)
    local roof = peak > 0 and string.format("(bw%d*x < %.9g ? bw%d*x : 1/0)", i, peak, i) or ("bw" .. i .. "*x")
    plots[#plots + 1] = string.format("%s with lines lw 2 lc rgb '%s' title %s", roof,
      colors[(i - 1) % #colors + 1], q(string.format("%s: %.1f GB/s", b.label, b.gbs)))
  end
  local dfile = o.name .. ".dat"
  local scolors = SERIES_COLORS
  for i, s in ipairs(order) do
    plots[#plots + 1] = string.format("%s index %d using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 lc rgb '%s' title %s",
      q(dfile), i - 1, scolors[(i - 1) % #scolors + 1], q(s .. counts_note))
    if o.label then
      plots[#plots + 1] = string.format("%s index %d using 1:2:3 with labels left offset 0.8,0 font ',8' notitle",
        q(dfile), i - 1)
    end
  end
  return M.finish(o, gp, plots, dat)
end

-- The opening of a log-log gnuplot script: title, axes, ranges, grid, key below.
function M.loglog_header(kind, o, xlabel, ylabel, xr, yr)
  return {
    "# rot " .. kind .. " '" .. o.name .. "'. Re-render: gnuplot " .. o.name .. ".gp",
    'if (!exists("suffix")) suffix = ""',
    "set title " .. q(o.title or o.name),
    "set logscale xy",
    "set xlabel " .. q(xlabel),
    "set ylabel " .. q(ylabel),
    string.format("set xrange [%g:%g]", xr[1], xr[2]),
    string.format("set yrange [%g:%g]", yr[1], yr[2]),
    "set grid xtics ytics mxtics mytics lc rgb '#dddddd'",
    "set key outside below box",
    "set samples 400",
  }
end

-- Adds the output commands (SVG, PNG, and PDF when o.pdf), writes data and script, renders
-- unless data and script are unchanged and every output exists.
function M.finish(o, gp, plots, dat)
  local outputs = { o.name .. ".svg", o.name .. ".png" }
  gp[#gp + 1] = 'set terminal svg size 900,700 dynamic enhanced font "Helvetica,12" background "white"'
  gp[#gp + 1] = "set output " .. q(o.name .. ".svg") .. ".suffix"
  gp[#gp + 1] = "plot " .. table.concat(plots, ", \\\n     ")
  gp[#gp + 1] = 'set terminal pngcairo size 900,700 enhanced font "Helvetica,10" background "white"'
  gp[#gp + 1] = "set output " .. q(o.name .. ".png") .. ".suffix"
  gp[#gp + 1] = "replot"
  if o.pdf then
    outputs[#outputs + 1] = o.name .. ".pdf"
    gp[#gp + 1] = 'set terminal pdfcairo size 9in,7in enhanced font "Helvetica,10"'
    gp[#gp + 1] = "set output " .. q(o.name .. ".pdf") .. ".suffix"
    gp[#gp + 1] = "replot"
  end
  local changed = write(o.dir .. "/" .. o.name .. ".dat", table.concat(dat, "\n") .. "\n")
  changed = write(o.dir .. "/" .. o.name .. ".gp", table.concat(gp, "\n") .. "\n") or changed
  for _, f in ipairs(outputs) do changed = changed or sys.stat(o.dir .. "/" .. f) ~= "file" end
  if not changed then return o.dir .. "/" .. outputs[1] end -- same data, same script: same picture
  return M.render(o.gnuplot or "gnuplot", o.dir, o.name .. ".gp", outputs)
end

--[[ xy{ rows=, name=, dir=, gnuplot=, title=, xlabel=, ylabel=, x=fn(row), y=fn(row),
  series=fn(row), label=fn(row), logx=bool, logy=bool, vlines={{x=, label=}} } -> SVG path.
  Points per series connected, in x order; vlines mark e.g. cache sizes. ]]
function M.xy(o)
  check_name(o.name)
  -- x and y: functions of a row, or the names of numeric row fields ("gbs", "time", ...)
  local fx, fy = o.x, o.y
  local function field(name, which)
    if type(name) == "function" then return name end
    if type(name) ~= "string" then util.fail("xy plot '" .. o.name .. "': " .. which .. " must be a field name or a function(row)") end
    local have, fields = false, {}
    for _, r in ipairs(o.rows) do
      if type(r[name]) == "number" then have = true end
      for k, v in pairs(r) do if type(v) == "number" and type(k) == "string" then fields[k] = true end end
    end
    if not have and #o.rows > 0 then
      local names = {}
      for k in pairs(fields) do names[#names + 1] = k end
      table.sort(names)
      util.fail("xy plot '" .. o.name .. "': no row has the quantity '" .. name .. "'" .. util.did_you_mean(name, names),
        "quantities the rows have: " .. table.concat(names, ", "))
    end
    return function(r) return r[name] end
  end
  fx, fy = field(fx, "x"), field(fy, "y")
  local series, order = {}, {}
  local got = 0
  for _, r in ipairs(o.rows) do
    local x, y = fx(r), fy(r)
    if x and y then got = got + 1 end
    if x and y and (not o.logx or x > 0) and (not o.logy or y > 0) then
      local s = o.series and o.series(r) or "points"
      if not series[s] then series[s] = {}; order[#order + 1] = s end
      table.insert(series[s], { x = x, y = y, label = o.label and o.label(r) or "" })
    end
  end
  local dat = { "# rot plot data: one block per series; columns: x y label" }
  for i, s in ipairs(order) do
    table.sort(series[s], function(a, b) return a.x < b.x end)
    dat[#dat + 1] = "# series " .. i - 1 .. ": " .. s
    for _, p in ipairs(series[s]) do dat[#dat + 1] = string.format("%.9g %.9g %s", p.x, p.y, q(p.label)) end
    dat[#dat + 1] = "\n"
  end
  local gp = {
    "# rot plot '" .. o.name .. "'. Re-render: gnuplot " .. o.name .. ".gp",
    'if (!exists("suffix")) suffix = ""',
    "set title " .. q(o.title or o.name),
    "set xlabel " .. q(o.xlabel or "x"),
    "set ylabel " .. q(o.ylabel or "y"),
    "set grid xtics ytics lc rgb '#dddddd'",
    "set key outside below box",
  }
  if o.logx then gp[#gp + 1] = "set logscale x" end
  if o.logy then gp[#gp + 1] = "set logscale y" end
  for i, v in ipairs(o.vlines or {}) do
    gp[#gp + 1] = string.format("set arrow %d from %.9g, graph 0 to %.9g, graph 1 nohead dt 3 lc rgb '#888888'", i, v.x, v.x)
    gp[#gp + 1] = string.format("set label %d %s at %.9g, graph 0.97 right rotate by 90 font ',9' tc rgb '#666666'", i, q(v.label), v.x)
  end
  local plots, dfile = {}, o.name .. ".dat"
  for i, s in ipairs(order) do
    plots[#plots + 1] = string.format("%s index %d using 1:2 with linespoints pt 7 ps 0.6 lw 1.5 lc rgb '%s' title %s",
      q(dfile), i - 1, SERIES_COLORS[(i - 1) % #SERIES_COLORS + 1], q(s))
    if o.label then
      plots[#plots + 1] = string.format("%s index %d using 1:2:3 with labels left offset 0.6,0 font ',8' notitle", q(dfile), i - 1)
    end
  end
  if #plots == 0 then
    if got == 0 and #o.rows > 0 and not require("rot.runner").building() then
      local measured = 0
      for _, r in ipairs(o.rows) do if r.entry then measured = measured + 1 end end
      if measured > 0 then
        util.fail("xy plot '" .. o.name .. "': x and y give a value for none of the " .. #o.rows .. " rows",
          "check the quantities x and y read (rows have e.g. gbs, gflops, time, intensity, workingSet)")
      end
    end
    plots[1] = "NaN notitle"
  end
  return M.finish(o, gp, plots, dat)
end

return M
