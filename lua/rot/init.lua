-- rot: the library measurement scripts use: parameter spaces, measuring points (cached),
-- tables, CSV files and roofline plots. See README "The Lua API".
local space = require "rot.space"
local runner = require "rot.runner"
local report = require "rot.report"
local plot = require "rot.plot"
local machine = require "rot.machine"
local util = require "rot.util"
local sys = require "rot.sys"

local rot = {
  fail = util.fail, axis = space.axis, space = space.new, geometric = space.geometric,
  machine = machine, util = util, serialize = util.serialize,
}

-- The configuration (set by the CLI before the script runs).
function rot.get(key) return rot.config:get(key) end

local Results = {}
Results.__index = Results

local function outdir()
  local dir = rot.get("outputDir")
  local ok, err = sys.mkdir(dir)
  if not ok or not sys.writable(dir) then
    util.fail("cannot write output directory '" .. dir .. "': " .. (err or "permission denied"),
      "set -outputDir=DIR to a writable directory, or fix its permissions")
  end
  return dir
end

--[[ measure(space, builder) -> results
  builder(point) returns { kernel = "name", params = {...}, macros = {...}, flags = "...",
  cacheMode = "warm"|"cold" (optional) }; every point of the space is measured or loaded
  from the cache. Results is a list of rows (see README) with methods table, csv, roofline. ]]
function rot.measure(sp, builder)
  if getmetatable(sp) ~= space.Space then error("measure: first argument must be a rot.space", 2) end
  if type(builder) ~= "function" then error("measure: second argument must be a function(point)", 2) end
  local items = {}
  for c in sp:points() do items[#items + 1] = { coord = c, spec = builder(c) } end
  local rows = runner.measure(items)
  local k, ignore = rot.get("bestK"), rot.get("ignoreDisturbed")
  for _, r in ipairs(rows) do report.quantities(r, k, ignore) end
  local axes = {}
  for _, a in ipairs(sp.axes) do axes[#axes + 1] = a.name end
  return setmetatable({ rows = rows, axes = axes }, Results)
end

function Results:ok()
  local out = {}
  for _, r in ipairs(self.rows) do if r.entry then out[#out + 1] = r end end
  return out
end

-- table{columns = {...}, axes = {...}}: prints to stdout, under a line saying where and how
function Results:table(o)
  o = o or {}
  for _, r in ipairs(self.rows) do
    local m = r.entry and r.entry.meta
    if m and m.cpuModel then
      io.stdout:write(string.format("# %s, kernel %s, governor %s, %s kHz, load %s, timer overhead %s ns\n",
        m.cpuModel, tostring(m.kernelVersion), tostring(m.governor), tostring(m.cpuKHzBefore),
        tostring(m.loadavg):match("^(%S+ %S+ %S+)") or "?", tostring(m.timerOverheadNs)))
      break
    end
  end
  report.table(self.rows, o.columns, o.axes or self.axes)
end

-- csv(name) writes outputDir/name.csv
function Results:csv(name, o)
  o = o or {}
  if type(name) ~= "string" or not name:match("^[%w_.-]+$") then
    util.fail("csv name '" .. tostring(name) .. "' must use letters, digits and _.- only")
  end
  return report.csv(self.rows, outdir() .. "/" .. name .. ".csv", o.axes or self.axes)
end

-- Sloped ceilings from the data itself: the best bandwidth seen inside each cache level.
function rot.observed_bandwidth(rows)
  local levels, best = machine.caches(), {}
  for _, r in ipairs(rows) do
    if r.gbs and r.workingSet then
      local name = "DRAM"
      for _, c in ipairs(levels) do
        if r.workingSet <= c.size then name = c.name; break end
      end
      if not best[name] or r.gbs > best[name] then best[name] = r.gbs end
    end
  end
  local out = {}
  local names = {}
  for _, c in ipairs(levels) do names[#names + 1] = c.name end
  names[#names + 1] = "DRAM"
  for _, n in ipairs(names) do
    if best[n] then out[#out + 1] = { label = n .. " bandwidth (best observed)", gbs = best[n] } end
  end
  return out
end

-- roofline{name=, title=, series=fn, label=fn, compute=, bandwidth=} writes name.svg (+ .dat, .gp)
function Results:roofline(o)
  local peak = machine.nominal_peak()
  local opts = {
    rows = self.rows, name = o.name, title = o.title, series = o.series, label = o.label,
    compute = o.compute or (peak and { { label = peak.label, gflops = peak.gflops } } or {}),
    bandwidth = o.bandwidth or rot.observed_bandwidth(self.rows),
    dir = outdir(), gnuplot = rot.get("gnuplot"),
  }
  return runner.timed("plot", plot.roofline, opts)
end

return rot
