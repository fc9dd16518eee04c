-- rot.execute.lookup: points described and looked up in the result cache: what every
-- executor does first, and again after waiting for the build lock (another rot may have
-- measured a point meanwhile).
local sys = require "rot.sys"
local cache = require "rot.cache"
local machine = require "rot.machine"
local describe = require "rot.describe"
local keys = require "rot.build.keys"

local M = {}

local function warn(msg) io.stderr:write("rot: warning: ", msg, "\n") end

-- The cache entry of a row, when it holds the row's own description (nil otherwise).
function M.read(s, row)
  local entry, err, kind = s:timed("cache", cache.read, row.path)
  if kind == "corrupt" then warn(err .. "; measuring it again") end
  if entry and entry.description ~= row.text then
    warn("cache entry '" .. row.path .. "' holds another description; measuring again")
    entry = nil
  end
  return entry
end

-- Whether an entry serves the row as it stands: enough runs, and (unless shouldCheckCoreHash
-- is off) measured by the core whose hash is core_hash.
function M.serves(s, entry, core_hash)
  return entry ~= nil and #entry.runs >= s:get("runs") and (not s:get("shouldCheckCoreHash") or
    (core_hash ~= nil and core_hash == entry.coreHash))
end

--[[ Describes every item {coord=, spec=} on machine fp (this one's by default) and looks it
  up in the cache. Returns the rows, in item order ({point=, spec=, desc=, text=, hash=,
  kinfo=, machine=, path=, key= (build key), cached_entry=, and entry + cached for a hit}), and
  those still to measure. ]]
function M.lookup(s, items, fp)
  local use_cached, cdir = s:get("useCachedResults"), s:get("cacheDir")
  local rows, pending = {}, {}
  for i, item in ipairs(items) do
    local desc, kinfo = describe.describe(s, item.spec, fp)
    local text, hash = describe.key(desc)
    local row = { point = item.coord, spec = item.spec, desc = desc, text = text, hash = hash, kinfo = kinfo,
      machine = machine.id(desc.machine), path = cache.path(cdir, hash), item = i }
    rows[i] = row
    local entry = M.read(s, row)
    row.cached_entry = use_cached and entry or nil
    row.key = keys.key(s, desc, kinfo)
    if M.serves(s, row.cached_entry, keys.known(s)[row.key]) then
      row.entry, row.cached = row.cached_entry, true
    else
      pending[#pending + 1] = row
    end
  end
  return rows, pending
end

return M
