--[[ rot.history.digest: whether a run of cache hits repeats the newest run record, known from a
  digest of what decides its results, without building the record (or running git). The digest
  of the newest record, with its id, is kept in a file beside the records, per machines. ]]
local sys = require "rot.sys"
local util = require "rot.util"
local history = require "rot.history"

local M = {}

--[[ What decides the record of a run of cache hits only, hashed (else nil; nil with counted
  points): script, arguments, the keys that shape a point's quantities and bound, the stored
  peaks' file (peaks), each point's description, entry file (size, time) and machine, and rot's
  Lua library (the modules loaded so far: so it is made last, after every module that shapes the
  record is loaded). Two runs with one digest have the same results. ]]
function M.of(s, o, peaks)
  if not o.ok or s.count.measured > 0 or s.count.failed > 0 or s:get("count") then return nil end
  local parts = { o.path, util.serialize(o.args or {}), history.VERSION, util.library_stamp() }
  for _, k in ipairs({ "bestK", "bestEpsilon", "rounds", "roundsEpsilon", "ignoreDisturbed", "peaksFile", "quick" }) do
    parts[#parts + 1] = tostring(s:get(k))
  end
  local _, psize, ptime = sys.stat(peaks)
  parts[#parts + 1] = string.format("%s %s %s", peaks, tostring(psize), tostring(ptime))
  for _, r in ipairs(s.rows) do
    local counted = r.flopsCounted or r.countRecord or r.countFailed or (r.spec and r.spec.count)
    if counted or not (r.cached and r.hash and r.path) then return nil end
    local _, size, mtime = sys.stat(r.path)
    parts[#parts + 1] = string.format("%s %s %s %s", r.hash, tostring(size), tostring(mtime), tostring(r.machine))
  end
  return sys.sha256(table.concat(parts, "\n"))
end

-- The records' folder, the key of the machines the run's points ran on, and the digest's file.
local function where(s, o)
  local seen, machines = {}, {}
  for _, r in ipairs(s.rows) do
    if r.machine and not seen[r.machine] then seen[r.machine] = true; machines[#machines + 1] = r.machine end
  end
  local dir, key = history.dir(s:get("cacheDir"), s.home, o.path), history.machine_key(machines)
  return dir, key, dir .. "/.repeats-" .. key
end

-- The id of the newest record on these machines (nil: none).
local function newest(dir, key)
  local files, id = history.files(dir), nil
  for _, f in ipairs(files) do if f.key == key then id = f.id end end
  return id
end

-- Whether digest d is the newest record's, that record still the newest on these machines.
function M.repeats(s, o, d)
  if not d then return false end
  local dir, key, file = where(s, o)
  local id, kept = (sys.readfile(file) or ""):match("^(%d+) (%x+)\n?$")
  return kept == d and tonumber(id) == newest(dir, key)
end

-- After a record was written or found to repeat the newest: that record's digest d kept with
-- its id, or (d nil: a run not of cache hits) none.
function M.keep(s, o, d)
  local dir, key, file = where(s, o)
  local id = d and newest(dir, key)
  if id then sys.writefile(file, id .. " " .. d .. "\n") else sys.remove(file) end
end

return M
