-- rot: the library measurement scripts use: parameter spaces, measuring points (cached),
-- tables, CSV files and roofline plots. See docs/lua-api.md and docs/architecture.md.
local space = require "rot.space"
local describe = require "rot.describe"
local session = require "rot.session"
local results = require "rot.results"
local quantities = require "rot.results.quantities"
local rounds = require "rot.execute.rounds"
local regions = require "rot.results.regions"
local counted = require "rot.results.counted"
local gpuregions = require "rot.results.gpuregions"
local format = require "rot.results.format"
local ceilings = require "rot.machine.ceilings"
local measure = require "rot.peaks"
local machine = require "rot.machine"
local util = require "rot.util"

local rot = {
  fail = util.fail, axis = space.axis, space = space.new, geometric = space.geometric,
  machine = machine, util = util, serialize = util.serialize,
  counters = require "rot.machine.counters", -- the PMU's floating-point events, for a point's counters
}
-- rot.config: the session's configuration (rot.session's, set by the CLI before the script runs)
setmetatable(rot, { __index = function(_, k) if k == "config" then return session.current().config end end })

-- A configuration key's value (set by the CLI before the script runs); an unknown key stops
-- the script naming it and the nearest one.
function rot.get(key)
  local ok, v = pcall(rot.config.get, rot.config, key)
  if not ok then
    util.fail("unknown configuration key '" .. tostring(key) .. "'" .. util.did_you_mean(tostring(key),
      require("rot.config").names()),
      "rot config lists the keys")
  end
  return v
end

-- Sets a configuration key for the rest of the script, checked like the command line's
-- (type, choices, range); a bad value stops the script naming the key, the value and why.
function rot.set(key, value)
  local ok, err = rot.config:set(key, tostring(value), "script")
  if not ok then util.fail(err) end
end

-- The running measurement's name (mytriad for mytriad.lua; a program's for rot profile): what
-- its outputs are named when the script names none (results:csv(), roofline{}, ...); a script
-- names a second plot after it (rot.name() .. "-bandwidth"). nil under `rot run`.
function rot.name() return session.current().script end

-- The output directory, created (with a clear error when it cannot be written).
function rot.output_dir() return session.current():outdir() end

