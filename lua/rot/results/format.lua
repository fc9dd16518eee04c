-- rot.results.format: rows presented: the terminal table (columns by name, counters, notes),
-- the CSV file of every quantity, and a model's records as a table and a CSV.
local sys = require "rot.sys"
local util = require "rot.util"
local region_keys = require "rot.results.region_keys"
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
    return string.format("%.2f%%%s", r.spread * 100, r.converged == false and "!" or "") -- (nil: not judged, a failed point)
  end, function(r) return r.spread end },
  counts = { "counts", function(r) return r.counts or "-" end, function(r) return r.counts end },
  ["m/d"] = { "measured/declared", function(r)
    local parts = {}
    if r.flopsRatio then parts[#parts + 1] = string.format("flops %.3f", r.flopsRatio) end
    if r.bytesRatio then parts[#parts + 1] = string.format("bytes %.3f", r.bytesRatio) end
    return #parts > 0 and table.concat(parts, " ") or "-"
  end, function(r) return r.flopsRatio or r.bytesRatio end },
  threads = { "threads", function(r) return r.threads and tostring(r.threads) or "-" end, function(r) return r.threads end },
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
  source = { "from", function(r) local v = M.source(r); return v == "failed" and "FAILED" or v end, function(r) return M.source(r) end },
}
for title, col in pairs(region_keys.columns()) do M.columns[title] = col end
M.default_columns = { "size", "time", "GB/s", "GFLOP/s", "intensity", "bound", "limiter", "fraction", "runs", "spread",
  "mode", "counts", "source" }
-- an application's rows (its program and regions; the region is a coordinate)
M.app_columns = { "calls", "in threads", "time", "per call", "best call", "share", "GB/s", "GFLOP/s", "intensity", "bound",
  "limiter", "fraction", "runs", "spread", "counts", "source" }

-- Where a row's values came from: "planned" (rot build: built, not run), "failed", "cache" or
-- "measured" (the table, CSV and JSON say the same).
function M.source(r)
  return r.planned and "planned" or r.failed and "failed" or r.cached and "cache" or "measured"
end

--[[ The lines under a table that explain its marks, for the rows that have them: above(r) for
  "^" (above its bound), unstable(r) for "(unstable)" in the limiter (rot.compare's table too);
  why: where the reason for a "^" is said (default: the warning above the table). ]]
function M.legend(rows, out, above, unstable, why)
  local a, u = false, false
  for _, r in ipairs(rows) do a, u = a or above(r), u or unstable(r) end
  if a then out:write("^ above its bound by more than its spread and the ceiling's: the wrong ceiling (", why or "the warning above says why",
    "), or a ceiling or the declared counts are wrong\n") end
  if u then
    out:write("(unstable) the ceiling bounding the point still varies by more than 5% over its rounds, or (DRAM) its "
      .. "sizes showed no flat tail: its bound is uncertain\n")
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
  M.legend(rows, out, function(r) return shown[M.columns.fraction] and r.above end,
    function(r) return shown[M.columns.limiter] and r.boundUnstable end)
  for _, r in ipairs(rows) do
    if r.multiplexed then
      out:write("* counters were multiplexed: values are scaled by time enabled / time running\n")
      break
    end
  end
end

local function csv_field(v)
  if v == nil then return "" end
  if type(v) == "number" then
    return math.type(v) == "integer" and tostring(v) or string.format("%.9g", v)
  end
  local s = tostring(v)
  if s:find('[,"\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

local function write_lines(path, lines)
  local ok, err = sys.writefile(path, table.concat(lines, "\n") .. "\n")
  if not ok then util.fail("cannot write '" .. path .. "': " .. err, "set -outputDir=DIR to a writable directory") end
  return path
end

-- CSV with the axes first, then every quantity, then one column per counter; written atomically.
function M.csv(rows, path, axes)
  local function kernels(r)
    if not r.desc then return nil end
    if r.desc.app then return nil end -- an application's: its program column
    local k = {}
    for _, w in ipairs(r.desc.workloads) do k[#k + 1] = w.kernel end
    return table.concat(k, "+")
  end
  local cols = {
    { "workingSet_bytes", function(r) return r.workingSet end },
    { "time_s", function(r) return r.time end },
    { "bandwidth_GBs", function(r) return r.gbs end },
    { "performance_GFLOPs", function(r) return r.gflops end },
    { "intensity_flop_per_byte", function(r) return r.intensity end },
    { "flops", function(r) return r.flops end },
    { "bytes", function(r) return r.bytes end },
    { "counts", function(r) return r.counts end },
    { "flops_declared", function(r) return r.flopsDeclared end },
    { "bytes_declared", function(r) return r.bytesDeclared end },
    { "bytes_written_declared", function(r) return r.bytesWritten end },
    { "flops_measured_over_declared", function(r) return r.flopsRatio end },
    { "bytes_measured_over_declared", function(r) return r.bytesRatio end },
    { "runs", function(r) return r.runs end },
    { "disturbed_runs", function(r) return r.disturbed end },
    { "spread", function(r) return r.spread end },
    { "converged", function(r) return r.converged == nil and "" or (r.converged and 1 or 0) end },
    { "threads", function(r) return r.threads end },
    { "cache_mode", function(r) return r.cacheMode end },
    { "timer_overhead_ns", function(r) return r.timerOverheadNs end },
    { "bound_GFLOPs", function(r) return r.bound end },
    { "bound_GBs", bound_gbs },
    { "limiter", function(r) return r.limiter end },
    { "bound_unstable", function(r) return r.fraction and (r.boundUnstable and 1 or 0) or nil end },
    { "fraction_of_bound", function(r) return r.fraction end },
    { "above_bound", function(r) return r.fraction and (r.above and 1 or 0) or nil end },
    { "level", function(r) return r.level end },
    { "time_bound_s", function(r) return r.timeBound end },
    { "time_bound_dominant", function(r) return r.dominant end },
    { "source", function(r) return M.source(r) end },
    { "kernel", kernels },
    { "flags", function(r) return r.desc and r.desc.flags end },
    { "machine", function(r) return r.machine end },
  }
  local seen, gpu = {}, {}
  for _, r in ipairs(rows) do
    if r.region and not seen.region then -- an application's rows: the keys they add
      seen.region = true
      for _, c in ipairs(region_keys.csv_columns()) do cols[#cols + 1] = c end
    end
    if r.nodeType and r.nodeType ~= "" and not seen["node_type"] then
      seen["node_type"] = true
      cols[#cols + 1] = { "node_type", function(row) return row.nodeType end }
    end
    for _, n in ipairs(r.counterNames or {}) do
      if not seen[n] then
        seen[n] = true
        local col = counter_column(n)
        cols[#cols + 1] = { "counter:" .. n, col[3] }
      end
    end
    for n in pairs(r.gpuMetrics or {}) do
      if not gpu[n] then gpu[n] = true; gpu[#gpu + 1] = n end
    end
  end
  if #gpu > 0 then -- GPU points: the device and every metric, so models can read the file back
    local function meta(k) return function(row) return row.entry and row.entry.meta[k] end end
    cols[#cols + 1] = { "gpu_name", meta("gpuName") }
    cols[#cols + 1] = { "gpu_sms", meta("gpuSMs") }
    cols[#cols + 1] = { "gpu_max_warps_per_sm", meta("gpuMaxWarpsPerSM") }
    table.sort(gpu)
    for _, n in ipairs(gpu) do
      cols[#cols + 1] = { "gpu:" .. n, function(row) return row.gpuMetrics and row.gpuMetrics[n] end }
    end
  end
  local taken = {} -- an axis named like a column (triad's "flags") keeps the name once
  for _, a in ipairs(axes or {}) do taken[a] = true end
  local kept = {}
  for _, c in ipairs(cols) do if not taken[c[1]] then kept[#kept + 1] = c; taken[c[1]] = true end end
  cols = kept
  local header = {}
  for _, a in ipairs(axes or {}) do header[#header + 1] = csv_field(a) end
  for _, c in ipairs(cols) do header[#header + 1] = csv_field(c[1]) end
  local lines = { table.concat(header, ",") }
  for _, r in ipairs(rows) do
    local f = {}
    for _, a in ipairs(axes or {}) do f[#f + 1] = csv_field(r.point and r.point[a]) end
    for _, c in ipairs(cols) do f[#f + 1] = csv_field(c[2](r)) end
    lines[#lines + 1] = table.concat(f, ",")
  end
  return write_lines(path, lines)
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
  local head = {}
  for j, c in ipairs(columns) do head[j] = csv_field(c[1]) end
  local lines = { table.concat(head, ",") }
  for _, r in ipairs(rows) do
    local f = {}
    for j, c in ipairs(columns) do f[j] = csv_field(cell(r, c)) end
    lines[#lines + 1] = table.concat(f, ",")
  end
  return write_lines(path, lines)
end

return M
