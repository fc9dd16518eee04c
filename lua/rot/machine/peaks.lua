-- rot.machine.peaks: the machine's ceilings, measured: compute per precision and ISA class; bandwidth
-- per memory level from working-set sweeps whose plateaus and breakpoints (rot.machine.levels) give each
-- level's bandwidth and effective size; stored per machine (rot.machine's identity).
local sys = require "rot.sys"
local util = require "rot.util"
local machine = require "rot.machine"
local levels = require "rot.machine.levels"

local M = {}

-- ISA classes: vector lanes per precision, flags, the CPU flag they need, operations measured.
M.isa = {
  { name = "scalar", lanes = { double = 1, float = 1 }, flags = "-O2 -mfma", needs = "fma", ops = { "fma", "add" }, chains = 12 },
  { name = "sse", lanes = { double = 2, float = 4 }, flags = "-O2 -msse4.2 -mno-avx", needs = "sse2", ops = { "add" }, chains = 12 },
  { name = "avx2", lanes = { double = 4, float = 8 }, flags = "-O2 -mavx2 -mfma", needs = "avx2", ops = { "fma", "add" }, chains = 12 },
  { name = "avx512", lanes = { double = 8, float = 16 }, flags = "-O2 -mavx512f -mfma", needs = "avx512f", ops = { "fma", "add" }, chains = 24 },
}
M.opcode = { fma = 0, add = 1, mul = 2 }

-- Bandwidth kernels: read, write, triad (names as in peaks.csv). Triad's staircase decides
-- where the levels are; the others are read off it.
M.streams = { { name = "read", kernel = "sum", arrays = 1 }, { name = "write", kernel = "fill", arrays = 1 },
  { name = "triad", kernel = "triad", arrays = 3 } }

-- Where the machine's peaks are stored: one file per machine identity.
function M.path(cache_dir, fp, quick)
  return cache_dir .. "/machines/" .. machine.id(fp) .. (quick and "-quick" or "") .. ".csv"
end

-- Thread counts to measure: 1 and all CPUs.
function M.thread_counts()
  local n = machine.cpuinfo().cpus
  return n > 1 and { 1, n } or { 1 }
end

local MiB = 1024 * 1024

--[[ How far the sweeps go first: 512 MiB (256 MiB quick), whatever the machine reports (it may
  report no cache, or a 508 MiB L3 that is really 32 MiB); they grow later while no DRAM
  plateau shows, never beyond a quarter of the memory. Returns the first target and that limit. ]]
function M.extent(quick)
  local topo = machine.topology()
  local cap = topo.memory > 0 and topo.memory // 4 or 4096 * MiB
  return math.min((quick and 256 or 512) * MiB, cap), cap
end

