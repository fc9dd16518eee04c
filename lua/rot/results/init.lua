-- rot.results: the results object a measurement returns: its rows with their bounds against
-- the machine's ceilings, and what a script makes of them (table, CSV, JSON, plots).
local util = require "rot.util"
local session = require "rot.session"
local ceilings = require "rot.machine.ceilings"
local bounds = require "rot.results.bounds"
local format = require "rot.results.format"
local json = require "rot.results.json"
local levelnames = require "rot.results.seriesnames"
local drawn = require "rot.results.backdrop"
local regions = require "rot.results.regions"
local counted = require "rot.results.counted"
local placed = require "rot.results.placed"
local gpuregions = require "rot.results.gpuregions"
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
  if #above == 0 or not s:once("warned above") then return end
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
  io.stderr:write(string.format("rot: warning: %d %s%s above %s bound beyond the spread (up to "
    .. "%.0f%%, marked ^%s); %s\n",
    #above, what, util.plural(#above, "point is", "points are"), util.plural(#above, "its",
      "their"), worst.fraction * 100,
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
    local e = r.entry or r.partial -- (a failed application point's: what its invocations completed)
    local m = e and e.meta
    if m and m.cpuModel then
      -- an application's: what a pair of its markers costs it instead of the timer's overhead
      local cost = regions.pair_cost(self.rows) or ("timer overhead " .. tostring(m.timerOverheadNs) .. " ns")
      io.stdout:write(string.format("# measured on %s, kernel %s, governor %s, %s kHz, load %s, %s\n",
        m.cpuModel, tostring(m.kernelVersion), tostring(m.governor), tostring(m.cpuKHzBefore),
        tostring(m.loadavg):match("^(%S+ %S+ %S+)") or "?", cost))
      break
    end
  end
  format.table(self.rows, o.columns, o.axes or self.axes)
  regions.legend(self.rows, io.stdout)
  counted.legend(self.rows, io.stdout)
  placed.legend(self.rows, io.stdout)
  gpuregions.legend(self.rows, io.stdout)
  counted.hint(self.rows, io.stdout)
  if session.current():get("showOutput") then regions.outputs(self.rows, io.stdout) end
end

--[[ The name of an output a script does not name: the running measurement's (rot.name()), so
  that a copy of a shipped script (mytriad.lua) writes its own outputs, never the original's.
  suffix: added to it (a second plot: "-bandwidth"). ]]
function M.default_name(suffix)
  local name = session.current().script
  if not name then
    util.fail("this output needs a name: a script run with `rot run` has no measurement name",
      "name it: results:csv(\"mine\")")
  end
  return (name:gsub("[^%w_.-]", "_")) .. (suffix or "")
end

-- outputDir/name.csv, once name is checked to be a plain file name
function M.csv_path(name)
  if type(name) ~= "string" or not name:match("^[%w_.-]+$") then
    util.fail("csv name '" .. tostring(name) .. "' must use letters, digits and _.- only")
  end
  return outdir() .. "/" .. name .. ".csv"
end

-- csv(name) writes outputDir/name.csv (name: the running measurement's when not given)
function Results:csv(name, o)
  o = o or {}
  name = name or M.default_name()
  if o.bounds ~= false then self:bounds() end
  return format.csv(self.rows, M.csv_path(name), o.axes or self.axes)
end

-- json(name) writes outputDir/name.json (rot.results.json: the document).
function Results:json(name)
  name = name or M.default_name()
  self:bounds()
  local path = M.csv_path(name):gsub("%.csv$", ".json")
  return util.write_output(path, util.json(json.document(self)) .. "\n")
end

--[[ The highest thread count whose ceilings bound the rows a roofline draws (those with an
  intensity: a marked region's, the threads that entered it, not the program's -threads), of
  all rows where none has one. ]]
local function max_threads(rows)
  local t, drawn = nil, 1
  for _, r in ipairs(rows) do
    local n = bounds.threads(r)
    if r.intensity and not bounds.gpu(r) then t = math.max(t or 1, n) end
    drawn = math.max(drawn, n, r.threads or 1)
  end
  return t or drawn
end

-- The thread count of the stored peaks nearest to threads (ceilings.nearest_threads), once a
-- count: every row asks for its own.
function Results:nearest(threads)
  self.prows = self.prows or self.peaks_rows()
  self.nearest_at = self.nearest_at or {}
  local t = self.nearest_at[threads]
  if not t then
    t = ceilings.nearest_threads(self.prows, threads)
    self.nearest_at[threads] = t
  end
  return t
end

--[[ The measured ceilings for these rows (measuring the machine first if it never was): those
  of the highest thread count their points are bounded by (what the plots draw), or, given
  threads, of that count (the stored count nearest to it: what a point measured with that many
  threads is bounded by). ]]
function Results:ceilings(precision, threads)
  local t = self:nearest(threads or max_threads(self.rows))
  local rows = self.prows
  self.at = self.at or {}
  local key = (precision or "double") .. "/" .. t
  if not self.at[key] then self.at[key] = ceilings.for_threads(rows, t, precision) end
  if not threads then self.peaks = self.at[key] end
  return self.at[key]
end

-- The one note per run about points in the step from the last cache to DRAM that stored peaks
-- without a sweep (from an older rot, or written by hand) bound by the cache's ceiling.
local function note_unswept(rows, file)
  local s = session.current()
  if #rows == 0 or not s:once("noted unswept") then return end
  local r = rows[1]
  io.stderr:write(string.format("rot: note: %s no bandwidth sweep: %d %s in the step past the last cache's effective "
    .. "size and short of DRAM's flat tail (%s: %s) %s bounded by that cache's ceiling (%s), the "
      .. "most such a working set "
    .. "can see, not by what the sweep measured at %s working set; %s\n", file ~= "" and ("the peaks file '"
      .. file .. "' holds")
    or "this machine's stored peaks hold", #rows, util.plural(#rows, "point"), r.level, util.bytes(r.workingSet),
    util.plural(#rows, "is", "are"), r.ceiling, util.plural(#rows, "its", "each one's"),
    file ~= "" and "rot measure peaks writes a peaks.csv with one" or "rot measure peaks stores one"))
end

--[[ The stored gpu-peaks ceilings (rot.gpu.ceilings') of the GPU a CUDA program's region ran on,
  by its name, read once; nil and why where none are stored (none are measured here: a CUDA
  program's regions are then placed, not bounded). ]]
function Results:gpu_stored(r)
  local name = gpuregions.gpu_name(r)
  self.gpu_stored_of = self.gpu_stored_of or {}
  local got = self.gpu_stored_of[name or ""]
  if got == nil then
    local rows = name and ceilings.read_csv(require("rot.gpu").machine_file(get("cacheDir"), name, "gpu"))
    got = rows and #rows > 0 and require("rot.gpu").ceilings(rows, {}) or false
    self.gpu_stored_of[name or ""] = got
  end
  if got then return got end
  return nil, "no gpu-peaks stored for " .. (name and ("GPU '" .. name .. "'") or "its GPU")
    .. ": its metrics are placed, not bounded (rot measure gpu-peaks stores them)"
end

-- Adds bound, limiter, fraction, time bound and its dominant term to every row; a point above
-- its bound beyond its spread and the ceiling's is marked (row.above) and, once per run, a
-- warning names the ceiling that is probably wrong and why. A CUDA program's regions are
-- placed against its GPU's stored ceilings (rot.results.gpuregions).
function Results:bounds()
  local gabove = gpuregions.bound(self.rows, function(r) return self:gpu_stored(r) end, get("bestEpsilon"))
  warn_above(gabove, "GPU ", function(worst)
    return "the " .. worst.dominant .. " ceiling is too low: a region beats the one gpu-peaks measures it with"
  end)
  -- GPU points have their own bounds (gpu_bounds): no CPU ceilings for them
  if not bounds.any_cpu(self.rows) then return self end
  self:ceilings() -- the plots' (the highest thread count's)
  local above, unswept = {}, {}
  for _, r in ipairs(self.rows) do
    local c = self:ceilings(nil, bounds.threads(r)) -- a point's own thread count's ceilings and levels
    local b, declared = placed.of(r, c, get("bestEpsilon")) -- a counted row's from its counts
    if b then
      r.bound, r.limiter, r.fraction, r.timeBound, r.dominant, r.level = b.bound, b.limiter, b.fraction, b.time_bound,
        b.dominant, b.level
      r.ceiling, r.boundFamily, r.stepBound = b.ceiling, b.family, b.step
      r.above, r.boundUnstable, r.sweptOver, r.boundCode = b.above, b.unstable, b.swept, b.code
      r.boundSource, r.boundTerms = b.terms and "counted" or "declared", b.terms
      r.boundNote = b.notes and #b.notes > 0 and table.concat(b.notes, "; ") or nil
      if declared then
        r.boundDeclared, r.limiterDeclared, r.fractionDeclared = declared.bound, declared.limiter, declared.fraction
      end
      if b.above then above[#above + 1] = r end
      if b.step_fallback then unswept[#unswept + 1] = r end
    end
  end
  counted.judge(self.rows) -- where counted flops and bytes disagree with the others, at the bounds' levels
  local file = get("peaksFile")
  note_unswept(unswept, file)
  warn_above(above, "", function(worst)
    local c = self:ceilings(nil, bounds.threads(worst))
    return bounds.why_above(worst, c.levels, file ~= "" and file or nil, self.rows, c)
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
  if bounds.gpu(r) then return nil end -- a GPU's levels are not the CPU's
  if r.level then return r.level end
  if not r.workingSet then return nil end
  local lv = self:ceilings(nil, bounds.threads(r)).levels
  if #lv == 0 then return nil end
  return bounds.level_name(r, r.cacheMode == "cold" and lv[#lv] or ceilings.level_of(r.workingSet, lv))
end

-- A warning, once a run, for each series of plot o named after a memory level some of its
-- points' data are not in (rot.results.seriesnames).
local function check_level_names(self, o)
  if not o.series then return end
  -- no CPU row with a series named like a level (the pipeline's fma, add, ...; a GPU's "global
  -- load (L1)", whose L1 is the GPU's): no CPU peaks asked for
  local maybe = false
  for _, r in ipairs(self.rows) do
    local name = r.entry and not bounds.gpu(r) and o.series(r)
    maybe = maybe or (type(name) == "string" and levelnames.might_name(name))
  end
  if not maybe then return end
  local names = {}
  for _, l in ipairs(self:ceilings().levels) do names[#names + 1] = l.name end
  if #names == 0 then return end
  local s = session.current()
  for _, m in ipairs(levelnames.misnamed(self.rows, o.series, function(r) return level_of(self, r) end, names)) do
    local w = levelnames.warning(o.name, m)
    if s:once(w) then io.stderr:write(w) end
  end
end

-- The options every plot of these rows gets: several machines side by side, point labels
-- checked, the output directory, gnuplot, PDF; extra on top. A plot of these rows (extra.rows
-- unset) has its series' names checked against the levels of their points.
local function plot_opts(self, o, extra)
  -- (a copy: o stays the script's)
  if not o.name then o = setmetatable({ name = M.default_name() }, { __index = o }) end
  if not extra.rows then check_level_names(self, o) end
  local series = o.series
  if format.several_machines(self.rows) then -- several machines (Slurm node types): side by side, one series each
    series = function(r) return (o.series and (o.series(r) .. " @ ") or "") .. (format.machine_of(r) or "?") end
  end
  if o.labels ~= nil and not ({ auto = true, all = true, ends = true, none = true })[o.labels] then
    util.fail("bad labels '" .. tostring(o.labels) .. "' for plot '" .. tostring(o.name) .. "': auto, all, ends or none"
      .. (extra.levels and " (or levels, on a roofline)" or ""))
  end
  local opts = { rows = self.rows, name = o.name, title = o.title, series = series, label = o.label, labels = o.labels,
    label_once = o.label_once, dir = outdir(), gnuplot = get("gnuplot"), pdf = o.pdf or get("pdf"),
    memo = get("cacheDir") .. "/plots" }
  for k, v in pairs(extra) do opts[k] = v end
  return opts
end

--[[ The point labels of labels = "levels": each point by the level its data live in (level_of:
  "L1", "L3-DRAM", "DRAM"); plot.roofline labels a series' points of one level once (label_once:
  the first of them with room). ]]
local function level_labels(self)
  return function(r) return level_of(self, r) or "" end
end

-- roofline{name=, title=, series=fn, label=fn, labels=, compute=, bandwidth=, pdf=} writes
-- name.svg, name.png (+ .dat, .gp); ceilings: the machine's measured peaks unless given (triad's
-- bandwidth ceilings, and the read or write ones where a read- or write-only kernel is shown),
-- of the highest thread count (rot.results.backdrop's own_bounds says so where points have another);
-- labels = "levels": each series' points labelled by level, once a level (level_labels)
function Results:roofline(o)
  if gpuregions.profiled(self.rows) then -- a CUDA program's regions: the hierarchical GPU roofline
    self:bounds()
    local c, b = gpuregions.roofline_ceilings(self.rows, function(r) return self:gpu_stored(r) end)
    return self:gpu_roofline { name = o.name, title = o.title, compute = o.compute or c, bandwidth = o.bandwidth or b }
  end
  local compute, bandwidth = o.compute, o.bandwidth
  local extra = { levels = true }
  if o.labels == "levels" then
    o = util.copy(o)
    o.label, o.labels, o.label_once = level_labels(self), "auto", true
  end
  if not compute or not bandwidth then
    local c = self:ceilings()
    local c_shown, b_shown = ceilings.shown(c, bounds.families(self.rows))
    compute, bandwidth = compute or c_shown, bandwidth or b_shown
    drawn.own_bounds(self, c.threads, extra)
    drawn.asked_note(self, c.threads, extra)
  end
  extra.compute, extra.bandwidth = compute, bandwidth
  local roofs = drawn.counted_roofs(self, function(r)
    return r.region or (r.workingSet and util.bytes(r.workingSet)) or util.coords(r.point or {})
  end, compute[1] and compute[1].gflops) -- each counted point's limiter, named in the key
  if roofs then
    extra.own_roofs = extra.own_roofs or {}
    table.insert(extra.own_roofs, roofs)
  end
  local levels = counted.level_rows(self.rows) -- counted rows: a point per level besides (integrated roofline)
  if levels then
    extra.rows = {}
    for _, r in ipairs(self.rows) do -- a row whose point is its L1 point is drawn once, as that
      if not counted.is_l1_point(r) then extra.rows[#extra.rows + 1] = r end
    end
    table.move(levels, 1, #levels, #extra.rows + 1, extra.rows)
    o = setmetatable({ series = counted.level_series(o.series) }, { __index = o })
  end
  for _, r in ipairs(self.rows) do
    if r.region then -- an application's regions: a point each, its area its share of the time
      extra.size = o.size or function(x) return x.share end
      extra.label = o.label or function(x) return x.region .. (x.countLevel and (" " .. x.countLevel) or "") end
      extra.not_drawn = regions.not_drawn
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
            workingSet = r.workingSet, label = r.region or r.desc.workloads[1].kernel,
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

-- staircase{name=, title=, series=, step=}: bandwidth against working set, the memory levels
-- marked (effective sizes, and reported ones where they differ by more than a factor of two,
-- at each thread count of the points where they differ: rot.results.backdrop's size_marks),
-- and where the sweep falls between two levels as the peaks' sweep measured it, where points
-- lie (not with step = false)
function Results:staircase(o)
  local c = self:ceilings()
  local curves = o.step ~= false and drawn.step_curves(c, self.rows) or {}
  local vlines = drawn.size_marks(self, c)
  return timed("plot", plot.xy, plot_opts(self, o, {
    x = function(r) return r.workingSet end, y = function(r) return r.gbs end, logx = true, xbytes = true,
    xlabel = "working set", ylabel = "bandwidth [GB/s] (" .. "declared bytes / time)", vlines = vlines,
    curves = #curves > 0 and curves or nil }))
end

-- xy{name=, x=fn, y=fn, xlabel=, ylabel=, logx=, logy=, series=, label=}: any two quantities
function Results:xy(o)
  return timed("plot", plot.xy, plot_opts(self, o, { x = o.x, y = o.y, xlabel = o.xlabel, ylabel = o.ylabel,
    logx = o.logx, logy = o.logy, vlines = o.vlines, xbytes = o.xbytes, labels = o.labels }))
end

return M
