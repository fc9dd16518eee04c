-- rot.peaks: the machine's ceilings, measured: compute per precision and ISA class, bandwidth
-- per memory level found as plateaus of working-set sweeps; stored per CPU model and core count.
local sys = require "rot.sys"
local util = require "rot.util"
local machine = require "rot.machine"

local M = {}

-- ISA classes: vector lanes per precision, flags, the CPU flag they need, operations measured.
M.isa = {
  { name = "scalar", lanes = { double = 1, float = 1 }, flags = "-O2 -mfma", needs = "fma", ops = { "fma", "add" }, chains = 12 },
  { name = "sse", lanes = { double = 2, float = 4 }, flags = "-O2 -msse4.2 -mno-avx", needs = "sse2", ops = { "add" }, chains = 12 },
  { name = "avx2", lanes = { double = 4, float = 8 }, flags = "-O2 -mavx2 -mfma", needs = "avx2", ops = { "fma", "add" }, chains = 12 },
  { name = "avx512", lanes = { double = 8, float = 16 }, flags = "-O2 -mavx512f -mfma", needs = "avx512f", ops = { "fma", "add" }, chains = 24 },
}
M.opcode = { fma = 0, add = 1, mul = 2 }

-- Bandwidth kernels: read, write, triad (names as in peaks.csv).
M.streams = { { name = "read", kernel = "sum" }, { name = "write", kernel = "fill" }, { name = "triad", kernel = "triad" } }

-- Where the machine's peaks are stored: one file per CPU model and core count.
function M.key(info)
  info = info or machine.cpuinfo()
  return (info.model:gsub("[^%w]+", "_"):gsub("^_+", ""):gsub("_+$", "")) .. "-" .. info.cpus .. "cpus"
end

function M.path(cache_dir, info, quick)
  return cache_dir .. "/machines/" .. M.key(info) .. (quick and "-quick" or "") .. ".csv"
end

-- Thread counts to measure: 1 and all CPUs.
function M.thread_counts(info)
  info = info or machine.cpuinfo()
  return info.cpus > 1 and { 1, info.cpus } or { 1 }
end