-- Working-set sizes for the sweep: geometric from 4 KiB up to top, two a factor of two (a
-- plateau needs three samples: one an octave is too few for an L3 on a noisy machine), in a
-- scrambled order (bit reversal), so that a disturbance lasting a few seconds scatters over the
-- staircase instead of drawing a plateau of its own.
function M.sizes(top)
  local out, ws = {}, 4096
  while ws <= top do
    out[#out + 1] = ws
    if ws * 3 // 2 <= top then out[#out + 1] = ws * 3 // 2 end
    ws = ws * 2
  end
  local bits = 0
  while (1 << bits) < #out do bits = bits + 1 end
  local order = {}
  for i = 0, (1 << bits) - 1 do
    local r = 0
    for b = 0, bits - 1 do if i & (1 << b) ~= 0 then r = r | (1 << (bits - 1 - b)) end end
    if r < #out then order[#order + 1] = out[r + 1] end
  end
  return order
end

-- peaks.csv rows: {name=, kind=, threads=, value=, unit=, spread=}. kind is compute,
-- bandwidth or size; spread says how far the samples behind a value reached above it.
function M.write_csv(path, rows)
  local lines = { "name,kind,threads,value,unit,spread" }
  for _, r in ipairs(rows) do
    lines[#lines + 1] = string.format("%s,%s,%d,%.6g,%s,%s", r.name, r.kind, r.threads, r.value, r.unit,
      r.spread and string.format("%.4g", r.spread) or "")
  end
  local ok, err = sys.writefile(path, table.concat(lines, "\n") .. "\n")
  if not ok then util.fail("cannot write '" .. path .. "': " .. err) end
end

function M.read_csv(path)
  local text = sys.readfile(path)
  return text and M.parse_csv(text)
end

-- The rows of peaks.csv text (with or without the spread column); nil when it holds none.
function M.parse_csv(text)
  local rows = {}
  for line in text:gmatch("[^\n]+") do
    local name, kind, threads, value, unit, rest = line:match("^([^,]+),([^,]+),(%d+),([^,]+),([^,]+)(.*)$")
    local spread = rest and tonumber(rest:match("^,([^,]*)$"))
    if name and tonumber(value) and (rest == "" or rest:match("^,[^,]*$")) then
      rows[#rows + 1] = { name = name, kind = kind, threads = math.tointeger(tonumber(threads)), value = tonumber(value),
        unit = unit, spread = spread }
    end
  end
  return #rows > 0 and rows or nil
end

--[[ The memory levels at a thread count: { {name="L1", size=bytes, reported=bytes, gbs=, spread=},
  ..., {name="DRAM", gbs=, spread=} }. size is the effective size measured by `rot measure
  peaks` (where bandwidth drops); peaks without sizes (older files, or written by hand) use
  the sizes this machine reports. A level without a size is left out. ]]
function M.levels(rows, threads)
  local sizes, reported, bw, names, seen = {}, {}, {}, {}, {}
  for _, r in ipairs(rows) do
    if r.threads == threads then
      local lvl, what = r.name:match("^(L%d+)_(%a+)$")
      if r.kind == "size" and lvl then
        if what == "effective" then sizes[lvl] = r.value elseif what == "reported" then reported[lvl] = r.value end
        if not seen[lvl] then seen[lvl] = true; names[#names + 1] = lvl end
      elseif r.kind == "bandwidth" and r.name:match("^triad_") then
        bw[r.name:sub(7)] = r
      end
    end
  end
  if #names == 0 then
    for _, c in ipairs(machine.reported(machine.pins(threads))) do
      names[#names + 1] = c.name
      reported[c.name] = c.size
    end
  end
  table.sort(names, function(a, b) return tonumber(a:sub(2)) < tonumber(b:sub(2)) end)
  local out = {}
  for _, n in ipairs(names) do
    local size = sizes[n] or reported[n]
    if size then
      out[#out + 1] = { name = n, size = size, reported = reported[n], effective = sizes[n],
        gbs = bw[n] and bw[n].value, spread = bw[n] and bw[n].spread }
    end
  end
  out[#out + 1] = { name = "DRAM", gbs = bw.DRAM and bw.DRAM.value, spread = bw.DRAM and bw.DRAM.spread }
  return out
end

-- The level a working set lives in: the smallest whose size holds it, else DRAM.
function M.level_of(ws, lv)
  for _, l in ipairs(lv) do
    if l.size and ws <= l.size then return l end
  end
  return lv[#lv]
end

-- Ceilings for a roofline at a thread count: compute = {{label, gflops}}, bandwidth = {{label, gbs}}.
function M.ceilings(rows, threads, precision)
  precision = precision or "double"
  local compute, bandwidth = {}, {}
  for _, r in ipairs(rows) do
    if r.threads == threads and r.kind == "compute" and r.name:match("^" .. precision .. "_") then
      compute[#compute + 1] = { label = (r.name:gsub("_", " ")), gflops = r.value, name = r.name, spread = r.spread }
    elseif r.threads == threads and r.kind == "bandwidth" and r.name:match("^triad_") then
      bandwidth[#bandwidth + 1] = { label = r.name:gsub("^triad_", "") .. " triad", gbs = r.value,
        level = r.name:gsub("^triad_", ""), spread = r.spread }
    end
  end
  table.sort(compute, function(a, b) return a.gflops > b.gflops end)
  return compute, bandwidth
end

-- The thread count of the stored peaks nearest to (not above, where possible) t.
function M.nearest_threads(rows, t)
  if #rows == 0 then return t end
  local best
  for _, r in ipairs(rows) do
    if r.threads <= t and (not best or r.threads > best) then best = r.threads end
  end
  if not best then
    for _, r in ipairs(rows) do if not best or r.threads < best then best = r.threads end end
  end
  return best
end

--[[ The levels of one thread count from the three sweeps: samples = {read=, write=, triad=}
  ({{ws=, gbs=}, ...} each), reported = the cache the t threads can use per level
  (rot.machine.reported). Triad's staircase decides where the levels are (the first stream
  with steps, if triad has none). Returns the peaks rows, the disagreement notes and the
  number of DRAM samples; or nil, reason. ]]
function M.levels_of(samples, t, reported)
  local ref, err, refname
  for _, si in ipairs({ 3, 2, 1 }) do
    ref, err = levels.detect(samples[M.streams[si].name] or {}, reported)
    if ref then refname = si; break end
  end
  if not ref then return nil, err end
  local out = {}
  for _, l in ipairs(ref) do
    if l.name ~= "DRAM" then
      if l.effective then out[#out + 1] = { name = l.name .. "_effective", kind = "size", threads = t, value = math.floor(l.effective), unit = "B" } end
      if l.reported then out[#out + 1] = { name = l.name .. "_reported", kind = "size", threads = t, value = l.reported, unit = "B" } end
    end
  end
  for si, s in ipairs(M.streams) do
    local v
    if si == refname then
      v = {}
      for _, l in ipairs(ref) do if l.gbs then v[l.name] = l end end
    else
      v = levels.values(samples[s.name] or {}, ref)
    end
    for _, l in ipairs(ref) do
      if v[l.name] then
        out[#out + 1] = { name = s.name .. "_" .. l.name, kind = "bandwidth", threads = t, value = v[l.name].gbs, unit = "GB/s",
          spread = v[l.name].spread }
      end
    end
  end
  return out, levels.disagreements(ref, t .. " thread" .. (t > 1 and "s" or "")), ref[#ref].n or 0
end

-- M.levels_of on the rows of the bandwidth sweeps of this machine, for t threads.
function M.analyse(rows, t)
  local samples = {}
  for si, s in ipairs(M.streams) do
    samples[s.name] = {}
    for _, r in ipairs(rows) do
      if r.point.stream == si and r.point.threads == t and r.gbs then
        table.insert(samples[s.name], { ws = r.workingSet, gbs = r.gbs })
      end
    end
  end
  return M.levels_of(samples, t, machine.reported(machine.pins(t)))
end

--[[ Measures the peaks (the shipped peaks script's work, without its output). Returns the rows
  for peaks.csv and the bandwidth results (for the staircase plot). The sweeps grow until
  triad shows a DRAM plateau (three samples beyond twice the last effective size, two in quick
  mode). ]]
function M.measure(rot, quick)
  local info = machine.cpuinfo()
  local threads = M.thread_counts()
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
  local idx = {}
  for i = 1, #points do idx[i] = i end
  local compute = rot.measure(rot.space { rot.axis("i", idx) }, function(p)
    local c = points[p.i]
    return { kernel = "peakflops", params = { n = quick and 20000 or 200000 }, threads = c.threads, pin = machine.pins(c.threads),
      flags = c.isa.flags .. " -fno-tree-vectorize -fno-tree-slp-vectorize",
      macros = { PEAK_TYPE = c.prec, PEAK_LANES = c.isa.lanes[c.prec], PEAK_OP = M.opcode[c.op], PEAK_CHAINS = c.isa.chains } }
  end)
  local function sweep(sizes)
    return rot.measure(rot.space { rot.axis("stream", { 1, 2, 3 }), rot.axis("threads", threads), rot.axis("ws", sizes) },
      function(p)
        local s = M.streams[p.stream]
        return { kernel = s.kernel, params = { n = math.max(64 * p.threads, p.ws // (8 * s.arrays)) }, threads = p.threads,
          pin = machine.pins(p.threads), flags = "-O3 -march=native" }
      end)
  end
  local top, cap = M.extent(quick)
  local done = {}
  local bw = sweep(M.sizes(top))
  for _, s in ipairs(M.sizes(top)) do done[s] = true end
  local out, notes = {}, {}
  for _ = 1, #bw:ok() > 0 and 4 or 0 do -- nothing measured (rot build, or every point failed): nothing to analyse
    local short = false
    out, notes = {}, {}
    for _, t in ipairs(threads) do
      local rows, n, dram = M.analyse(bw.rows, t)
      if not rows then
        notes[#notes + 1] = t .. " thread(s): " .. n
      else
        for _, r in ipairs(rows) do out[#out + 1] = r end
        for _, line in ipairs(n) do notes[#notes + 1] = line end
        short = short or dram < (quick and 2 or 3)
      end
    end
    if not short or top >= cap then break end
    top = math.min(2 * top, cap) -- no DRAM plateau yet: a larger last level than reported
    local more = {}
    for _, s in ipairs(M.sizes(top)) do if not done[s] then more[#more + 1] = s; done[s] = true end end
    if #more == 0 then break end
    for _, r in ipairs(sweep(more).rows) do bw.rows[#bw.rows + 1] = r end
  end
  if #notes > 0 then
    io.stderr:write("rot: peaks: reported and measured cache levels disagree (effective sizes are used): ",
      table.concat(notes, "; "), "\n")
  end
  local rows = {}
  for i, r in ipairs(compute.rows) do
    local c = points[i]
    if r.gflops then
      rows[#rows + 1] = { name = c.prec .. "_" .. c.isa.name .. "_" .. c.op, kind = "compute", threads = c.threads,
        value = r.gflops, unit = "GFLOP/s", spread = r.spread }
    end
  end
  for _, r in ipairs(out) do rows[#rows + 1] = r end
  return rows, bw
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
  local path = M.path(rot.get("cacheDir"), machine.fingerprint(rot.config), quick)
  local rows = M.read_csv(path)
  if rows then return rows, path end
  io.stderr:write("rot: measuring this machine's peaks first (once; `rot measure peaks` redoes it)\n")
  rows = M.measure(rot, quick)
  if #rows > 0 then -- not when nothing was measured (rot build)
    sys.mkdir(rot.get("cacheDir") .. "/machines")
    M.write_csv(path, rows)
  end
  return rows, path
end

return M