-- The items {coord=, spec=} of space sp's points as builder describes them; what: the calling
-- function's name for a bad argument.
local function items_of(what, sp, builder)
  if getmetatable(sp) ~= space.Space then error(what .. ": first argument must be a rot.space", 3) end
  if type(builder) ~= "function" then error(what .. ": second argument must be a function(point)", 3) end
  local items = {}
  for c in sp:points() do items[#items + 1] = { coord = c, spec = builder(c) } end
  return items
end

-- Whether a point may ask to be counted (the count key, or its spec's count): rot.count, which
-- decides, is loaded only then (a cached rerun that counts nothing never loads it).
local function counting(s, rows)
  if s:get("count") then return true end
  for _, r in ipairs(rows) do if r.spec and r.spec.count ~= nil then return true end end
  return false
end

-- Whether a CUDA program's point ran (rot.count.cuda's wanted): its metrics pass is loaded only then.
local function cuda_points(rows)
  for _, r in ipairs(rows) do if r.entry and describe.cuda_program(r.desc) then return true end end
  return false
end

--[[ measure(space, builder) -> results: the measurement pipeline, one point at a time.
  1. builder(point) turns each point of the space into a spec ({kernel=, params=, macros=,
     flags=, ...}; docs/lua-api.md).
  2. The run's executor (rot.execute: local, slurm, or build for `rot build`) describes each
     spec (rot.describe: everything that can change its result, hashed), looks it up in the
     cache, builds the cores of the missing ones (rot.build), runs them (rot.execute.batch:
     the measuring core, core/) and caches each result (rot.execute.outcome).
  3. The raw runs of every row become quantities (rot.results.quantities: time, rates,
     intensity, spread, counters). The points asked to be counted are counted once, untimed
     (rot.count), and their counts become fields of their rows (rot.results.counted). A
     CUDA program's point runs once more, untimed, for its kernels' metrics (rot.count.cuda),
     which its regions' rows take (rot.results.gpuregions).
     An application point's row becomes its program's row and one per marked region
     (rot.results.regions), the region a coordinate of its own.
  4. The results object (rot.results) bounds them against the machine's ceilings
     (rot.machine.ceilings) and prints, writes and plots them (rot.plot). ]]
function rot.measure(sp, builder)
  local s = session.current()
  local describing <close> = s:describing_scope() -- an error from here on is in the points' description
  local items = items_of("measure", sp, builder)
  local first = #s.rows + 1
  local rows = s.executor.measure(s, items)
  s:record_order(first, rows)
  for _, r in ipairs(rows) do
    if not r.settled then
      error("rot: internal error: executor '" .. s.executor.name .. "' returned a row it did not settle")
    end
    if not regions.is_app(r) then
      quantities.derive(r, s:get("bestK"), s:get("ignoreDisturbed"), s:get("bestEpsilon"), rounds.policy(s))
    end
  end
  quantities.pool(rows)
  if counting(s, rows) then require("rot.count").count(s, rows) end -- once, under Valgrind (never timed)
  if cuda_points(rows) then require("rot.count.cuda").pass(s, rows) end -- once, CUPTI's kernel replay (never timed)
  local apps
  rows, apps = regions.expand(rows, s:get("bestK"), s:get("bestEpsilon"))
  for _, r in ipairs(rows) do gpuregions.apply(counted.apply(r)) end
  local axes = {}
  for _, a in ipairs(sp.axes) do axes[#axes + 1] = a.name end
  if apps then axes[#axes + 1] = "region" end
  s:note_axes(axes)
  return rot.results(rows, axes)
end

--[[ cached(space, builder) -> whether every point of the space would come from the result
  cache now: described and looked up as rot.measure does them, nothing built or measured (false
  for rot build, and with -useCachedResults=false). Points that must come from the same minutes
  (a round and the clock readings around it) are measured afresh together when one is not. ]]
function rot.cached(sp, builder)
  local s = session.current()
  local describing <close> = s:describing_scope()
  local items = items_of("cached", sp, builder)
  return s.executor.cached ~= nil and s.executor.cached(s, items)
end

-- This machine's stored peaks (measured first, once, when there are none; those points are
-- no part of the run's record).
function rot.peaks() return (session.current():aside(measure.get, rot)) end

-- results(rows[, axes]): the results object rot.measure returns, over rows a script built or
-- changed (its table, csv, bounds and plots)
function rot.results(rows, axes) return results.new(rows, axes, rot.peaks) end

-- The machine's memory levels at a thread count (default 1), from its stored peaks (measured
-- first if there are none): { {name="L1", size=effective bytes, reported=bytes, gbs=}, ...,
-- {name="DRAM", gbs=} }. Sweeps use it to know how far to go.
function rot.levels(threads)
  local rows = session.current():aside(measure.get, rot, true) -- (read only here: not copied)
  return ceilings.levels(rows, ceilings.nearest_threads(rows, threads or 1))
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

-- Where DRAM's range begins for t threads (default 1), from the stored peaks (where its ceiling
-- is read: on its flat tail, 4x beyond the caches); nil when they do not say. Between the last
-- cache's effective size and here lies the step from it to DRAM (limiter "L3-DRAM bw"): a sweep
-- "to DRAM" goes at least this far.
function rot.dram_from(threads)
  local lv = rot.levels(threads)
  return lv[#lv].from
end

-- How far a sweep from L1 "to DRAM" goes for t threads: 4x the last cache's effective size,
-- and on to where DRAM's flat tail begins where the step to DRAM reaches further; never more
-- than a quarter of the memory.
function rot.dram_sweep(threads)
  local top = math.max(4 * rot.llc(threads), rot.dram_from(threads) or 0)
  return math.min(top, machine.sweep_cap())
end

--[[ A working set that is in DRAM for t threads (default 1), as rot measure peaks decides it:
  at least four times the larger of the last cache's effective and reported sizes, and at
  least where the stored DRAM tail begins; never more than a quarter of the memory. ]]
function rot.dram_size(threads)
  local lv = rot.levels(threads)
  local last, dram = lv[#lv - 1], lv[#lv]
  local ws = 4 * math.max(last and last.size or 32 * 1024 * 1024, last and last.reported or 0)
  return math.min(math.max(ws, dram.from or 0), machine.sweep_cap())
end

-- Sloped ceilings from the data itself: the best bandwidth seen inside each memory level
-- (effective sizes from the stored peaks, else the reported caches).
function rot.observed_bandwidth(rows)
  local lv = rot.levels()
  local best = {}
  for _, r in ipairs(rows) do
    if r.gbs and r.workingSet then
      local name = ceilings.level_of(r.workingSet, lv).name
      if not best[name] or r.gbs > best[name] then best[name] = r.gbs end
    end
  end
  local out = {}
  for _, l in ipairs(lv) do
    if best[l.name] then out[#out + 1] = { label = l.name .. " bandwidth (best observed)", gbs = best[l.name] } end
  end
  return out
end

-- records(name, columns, rows): a model's rows as a table on stdout and outputDir/name.csv;
-- columns = { {title, key or function(row), format}, ... }. Returns the CSV's path.
function rot.records(name, columns, rows)
  local path = results.csv_path(name)
  format.records(rows, columns)
  return format.records_csv(rows, columns, path)
end

-- xy(rows, {...}): the xy plot of Results:xy for any list of rows (a model's, say).
function rot.xy(rows, o)
  return results.Results.xy({ rows = rows }, o)
end

return rot
