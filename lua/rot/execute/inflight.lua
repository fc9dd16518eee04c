--[[ rot.execute.inflight: which rot process is measuring a point right now, across the nodes that
  share a cache directory, so two Slurm workers (of two rot runs with overlapping points) never
  measure one point twice: a worker claims each point before it measures it and releases it once
  the point is settled; a point another live process holds is busy (it waits for it).

  A claim is a directory cacheDir/claims/HASH holding a file `owner` (who, host, pid and its
  start time, Slurm job). It is taken by renaming a prepared directory onto that name, which
  fails while another non-empty one is there: atomic on local file systems and NFS alike. A
  claim whose owner has ended (same host: its pid is gone or was reused; another host: its
  Slurm job no longer runs) is stale, and is taken over. ]]
local sys = require "rot.sys"
local util = require "rot.util"

local M = {}

local LIVE = { RUNNING = true, COMPLETING = true, CONFIGURING = true, SUSPENDED = true, STOPPED = true,
  SIGNALING = true, STAGE_OUT = true, RESIZING = true }

-- This machine's host name.
local hostname = util.hostname

-- The start time of process pid (clock ticks since boot, from /proc), or nil when it is gone.
local function started(pid)
  local stat = sys.readfile("/proc/" .. pid .. "/stat")
  return stat and stat:match("^.*%) %S+" .. string.rep(" %S+", 18) .. " (%d+)") or nil
end

--[[ This process as an owner: who (in words, for messages), host, pid and start time, and its
  Slurm job when it runs in one (JOB_TASK for an array task: squeue -j lists that task alone). ]]
function M.me(who)
  local pid, array = sys.pid(), os.getenv("SLURM_ARRAY_JOB_ID")
  return { who = who, host = hostname(), pid = pid, start = started(pid),
    job = array and (array .. "_" .. (os.getenv("SLURM_ARRAY_TASK_ID") or "")) or os.getenv("SLURM_JOB_ID") }
end

-- Whether an owner may still be measuring: same host, its process; else its Slurm job.
function M.alive(owner)
  if owner.host == hostname() then
    if not owner.start then return sys.alive(owner.pid) end
    return started(owner.pid) == owner.start -- not a later process with its pid
  end
  if owner.job and sys.locate("squeue") then
    local st, out = sys.run({ "squeue", "-h", "-j", owner.job, "-o", "%T" }, { capture = true, timeout = 20 })
    if st == nil then return true end -- squeue did not answer: cannot tell
    return st == 0 and LIVE[(out:match("^(%S+)"))] == true
  end
  return true -- another host, no Slurm job to ask: cannot tell (the waiter's bound decides)
end

local function dir_of(s) return s:get("cacheDir") .. "/claims" end

local function read_owner(path)
  local text = sys.readfile(path .. "/owner")
  local o = util.deserialize(text, "claim")
  return type(o) == "table" and o or nil
end

local function same(a, b) return a and b and a.host == b.host and a.pid == b.pid and a.start == b.start end

-- The owner of a point's claim, or nil when nobody holds it.
function M.owner(s, row) return read_owner(dir_of(s) .. "/" .. row.hash) end

local Holder = {}
Holder.__index = Holder

--[[ The claims this process holds (a to-be-closed value: what it still holds when it is
  closed, by an error or an interruption too, is released). me: M.me(...). ]]
function M.holder(s, me)
  sys.mkdir(dir_of(s))
  return setmetatable({ s = s, me = me, held = {}, n = 0 }, Holder)
end

-- A fresh, unique name in the claims directory (for a claim being made or removed).
function Holder:scratch(what)
  self.n = self.n + 1
  return string.format("%s/.%s-%s-%d-%d", dir_of(self.s), what, self.me.host, self.me.pid, self.n)
end

-- Moves the claim at path aside and removes it if its owner is `owner`; else puts it back.
function Holder:remove_if(path, owner)
  local aside = self:scratch("gone")
  if not sys.rename(path, aside) then return end
  if same(read_owner(aside), owner) then sys.removetree(aside) else sys.rename(aside, path) end
end

--[[ Claims a row's point: true, or false and the owner that holds it (alive). A stale claim is
  taken over. ]]
function Holder:take(row)
  local path = dir_of(self.s) .. "/" .. row.hash
  for _ = 1, 3 do
    local new = self:scratch("new")
    sys.mkdir(new)
    assert(sys.writefile(new .. "/owner", util.serialize(self.me)))
    if sys.rename(new, path) then
      self.held[row.hash] = path
      return true
    end
    sys.removetree(new)
    local other = read_owner(path)
    if other and M.alive(other) then return false, other end
    if other then self:remove_if(path, other) end -- stale: its owner ended without releasing it
  end
  return false, read_owner(path) or { who = "another rot process" }
end

-- Releases a row's claim (nothing when this process does not hold it).
function Holder:release(row)
  local path = self.held[row.hash]
  if not path then return end
  self.held[row.hash] = nil
  self:remove_if(path, self.me)
end

Holder.__close = function(self)
  for hash, path in pairs(self.held) do
    self.held[hash] = nil
    self:remove_if(path, self.me)
  end
end

return M
