-- rot.results: the results object a measurement returns: its rows with their bounds against
-- the machine's ceilings, and what a script makes of them (table, CSV, JSON, plots).
local sys = require "rot.sys"
local util = require "rot.util"
local session = require "rot.session"
local machine = require "rot.machine"
local peaks = require "rot.machine.peaks"
local bounds = require "rot.results.bounds"
local sweep = require "rot.machine.sweep"
local format = require "rot.results.format"
local levelnames = require "rot.results.levelnames"
local regions = require "rot.results.regions"
local plot = require "rot.plot"

local M = {}
local Results = {}
Results.__index = Results
M.Results = Results

--[[ new(rows, axes, peaks_rows): rows from an executor (quantities derived), the names of the
  axes they were measured over, and peaks_rows() the machine's stored ceilings (measured
  first when there are none), asked only when a bound or a roofline needs them. ]]
function M.new(rows, axes, peaks_rows)
  return setmetatable({ rows = rows, axes = axes or {}, peaks_rows = peaks_rows }, Results)
end

local function get(key) return session.current():get(key) end
local function outdir() return session.current():outdir() end
local function timed(what, f, ...) return session.current():timed(what, f, ...) end

-- The one warning per run about rows above their bound: how many, the worst, and why (what
-- why(worst) says).
local function warn_above(above, what, why)
  local s = session.current()
  if #above == 0 or s.warned_above then return end
  s.warned_above = true
  local worst, by, names = above[1], {}, {}
  for _, r in ipairs(above) do
    if r.fraction > worst.fraction then worst = r end
    local c = r.limiter or "?"
    if not by[c] then names[#names + 1] = c end
    by[c] = (by[c] or 0) + 1
  end
  local each = {} -- when several ceilings are beaten: how many points each, the worst's first
  table.sort(names, function(a, b)
    local wa, wb = a == worst.limiter, b == worst.limiter
    if wa ~= wb then return wa end
    return by[a] > by[b] or (by[a] == by[b] and a < b)
  end)
  for _, c in ipairs(names) do each[#each + 1] = c .. " " .. by[c] end
  io.stderr:write(string.format("rot: warning: %d %spoint%s above %s bound beyond the spread (up to %.0f%%, marked ^%s); %s\n",
    #above, what, #above == 1 and " is" or "s are", #above == 1 and "its" or "their", worst.fraction * 100,
    #names > 1 and ("; by ceiling: " .. table.concat(each, ", ")) or "", why(worst)))
end

-- The rows that were measured or found in the cache (not failed, not only built).
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
      -- an application's: what a pair of its markers costs it instead of the timer's overhead
      local cost = m.markerPairNs and string.format("a marker pair %s", util.seconds(m.markerPairNs * 1e-9))
        or ("timer overhead " .. tostring(m.timerOverheadNs) .. " ns")
      io.stdout:write(string.format("# measured on %s, kernel %s, governor %s, %s kHz, load %s, %s\n",
        m.cpuModel, tostring(m.kernelVersion), tostring(m.governor), tostring(m.cpuKHzBefore),
        tostring(m.loadavg):match("^(%S+ %S+ %S+)") or "?", cost))
      break
    end
  end
  format.table(self.rows, o.columns, o.axes or self.axes)
  regions.legend(self.rows, io.stdout)
end

-- outputDir/name.csv, once name is checked to be a plain file name
function M.csv_path(name)
  if type(name) ~= "string" or not name:match("^[%w_.-]+$") then
    util.fail("csv name '" .. tostring(name) .. "' must use letters, digits and _.- only")
  end
  return outdir() .. "/" .. name .. ".csv"
end

-- csv(name) writes outputDir/name.csv
function Results:csv(name, o)
  o = o or {}
  if o.bounds ~= false then self:bounds() end
  return format.csv(self.rows, M.csv_path(name), o.axes or self.axes)
end

-- A row of the JSON document's points.
local function json_point_of(r)
  return { point = r.point, kernel = r.desc and r.desc.workloads and r.desc.workloads[1].kernel, flags = r.desc and r.desc.flags,
    machine = r.machine, nodeType = r.nodeType ~= "" and r.nodeType or nil, workingSet = r.workingSet,
    time = r.time, gbs = r.gbs, gflops = r.gflops, intensity = r.intensity, flops = r.flops, bytes = r.bytes,
    counts = r.counts, runs = r.runs, spread = r.spread, threads = r.threads, cacheMode = r.cacheMode,
    level = r.level, bound = r.bound, limiter = r.limiter, ceiling = r.ceiling, traffic = r.boundFamily,
    bytesWritten = r.bytesWritten, fraction = r.fraction, aboveBound = r.above,
    boundUnstable = r.boundUnstable == true,
    failed = r.failed, source = format.source(r) }
end

-- A row of the JSON document's points (an application's rows add their keys: region_keys).
local function json_point(r)
  local p = json_point_of(r)
  if r.region then
    regions.keys.json(r, p)
    p.counters, p.notCounted = r.counters, r.notCounted
  end
  return p
end

-- The JSON document's description of its own fields: units, and what version 2 adds.
M.json_version = 2
local UNITS = { time = "s", timeBound = "s", gbs = "GB/s", gflops = "GFLOP/s", bound = "GFLOP/s", intensity = "flop/B",
  workingSet = "B", flops = "flop per invocation", bytes = "B per invocation", bytesWritten = "B per invocation",
  spread = "fraction",
  fraction = "fraction of the bound", value = "the ceiling's unit", effective = "B", reported = "B", triadGBs = "GB/s",
  clock_GHz = "GHz" }
regions.keys.json({}, {}, UNITS) -- an application's rows' units

-- The ceilings of a results object as the JSON's "ceilings": every stored field of each.
local function json_ceilings(c)
  local out = {}
  local streams = c.streams or { triad = c.bandwidth }
  for _, list in ipairs({ c.compute or {}, streams.triad or {}, streams.read or {}, streams.write or {} }) do
    for _, x in ipairs(list) do
      local r = x.row or {}
      out[#out + 1] = { name = r.name or x.name or x.label, kind = r.kind, threads = r.threads, value = r.value or x.gbs or x.gflops,
        unit = r.unit, spread = r.spread or x.spread, unstable = r.unstable == true, rounds = r.rounds, median = r.median,
        kernel = r.kernel, isa = r.isa, pinning = type(r.pinning) == "table" and r.pinning or nil,
        sizes = r.sizes, clock_GHz = r.clock, date = r.date }
    end
  end
  return out
end

--[[ json(name) writes outputDir/name.json: the points, the ceilings and the machine in one
  document shaped like the Empirical Roofline Toolkit's roofline.json ("empirical": {"gbytes":
  {"data": [[level, GB/s], ...]}, "gflops": {"data": [[name, GFLOP/s], ...]}, "metadata"}, "spec"),
  so tools that read ERT's ceilings read rot's; rot's own points, levels and ceilings (with
  their spreads and how each was obtained) are under "rot", with its version and units. ]]
