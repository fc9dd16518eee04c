-- rot.results.format: rows presented: the terminal table (columns by name, counters, notes),
-- the CSV file of every quantity, and a model's records as a table and a CSV.
local util = require "rot.util"
local csv = require "rot.csv"
local row = require "rot.results.row"
local isas = require "rot.machine.isa"
local bounds = require "rot.results.bounds"
local counted = require "rot.results.counted"
local gpuregions = require "rot.results.gpuregions"
local M = {}

local function fmt(v, f)
  if v == nil then return "-" end
  return string.format(f, v)
end

-- The bandwidth a point's time bound allows (its declared bytes over that time), GB/s: the
-- bound of a kernel without flops (copy), and of any kernel in a bandwidth table.
local function bound_gbs(r)
  return r.timeBound and r.timeBound > 0 and r.bytes and r.bytes > 0 and r.bytes / r.timeBound / 1e9 or nil
end

-- Column set: name -> {title, formatter for the table, value for the CSV}
M.columns = {
  size = { "size", function(r) return util.bytes(r.workingSet) end, function(r) return r.workingSet end },
  time = { "time", function(r) return util.seconds(r.time) end, function(r) return r.time end },
  ["GB/s"] = { "GB/s", function(r) return fmt(r.gbs, "%.2f") end, function(r) return r.gbs end },
  ["GFLOP/s"] = { "GFLOP/s", function(r) return fmt(r.gflops, "%.3f") end, function(r) return r.gflops end },
  intensity = { "flop/B", function(r) return fmt(r.intensity, "%.4g") end, function(r) return r.intensity end },
  runs = { "runs", function(r) return r.runs and tostring(r.runs) or "-" end, function(r) return r.runs end },
  spread = { "spread", function(r)
    if not r.spread then return "-" end
    -- (nil: not judged, a failed point)
    return string.format("%.2f%%%s", r.spread * 100, r.converged == false and "!" or "")
  end, function(r) return r.spread end },
  rounds = { "rounds", function(r) -- "4 ~x1.33": rounds that disagree, how far apart
    if not r.rounds then return "-" end
    return tostring(r.rounds) .. (r.roundsAgree == false and string.format(" ~x%.2f", r.roundsRatio) or "")
      .. (r.besideNeighbour and " busy" or "")
  end, function(r) return r.rounds end },
  counts = { "counts", function(r) return r.counts or "-" end, function(r) return r.counts end },
  ["m/d"] = { "measured/declared", function(r)
    local parts = {}
    if r.flopsRatio then parts[#parts + 1] = string.format("flops %.3f", r.flopsRatio) end
    if r.bytesRatio then parts[#parts + 1] = string.format("bytes %.3f", r.bytesRatio) end
    return #parts > 0 and table.concat(parts, " ") or "-"
  end, function(r) return r.flopsRatio or r.bytesRatio end },
  threads = { "threads", function(r) return r.threads and tostring(r.threads) or "-" end,
    function(r) return r.threads end },
  mode = { "caches", function(r) return r.cacheMode or "-" end, function(r) return r.cacheMode end },
  disturbed = { "disturbed", function(r) return r.disturbed and tostring(r.disturbed) or "-" end,
    function(r) return r.disturbed end },
  bound = { "bound GFLOP/s", function(r) -- a kernel without flops: its bound in GB/s, said so
    if r.bound then return string.format("%.3g", r.bound) end
    return r.fraction and bound_gbs(r) and string.format("%.3g GB/s", bound_gbs(r)) or "-"
  end, function(r) return r.bound end },
  ["bound GB/s"] = { "bound GB/s", function(r) return fmt(bound_gbs(r), "%.4g") end, bound_gbs },
  limiter = { "limiter", function(r) return r.limiter or "-" end, function(r) return r.limiter end },
  fraction = { "of bound", function(r)
    return r.fraction and string.format("%.0f%%%s", r.fraction * 100, r.above and "^" or "") or "-"
  end, function(r) return r.fraction end },
  source = { "from", function(r) local v = M.source(r); return v == "failed" and "FAILED" or v end,
    function(r) return M.source(r) end },
}
-- an application's rows (rot.results.regions)
local function show(f) return function(v) return v and string.format(f, v) or "-" end end
local function pct(v) return v and string.format("%.1f%%", v * 100) or "-" end
for _, c in ipairs({ { "region", "region", tostring }, { "calls", "calls", show("%d") },
  { "in threads", "markedThreads", show("%d") }, { "per call", "timePerCall", function(v) return util.seconds(v) end },
  { "best call", "bestCall", function(v) return util.seconds(v) end }, { "share", "share", pct },
  { "busy", "busyThreads", show("%.2f") } }) do
  local key = row.field(c[2]).key
  M.columns[c[1]] = { c[1], function(r) return c[3](r[key]) end, function(r) return r[key] end }
end
-- a region one thread entered, in a program of more: it takes all its threads' work ("1 (all 2)")
M.columns["in threads"][2] = function(r)
  if r.regionRule == "process" and (r.programThreads or 1) > 1 then
    return string.format("%d (all %d)", r.markedThreads, r.programThreads)
  end
  return show("%d")(r.markedThreads)
end
for name, c in pairs(counted.columns) do M.columns[name] = c end -- what the counting pass counted
for name, c in pairs(gpuregions.columns) do M.columns[name] = c end -- what a CUDA metrics pass profiled
M.default_columns = { "size", "time", "GB/s", "GFLOP/s", "intensity", "bound", "limiter", "fraction", "runs", "rounds",
  "spread", "mode", "counts", "source" }
-- an application's rows (its program and regions; the region is a coordinate)
M.app_columns = { "calls", "in threads", "time", "per call", "best call", "share", "GB/s", "GFLOP/s",
  "intensity", "bound",
  "limiter", "fraction", "runs", "spread", "counts", "source" }

-- The line under a table with points whose best round ran beside a neighbour ("busy").
M.BUSY_NOTE = "busy: its best round ran beside a busy neighbour (CPU time outside rot, or its threads waiting for a "
  .. "CPU: neighbour_cpus and queue_wait in the CSV); its value may be low. It was measured in "
    .. "more rounds, and the next "
  .. "run measures it again (-remeasureUnstable=false keeps it)"

-- The line under a table with points whose rounds disagree ("~" in its rounds column).
M.ROUNDS_NOTE = "~xR its rounds disagree, its best ones more than roundsEpsilon apart: the slowest took R times the "
  .. "best's time; the value is the best round. "
  .. "One whose rounds come from one run of rot is measured again by the next (-remeasureUnstable=false keeps it), "
  .. "one whose rounds come from two is kept"

-- Where a row's values came from in this run: "planned" (rot build: built, not run), "failed",
-- "cache" or "measured" (the table's `from`).
function M.source(r)
  return r.planned and "planned" or r.failed and "failed" or r.cached and "cache" or "measured"
end

--[[ How a row's values were had, as the files (CSV, JSON, the plots' hover text) say it:
  "planned", "failed" or "measured", whether this run measured them or took them from the
  cache; so a rerun from the cache writes the same files, and the table and the summary say
  what this run took from the cache. ]]
function M.origin(r)
  return r.planned and "planned" or r.failed and "failed" or "measured"
end

--[[ The lines under a table that explain its marks, for the rows that have them: above(r) for
  "^" (above its bound), unstable(r) for "(unstable)" in the limiter (rot.compare's table too);
  why: where the reason for a "^" is said (default: the warning above the table). ]]
function M.legend(rows, out, above, unstable, why)
  local a, u = false, false
  for _, r in ipairs(rows) do a, u = a or above(r), u or unstable(r) end
  if a then out:write("^ above its bound by more than its spread and the ceiling's: the wrong ceiling (", why
    or "the warning above says why",
    "), or a ceiling or the declared counts are wrong\n") end
  if u then
    out:write("(unstable) the ceiling bounding the point still varies by more than 5% over its rounds, or (DRAM) its "
      .. "sizes showed no flat tail: its bound is uncertain\n")
  end
end

--[[ A line per bandwidth ceiling bounding rows that code other than the widest vectors reached
  (rot.peaks.widths: the faster of two codes from the last cache up), so that a user reading
  "-O3 -march=native" points below it knows why. ]]
function M.code_legend(rows, out)
  local said, widest = {}, isas.codes[1].flags
  for _, r in ipairs(rows) do
    local t = bounds.threads(r)
    if r.boundCode and r.boundCode ~= widest and r.ceiling and not said[t .. r.ceiling] then
      said[t .. r.ceiling] = true
      out:write(string.format("%s, %d %s: the ceiling's best round came from code built with %s, not from the widest "
        .. "vectors (%s; peaks.csv's isa): a point of other code may stay below it\n", r.ceiling, t,
          util.plural(t, "thread"),
        r.boundCode, widest))
    end
  end
end

-- The default columns (an application's when a row is one of its regions), plus
-- measured/declared and the counters when rows have them.
local function defaults(rows)
  local cols, seen, app = {}, {}, false
  for _, r in ipairs(rows) do app = app or r.region ~= nil end
  for _, c in ipairs(app and M.app_columns or M.default_columns) do cols[#cols + 1] = c end
  local measured = false
  for _, r in ipairs(rows) do
    measured = measured or r.flopsRatio ~= nil or r.bytesRatio ~= nil
    for _, n in ipairs(r.counterNames or {}) do
      if not seen[n] then seen[n] = true; table.insert(cols, #cols, n) end
    end
  end
  if measured then table.insert(cols, #cols, "m/d") end
  if counted.any(rows) then -- counted rows: counted/declared and the simulated traffic
    table.insert(cols, #cols, "counted")
    table.insert(cols, #cols, "traffic")
  end
  if gpuregions.any(rows) then -- a CUDA program's regions: flops by precision, bytes per level
    table.insert(cols, #cols, "GPU flops")
    table.insert(cols, #cols, "GPU bytes")
  end
  return cols
end

-- A counter's column: its count per invocation, "not counted" where it did not count (a
-- region's: never shown as 0).
local function counter_column(name)
  local function missing(r) return r.notCounted and r.notCounted[name] and "not counted" or nil end
  return { name, function(r)
    local v = r.counters and r.counters[name]
    return v and string.format("%.4g", v) or missing(r) or "-"
  end, function(r) return r.counters and r.counters[name] or missing(r) end }
end

-- The machine a row was measured on, as tables and plots name it: its Slurm node type, else
-- its machine id (nil for a row that has neither).
function M.machine_of(r)
  return r.nodeType and r.nodeType ~= "" and r.nodeType or r.machine
end

-- Whether rows come from more than one machine (Slurm node types).
function M.several_machines(rows)
  local first
  for _, r in ipairs(rows or {}) do
    local m = M.machine_of(r)
    if m and first and m ~= first then return true end
    first = first or m
  end
  return false
end

local function resolve(columns, axes, rows)
  local out = {}
  if M.several_machines(rows) then -- say which machine each row is from
    out[#out + 1] = { "machine", function(r) return M.machine_of(r) or "-" end, function(r) return r.machine end }
  end
  for _, c in ipairs(axes or {}) do
    out[#out + 1] = { c, function(r)
      local v = r.point and r.point[c]
      return v == nil and "-" or tostring(v)
    end, function(r) return r.point and r.point[c] end }
  end
  local counters = {}
  for _, r in ipairs(rows or {}) do
    for _, n in ipairs(r.counterNames or {}) do counters[n] = true end
  end
  for _, c in ipairs(columns or defaults(rows or {})) do
    if type(c) == "table" then
      out[#out + 1] = c
    elseif counters[c] then
      out[#out + 1] = counter_column(c)
    else
      local col = M.columns[c]
      if not col then
        local names = util.sorted_keys(M.columns)
        util.fail("unknown column '" .. tostring(c) .. "'" .. util.did_you_mean(tostring(c), names))
      end
      out[#out + 1] = col
    end
  end
  return out
end

-- Prints rows of cells aligned under their titles (first column left, the rest right).
local function aligned(titles, cells, out)
  local width = {}
  for j, t in ipairs(titles) do width[j] = #t end
  for _, row in ipairs(cells) do
    for j, v in ipairs(row) do if #v > width[j] then width[j] = #v end end
  end
  local function line(vals)
    local parts = {}
    for j, v in ipairs(vals) do -- padded by hand: string.format takes no width over 99
      local pad = string.rep(" ", width[j] - #v)
      parts[j] = j == 1 and (v .. pad) or (pad .. v)
    end
    out:write(table.concat(parts, "  "), "\n")
  end
  line(titles)
  for _, row in ipairs(cells) do line(row) end
end

function M.table(rows, columns, axes, out)
  out = out or io.stdout
  local cols = resolve(columns, axes, rows)
  local cells, titles = {}, {}
  for j, c in ipairs(cols) do titles[j] = c[1] end
  for i, r in ipairs(rows) do
    cells[i] = {}
    for j, c in ipairs(cols) do cells[i][j] = c[2](r) end
  end
  aligned(titles, cells, out)
  local shown, note = {}, false -- a mark's line only under a table that shows the column it is in
  for _, c in ipairs(cols) do shown[c] = true end
  for _, r in ipairs(rows) do if r.converged == false then note = shown[M.columns.spread] end end
  if note then out:write("! best-k did not converge: the k fastest runs spread more than bestEpsilon\n") end
  for _, r in ipairs(rows) do
    if shown[M.columns.rounds] and r.roundsAgree == false then
      out:write(M.ROUNDS_NOTE, "\n")
      break
    end
  end
  for _, r in ipairs(rows) do
    if shown[M.columns.rounds] and r.besideNeighbour then
      out:write(M.BUSY_NOTE, "\n")
      break
    end
  end
  M.legend(rows, out, function(r) return shown[M.columns.fraction] and r.above end,
    function(r) return shown[M.columns.limiter] and r.boundUnstable end)
  if shown[M.columns.limiter] then M.code_legend(rows, out) end
  for _, r in ipairs(rows) do
    if r.multiplexed then
      out:write("* counters were multiplexed: values are scaled by time enabled / time running\n")
      break
    end
  end
end

-- The kernels of a row's point, "+"-joined (none for an application's: its program column).
local function kernels(r)
  if not r.desc or r.desc.app then return nil end
  local k = {}
  for _, w in ipairs(r.desc.workloads) do k[#k + 1] = w.kernel end
  return table.concat(k, "+")
end

local function from_meta(key) return function(r) return r.entry and r.entry.meta[key] end end

-- The CSV's values of the fields that are not a row's field as it stands (by key).
local CSV_VALUE = {
  converged = function(r) return r.converged == nil and "" or (r.converged and 1 or 0) end,
  roundsAgree = function(r) return r.roundsAgree == nil and "" or (r.roundsAgree and 1 or 0) end,
  besideNeighbour = function(r) return r.besideNeighbour == nil and "" or (r.besideNeighbour and 1 or 0) end,
  boundGbs = bound_gbs,
  boundUnstable = function(r) return r.fraction and (r.boundUnstable and 1 or 0) or nil end,
  above = function(r) return r.fraction and (r.above and 1 or 0) or nil end,
  source = function(r) return M.origin(r) end,
  kernel = kernels,
  flags = function(r) return r.desc and r.desc.flags end,
  gpuName = from_meta("gpuName"), gpuSMs = from_meta("gpuSMs"), gpuMaxWarpsPerSM = from_meta("gpuMaxWarpsPerSM"),
}

--[[ The CSV's columns, in order: every row field with a CSV column (rot.results.row, declared in
  core/vocabulary.h), {name=, group=, value(row)}; a family (counter:%s, gpu:%s) as {family=,
  field=}: one column per name the rows have. ]]
M.CSV = {}
for _, f in ipairs(row.fields) do
  if f.csv and f.csv:find("%%s") then
    M.CSV[#M.CSV + 1] = { family = f.csv, field = f.key, group = f.group }
  elseif f.csv then
    M.CSV[#M.CSV + 1] = { name = f.csv, group = f.group, value = CSV_VALUE[f.key] or function(r) return r[f.key] end }
  end
end

-- The groups of CSV columns rows have (an application's region, a Slurm node type, GPU metrics),
-- and the names of their counters and GPU metrics: counters in the order the rows have them,
-- metrics sorted.
local function csv_groups(rows)
  local counts = { "flopsClasses", "flopsFma", "flopsAdd", "traffic", "trafficWritten", "boundTerms", "gpuFlops",
    "gpuBytes", "gpuIntensity" } -- sorted below
  local has, names, seen = {}, { counters = {}, gpuMetrics = {} }, {}
  for _, f in ipairs(counts) do names[f] = {} end
  for _, r in ipairs(rows) do
    has.app = has.app or r.region ~= nil
    has.node = has.node or (r.nodeType ~= nil and r.nodeType ~= "")
    has.count = has.count or counted.has(r) or r.countFailed ~= nil
    has.cuda = has.cuda or r.gpuRegion ~= nil
    for _, f in ipairs(counts) do -- the counting pass's
      for n in pairs(r[f] or {}) do
        if not seen[f .. ":" .. n] then seen[f .. ":" .. n] = true; table.insert(names[f], n) end
      end
    end
    for _, n in ipairs(r.counterNames or {}) do
      if not seen["c:" .. n] then seen["c:" .. n] = true; table.insert(names.counters, n) end
    end
    for n in pairs(r.gpuMetrics or {}) do
      if not seen["g:" .. n] then seen["g:" .. n] = true; has.gpu = true; table.insert(names.gpuMetrics, n) end
    end
  end
  table.sort(names.gpuMetrics)
  for _, f in ipairs(counts) do table.sort(names[f]) end
  return has, names
end

-- A family's columns for its names: counter:NAME (as the table shows it), gpu:NAME.
local function family_columns(c, names, out)
  for _, n in ipairs(names[c.field]) do
    local value = c.field == "counters" and counter_column(n)[3]
      or function(r) return r[c.field] and r[c.field][n] end
    out[#out + 1] = { name = c.family:format(n), value = value }
  end
end

-- CSV with the axes first, then every quantity (M.CSV), then one column per counter and GPU
-- metric; written atomically.
function M.csv(rows, path, axes)
  local has, names = csv_groups(rows)
  local all, cols, taken = {}, {}, {}
  for _, c in ipairs(M.CSV) do
    if c.group == nil or has[c.group] then
      if c.family then family_columns(c, names, all) else all[#all + 1] = c end
    end
  end
  -- an axis named like a column (triad's "flags") keeps the name once
  for _, a in ipairs(axes or {}) do taken[a] = true end
  for _, c in ipairs(all) do
    if not taken[c.name] then cols[#cols + 1] = c; taken[c.name] = true end
  end
  local header, records = {}, {}
  for _, a in ipairs(axes or {}) do header[#header + 1] = a end
  for _, c in ipairs(cols) do header[#header + 1] = c.name end
  for i, r in ipairs(rows) do
    local f, n = {}, 0
    for _, a in ipairs(axes or {}) do n = n + 1; f[n] = r.point and r.point[a] end
    for _, c in ipairs(cols) do n = n + 1; f[n] = c.value(r) end
    records[i] = f
  end
  return util.write_output(path, csv.text(header, records))
end

--[[ A model's records: columns = { {title, key or function(row), format (optional)}, ... }.
  records(rows, columns, out) prints them aligned; records_csv(rows, columns, path) writes them
  (numbers in full, atomically). ]]
local function cell(row, c)
  if type(c[2]) == "function" then return c[2](row) end
  return row[c[2]]
end

function M.records(rows, columns, out)
  local titles, cells = {}, {}
  for j, c in ipairs(columns) do titles[j] = c[1] end
  for i, r in ipairs(rows) do
    cells[i] = {}
    for j, c in ipairs(columns) do
      local v = cell(r, c)
      cells[i][j] = v == nil and "-" or type(v) == "number" and string.format(c[3] or "%.4g", v) or tostring(v)
    end
  end
  aligned(titles, cells, out or io.stdout)
end

function M.records_csv(rows, columns, path)
  local head, records = {}, {}
  for j, c in ipairs(columns) do head[j] = c[1] end
  for i, r in ipairs(rows) do
    records[i] = {}
    for j, c in ipairs(columns) do records[i][j] = cell(r, c) end
  end
  return util.write_output(path, csv.text(head, records))
end

return M
