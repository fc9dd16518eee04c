-- rot.execute.lookup: points described and looked up in the result cache: what every
-- executor does first, and again after waiting for the build lock (another rot may have
-- measured a point meanwhile).
local sys = require "rot.sys"
local cache = require "rot.cache"
local machine = require "rot.machine"
local describe = require "rot.describe"
local util = require "rot.util"
local keys = require "rot.build.keys"
local device = require "rot.gpu.device"
local rounds = require "rot.execute.rounds"

local M = {}

local function warn(msg) io.stderr:write("rot: warning: ", msg, "\n") end

-- The collector waits for the heap to reach 10x what is live (driver/main.c): a cached rerun's
-- few MiB then take fewer cycles. Once the heap passes 64 MiB (a large study's entries, just
-- looked up), a cycle runs at 2x, as Lua's default, for good.
local function heap_grown()
  if collectgarbage("count") > 64 * 1024 then collectgarbage("incremental", 200) end
end

-- The cache entry of a row ({path=, text=}: a point's, or a count's), when it holds the row's
-- own description (nil otherwise); again: what is done instead, in words ("measuring", the default).
function M.read(s, row, again)
  again = again or "measuring"
  local entry, err, kind = s:timed("cache", cache.read, row.path)
  if kind == "corrupt" then warn(err .. "; " .. again .. " it again") end
  if entry and entry.description ~= row.text then
    warn("cache entry '" .. row.path .. "' holds another description; " .. again .. " again")
    entry = nil
  end
  return entry
end

--[[ Whether an entry serves the row as it stands: measured by the core whose hash is core_hash
  (unless shouldCheckCoreHash is off) with enough runs: for a point measured in rounds
  (rot.execute.rounds), every round with `runs` runs and no round more wanted, else `runs` in
  all. fresh: the entry was measured for this run (by its Slurm workers, or by another rot it
  waited for): rounds that disagree are not measured again. ]]
function M.serves(s, row, entry, core_hash, fresh)
  if entry == nil or (s:get("shouldCheckCoreHash") and (core_hash == nil or core_hash ~= entry.coreHash)) then
    return false
  end
  if not rounds.applies(s, row) then return #entry.runs >= s:get("runs") end
  local rs = rounds.of(entry, s:get("ignoreDisturbed")) -- grouped once, for both questions
  if not M.runs_enough(s, row, entry, rs) then return false end
  local p = rounds.policy(s)
  if fresh then p.again = false end
  return rounds.wanted(entry, p, 0, nil, rs) == 0
end

-- Whether an entry has the runs `runs` asks for: in every round for a point measured in rounds
-- (rs: its rounds, where the caller has them), else in all.
function M.runs_enough(s, row, entry, rs)
  local want = s:get("runs")
  if not rounds.applies(s, row) then return #entry.runs >= want end
  for _, x in ipairs(rs or rounds.of(entry)) do
    if #x.runs < want then return false end
  end
  return true
end

--[[ The machine of a CUDA program's point (kinfo.cuda: why it is one): its machine with the
  device's identity (rot.gpu.device, through the GPU core of rot's own gpu_triad). Stops in one
  line where the toolkit or the device is missing: nothing has started. ]]
local function cuda_machine(s, desc, kinfo)
  local name = util.basename(desc.app.path)
  if not require("rot.describe.toolchain").have_nvcc(s) then
    util.fail("cannot profile CUDA program '" .. name .. "' (" .. kinfo.cuda .. "): the CUDA toolkit is not installed",
      "set -cuda=DIR to the toolkit (rot's CUDA library is built with its CUPTI)", 2)
  end
  local _, gpu = describe.describe(s, { kernel = "gpu_triad" })
  local id = device.identity(s, desc.machine, gpu)
  if id.gpu == "none" then
    util.fail("no CUDA device: cannot profile CUDA program '" .. name .. "' (" .. kinfo.cuda .. ")",
      "rot profile runs a CUDA program where an NVIDIA GPU and its driver are (nvidia-smi lists it)")
  end
  return id
end

--[[ describe(session, spec [, fp]) -> description, build inputs: rot.describe's, and for a GPU
  point (and a CUDA program's) what only its device says: its machine names the device (rot.gpu.device.identity: a
  core asked once per boot), and its metric names are checked for the chip. ]]
function M.describe(s, spec, fp)
  local desc, kinfo = describe.describe(s, spec, fp)
  if kinfo.cuda then desc.machine = cuda_machine(s, desc, kinfo) end
  if kinfo.gpu then
    desc.machine = device.identity(s, desc.machine, kinfo)
    if #desc.gpuMetrics > 0 then device.check_metrics(s, desc, kinfo) end
  end
  return desc, kinfo
end

--[[ Describes every item {coord=, spec=} on machine fp (this one's by default) and looks it
  up in the cache. Returns the rows, in item order ({point=, spec=, desc=, text=, hash=,
  kinfo=, machine=, path=, key= (build key), cached_entry=, and entry + cached for a hit}), and
  those still to measure (fresh: as M.serves's). ]]
function M.lookup(s, items, fp, fresh)
  local use_cached, cdir = s:get("useCachedResults"), s:get("cacheDir")
  local rows, pending = {}, {}
  for i, item in ipairs(items) do
    local desc, kinfo = M.describe(s, item.spec, fp)
    local text, hash = describe.key(desc)
    local row = { point = item.coord, spec = item.spec, desc = desc, text = text, hash = hash, kinfo = kinfo,
      machine = machine.id(desc.machine), path = cache.path(cdir, hash), item = i }
    rows[i] = row
    local entry = M.read(s, row)
    row.cached_entry = use_cached and entry or nil
    row.key = keys.key(s, desc, kinfo)
    if M.serves(s, row, row.cached_entry, keys.known(s)[row.key], fresh) then
      row.entry, row.cached = row.cached_entry, true
    else
      pending[#pending + 1] = row
    end
  end
  heap_grown()
  return rows, pending
end

return M
