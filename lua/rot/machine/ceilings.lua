-- rot.machine.ceilings: the machine's stored ceilings (peaks.csv, one file per machine identity):
-- where they are kept, their columns written and read, and what bounds and rooflines look up in
-- them: the levels at a thread count, a working set's level, the ceilings of a roofline.
local sys = require "rot.sys"
local util = require "rot.util"
local csv = require "rot.csv"
local machine = require "rot.machine"
local sweep = require "rot.machine.sweep"

local M = {}

-- The version of how levels and ceilings are read from the measurements, part of the stored
-- file's name (M.path): raised whenever that reading changes, so peaks stored under another
-- version are analysed again (their points come from the cache). What each version changed is
-- in the commits that raised it.
M.analysis = 14

-- Where the machine's peaks are stored: one file per machine identity and analysis version
-- (version 1: no suffix).
function M.path(cache_dir, fp, quick, analysis)
  analysis = analysis or M.analysis
  return cache_dir .. "/machines/" .. machine.id(fp) .. (analysis > 1 and ".a" .. analysis or "")
    .. (quick and "-quick" or "")
    .. ".csv"
end

-- Where this run stores this machine's peaks (this analysis version; stored_path: the newest one
-- stored): its cache directory, the quick setting.
function M.current_path(rot)
  return M.path(rot.get("cacheDir"), machine.fingerprint(rot.config), rot.get("quick"))
end

-- The newest analysis version this machine's peaks are stored by, or nil.
function M.newest(cache_dir, fp, quick)
  for v = M.analysis, 1, -1 do
    if sys.stat(M.path(cache_dir, fp, quick, v)) then return v end
  end
end

-- The stored file that readers which never measure use (a run's record, the plausibility
-- check): the newest analysis's, an older one's until peaks are measured again.
function M.stored_path(cache_dir, fp, quick)
  return M.path(cache_dir, fp, quick, M.newest(cache_dir, fp, quick))
end

-- The peaks file a session's bounds read (s: a session, or anything with its get and config):
-- the key peaksFile, else this machine's stored one (M.stored_path).
function M.file(s)
  local given = s:get("peaksFile")
  return given ~= "" and given or M.stored_path(s:get("cacheDir"), machine.fingerprint(s.config), s:get("quick"))
end