function Results:json(name)
  self:bounds()
  local path = M.csv_path(name):gsub("%.csv$", ".json")
  local c = self.peaks or { compute = {}, bandwidth = {}, levels = {} }
  local gbytes, gflops, points, levels = {}, {}, {}, {}
  for _, b in ipairs(c.bandwidth or {}) do gbytes[#gbytes + 1] = { b.level, b.gbs } end
  for _, x in ipairs(c.compute or {}) do gflops[#gflops + 1] = { x.name or x.label, x.gflops } end
  for _, r in ipairs(self.rows) do points[#points + 1] = json_point(r) end
  for _, l in ipairs(c.levels or {}) do
    levels[#levels + 1] = { name = l.name, effective = l.effective, reported = l.reported, triadGBs = l.gbs,
      spread = l.spread, unstable = l.unstable == true }
  end
  local fp = machine.fingerprint(session.current().config)
  local doc = {
    empirical = {
      gbytes = { data = gbytes, metadata = { THREADS = c.threads, KERNEL = "triad", SOURCE = "rot measure peaks" } },
      gflops = { data = gflops, metadata = { THREADS = c.threads, SOURCE = "rot measure peaks" } },
      metadata = { ROT_MACHINE = machine.id(fp), CPU = fp.cpu, PUS = fp.pus, OPENMP_THREADS = c.threads },
    },
    spec = { gbytes = { data = {} }, gflops = { data = {} } },
    rot = { version = M.json_version, units = UNITS, points = points, levels = levels, machine = fp, axes = self.axes,
      ceilings = json_ceilings(c) },
  }
  local ok, err = sys.writefile(path, util.json(doc) .. "\n")
  if not ok then util.fail("cannot write '" .. path .. "': " .. err, "set -outputDir=DIR to a writable directory") end
  return path
end

local function max_threads(rows)
  local t = 1
  for _, r in ipairs(rows) do if r.threads and r.threads > t then t = r.threads end end
  return t
end

--[[ The measured ceilings for these rows (measuring the machine first if it never was): those
  of their highest thread count (what the plots draw), or, given threads, of that count (the
  stored count nearest to it: what a point measured with that many threads is bounded by). ]]
function Results:ceilings(precision, threads)
  self.prows = self.prows or self.peaks_rows()
  local rows = self.prows
  local t = peaks.nearest_threads(rows, threads or max_threads(self.rows))
  self.at = self.at or {}
  local key = (precision or "double") .. "/" .. t
  if not self.at[key] then self.at[key] = peaks.at(rows, t, precision) end
  if not threads then self.peaks = self.at[key] end
  return self.at[key]
end

-- The one note per run about points in the step from the last cache to DRAM that stored peaks
-- without a sweep (from an older rot, or written by hand) bound by the cache's ceiling.
local function note_unswept(rows, file)
  local s = session.current()
  if #rows == 0 or s.noted_unswept then return end
  s.noted_unswept = true
  local r = rows[1]
  io.stderr:write(string.format("rot: note: %s no bandwidth sweep: %d point%s in the step past the last cache's effective "
    .. "size and short of DRAM's flat tail (%s: %s) %s bounded by that cache's ceiling (%s), the most such a working set "
    .. "can see, not by what the sweep measured at %s working set; %s\n", file ~= "" and ("the peaks file '" .. file .. "' holds")
    or "this machine's stored peaks hold", #rows, #rows == 1 and "" or "s", r.level, util.bytes(r.workingSet),
    #rows == 1 and "is" or "are", r.ceiling, #rows == 1 and "its" or "each one's",
    file ~= "" and "rot measure peaks writes a peaks.csv with one" or "rot measure peaks stores one"))
end

-- Adds bound, limiter, fraction, time bound and its dominant term to every row; a point above
-- its bound beyond its spread and the ceiling's is marked (row.above) and, once per run, a
-- warning names the ceiling that is probably wrong and why.
function Results:bounds()
  local cpu = false -- GPU points have their own bounds (gpu_bounds): no CPU ceilings for them
  for _, r in ipairs(self.rows) do cpu = cpu or not (r.desc and r.desc.device == "gpu") end
  if not cpu then return self end
  self:ceilings() -- the plots' (the highest thread count's)
  local above, unswept = {}, {}
  for _, r in ipairs(self.rows) do
    local c = self:ceilings(nil, r.threads or 1) -- a point's own thread count's ceilings and levels
    local b = bounds.of(r, c, get("bestEpsilon"))
    if b then
      r.bound, r.limiter, r.fraction, r.timeBound, r.dominant, r.level = b.bound, b.limiter, b.fraction, b.time_bound,
        b.dominant, b.level
      r.ceiling, r.boundFamily, r.stepBound = b.ceiling, b.family, b.step
      r.above, r.boundUnstable = b.above, b.unstable
      if b.above then above[#above + 1] = r end
      if b.step_fallback then unswept[#unswept + 1] = r end
    end
  end
  local file = get("peaksFile")
  note_unswept(unswept, file)
  warn_above(above, "", function(worst)
    return bounds.why_above(worst, self:ceilings(nil, worst.threads or 1).levels, file ~= "" and file or nil)
  end)
  return self
end

-- gpu_bounds(ceilings): time bound and dominant term for every profiled GPU row (rot.gpu.bound);
-- ceilings = { double=, single=, half= (GFLOP/s), L1=, L2=, HBM= (GB/s) }, e.g. from gpu-peaks.
function Results:gpu_bounds(ceilings, spreads)
  local gpu = require "rot.gpu"
  local above = {}
  for _, r in ipairs(self.rows) do
    local b = r.gpu and gpu.bound(r.gpu, ceilings)
    if b then
      r.timeBound, r.dominant, r.fraction, r.limiter = b.time_bound, b.dominant, b.fraction, b.dominant
      r.above = b.fraction and bounds.above(b.fraction, r.spread, (spreads or {})[b.key], get("bestEpsilon"))
      r.boundKey = b.key
      if r.above then above[#above + 1] = r end
    end
  end
  warn_above(above, "GPU ", function(worst)
    return "the " .. worst.dominant .. " ceiling is too low: a kernel beats the one gpu-peaks measures it with"
  end)
  return self
end

-- The level a row's data live in ("L2", "L3-DRAM", "DRAM"; cold: DRAM): its bound's, else its
-- working set's at its thread count; nil for a row not measured or without a working set.
local function level_of(self, r)
  if not r.entry then return nil end -- not measured (failed, or only built): not drawn
  if r.level then return r.level end
  if not r.workingSet then return nil end
  local lv = self:ceilings(nil, r.threads or 1).levels
  if #lv == 0 then return nil end
  return bounds.level_name(r, r.cacheMode == "cold" and lv[#lv] or peaks.level_of(r.workingSet, lv))
end

-- A warning, once a run, for each series of plot o named after a memory level some of its
-- points' data are not in (rot.results.levelnames).
local function check_level_names(self, o)
  if not o.series then return end
  local maybe = false -- no series named like a level (the pipeline's fma, add, ...): no peaks asked for
  for _, r in ipairs(self.rows) do
    local name = r.entry and o.series(r)
    maybe = maybe or (type(name) == "string" and levelnames.might_name(name))
  end
  if not maybe then return end
  local names = {}
  for _, l in ipairs(self:ceilings().levels) do names[#names + 1] = l.name end
  if #names == 0 then return end
  local s = session.current()
  s.warned_names = s.warned_names or {}
  for _, m in ipairs(levelnames.misnamed(self.rows, o.series, function(r) return level_of(self, r) end, names)) do
    local w = levelnames.warning(o.name, m)
    if not s.warned_names[w] then s.warned_names[w] = true; io.stderr:write(w) end
  end
end

-- The options every plot of these rows gets: several machines side by side, point labels
-- checked, the output directory, gnuplot, PDF; extra on top. A plot of these rows (extra.rows
-- unset) has its series' names checked against the levels of their points.
local function plot_opts(self, o, extra)
  if not extra.rows then check_level_names(self, o) end
  local series = o.series
  if format.several_machines(self.rows) then -- several machines (Slurm node types): side by side, one series each
    series = function(r) return (o.series and (o.series(r) .. " @ ") or "") .. (format.machine_of(r) or "?") end
  end
  if o.labels ~= nil and not ({ auto = true, all = true, ends = true, none = true })[o.labels] then
    util.fail("bad labels '" .. tostring(o.labels) .. "' for plot '" .. tostring(o.name) .. "': auto, all, ends or none")
  end
  local opts = { rows = self.rows, name = o.name, title = o.title, series = series, label = o.label, labels = o.labels,
    dir = outdir(), gnuplot = get("gnuplot"), pdf = o.pdf or get("pdf") }
  for k, v in pairs(extra) do opts[k] = v end
  return opts
end

-- roofline{name=, title=, series=fn, label=fn, compute=, bandwidth=, pdf=} writes name.svg,
-- name.png (+ .dat, .gp); ceilings: the machine's measured peaks unless given (triad's
-- bandwidth ceilings, and the read or write ones where a read- or write-only kernel is shown)
function Results:roofline(o)
  local compute, bandwidth = o.compute, o.bandwidth
  if not compute or not bandwidth then
    local c_shown, b_shown = peaks.shown(self:ceilings(), bounds.families(self.rows))
    compute, bandwidth = compute or c_shown, bandwidth or b_shown
  end
  local extra = { compute = compute, bandwidth = bandwidth }
  for _, r in ipairs(self.rows) do
    if r.region then -- an application's regions: a point each, its area its share of the time
      extra.size = o.size or function(x) return x.share end
      extra.label = o.label or function(x) return x.region end
      break
    end
  end
  return timed("plot", plot.roofline, plot_opts(self, o, extra))
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
  return timed("plot", plot.roofline, plot_opts(self, o, {
    rows = dots, title = o.title or "hierarchical GPU roofline",
    series = function(d) return d.level end, label = function(d) return d.label end,
    compute = o.compute or {}, bandwidth = o.bandwidth or {} }))
end

--[[ The step from the last cache to DRAM's flat tail as the peaks' sweep measured it, for the
  staircase of rows: the sweep of their traffic (read or write where every row has it and the
  peaks that sweep, else triad's) at c's thread count, from the size swept before the cache's
  effective size to the first of DRAM's tail; nil where there is no step or no sweep. ]]
local function step_curve(c, rows)
  local lv = c.levels
  local last = lv[#lv - 1]
  if not (last and last.upto and c.sweep) then return nil end
  local family
  for _, r in ipairs(rows) do
    if r.entry then
      local f = bounds.traffic(r) or "triad"
      if family and f ~= family then family = "triad" else family = f end
    end
  end
  family = c.sweep[family or "triad"] and family or "triad"
  local points = {}
  for _, x in ipairs(sweep.between(c.sweep[family], last.size, last.upto)) do points[#points + 1] = { x = x.ws, y = x.gbs } end
  if #points < 2 then return nil end
  return { label = string.format("%s-DRAM step: peaks' %s sweep, %s", last.name, family,
    require("rot.machine.bandwidth").threads(c.threads)), points = points }
end

-- staircase{name=, title=, series=, step=}: bandwidth against working set, the memory levels
-- marked (effective sizes, and reported ones where they differ by more than a factor of two),
-- and the step from the last cache to DRAM as the peaks' sweep measured it (not with step = false)
function Results:staircase(o)
  local vlines, c = {}, self:ceilings()
  local curve = o.step ~= false and step_curve(c, self.rows)
  for _, l in ipairs(c.levels) do
    if l.size then
      vlines[#vlines + 1] = { x = l.size, label = l.name .. " " .. util.bytes(l.size) .. (l.effective and " (effective)" or "") }
      if l.effective and l.reported and (l.reported > 2 * l.effective or l.reported < l.effective / 2) then
        vlines[#vlines + 1] = { x = l.reported, label = l.name .. " " .. util.bytes(l.reported) .. " (reported)" }
      end
    end
  end
  return timed("plot", plot.xy, plot_opts(self, o, {
    x = function(r) return r.workingSet end, y = function(r) return r.gbs end, logx = true, xbytes = true,
    xlabel = "working set", ylabel = "bandwidth [GB/s] (" .. "declared bytes / time)", vlines = vlines,
    curves = curve and { curve } or nil }))
end

-- xy{name=, x=fn, y=fn, xlabel=, ylabel=, logx=, logy=, series=, label=}: any two quantities
function Results:xy(o)
  return timed("plot", plot.xy, plot_opts(self, o, { x = o.x, y = o.y, xlabel = o.xlabel, ylabel = o.ylabel,
    logx = o.logx, logy = o.logy, vlines = o.vlines, xbytes = o.xbytes, labels = o.labels }))
end

return M
