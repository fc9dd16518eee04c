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

-- Sets a configuration key for the rest of the script, checked like the command line's
-- (type, choices, range); a bad value stops the script naming the key, the value and why.
function rot.set(key, value)
  local ok, err = rot.config:set(key, tostring(value), "script")
  if not ok then util.fail(err) end
end

local Results = {}
Results.__index = Results
local warned_above -- one warning per run about points above their bound

-- The one warning per run about rows above their bound: how many, the worst, and why (what
-- why(worst) says).
local function warn_above(above, what, why)
  if #above == 0 or warned_above then return end
  warned_above = true
  local worst = above[1]
  for _, r in ipairs(above) do if r.fraction > worst.fraction then worst = r end end
  io.stderr:write(string.format("rot: warning: %d %spoint%s above %s bound beyond the spread (up to %.0f%%, marked ^); %s\n",
    #above, what, #above == 1 and " is" or "s are", #above == 1 and "its" or "their", worst.fraction * 100, why(worst)))
end

-- rot build runs the script for its points only: its tables, CSVs and plots go to the run
-- directory (removed at the end), never over the user's outputs.
function rot.building() return runner.building() end

local function outdir()
  local dir = runner.building() and (runner.run_dir() .. "/out") or rot.get("outputDir")
  local ok, err = sys.mkdir(dir)
  if not ok or not sys.writable(dir) then
    util.fail("cannot write output directory '" .. dir .. "': " .. (err or "permission denied"),
      "set -outputDir=DIR to a writable directory, or fix its permissions")
  end
  return dir
end

-- The output directory, created (with a clear error when it cannot be written).
rot.output_dir = outdir

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
  return rot.results(rows, axes)
end

-- results(rows[, axes]): the results object rot.measure returns, over rows a script built or
-- changed (its table, csv, bounds and plots)
function rot.results(rows, axes) return setmetatable({ rows = rows, axes = axes or {} }, Results) end

function Results:ok()
  local out = {}
  for _, r in ipairs(self.rows) do if r.entry then out[#out + 1] = r end end
  return out
end

-- table{columns = {...}, axes = {...}}: prints to stdout, under a line saying where and how
function Results:table(o)
  o = o or {}
  if o.bounds ~= false then self:bounds() end
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

-- outputDir/name.csv, once name is checked to be a plain file name
local function csv_path(name)
  if type(name) ~= "string" or not name:match("^[%w_.-]+$") then
    util.fail("csv name '" .. tostring(name) .. "' must use letters, digits and _.- only")
  end
  return outdir() .. "/" .. name .. ".csv"
end

-- csv(name) writes outputDir/name.csv
function Results:csv(name, o)
  o = o or {}
  if o.bounds ~= false then self:bounds() end
  return report.csv(self.rows, csv_path(name), o.axes or self.axes)
end

--[[ json(name) writes outputDir/name.json: the points, the ceilings and the machine in one
  document shaped like the Empirical Roofline Toolkit's roofline.json ("empirical": {"gbytes":
  {"data": [[level, GB/s], ...]}, "gflops": {"data": [[name, GFLOP/s], ...]}, "metadata"}, "spec"),
  so tools that read ERT's ceilings read rot's; rot's own points and levels are under "rot". ]]
function Results:json(name)
  self:bounds()
  local path = csv_path(name):gsub("%.csv$", ".json")
  local c = self.peaks or { compute = {}, bandwidth = {}, levels = {} }
  local gbytes, gflops = {}, {}
  for _, b in ipairs(c.bandwidth or {}) do gbytes[#gbytes + 1] = { b.level, b.gbs } end
  for _, x in ipairs(c.compute or {}) do gflops[#gflops + 1] = { x.name or x.label, x.gflops } end
  local points = {}
  for _, r in ipairs(self.rows) do
    local p = { point = r.point, kernel = r.desc and r.desc.workloads[1].kernel, flags = r.desc and r.desc.flags,
      machine = r.machine, nodeType = r.nodeType ~= "" and r.nodeType or nil, workingSet = r.workingSet,
      time = r.time, gbs = r.gbs, gflops = r.gflops, intensity = r.intensity, flops = r.flops, bytes = r.bytes,
      counts = r.counts, runs = r.runs, spread = r.spread, threads = r.threads, cacheMode = r.cacheMode,
      level = r.level, bound = r.bound, limiter = r.limiter, fraction = r.fraction, aboveBound = r.above,
      failed = r.failed, source = r.failed and "failed" or r.cached and "cache" or "measured" }
    points[#points + 1] = p
  end
  local levels = {}
  for _, l in ipairs(c.levels or {}) do
    levels[#levels + 1] = { name = l.name, effective = l.effective, reported = l.reported, triadGBs = l.gbs }
  end
  local fp = machine.fingerprint(rot.config)
  local doc = {
    empirical = {
      gbytes = { data = gbytes, metadata = { THREADS = c.threads, KERNEL = "triad", SOURCE = "rot measure peaks" } },
      gflops = { data = gflops, metadata = { THREADS = c.threads, SOURCE = "rot measure peaks" } },
      metadata = { ROT_MACHINE = machine.id(fp), CPU = fp.cpu, PUS = fp.pus, OPENMP_THREADS = c.threads },
    },
    spec = { gbytes = { data = {} }, gflops = { data = {} } },
    rot = { points = points, levels = levels, machine = fp, axes = self.axes },
  }
  local ok, err = sys.writefile(path, util.json(doc) .. "\n")
  if not ok then util.fail("cannot write '" .. path .. "': " .. err, "set -outputDir=DIR to a writable directory") end
  return path
end

-- Sloped ceilings from the data itself: the best bandwidth seen inside each memory level
-- (effective sizes from the stored peaks, else the reported caches).
function rot.observed_bandwidth(rows)
  local lv = rot.levels()
  local best = {}
  for _, r in ipairs(rows) do
    if r.gbs and r.workingSet then
      local name = require("rot.peaks").level_of(r.workingSet, lv).name
      if not best[name] or r.gbs > best[name] then best[name] = r.gbs end
    end
  end
  local out = {}
  for _, l in ipairs(lv) do
    if best[l.name] then out[#out + 1] = { label = l.name .. " bandwidth (best observed)", gbs = best[l.name] } end
  end
  return out
end

-- The machine's memory levels at a thread count (default 1), from its stored peaks (measured
-- first if there are none): { {name="L1", size=effective bytes, reported=bytes, gbs=}, ...,
-- {name="DRAM", gbs=} }. Sweeps use it to know how far to go.
function rot.levels(threads)
  local peaks = require "rot.peaks"
  local rows = peaks.get(rot)
  return peaks.levels(rows, peaks.nearest_threads(rows, threads or 1))
end

-- The size of one named level ("L2") at a thread count, or nil.
function rot.level_size(name, threads)
  for _, l in ipairs(rot.levels(threads)) do if l.name == name then return l.size end end
  return nil
end

-- The largest cache a sweep must leave behind: the last level's effective (or reported)
-- size at that thread count; 32 MiB when nothing is known.
function rot.llc(threads)
  local lv = rot.levels(threads)
  return #lv > 1 and lv[#lv - 1].size or 32 * 1024 * 1024
end

local function max_threads(rows)
  local t = 1
  for _, r in ipairs(rows) do if r.threads and r.threads > t then t = r.threads end end
  return t
end

-- The measured ceilings for these rows (measuring the machine first if it never was).
function Results:ceilings(precision)
  if not self.peaks then
    local peaks = require "rot.peaks"
    local rows = peaks.get(rot)
    local t = peaks.nearest_threads(rows, max_threads(self.rows))
    local compute, bandwidth = peaks.ceilings(rows, t, precision)
    self.peaks = { compute = compute, bandwidth = bandwidth, threads = t, levels = peaks.levels(rows, t) }
  end
  return self.peaks
end

-- Adds bound, limiter, fraction, time bound and its dominant term to every row; a point above
-- its bound beyond its spread and the ceiling's is marked (row.above) and, once per run, a
-- warning names the ceiling that is probably wrong and why.
function Results:bounds()
  local peaks = require "rot.peaks"
  local cpu = false -- GPU points have their own bounds (gpu_bounds): no CPU ceilings for them
  for _, r in ipairs(self.rows) do cpu = cpu or not (r.desc and r.desc.device == "gpu") end
  if not cpu then return self end
  local c = self:ceilings()
  local above = {}
  for _, r in ipairs(self.rows) do
    local b = peaks.bound(r, c.compute, c.bandwidth, c.levels, rot.get("bestEpsilon"))
    if b then
      r.bound, r.limiter, r.fraction, r.timeBound, r.dominant, r.level = b.bound, b.limiter, b.fraction, b.time_bound,
        b.dominant, b.level
      r.above = b.above
      if b.above then above[#above + 1] = r end
    end
  end
  warn_above(above, "", function(worst) return peaks.why_above(worst, c.levels) end)
  return self
end

local function plot_opts(self, o, extra)
  local series = o.series
  if report.several_machines(self.rows) then -- several machines (Slurm node types): side by side, one series each
    series = function(r) return (o.series and (o.series(r) .. " @ ") or "") .. (report.machine_of(r) or "?") end
  end
  if o.labels ~= nil and not ({ auto = true, all = true, ends = true, none = true })[o.labels] then
    util.fail("bad labels '" .. tostring(o.labels) .. "' for plot '" .. tostring(o.name) .. "': auto, all, ends or none")
  end
  local opts = { rows = self.rows, name = o.name, title = o.title, series = series, label = o.label, labels = o.labels,
    dir = outdir(), gnuplot = rot.get("gnuplot"), pdf = o.pdf or rot.get("pdf") }
  for k, v in pairs(extra) do opts[k] = v end
  return opts
end

-- roofline{name=, title=, series=fn, label=fn, compute=, bandwidth=, pdf=} writes name.svg,
-- name.png (+ .dat, .gp); ceilings: the machine's measured peaks unless given
function Results:roofline(o)
  local compute, bandwidth = o.compute, o.bandwidth
  if not compute or not bandwidth then
    local c = self:ceilings()
    local shown, seen = {}, {}
    for _, x in ipairs(c.compute) do -- the best of each ISA class, plus scalar add
      local isa = x.name:match("^%a+_(%w+)_")
      if not seen[isa] or x.name:match("scalar_add") then seen[isa] = true; shown[#shown + 1] = x end
    end
    compute = compute or shown
    bandwidth = bandwidth or c.bandwidth
  end
  return runner.timed("plot", plot.roofline, plot_opts(self, o, { compute = compute, bandwidth = bandwidth }))
end

-- gpu_bounds(ceilings): time bound and dominant term for every profiled GPU row (rot.gpu.bound);
-- ceilings = { double=, single=, half= (GFLOP/s), L1=, L2=, HBM= (GB/s) }, e.g. from gpu-peaks.
function Results:gpu_bounds(ceilings, spreads)
  local gpu, peaks = require "rot.gpu", require "rot.peaks"
  local above = {}
  for _, r in ipairs(self.rows) do
    local b = r.gpu and gpu.bound(r.gpu, ceilings)
    if b then
      r.timeBound, r.dominant, r.fraction, r.limiter = b.time_bound, b.dominant, b.fraction, b.dominant
      r.above = b.fraction and peaks.above(b.fraction, r.spread, (spreads or {})[b.key], rot.get("bestEpsilon"))
      r.boundKey = b.key
      if r.above then above[#above + 1] = r end
    end
  end
  warn_above(above, "GPU ", function(worst)
    return "the " .. worst.dominant .. " ceiling is too low: a kernel beats the one gpu-peaks measures it with"
  end)
  return self
end

--[[ gpu_roofline{name=, title=, compute={{label=, gflops=}}, bandwidth={{label=, gbs=}}}:
  the hierarchical GPU roofline: one dot per memory level (L1, L2, HBM) for every kernel
  profiled with the rot.gpu.roofline_metrics, at its intensity against that level's bytes. ]]
function Results:gpu_roofline(o)
  local dots = {}
  for _, r in ipairs(self.rows) do
    if r.gpu and r.gpu.gflops then
      for _, l in ipairs(require("rot.gpu").levels) do
        local i = r.gpu.intensity[l.name]
        if i then
          -- above a bandwidth roof: that level's dot; above a compute roof: every dot (same height)
          local compute = r.boundKey == "double" or r.boundKey == "single" or r.boundKey == "half"
          dots[#dots + 1] = { intensity = i, gflops = r.gpu.gflops, level = l.name, counts = "measured",
            workingSet = r.workingSet, label = r.desc.workloads[1].kernel,
            above = r.above and (compute or r.boundKey == l.name) }
        end
      end
    end
  end
  return runner.timed("plot", plot.roofline, plot_opts(self, o, {
    rows = dots, title = o.title or "hierarchical GPU roofline",
    series = function(d) return d.level end, label = function(d) return d.label end,
    compute = o.compute or {}, bandwidth = o.bandwidth or {} }))
end


-- staircase{name=, title=, series=}: bandwidth against working set, the memory levels marked
-- (effective sizes, and reported ones where they differ by more than a factor of two)
function Results:staircase(o)
  local vlines = {}
  for _, l in ipairs(self:ceilings().levels) do
    if l.size then
      vlines[#vlines + 1] = { x = l.size, label = l.name .. " " .. util.bytes(l.size) .. (l.effective and " (effective)" or "") }
      if l.effective and l.reported and (l.reported > 2 * l.effective or l.reported < l.effective / 2) then
        vlines[#vlines + 1] = { x = l.reported, label = l.name .. " " .. util.bytes(l.reported) .. " (reported)" }
      end
    end
  end
  return runner.timed("plot", plot.xy, plot_opts(self, o, {
    x = function(r) return r.workingSet end, y = function(r) return r.gbs end, logx = true, xbytes = true,
    xlabel = "working set", ylabel = "bandwidth [GB/s] (" .. "declared bytes / time)", vlines = vlines }))
end

-- xy{name=, x=fn, y=fn, xlabel=, ylabel=, logx=, logy=, series=, label=}: any two quantities
-- records(name, columns, rows): a model's rows as a table on stdout and outputDir/name.csv;
-- columns = { {title, key or function(row), format}, ... }. Returns the CSV's path.
function rot.records(name, columns, rows)
  local path = csv_path(name)
  report.records(rows, columns)
  return report.records_csv(rows, columns, path)
end

-- xy(rows, {...}): the xy plot of Results:xy for any list of rows (a model's, say).
function rot.xy(rows, o)
  return Results.xy({ rows = rows }, o)
end

function Results:xy(o)
  return runner.timed("plot", plot.xy, plot_opts(self, o, { x = o.x, y = o.y, xlabel = o.xlabel, ylabel = o.ylabel,
    logx = o.logx, logy = o.logy, vlines = o.vlines, xbytes = o.xbytes, labels = o.labels }))
end

return rot