--[[ peaks.csv: one ceiling a row. name, kind (compute, bandwidth, latency, or size for
  L2_effective, L2_reported, DRAM_from in bytes, or sweep for a size the bandwidth sweeps
  measured: triad_sweep, read_sweep, write_sweep, its best round), threads, value, unit, spread (how far below
  the best the third best round lay; with one round, how far above the value its samples
  reached), then how the value was obtained: unstable (1: its rounds still disagree by more
  than 5%), rounds, median (of the rounds' values), kernel, isa (class or flags), pinning
  (CPUs, ';'-separated), sizes (working sets in bytes, ';'-separated; a sweep row's one size), clock_GHz (for a
  compute ceiling the clock its units ran at, the higher of the readings just before and after
  its best round: an FMA chain of its width for AVX2 and AVX-512, the imul and scalar FMA
  chains for the others, rot.peaks.clocks; for the others the highest imul reading of the
  run), date (UTC: when the points of its best round were measured, as their cache entries say;
  empty where they were measured by a rot that did not record it). Files with the first six
  columns only (older ones, or written by hand) are read as well. ]]
M.columns = { "name", "kind", "threads", "value", "unit", "spread", "unstable", "rounds", "median", "kernel", "isa",
  "pinning", "sizes", "clock_GHz", "date" }

-- A row's field c in peaks.csv (rot.csv writes it in full): a size in whole bytes, a list
-- ';'-separated.
local function cell(r, c)
  if c == "value" and r.kind == "size" then return math.floor(r.value + 0.5) end
  local v = r[c == "clock_GHz" and "clock" or c]
  if type(v) == "table" then return table.concat(v, ";") end
  return v
end

function M.write_csv(path, rows)
  local records = {}
  for i, r in ipairs(rows) do
    records[i] = {}
    for j, c in ipairs(M.columns) do records[i][j] = cell(r, c) end
  end
  local ok, err = sys.writefile(path, csv.text(M.columns, records))
  if not ok then util.fail("cannot write '" .. path .. "': " .. err) end
end

-- The rows of the peaks.csv at path (nil when it holds none or is not there). A file read
-- before with the same text is not parsed again (a cached rerun reads its peaks four times):
-- each call gets rows of its own (shallow copies: a row's fields may be set, its sizes list is
-- shared and read only); with shared, the rows parsed, for a caller that only reads them.
local parsed = {}
local row_of
function M.read_csv(path, shared)
  local text = sys.readfile(path)
  if not text then return nil end
  local p = parsed[path]
  if not (p and p.text == text) then
    p = { text = text, rows = M.parse_csv(text) }
    parsed[path] = p
  end
  if not p.rows or shared then return p.rows end
  local out = {}
  for i, r in ipairs(p.rows) do
    out[i] = row_of(r.name, r.kind, r.threads, r.value, r.unit, r.spread, r.unstable, r.rounds, r.median,
      r.kernel, r.isa, r.pinning, r.sizes, r.clock, r.date)
  end
  return out
end

-- A row of peaks.csv: its fields, made at once (a row a constructor: no table grown field by field).
function row_of(name, kind, threads, value, unit, spread, unstable, rounds, median, kernel, isa, pinning,
  sizes, clock, date)
  return { name = name, kind = kind, threads = threads, value = value, unit = unit, spread = spread,
    unstable = unstable, rounds = rounds, median = median, kernel = kernel, isa = isa, pinning = pinning,
    sizes = sizes, clock = clock, date = date }
end

-- One row of peaks.csv from its fields (nil when it is no ceiling).
local function parse_row(f)
  local threads, value = math.tointeger(tonumber(f[3])), tonumber(f[4])
  if not (f[1] and f[1] ~= "" and f[2] and threads and value and f[5]) then return nil end
  local sizes
  if f[13] and f[13] ~= "" then
    sizes = {}
    for x in f[13]:gmatch("[^;]+") do sizes[#sizes + 1] = tonumber(x) end
  end
  return row_of(f[1], f[2], threads, value, f[5], tonumber(f[6]), f[7] == "1" or nil, math.tointeger(tonumber(f[8])),
    tonumber(f[9]), f[10] ~= "" and f[10] or nil, f[11] ~= "" and f[11] or nil,
    f[12] and f[12] ~= "" and f[12]:gsub(";", ",") or nil, sizes, tonumber(f[14]), f[15] ~= "" and f[15] or nil)
end

-- The rows of peaks.csv text (six columns, or the fifteen with provenance; lines that begin
-- with # are comments); nil when it holds none.
function M.parse_csv(text)
  local rows = {}
  if text:find("#", 1, true) then text = text:gsub("%f[^\n%z]#[^\n]*", "") end -- (a scan: only where one may be)
  for _, f in ipairs(csv.parse(text) or {}) do
    local r = #f >= 5 and (#f <= 6 or #f == #M.columns) and parse_row(f)
    if r then rows[#rows + 1] = r end
  end
  return #rows > 0 and rows or nil
end

-- A level name's place in the hierarchy: L1 < L2 < L3 < L3+ < L3++ < L4 (nil for DRAM or
-- any other name).
function M.rank(name)
  local n, plus = tostring(name):match("^L(%d+)(%+*)$")
  return n and tonumber(n) + #plus / 100 or nil
end

--[[ The memory levels at a thread count: { {name="L1", size=bytes, reported=bytes, gbs=, spread=,
  unstable=}, ..., {name="DRAM", gbs=, spread=, unstable=, from=bytes} }. size is the effective
  size measured by `rot measure peaks` (where bandwidth drops); peaks without sizes (older
  files, or written by hand) use the sizes this machine reports. A level without a size is
  left out. DRAM's `from` is where its flat tail begins. ]]
function M.levels(rows, threads)
  local sizes, reported, bw, names, seen, from = {}, {}, {}, {}, {}, nil
  for _, r in ipairs(rows) do
    if r.threads == threads then
      local lvl, what = r.name:match("^(L%d+%+*)_(%a+)$")
      if r.kind == "size" and r.name == "DRAM_from" then
        from = r.value
      elseif r.kind == "size" and lvl then
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
  table.sort(names, function(a, b) return M.rank(a) < M.rank(b) end)
  local out = {}
  for _, n in ipairs(names) do
    local size = sizes[n] or reported[n]
    if size then
      out[#out + 1] = { name = n, size = size, reported = reported[n], effective = sizes[n],
        gbs = bw[n] and bw[n].value, spread = bw[n] and bw[n].spread, unstable = bw[n] and bw[n].unstable }
    end
  end
  -- between the last cache's effective size and DRAM's flat tail: the step, folded into that
  -- cache (never called DRAM): the sweep measured there bounds those working sets
  -- (rot.results.bounds), the cache's ceiling where the peaks hold no sweep
  if from and out[#out] and out[#out].size < from then out[#out].upto = from end
  out[#out + 1] = { name = "DRAM", gbs = bw.DRAM and bw.DRAM.value, spread = bw.DRAM and bw.DRAM.spread,
    unstable = bw.DRAM and bw.DRAM.unstable, from = from }
  return out
end

-- The level a working set lives in: the smallest whose size holds it (the last cache also
-- what lies between its effective size and where DRAM's flat tail begins), else DRAM.
function M.level_of(ws, lv)
  for _, l in ipairs(lv) do
    if l.size and (ws <= l.size or (l.upto and ws < l.upto)) then return l end
  end
  return lv[#lv]
end

-- Ceilings for a roofline at a thread count: compute = {{label=, gflops=, name=, spread=,
-- unstable=, row=}}, bandwidth = {{label=, gbs=, level=, family=, spread=, unstable=, row=}} of
-- one bandwidth kernel (family: "triad", the default, "read" or "write"); row: the peaks.csv
-- row, with how the value was obtained.
function M.ceilings(rows, threads, precision, family)
  precision, family = precision or "double", family or "triad"
  local flop_roofs, byte_roofs, prefix = {}, {}, "^" .. family .. "_"
  for _, r in ipairs(rows) do
    if r.threads == threads and r.kind == "compute" and r.name:match("^" .. precision .. "_") then
      flop_roofs[#flop_roofs + 1] = { label = (r.name:gsub("_", " ")), gflops = r.value,
        name = r.name, spread = r.spread,
        unstable = r.unstable, row = r }
    elseif r.threads == threads and r.kind == "bandwidth" and r.name:match(prefix) then
      local level = r.name:gsub(prefix, "")
      byte_roofs[#byte_roofs + 1] = { label = level .. " " .. family, gbs = r.value, level = level, family = family,
        spread = r.spread, unstable = r.unstable, row = r }
    end
  end
  table.sort(flop_roofs, function(a, b) return a.gflops > b.gflops end)
  return flop_roofs, byte_roofs
end

--[[ Everything a point's bound needs at a thread count: {compute= (precision's, best first),
  ops= (every compute ceiling by name, both precisions: a counted mix's roofs, as ceilings'
  compute entries), bandwidth= (triad's), streams = {triad=, read=, write=} (each as ceilings'
  bandwidth; empty where the peaks have none), levels=, sweep= (rot.machine.sweep.stored: nil
  where the peaks hold no sweep), threads=}. ]]
function M.for_threads(rows, threads, precision)
  local flop_roofs, byte_roofs = M.ceilings(rows, threads, precision)
  local streams, ops = { triad = byte_roofs }, {}
  for _, family in ipairs({ "read", "write" }) do
    streams[family] = select(2, M.ceilings(rows, threads, precision, family))
  end
  for _, prec in ipairs({ "double", "float" }) do
    for _, x in ipairs((M.ceilings(rows, threads, prec))) do ops[x.name] = x end
  end
  return { compute = flop_roofs, ops = ops, bandwidth = byte_roofs, streams = streams, levels = M.levels(rows, threads),
    sweep = sweep.stored(rows, threads), threads = threads }
end

--[[ The ceilings a roofline draws from c (M.for_threads): the best compute ceiling of each ISA class,
  plus scalar add (not avx128's FMA nor any add-and-multiply mix: the counted mix's roofs,
  drawn where they bound a point); triad's bandwidth ceilings, and those of the families in
  `families` (a set: {read=true}) that bound some of its points. ]]
function M.shown(c, families)
  local flop_roofs, seen = {}, {}
  for _, x in ipairs(c.compute) do
    local isa = x.name:match("^%a+_(%w+)_")
    local mix = isa == "avx128" or x.name:match("_addmul$") -- (rot.results.placed's)
    if not mix and (not seen[isa] or x.name:match("scalar_add")) then
      seen[isa] = true
      flop_roofs[#flop_roofs + 1] = x
    end
  end
  local byte_roofs = {}
  for _, family in ipairs({ "triad", "read", "write" }) do
    if family == "triad" or (families or {})[family] then
      for _, b in ipairs(c.streams and c.streams[family] or family == "triad" and c.bandwidth or {}) do
        byte_roofs[#byte_roofs + 1] = b
      end
    end
  end
  return flop_roofs, byte_roofs
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

return M
