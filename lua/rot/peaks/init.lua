-- rot.peaks: the machine's ceilings measured (`rot measure peaks`): compute per precision and ISA class,
-- bandwidth per memory level (rot.peaks.bandwidth), each with its spread and how it was
-- obtained; stored per machine (rot.machine's identity) as rot.machine.ceilings reads them.
local agreement = require "rot.machine.agreement"
local sys = require "rot.sys"
local util = require "rot.util"
local machine = require "rot.machine"
local session = require "rot.session"
local ceilings = require "rot.machine.ceilings"

local M = {}


-- Stores rows as this machine's peaks; nothing when none were measured (rot build).
function M.store(rot, rows)
  if #rows == 0 then return end
  sys.mkdir(rot.get("cacheDir") .. "/machines")
  ceilings.write_csv(ceilings.current_path(rot), rows)
end

-- Whether this machine's peaks were stored by an older analysis only.
local function stored_older(cache_dir, fp, quick)
  return (ceilings.newest(cache_dir, fp, quick) or ceilings.analysis) < ceilings.analysis
end

-- Thread counts to measure: 1 and all CPUs.
function M.thread_counts()
  local n = machine.cpuinfo().cpus
  return n > 1 and { 1, n } or { 1 }
end

--[[ The ceilings that moved since this machine's peaks were stored: the bandwidth and compute
  rows of `new` whose value lies more than 5% and beyond both spreads from the same ceiling
  (name, kind, threads) in `old` (nil: none stored). A shared machine's neighbours can stay busy
  for minutes, longer than one run's rounds, which then agree on a low value. Returns
  {{new=, old=, by=}} (by: the larger over the smaller, less 1), the most moved first. ]]
function M.moved(old, new)
  local function key(r) return r.name .. "/" .. r.kind .. "/" .. r.threads end
  local was, out = {}, {}
  for _, r in ipairs(old or {}) do was[key(r)] = r end
  for _, r in ipairs(new) do
    local o = (r.kind == "bandwidth" or r.kind == "compute") and was[key(r)]
    if o and o.value > 0 and r.value > 0 then
      local hi, lo = math.max(o.value, r.value), math.min(o.value, r.value)
      if hi / lo > 1 + agreement.stable and lo * (1 + (o.spread or 0)) * (1 + (r.spread or 0)) < hi then
        out[#out + 1] = { new = r, old = o, by = hi / lo - 1 }
      end
    end
  end
  table.sort(out, function(x, y) return x.by > y.by end)
  return out
end

-- One line on the ceilings that moved (M.moved), at most four named; nil when none did.
function M.moved_note(moved)
  if #moved == 0 then return nil end
  local named = {}
  for i = 1, math.min(4, #moved) do
    local m = moved[i]
    named[i] = string.format("%s, %s: %.2f %s, %.2f when stored", m.new.name, util.count(m.new.threads, "thread"),
      m.new.value, m.new.unit, m.old.value)
  end
  return string.format("%d %s moved by more than 5%% and their spreads since this machine's peaks were stored%s: "
    .. "%s%s; marked unstable (a shared machine's neighbours can stay busy for longer than one run's rounds); "
    .. "%s", #moved, util.plural(#moved, "ceiling"),
    moved[1].old.date and (" at " .. moved[1].old.date) or "", table.concat(named, "; "),
    #moved > 4 and string.format("; and %d more", #moved - 4) or "", agreement.again)
end

--[[ The levels of one thread count from one round of the three sweeps: samples = {read=,
  write=, triad=} ({{ws=, gbs=}, ...} each), reported = the cache the t threads can use per
  level (rot.machine.reported). Returns the peaks rows, the notes and the number of DRAM
  samples; or nil, reason. (Recorded staircases in tests; rot measure peaks measures rounds.) ]]
function M.levels_of(samples, t, reported)
  local st = { samples = { [t] = { {}, {}, {} } } }
  local bandwidth = require "rot.peaks.bandwidth" -- (here: a run that reads stored peaks needs none of it)
  for si, s in ipairs(bandwidth.streams) do
    for _, x in ipairs(samples[s.name] or {}) do
      st.samples[t][si][x.ws] = { ws = x.ws, rounds = { x.gbs } }
    end
  end
  local a, why = bandwidth.analyse(st, t, reported)
  if not a then return nil, why end
  return a.rows, a.notes, a.levels[#a.levels].n or 0
end

-- The staircase of the sweeps: the best of each size, stream and thread count over its rounds.
local function staircase_rows(st)
  local best, out = {}, {}
  for _, r in ipairs(st.rows) do
    local k = r.point.stream .. ":" .. r.point.threads .. ":" .. r.point.ws
    if r.gbs and (not best[k] or r.gbs > best[k].gbs) then best[k] = r end
  end
  for _, r in pairs(best) do out[#out + 1] = r end
  table.sort(out, function(a, b) -- the plot's series in one order, run after run
    local p, q = a.point, b.point
    if p.stream ~= q.stream then return p.stream < q.stream end
    if p.threads ~= q.threads then return p.threads < q.threads end
    return p.ws < q.ws
  end)
  return out
end

--[[ Measures the peaks (the shipped peaks script's work, without its output): the compute
  ceilings in rounds at the start, after the bandwidth sweep and at the end (each between two
  readings of the core clock), the bandwidth ceilings in rounds between them. Returns the rows
  for peaks.csv (with how each was obtained) and the staircase's rows (best of each size over its
  rounds), the clock readings around the compute rounds (each round's "before/after" in GHz, in
  order; "?" where a reading failed), the vector units' clocks as a line (nil where none was
  taken: rot.peaks.clocks.unit_clocks) and how many points it measured (0: every one came
  from the cache). ]]
function M.ceilings(rot, quick)
  local threads = M.thread_counts()
  local s = session.current()
  local measured0 = s.count.measured + s.aside_count.measured
  -- (loaded here: a run that reads stored peaks, a cached rerun, needs none of them)
  local compute, clocks, report = require "rot.peaks.compute", require "rot.peaks.clocks", require "rot.peaks.report"
  local bandwidth = require "rot.peaks.bandwidth"
  local timer = require("rot.peaks.budget").timer()
  local cs = compute.new(threads, quick, timer)
  if #cs.skipped > 0 and not s.executor.builds_only then -- said when measured
    io.stderr:write("rot: peaks: skipping ", table.concat(cs.skipped, ", "), "\n")
  end
  compute.round(rot, cs)
  local an, st, notes = bandwidth.measure(rot, threads, quick, timer, function() compute.round(rot, cs) end)
  compute.round(rot, cs)
  compute.extra_rounds(rot, cs, compute.budget(quick))
  local rows = compute.rows(cs)
  for _, t in ipairs(threads) do
    for _, r in ipairs(an[t] and an[t].rows or {}) do rows[#rows + 1] = r end
  end
  local top = clocks.top_clock(cs)
  for _, r in ipairs(rows) do
    r.clock = r.clock or top
    if r.kind ~= "size" then
      r.pinning = machine.pins(r.threads)
      r.isa = r.isa or "-O3 -march=native"
    end
  end
  s:set_step(nil)
  for _, n in ipairs(compute.notes(cs, rows)) do notes[#notes + 1] = n end
  for _, n in ipairs(report.above_theory(rows, machine.cpuinfo())) do notes[#notes + 1] = n end
  if quick then
    local full = ceilings.read_csv(ceilings.stored_path(rot.get("cacheDir"), machine.fingerprint(rot.config), false))
    for _, n in ipairs(report.quick_notes(rows, full)) do notes[#notes + 1] = n end
  end
  if #rows > 0 then -- notes on what was measured (none in rot build), a line each
    notes[#notes + 1] = report.sampler_note(machine.samplers(), threads[#threads])
    for _, n in ipairs(notes) do io.stderr:write("rot: peaks: ", n, "\n") end
  end
  return rows, staircase_rows(st), clocks.clocks(cs), clocks.unit_clocks(cs),
    s.count.measured + s.aside_count.measured - measured0
end

--[[ The line that says a run measures the machine's peaks first: once, what it cost where it was
  last measured (docs/kernels.md's figure, with that machine: M.FIRST_COST) and what else a user can do:
  quick peaks, a peaks file measured before. ]]
M.FIRST_COST = { full = "60 s and 1243 points", quick = "37 s and 545 points",
  machine = "a 2-vCPU AMD EPYC KVM guest with a 32 MiB L3, measured with no other measurement beside it",
  points = { full = 1243, quick = 545 },
  seconds = { full = 60, quick = 37 } }
function M.first_notice(quick)
  local c = M.FIRST_COST
  if quick then
    return "rot: measuring this machine's quick peaks first: once, stored for every quick run after it (" .. c.quick
      .. " on " .. c.machine
        .. "; more with a larger last cache, more cores or a busy machine; -peaksFile=FILE takes a peaks.csv "
      .. "measured before instead)\n"
  end
  return "rot: measuring this machine's peaks first: once, stored for every run after it (" .. c.full .. " on "
    .. c.machine
      .. "; longer with a larger last cache, since it sweeps to 4x it, with more cores, and on a "
      .. "busy machine; -quick=true "
    .. "measures quick peaks for a quick run (" .. c.quick .. " there), -peaksFile=FILE takes a peaks.csv measured "
    .. "before; `rot measure peaks -useCachedResults=false` measures them afresh)\n"
end

-- The stored peaks of this machine; measured first (saying so) when there are none. shared:
-- rows the caller only reads (ceilings.read_csv's).
function M.get(rot, shared)
  local given = rot.get("peaksFile")
  if given ~= "" then
    local rows = ceilings.read_csv(given, shared)
    if not rows then
      util.fail("cannot read peaks from '" .. given .. "'", "give a peaks.csv written by `rot measure peaks`")
    end
    return rows, given
  end
  local quick = rot.get("quick")
  local path = ceilings.current_path(rot)
  local rows = ceilings.read_csv(path, shared)
  if rows then return rows, path end
  local s = session.current()
  return s:remember("peaks " .. path, function() -- rot build: planned once, said once
    s:quiet()
    io.stderr:write(s.executor.builds_only
      and "rot: building the cores of this machine's peaks too (not measured yet: the first `rot measure` of a "
        .. "roofline measures them)\n"
      or stored_older(rot.get("cacheDir"), machine.fingerprint(rot.config), quick)
      and "rot: this machine's peaks were stored by an older rot: finding its levels and ceilings again (reusing "
        .. "its cached points where there are any)\n"
      or M.first_notice(quick))
    local k = quick and "quick" or "full"
    s:set_estimate(M.FIRST_COST.points[k], M.FIRST_COST.seconds[k]) -- the progress line's estimate of what is left
    local measured = M.ceilings(rot, quick)
    s:set_estimate(nil)
    M.store(rot, measured)
    return measured
  end), path
end

return M
