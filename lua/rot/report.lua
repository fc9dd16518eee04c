-- rot.report: derived quantities of each measured point (time, bandwidth, performance,
-- intensity, spread) and their presentation as a terminal table and a CSV file.
local sys = require "rot.sys"
local util = require "rot.util"
local M = {}

-- Adds the quantities to a row from its raw run outputs and the kernel's declared counts.
function M.quantities(row, k)
  local e = row.entry
  if not e then return row end
  local times, ns, tsc = {}, 0, 0
  for i, r in ipairs(e.runs) do
    times[i] = r.ns / r.reps * 1e-9
    ns, tsc = ns + r.ns, tsc + (r.tsc or 0)
  end
  table.sort(times)
  local m = e.meta
  row.runs = #times
  row.time = times[1]
  local kk = math.min(k, #times)
  row.spread = times[1] > 0 and (times[kk] - times[1]) / times[1] or 0
  row.converged = m.converged == 1
  row.flops, row.bytes, row.workingSet = m.flops, m.bytes, m.workingSet
  row.counts = "declared" -- measured counts come from counters where a PMU is present
  row.gflops = row.flops / row.time / 1e9
  row.gbs = row.bytes / row.time / 1e9
  row.intensity = row.bytes > 0 and row.flops / row.bytes or nil
  row.tscHz = ns > 0 and tsc / ns * 1e9 or nil
  return row
end

local function fmt(v, f)
  if v == nil then return "-" end
  return string.format(f, v)
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
    return string.format("%.2f%%%s", r.spread * 100, r.converged and "" or "!")
  end, function(r) return r.spread end },
  counts = { "counts", function(r) return r.counts or "-" end, function(r) return r.counts end },
  source = { "from", function(r) return r.failed and "FAILED" or r.cached and "cache" or "measured" end,
    function(r) return r.failed and "failed" or r.cached and "cache" or "measured" end },
}
M.default_columns = { "size", "time", "GB/s", "GFLOP/s", "intensity", "runs", "spread", "counts", "source" }

local function resolve(columns, axes)
  local out = {}
  for _, c in ipairs(axes or {}) do
    out[#out + 1] = { c, function(r)
      local v = r.point and r.point[c]
      return v == nil and "-" or tostring(v)
    end, function(r) return r.point and r.point[c] end }
  end
  for _, c in ipairs(columns or M.default_columns) do
    if type(c) == "table" then
      out[#out + 1] = c
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

function M.table(rows, columns, axes, out)
  out = out or io.stdout
  local cols = resolve(columns, axes)
  local cells, width = {}, {}
  for j, c in ipairs(cols) do width[j] = #c[1] end
  for i, r in ipairs(rows) do
    cells[i] = {}
    for j, c in ipairs(cols) do
      local s = c[2](r)
      cells[i][j] = s
      if #s > width[j] then width[j] = #s end
    end
  end
  local function line(vals)
    local parts = {}
    for j, v in ipairs(vals) do
      parts[j] = (j == 1 and "%-" or "%") .. width[j] .. "s"
      parts[j] = string.format(parts[j], v)
    end
    out:write(table.concat(parts, "  "), "\n")
  end
  local titles = {}
  for j, c in ipairs(cols) do titles[j] = c[1] end
  line(titles)
  for _, row in ipairs(cells) do line(row) end
  local note = false
  for _, r in ipairs(rows) do if r.converged == false then note = true end end
  if note then out:write("! best-k did not converge: the k fastest runs spread more than bestEpsilon\n") end
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

-- CSV with the axes first, then every quantity; written atomically.
function M.csv(rows, path, axes)
  local names = { "workingSet_bytes", "time_s", "bandwidth_GBs", "performance_GFLOPs", "intensity_flop_per_byte",
    "flops", "bytes", "runs", "spread", "converged", "counts", "source", "kernel", "flags" }
  local get = {
    function(r) return r.workingSet end, function(r) return r.time end, function(r) return r.gbs end,
    function(r) return r.gflops end, function(r) return r.intensity end, function(r) return r.flops end,
    function(r) return r.bytes end, function(r) return r.runs end, function(r) return r.spread end,
    function(r) return r.converged == nil and "" or (r.converged and 1 or 0) end,
    function(r) return r.counts end,
    function(r) return r.failed and "failed" or r.cached and "cache" or "measured" end,
    function(r) return r.desc and r.desc.kernel end, function(r) return r.desc and r.desc.flags end,
  }
  local header = {}
  for _, a in ipairs(axes or {}) do header[#header + 1] = csv_field(a) end
  for _, n in ipairs(names) do header[#header + 1] = n end
  local lines = { table.concat(header, ",") }
  for _, r in ipairs(rows) do
    local f = {}
    for _, a in ipairs(axes or {}) do f[#f + 1] = csv_field(r.point and r.point[a]) end
    for _, g in ipairs(get) do f[#f + 1] = csv_field(g(r)) end
    lines[#lines + 1] = table.concat(f, ",")
  end
  local ok, err = sys.writefile(path, table.concat(lines, "\n") .. "\n")
  if not ok then util.fail("cannot write '" .. path .. "': " .. err,
    "set -outputDir=DIR to a writable directory") end
  return path
end

return M
