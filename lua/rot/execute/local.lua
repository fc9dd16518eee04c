-- rot.execute.local: the executor that measures on this machine: points looked up in the
-- cache, the rest grouped by core build, each group built under the lock and measured in
-- rounds, one core process per group and round; GPU points skipped without a toolkit and
-- refused fast without a device.
local lookup = require "rot.execute.lookup"
local outcome = require "rot.execute.outcome"
local batch = require "rot.execute.batch"
local build = require "rot.build"
local keys = require "rot.build.keys"
local toolchain = require "rot.describe.toolchain"
local governor = require "rot.machine.governor"
local util = require "rot.util"
local protocol = require "rot.protocol"
local rounds = require "rot.execute.rounds"
local sys = require "rot.sys"

local M = { name = "local", measures_here = true, builds_only = false }

-- Why a group of GPU points cannot run here (said once), or nil.
local function gpu_skip(s, row)
  if not row.kinfo.gpu then return nil end
  return s.no_device or (not toolchain.have_nvcc(s) and
    ("CUDA toolkit not found ('" .. toolchain.nvcc(s) .. "' missing): GPU points are skipped"))
end

local function say_once(s, msg)
  if not s:once("gpu skip") then return end
  s:quiet()
  io.stderr:write("rot: ", msg, "\n")
end

--[[ After the build: each row of the group is a hit after all (another rot measured it while
  this one waited for the lock), or a batch item {row=, desc=, base=, exact=, need=, child=,
  rounds=, mine=}. base: a cached entry of this core that the new runs extend: with fewer
  runs than wanted (exact: that many more, in one process), or, for a point measured in rounds
  (rot.execute.rounds), with fewer rounds than wanted, or rounds that disagree; rounds: whether
  it is measured in rounds; mine: the rounds this invocation measured. ]]
