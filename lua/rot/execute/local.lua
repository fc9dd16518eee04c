-- rot.execute.local: the executor that measures on this machine: points looked up in the
-- cache, the rest grouped by core build, each group built under the lock and measured by one
-- batch of the core; GPU points skipped without a toolkit and refused fast without a device.
local lookup = require "rot.execute.lookup"
local outcome = require "rot.execute.outcome"
local batch = require "rot.execute.batch"
local build = require "rot.build"
local keys = require "rot.build.keys"
local toolchain = require "rot.build.toolchain"
local governor = require "rot.machine.governor"
local util = require "rot.util"
local protocol = require "rot.protocol"

local M = { name = "local" }

-- Rows grouped by build key, in the order their keys first appear.
local function groups_of(pending)
  local groups, order = {}, {}
  for _, row in ipairs(pending) do
    if not groups[row.key] then groups[row.key] = {}; order[#order + 1] = row.key end
    table.insert(groups[row.key], row)
  end
  return groups, order
end

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
  this one waited for the lock), or a batch item {row=, desc=, base=, exact=, need=} (base: a
  cached entry of this core with fewer runs than wanted, which the new runs extend). ]]
local function todo_of(s, group, core_hash)
  local runs_wanted, use_cached = s:get("runs"), s:get("useCachedResults")
  local todo = {}
  for _, row in ipairs(group) do
    local e = row.cached_entry
    if use_cached and not (e and #e.runs >= runs_wanted) then e = lookup.read(s, row) or e end
    local usable = e and (not s:get("shouldCheckCoreHash") or e.coreHash == core_hash)
    if usable and #e.runs >= runs_wanted then
      outcome.hit(s, row, e)
    else
      local base = usable and e or nil
      todo[#todo + 1] = { row = row, desc = row.desc, base = base, exact = base ~= nil,
        need = base and (runs_wanted - #base.runs) or runs_wanted, child = row.spec.pointChild }
    end
  end
  return todo
end

-- What becomes of one batch item's result (res nil: the batch stopped before it).
local function settle_item(s, item, res, core_hash)
  local row = item.row
  if not res then return outcome.fail(s, row, s.no_device or "not measured: the run stopped before it", { quiet = true }) end
  if res.status ~= protocol.status.ok and res.meta.failure == "nodevice" then
    -- no device: said once; the core stops before the other GPU points
    s:set_no_device(res.error)
    s:quiet()
    io.stderr:write("rot: ", res.error, " (GPU points fail; CPU points go on)\n")
    s:once("gpu skip") -- said: no other skip line
    outcome.fail(s, row, res.error, { quiet = true })
    return "stop"
  end
  outcome.result(s, row, res, core_hash, item.base)
end

-- Builds one group's core and measures its points.
local function measure_group(s, key, group)
  local skip = gpu_skip(s, group[1])
  if skip then
    say_once(s, skip)
    for _, row in ipairs(group) do outcome.fail(s, row, skip, { quiet = true }) end
    return
  end
  local measuring <close> = build.measuring(s)
  local lock <close> = build.lock(s)
  local binary, core_hash = s:timed("build", build.core, s, group[1].desc, group[1].kinfo)
  if not binary then -- its points fail with the compiler's message; the sweep goes on
    s:quiet()
    io.stderr:write("rot: ", core_hash, "\n")
    for _, row in ipairs(group) do outcome.fail(s, row, core_hash:match("^[^\n]*"), { quiet = true }) end
    return
  end
  keys.store(s, key, core_hash)
  keys.rekey(s, group[1].desc, group[1].kinfo, core_hash)
  local todo = todo_of(s, group, core_hash)
  s:timed("measure", batch.run, s, binary, todo, function(item, res) return settle_item(s, item, res, core_hash) end)
end

-- Measures rows still pending after the lookup (local executor, Slurm worker), group by group.
function M.measure_pending(s, pending)
  local groups, order = groups_of(pending)
  if #order > 0 then
    util.ensure_dir(s:get("cacheDir"), "cache directory", "cacheDir")
    governor.apply(s)
  end
  for _, key in ipairs(order) do measure_group(s, key, groups[key]) end
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
