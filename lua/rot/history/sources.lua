--[[ rot.history.sources: the source store: a copy of every file a recorded build read (the
  files its build key hashes) and of every program an application point ran (up to
  MAX_PROGRAM), content-addressed in cacheDir/sources/<2 hex>/<sha256>, one copy
  per content however many records name it, so `rot compare -remeasure` can rebuild a run's
  cores after the files were edited. Pruned with the records that name them. ]]
local sys = require "rot.sys"
local session = require "rot.session"

local M = {}

-- The largest program kept (an application's binary, for re-measuring it): 64 MiB.
M.MAX_PROGRAM = 64 << 20

function M.dir(cache_dir) return cache_dir .. "/sources" end

function M.path(cache_dir, sha) return M.dir(cache_dir) .. "/" .. sha:sub(1, 2) .. "/" .. sha end

-- The store's lock (a to-be-closed value): records name what the store holds, so storing,
-- writing a record and pruning happen under it.
function M.lock(cache_dir)
  local ok, err = sys.mkdir(M.dir(cache_dir))
  if not ok then return nil, err end
  return session.lock(M.dir(cache_dir) .. "/.lock")
end

--[[ Keeps text under its SHA-256 sha (written to a temp file and renamed; a content already
  there is not written again). Returns true, or nil and why. ]]
function M.put(cache_dir, sha, text)
  local path = M.path(cache_dir, sha)
  if sys.stat(path) == "file" then return true end
  local ok, err = sys.mkdir(path:match("^(.*)/"))
  if not ok then return nil, err end
  return sys.writefile(path, text)
end

-- Whether the store holds a content (by name: put checked it when it wrote it).
function M.has(cache_dir, sha) return sys.stat(M.path(cache_dir, sha)) == "file" end

-- The text stored under sha, or nil and why (not there; changed since: its hash differs).
function M.get(cache_dir, sha)
  local text = sys.readfile(M.path(cache_dir, sha))
  if not text then return nil, "not in the source store" end
  if sys.sha256(text) ~= sha then return nil, "changed in the source store (its hash differs)" end
  return text
end

-- Every record file under cacheDir/history.
local function record_files(cache_dir)
  local out, base = {}, cache_dir .. "/history"
  for _, d in ipairs(sys.listdir(base) or {}) do
    for _, f in ipairs(sys.listdir(base .. "/" .. d) or {}) do
      if f:match("%.run$") then out[#out + 1] = base .. "/" .. d .. "/" .. f end
    end
  end
  return out
end

--[[ Removes the stored files among candidates (a set of SHA-256 names: those the records just
  pruned named) that no record under cacheDir/history names any more (a file can serve the
  records of several measurements: core/kernel.h, a header two studies share). The records are
  read only until every candidate is found named. Returns how many were removed. ]]
function M.prune(cache_dir, candidates)
  local left, n = {}, 0
  for sha in pairs(candidates) do left[#left + 1] = sha end
  for _, f in ipairs(record_files(cache_dir)) do
    if #left == 0 then break end
    local text = sys.readfile(f) or ""
    for i = #left, 1, -1 do
      if text:find(left[i], 1, true) then table.remove(left, i) end
    end
  end
  for _, sha in ipairs(left) do
    if sys.remove(M.path(cache_dir, sha)) then n = n + 1 end
  end
  return n
end

-- The SHA-256 names a record's text refers to (its source trees' files).
function M.named(text)
  local out = {}
  for sha in text:gmatch('"(%x+)"') do
    if #sha == 64 then out[sha] = true end
  end
  return out
end

return M
