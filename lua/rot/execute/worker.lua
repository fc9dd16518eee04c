-- rot.execute.worker: `rot worker JOBDIR TASK`, one Slurm array task of -executor=slurm: its
-- share of the job's points (a contiguous block) described with this node's fingerprint,
-- built in a node-local directory with the ccache under cacheDir, measured by the local
-- executor, each point's outcome written to the job directory as soon as it is known. A point
-- another rot process is measuring at the same time (rot.execute.inflight) is waited for and
-- taken from the cache, never measured twice.
local sys = require "rot.sys"
local util = require "rot.util"
local machine = require "rot.machine"
local session = require "rot.session"
local lookup = require "rot.execute.lookup"
local outcome = require "rot.execute.outcome"
local claim = require "rot.execute.inflight"
local keys = require "rot.build.keys"
local executor = require "rot.execute.local"
local slurm = require "rot.execute.slurm"

local M = {}

local function read_job(jobdir)
  local text = sys.readfile(jobdir .. "/job")
  local job = util.deserialize(text, "job")
  if type(job) ~= "table" then util.fail("'" .. jobdir .. "' holds no rot job") end
  return job
end

-- This worker in words, as another run's worker sees it when it finds a point busy.
local function who_am_i(task)
  return string.format("rot worker of Slurm job %s (task %s) on node %s, pid %d", os.getenv("SLURM_ARRAY_JOB_ID") or
    os.getenv("SLURM_JOB_ID") or "?", task, os.getenv("SLURMD_NODENAME") or "?", sys.pid())
end

--[[ What the driver reads back for each point (JOBDIR/result/INDEX, written as soon as the point
  is settled): "measured", "hit" (a second line "waited for WHO" when another run was measuring
  it), or "failed WHY". A point that failed because this worker was being stopped (Slurm's
  SIGTERM on a cancel, a time limit, a node going down) gets no word: the task's end says it. ]]
local function reporter(jobdir, first, holder)
  return function(row)
    holder:release(row)
    if row.failed and sys.interrupted() then return end
    local what = row.failed and ("failed " .. row.failed:gsub("\n", " ")) or row.cached and "hit" or "measured"
    if row.waited_for then what = what .. "\nwaited for " .. row.waited_for end
    sys.writefile(jobdir .. "/result/" .. (first + row.item - 1), what .. "\n")
  end
end

--[[ One look at a busy point b ({row=, by=owner}): "wait" (its owner still holds it; b.by
  updated when another took it over), "hit" (settled from the cache) or "measure" (claimed here,
  or waited out). alive(owner) says whether an owner still runs. ]]
local function look(s, holder, b, waited_out, alive)
  local owner = claim.owner(s, b.row)
  if owner and not waited_out and alive(owner) then return "wait" end
  local e = lookup.read(s, b.row)
  if lookup.serves(s, b.row, e, keys.known(s)[b.row.key], true) then
    b.row.waited_for = b.by.who
    outcome.hit(s, b.row, e)
    return "hit"
  end
  local ok, other = holder:take(b.row)
  if ok then return "measure" end
  if not waited_out then b.by = other; return "wait" end -- claimed by another run meanwhile
  io.stdout:write("rot worker: waited ", math.floor(s:get("timeout") + 30), " s for ",
    util.point_name(b.row.point), ", which ", other.who, " is measuring; measuring it here\n")
  io.stdout:flush()
  return "measure"
end

--[[ Waits for the busy points until each is in the cache (a hit) or free to measure here: its
  claim released or stale without a usable entry, or no point landed and no round of one was
  written for longer than the timeout + 30 s (then it is measured here anyway, and the log says
  so). Looks once a second,
  asking about each owner once a look (squeue, for one on another host). ]]
local function wait_busy(s, holder, busy)
  local limit, last = s:get("timeout") + 30, sys.clock()
  while #busy > 0 do
    sys.sleep(1)
    keys.forget(s)
    local seen, rest, mine = {}, {}, {}
    local function alive(o)
      local k = o.host .. ":" .. tostring(o.pid) .. ":" .. tostring(o.start)
      if seen[k] == nil then seen[k] = claim.alive(o) end
      return seen[k]
    end
    for _, b in ipairs(busy) do
      local stamp = select(3, sys.stat(b.row.path)) -- a round of it written: its owner goes on
      if stamp ~= b.stamp then b.stamp, last = stamp, b.stamp and sys.clock() or last end
      local what = look(s, holder, b, sys.clock() - last > limit, alive)
      if what == "wait" then rest[#rest + 1] = b
      elseif what == "measure" then mine[#mine + 1] = b.row
      else last = sys.clock() end
    end
    if #mine > 0 then executor.measure_pending(s, mine); last = sys.clock() end
    busy = rest
  end
end

--[[ Measures the pending rows: each claimed first; those another live rot process holds are
  busy: waited for once the rest is measured. ]]
local function measure(s, holder, pending)
  local mine, busy = {}, {}
  for _, row in ipairs(pending) do
    local ok, owner = holder:take(row)
    if ok then mine[#mine + 1] = row
    else
      busy[#busy + 1] = { row = row, by = owner }
      io.stdout:write("rot worker: ", util.point_name(row.point), " is being measured by ", owner.who,
        "; waiting for it\n")
      io.stdout:flush() -- the task's log says so now, not when the worker ends
    end
  end
  executor.measure_pending(s, mine)
  wait_busy(s, holder, busy)
end

--[[ Runs task `task` of the job in jobdir; load_config(options) gives the configuration the
  job was submitted with (the worker's own command line on top). Returns the session (for
  its summary) and the exit status: 1 when a point failed. ]]
function M.run(home, jobdir, task, load_config)
  local job = read_job(jobdir)
  task = math.tointeger(tonumber(task))
  if not task or task < 0 or task >= job.tasks then
    util.fail("task '" .. tostring(task) .. "' is not in job '" .. jobdir .. "'")
  end
  local config = load_config(job.options)
  local fp = machine.fingerprint(config)
  local s = session.new { home = home, config = config, script_dir = job.script_dir, executor = executor,
    builddir = (os.getenv("TMPDIR") or "/tmp") .. "/rot-build-" .. (os.getenv("USER") or "user")
      .. "-" .. machine.id(fp),
    scheduled = true }
  session.set_current(s)
  if not os.getenv("CCACHE_DIR") then sys.setenv("CCACHE_DIR", config:get("cacheDir") .. "/ccache") end
  sys.mkdir(config:get("cacheDir") .. "/machines")
  assert(sys.writefile(slurm.fp_path(config, job.type), util.serialize(fp)))
  local first, last = slurm.share(#job.points, job.tasks, task)
  local items = {}
  for i = first, last do items[#items + 1] = job.points[i] end
  local rows, pending = lookup.lookup(s, items)
  local holder <close> = claim.holder(s, claim.me(who_am_i(task)))
  s:on_settle(reporter(jobdir, first, holder))
  for _, row in ipairs(rows) do if row.cached then s:settle(row) end end
  measure(s, holder, pending)
  io.stdout:write(string.format("rot worker: task %d of job %s on %s: points %d-%d, %d cached, "
    .. "%d measured, %d failed\n",
    task, jobdir, machine.id(fp), first, last, s.count.hits, s.count.measured, s.count.failed))
  return s, s.count.failed > 0 and 1 or 0
end

return M