local function todo_of(s, group, core_hash)
  local runs_wanted, use_cached = s:get("runs"), s:get("useCachedResults")
  local todo = {}
  for _, row in ipairs(group) do
    local e = row.cached_entry
    if use_cached then e = lookup.read(s, row) or e end
    local same_core = e and (not s:get("shouldCheckCoreHash") or e.coreHash == core_hash)
    local in_rounds = rounds.applies(s, row)
    if same_core and lookup.serves(s, row, e, core_hash) then
      outcome.hit(s, row, e)
    else
      local base = same_core and (not in_rounds or lookup.runs_enough(s, row, e)) and e or nil
      local exact = base ~= nil and not in_rounds
      todo[#todo + 1] = { row = row, desc = row.desc, base = base, exact = exact, rounds = in_rounds, mine = 0,
        need = exact and (runs_wanted - #base.runs) or runs_wanted, child = row.spec.pointChild }
    end
  end
  return todo
end

-- Whether an item wants a round now: not settled, and (measured in rounds) more wanted.
local function wants(s, item, p)
  if item.row.settled then return false end
  if item.mine == 0 then return true end
  return item.rounds and rounds.wanted(item.base, p, item.mine, s:get("ignoreDisturbed")) > 0
end

-- What becomes of one batch item's result in round r (res nil: the batch stopped before it).
local function settle_item(s, g, item, res, p)
  local row = item.row
  if not res then
    return outcome.fail(s, row, s.no_device or "not measured: the run stopped before it", { quiet = true })
  end
  if res.status ~= protocol.status.ok and res.meta.failure == "nodevice" then
    -- no device: said once; the core stops before the other GPU points
    s:set_no_device(res.error)
    s:quiet()
    io.stderr:write("rot: ", res.error, " (GPU points fail; CPU points go on)\n")
    s:once("gpu skip") -- said: no other skip line
    outcome.fail(s, row, res.error, { quiet = true })
    return "stop"
  end
  local n, inv = rounds.next_number(item.base), s:invocation()
  local entry = outcome.record(s, row, res, g.core_hash, item.base,
    item.rounds and function(runs) rounds.stamp(runs, n, inv) end or nil)
  if not entry then return end
  item.base, item.mine, item.exact = entry, item.mine + 1, false
  if not wants(s, item, p) then outcome.measured(s, row, entry) end
end

--[[ The core of a group (the build lock held): built, or this run's copy of it. Each core this
  run builds is copied into the run directory (rot.build.keep), and a later group of the same
  build key (another rot.measure of the script, a later round) is measured with the copy,
  unbuilt: the build directory holds one core, which the next group's build replaces. An
  application's core, which finds the marker recorder beside itself, is built each time and
  measured in place. Returns the binary and its hash, or nil and the compiler's message. ]]
local function core_of(s, g)
  local built = s:remember("cores built", function() return {} end) -- build key -> {binary=, hash=, dir=}
  local known = built[g.key]
  if known and known.dir == s.rundir then return known.binary, known.hash end -- (not removed with it since)
  local desc, kinfo = g.rows[1].desc, g.rows[1].kinfo
  local binary, core_hash = s:timed("build", build.core, s, desc, kinfo)
  if not binary then return nil, core_hash end
  keys.store(s, g.key, core_hash)
  keys.rekey(s, desc, kinfo, core_hash)
  if kinfo.app then return binary, core_hash end
  built[g.key] = { binary = build.keep(s, binary, core_hash), hash = core_hash, dir = s:run_dir() }
  return built[g.key].binary, core_hash
end

-- Builds one group's core; its points to measure (todo_of) become g.todo. Its rows fail where
-- it cannot be built or run here.
local function build_group(s, g)
  local group = g.rows
  local skip = gpu_skip(s, group[1])
  if skip then
    say_once(s, skip)
    for _, row in ipairs(group) do outcome.fail(s, row, skip, { quiet = true }) end
    return
  end
  local binary, core_hash = core_of(s, g)
  if not binary then -- its points fail with the compiler's message; the sweep goes on
    s:quiet()
    io.stderr:write("rot: ", core_hash, "\n")
    for _, row in ipairs(group) do outcome.fail(s, row, core_hash:match("^[^\n]*"), { quiet = true }) end
    return
  end
  g.core_hash, g.binary = core_hash, binary
  g.todo = todo_of(s, group, core_hash)
end

--[[ Round r of one group: built first (round 1), then its items that want a round, in round
  r's order (rot.execute.rounds.order), measured by one core process under the build lock.
  Returns how many it measured. ]]
local function group_round(s, g, r, p)
  local lock <close> = build.lock(s)
  if r == 1 then build_group(s, g) end
  local now = {}
  for _, item in ipairs(g.todo or {}) do if wants(s, item, p) then now[#now + 1] = item end end
  local items = {}
  for i, j in ipairs(rounds.order(#now, r)) do items[i] = now[j] end
  if #items == 0 then return 0 end
  local i = 0
  s:timed("measure", batch.run, s, g.binary, items, function(item, res)
    i = i + 1
    s:round_progress(r, i, #items)
    return settle_item(s, g, item, res, p)
  end)
  return #items
end

--[[ Measures rows still pending after the lookup (local executor, Slurm worker) in rounds: every
  round visits the groups (one core build each) in its own order, and each group's points that
  still want a round in one core process, until none does (rot.execute.rounds says how many a
  point wants). ]]
function M.measure_pending(s, pending)
  local groups, order = util.group_by(pending, function(row) return row.key end) -- one core build each
  if #order == 0 then return end
  util.ensure_dir(s:get("cacheDir"), "cache directory", "cacheDir")
  governor.apply(s)
  local measuring <close> = build.measuring(s) -- held over every round: another rot's waits
  batch.sampler(s).sample(nil) -- where the CPU time outside rot is counted from (another rot's wait left out)
  local p, list = rounds.policy(s), {}
  for i, key in ipairs(order) do list[i] = { key = key, rows = groups[key] } end
  local r, measured = 0, true
  while measured do
    r, measured = r + 1, false
    for _, j in ipairs(rounds.order(#list, r)) do
      if group_round(s, list[j], r, p) > 0 then measured = true end
    end
  end
end

-- Whether every item would come from the cache (rot.cached): looked up, nothing measured.
function M.cached(s, items)
  local _, pending = lookup.lookup(s, items)
  return #pending == 0
end

-- The executor: every item {coord=, spec=} looked up, the rest measured here; rows in order.
function M.measure(s, items)
  s:begin(#items)
  local rows, pending = lookup.lookup(s, items)
  local waiting = {}
  for _, r in ipairs(pending) do waiting[r] = true end
  for _, r in ipairs(rows) do if not waiting[r] then s:settle(r) end end
  M.measure_pending(s, pending)
  s:done()
  return rows
end

return M