-- Bandwidth levels from sysfs: { {name, lo, hi} } working-set ranges well inside each level.
function M.levels(caches)
  local out, prev = {}, nil
  for _, c in ipairs(caches) do
    out[#out + 1] = { name = c.name, lo = prev and 2 * prev or 0, hi = c.size / 2, size = c.size }
    prev = c.size
  end
  out[#out + 1] = { name = "DRAM", lo = 2 * (prev or 32 * 1024 * 1024), hi = math.huge }
  return out
end

local function median(v)
  table.sort(v)
  local n = #v
  if n == 0 then return nil end
  if n % 2 == 1 then return v[(n + 1) // 2] end
  return (v[n // 2] + v[n // 2 + 1]) / 2
end

--[[ Plateau of a bandwidth-versus-working-set sweep inside each level:
  samples = { {ws=bytes, gbs=GB/s}, ... }; levels from M.levels().
  The value of a level is the median bandwidth of the samples whose working set lies inside
  [lo, hi]; a level with no sample inside gets none (never a guess). ]]
function M.plateaus(samples, levels)
  local out = {}
  for _, l in ipairs(levels) do
    local inside = {}
    for _, s in ipairs(samples) do
      if s.ws >= l.lo and s.ws <= l.hi then inside[#inside + 1] = s.gbs end
    end
    out[#out + 1] = { name = l.name, gbs = median(inside), samples = #inside }
  end
  return out
end

-- Working-set sizes for the sweep: geometric from 4 KiB to 4x the last-level cache.
function M.sizes(caches, quick)
  local llc = #caches > 0 and caches[#caches].size or 32 * 1024 * 1024
  if quick then
    local out = {}
    for _, c in ipairs(caches) do out[#out + 1] = math.max(4096, c.size // 4) end
    out[#out + 1] = 4 * llc
    return out
  end
  local out, ws = {}, 4096
  while ws <= 4 * llc do
    out[#out + 1] = ws
    out[#out + 1] = ws * 3 // 2
    ws = ws * 2
  end
  return out
end

-- peaks.csv rows: {name=, kind=, threads=, value=, unit=}
function M.write_csv(path, rows)
  local lines = { "name,kind,threads,value,unit" }
  for _, r in ipairs(rows) do
    lines[#lines + 1] = string.format("%s,%s,%d,%.6g,%s", r.name, r.kind, r.threads, r.value, r.unit)
  end
  local ok, err = sys.writefile(path, table.concat(lines, "\n") .. "\n")
  if not ok then util.fail("cannot write '" .. path .. "': " .. err) end
end

function M.read_csv(path)
  local text = sys.readfile(path)
  return text and M.parse_csv(text)
end

-- The rows of peaks.csv text; nil when it holds none.
function M.parse_csv(text)
  local rows = {}
  for line in text:gmatch("[^\n]+") do
    local name, kind, threads, value, unit = line:match("^([^,]+),([^,]+),(%d+),([^,]+),([^,]+)$")
    if name and tonumber(value) then
      rows[#rows + 1] = { name = name, kind = kind, threads = math.tointeger(tonumber(threads)), value = tonumber(value), unit = unit }
    end
  end
  return #rows > 0 and rows or nil
end

--[[ Attainable bound of one point (lecture notes: P <= min(P_o, I * P_mB), and the time bound
  T >= max(N_o / P_o, N_B / P_B)). The bytes are those of the level the data lives in: the
  smallest cache that holds the working set in warm mode, DRAM in cold mode (or when nothing
  holds it). Returns {bound=GFLOP/s, limiter=, fraction=, time_bound=s, dominant=} or nil. ]]
function M.bound(row, compute, bandwidth, caches)
  if not (row.flops and row.bytes and row.time and row.time > 0) then return nil end
  local p_o = compute[1] and compute[1].gflops
  local level = "DRAM"
  if row.cacheMode ~= "cold" and row.workingSet then
    for _, c in ipairs(caches) do
      if row.workingSet <= c.size then level = c.name; break end
    end
  end
  local b
  for _, x in ipairs(bandwidth) do if x.level == level then b = x.gbs end end
  if not p_o and not b then return nil end
  local t_o = p_o and row.flops / (p_o * 1e9) or 0
  local t_b = (b and row.bytes > 0) and row.bytes / (b * 1e9) or 0
  local out = { time_bound = math.max(t_o, t_b) }
  if t_b > t_o then
    out.dominant, out.limiter = level .. " bandwidth", level .. " bw"
  else
    out.dominant, out.limiter = "compute", "compute"
  end
  if row.flops > 0 and out.time_bound > 0 then
    out.bound = row.flops / out.time_bound / 1e9
    out.fraction = row.gflops / out.bound
  elseif out.time_bound > 0 then
    out.fraction = out.time_bound / row.time -- no flops: the share of the bandwidth-bound time
  end
  return out
end

-- Ceilings for a roofline at a thread count: compute = {{label, gflops}}, bandwidth = {{label, gbs}}.
function M.ceilings(rows, threads, precision)
  precision = precision or "double"
  local compute, bandwidth = {}, {}
  for _, r in ipairs(rows) do
    if r.threads == threads and r.kind == "compute" and r.name:match("^" .. precision .. "_") then
      compute[#compute + 1] = { label = r.name:gsub("_", " ") .. " (measured)", gflops = r.value, name = r.name }
    elseif r.threads == threads and r.kind == "bandwidth" and r.name:match("^triad_") then
      bandwidth[#bandwidth + 1] = { label = r.name:gsub("^triad_", "") .. " bandwidth, triad (measured)", gbs = r.value,
        level = r.name:gsub("^triad_", "") }
    end
  end
  table.sort(compute, function(a, b) return a.gflops > b.gflops end)
  return compute, bandwidth
end

-- The thread count of the stored peaks nearest to (not above, where possible) t.
function M.nearest_threads(rows, t)
  local best
  for _, r in ipairs(rows) do
    if r.threads <= t and (not best or r.threads > best) then best = r.threads end
  end
  if not best then
    for _, r in ipairs(rows) do if not best or r.threads < best then best = r.threads end end
  end
  return best
end

--[[ Measures the peaks (the shipped peaks script's work, without its output). Returns the rows
  for peaks.csv and the bandwidth results (for the staircase plot). ]]
function M.measure(rot, quick)
  local info, caches = machine.cpuinfo(), machine.caches()
  local threads = M.thread_counts(info)
  local points, skipped = {}, {}
  for _, isa in ipairs(M.isa) do
    if info.flags[isa.needs] then
      for _, prec in ipairs({ "double", "float" }) do
        for _, op in ipairs(isa.ops) do
          for _, t in ipairs(threads) do points[#points + 1] = { isa = isa, prec = prec, op = op, threads = t } end
        end
      end
    else
      skipped[#skipped + 1] = isa.name .. " (the CPU has no " .. isa.needs .. ")"
    end
  end
  if #skipped > 0 then io.stderr:write("rot: peaks: skipping ", table.concat(skipped, ", "), "\n") end
  local function pins(t)
    local p = {}
    for i = 0, t - 1 do p[#p + 1] = i end
    return p
  end
  local idx = {}
  for i = 1, #points do idx[i] = i end
  local compute = rot.measure(rot.space { rot.axis("i", idx) }, function(p)
    local c = points[p.i]
    return { kernel = "peakflops", params = { n = quick and 20000 or 200000 }, threads = c.threads, pin = pins(c.threads),
      flags = c.isa.flags .. " -fno-tree-vectorize -fno-tree-slp-vectorize",
      macros = { PEAK_TYPE = c.prec, PEAK_LANES = c.isa.lanes[c.prec], PEAK_OP = M.opcode[c.op], PEAK_CHAINS = c.isa.chains } }
  end)
  local bw = rot.measure(rot.space { rot.axis("stream", { 1, 2, 3 }), rot.axis("threads", threads),
    rot.axis("ws", M.sizes(caches, quick)) }, function(p)
    local s = M.streams[p.stream]
    local arrays = s.kernel == "triad" and 3 or 1
    return { kernel = s.kernel, params = { n = math.max(64 * p.threads, p.ws // (8 * arrays)) }, threads = p.threads,
      pin = pins(p.threads), flags = "-O3 -march=native" }
  end)
  local out = {}
  for i, r in ipairs(compute.rows) do
    local c = points[i]
    if r.gflops then
      out[#out + 1] = { name = c.prec .. "_" .. c.isa.name .. "_" .. c.op, kind = "compute", threads = c.threads,
        value = r.gflops, unit = "GFLOP/s" }
    end
  end
  local levels = M.levels(caches)
  for si, s in ipairs(M.streams) do
    for _, t in ipairs(threads) do
      local samples = {}
      for _, r in ipairs(bw.rows) do
        if r.point.stream == si and r.point.threads == t and r.gbs then samples[#samples + 1] = { ws = r.workingSet, gbs = r.gbs } end
      end
      for _, l in ipairs(M.plateaus(samples, levels)) do
        if l.gbs then out[#out + 1] = { name = s.name .. "_" .. l.name, kind = "bandwidth", threads = t, value = l.gbs, unit = "GB/s" } end
      end
    end
  end
  return out, bw
end

-- The stored peaks of this machine; measured first (saying so) when there are none.
function M.get(rot)
  local given = rot.get("peaksFile")
  if given ~= "" then
    local rows = M.read_csv(given)
    if not rows then util.fail("cannot read peaks from '" .. given .. "'", "give a peaks.csv written by `rot measure peaks`") end
    return rows, given
  end
  local quick = rot.get("quick")
  local path = M.path(rot.get("cacheDir"), nil, quick)
  local rows = M.read_csv(path)
  if rows then return rows, path end
  io.stderr:write("rot: measuring this machine's peaks first (once; `rot measure peaks` redoes it)\n")
  rows = M.measure(rot, quick)
  sys.mkdir(rot.get("cacheDir") .. "/machines")
  M.write_csv(path, rows)
  return rows, path
end

return M
