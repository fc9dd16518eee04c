-- rot.execute.slurm: the executor that measures on a Slurm cluster (-executor=slurm): every
-- point looked up in the cache as usual, the missing ones written to a job directory under
-- cacheDir (a shared file system) and submitted as one sbatch array job per node type (tasks
-- on exclusive nodes); it waits with a progress line and reads the results back from the
-- shared cache. Each array task runs `rot worker JOBDIR TASK` (rot.execute.worker). An error
-- or an interruption (SIGINT, SIGTERM, SIGHUP) while jobs run cancels them and waits until
-- Slurm no longer lists them.
local sys = require "rot.sys"
local session = require "rot.session"
local util = require "rot.util"
local lookup = require "rot.execute.lookup"
local keys = require "rot.build.keys"

local M = { name = "slurm", measures_here = false, builds_only = false }

-- The array task's script: constant text; the paths come as arguments, never through a shell.
local TASK_SCRIPT = [[#!/bin/sh
# rot's Slurm array task: measures its share of the job's points on this node.
# Arguments: ROT_HOME JOBDIR (sbatch passes them through); the task index from Slurm.
exec "$1/rot" worker "$2" "$SLURM_ARRAY_TASK_ID"
]]

local function slurm_fail(what, out, hint)
  util.fail(what .. ((out or "") ~= "" and (":\n" .. out:gsub("%s+$", "")) or ""), hint)
end

-- The node types: one per -slurmConstraint entry ("" = any node).
function M.types(config)
  local t = {}
  for c in (config:get("slurmConstraint") .. ","):gmatch("([^,]*),") do
    c = c:gsub("^%s+", ""):gsub("%s+$", "")
    if c ~= "" then t[#t + 1] = c end
  end
  if #t == 0 then t[1] = "" end
  local out = {}
  for _, c in ipairs(t) do
    local key = table.concat({ config:get("slurmPartition"), c, config:get("slurmAccount") }, "|")
    out[#out + 1] = { constraint = c, key = key, file = sys.sha256(key):sub(1, 16) }
  end
  return out
end

-- The points of task `task` when n points are split over `tasks` tasks: first, last (1-based).
function M.share(n, tasks, task) return task * n // tasks + 1, (task + 1) * n // tasks end

-- The task that measures point `index` of n split over `tasks`.
local function task_of(n, tasks, index)
  local task = 0
  while select(2, M.share(n, tasks, task)) < index do task = task + 1 end
  return task
end

-- The fingerprint of a node type, as its workers recorded it (nil before its first job).
function M.fp_path(config, ty) return config:get("cacheDir") .. "/machines/slurm-" .. ty.file .. ".fp" end
local fp_path = M.fp_path

local function known_fp(config, ty)
  local text = sys.readfile(fp_path(config, ty))
  local fp = util.deserialize(text, "fingerprint")
  return type(fp) == "table" and fp or nil
end

-- sbatch's command line for a job directory of `tasks` tasks of node type ty.
local function sbatch_argv(s, ty, dir, tasks, name)
  local config = s.config
  local argv = { "sbatch", "--parsable", "--job-name=rot-" .. name, "--array=0-" .. (tasks - 1), "--exclusive",
    "--no-requeue", "--output=" .. dir:gsub("%%", "%%%%") .. "/task-%a.log" } -- sbatch reads % in it as a pattern
  if config:get("slurmPartition") ~= "" then argv[#argv + 1] = "--partition=" .. config:get("slurmPartition") end
  if ty.constraint ~= "" then argv[#argv + 1] = "--constraint=" .. ty.constraint end
  if config:get("slurmAccount") ~= "" then argv[#argv + 1] = "--account=" .. config:get("slurmAccount") end
  if config:get("slurmTimeLimit") ~= "" then argv[#argv + 1] = "--time=" .. config:get("slurmTimeLimit") end
  for _, a in ipairs({ dir .. "/task.sh", s.home, dir }) do argv[#argv + 1] = a end
  return argv
end

-- Writes the job directory and submits the array job; returns the job.
local function submit(s, ty, items, name)
  local config = s.config
  local base = config:get("cacheDir") .. "/jobs"
  sys.mkdir(base)
  local id = string.format("%d-%x", sys.pid(), math.floor(sys.clock() * 1e6) % 0x10000000)
  local dir = base .. "/" .. id .. "-" .. ty.file
  local ok, err = sys.mkdir(dir .. "/result")
  if not ok then
    util.fail("cannot write the job directory '" .. dir .. "': " .. err,
      "set -cacheDir to a shared, writable directory")
  end
  local opts = {}
  for _, k in ipairs(config:keys()) do
    if k.name ~= "executor" and k.name ~= "outputDir" and k.name ~= "userConfigFile" then
      opts[#opts + 1] = "-" .. k.name .. "=" .. tostring(k.value) -- the values in effect, wherever they came from
    end
  end
  local points = {}
  for i, it in ipairs(items) do points[i] = { coord = it.coord, spec = it.spec } end
  local tasks = math.max(1, math.min(config:get("slurmNodes"), #items))
  assert(sys.writefile(dir .. "/job", util.serialize({ home = s.home, script_dir = s.script_dir, options = opts,
    type = ty, tasks = tasks, points = points })))
  assert(sys.writefile(dir .. "/task.sh", TASK_SCRIPT))
  local st, out = sys.run(sbatch_argv(s, ty, dir, tasks, name), { capture = true, timeout = 60 })
  local jobid = st == 0 and out:match("^(%d+)")
  if not jobid then
    slurm_fail("sbatch refused the job" .. (ty.constraint ~= "" and (" for constraint '" .. ty.constraint
      .. "'") or ""), out or st)
  end
  return { id = jobid, dir = dir, type = ty, tasks = tasks, items = items, finished = false,
    time_limit = config:get("slurmTimeLimit") }
end

-- States of the job's tasks: {[task] = {state=, node=, exit=, reason=}}; from squeue while
-- queued, then from scontrol (which remembers finished jobs for MinJobAge seconds).
local function states(job)
  local out = {}
  local st, text = sys.run({ "squeue", "-h", "-j", job.id, "-o", "%i %T %N" }, { capture = true, timeout = 60 })
  local queued = 0
  if st == 0 then
    for task, state, node in text:gmatch("%d+_%[?([%d,%-]+)%]? (%S+) ?([^\n]*)") do
      for a, b in (task .. ","):gmatch("(%d+)%-?(%d*),") do
        for t = tonumber(a), tonumber(b ~= "" and b or a) do
          out[t] = { state = state, node = node }; queued = queued + 1
        end
      end
    end
  end
  if queued < job.tasks then
    local _, all = sys.run({ "scontrol", "show", "job", "-o", job.id }, { capture = true, timeout = 60 })
    for line in (all or ""):gmatch("[^\n]+") do
      local t = tonumber(line:match("ArrayTaskId=(%d+)"))
      if t and not out[t] then
        out[t] = { state = line:match("JobState=(%S+)"), node = line:match(" NodeList=(%S+)"),
          exit = line:match("ExitCode=(%S+)"),
          reason = line:match(" Reason=(%S+)") }
      end
    end
  end
  return out
end

local FINAL = { COMPLETED = true, FAILED = true, CANCELLED = true, TIMEOUT = true,
  NODE_FAIL = true, OUT_OF_MEMORY = true,
  PREEMPTED = true, BOOT_FAIL = true, DEADLINE = true, GONE = true }

-- The state of task t of a job as last seen; GONE: Slurm no longer knows the job (MinJobAge).
local function state_of(job, t)
  local st = job.states and job.states[t]
  return st and st.state or "GONE"
end

-- Waits for the jobs, with a progress line on stderr.
local function wait(jobs, show)
  jobs.show = show
  while true do
    local counts, done_points, total_points, open = { pending = 0, running = 0, done = 0, failed = 0 }, 0, 0, false
    for _, job in ipairs(jobs) do
      job.states = states(job)
      for t = 0, job.tasks - 1 do
        local state = state_of(job, t)
        if state == "PENDING" or state == "CONFIGURING" then counts.pending = counts.pending + 1
        elseif not FINAL[state] then counts.running = counts.running + 1
        elseif state == "COMPLETED" then counts.done = counts.done + 1
        else counts.failed = counts.failed + 1 end
        open = open or not FINAL[state]
      end
      done_points = done_points + #(sys.listdir(job.dir .. "/result") or {})
      total_points = total_points + #job.items
    end
    if show then
      io.stderr:write(string.format("\r\27[Kslurm: tasks pending %d, running %d, done %d, failed %d; points %d/%d",
        counts.pending, counts.running, counts.done, counts.failed, done_points, total_points))
      io.stderr:flush()
    end
    if not open then break end
    sys.sleep(1)
    local sig = sys.interrupted()
    if sig then util.interrupted(sig) end
  end
  if show then io.stderr:write("\r\27[K") end
  for _, job in ipairs(jobs) do job.finished = true end
end

--[[ Cancels the jobs not finished yet (scancel) and waits, at most `bound` seconds, until squeue
  lists none of them: their tasks (the workers, their cores and kernels) have ended. Runs
  shielded: an interruption meanwhile neither stops scancel nor cuts the wait short. ]]
local function cancel(jobs, bound)
  local ids = {}
  for _, job in ipairs(jobs) do
    if not job.finished then
      ids[#ids + 1] = job.id
      local st, out = sys.run({ "scancel", job.id }, { capture = true, timeout = 30 })
      if st ~= 0 then
        io.stderr:write("rot: scancel ", job.id, " failed: ", (tostring(out or st):gsub("%s+$", "")), "\n")
      end
    end
  end
  if #ids == 0 then return end
  if jobs.show then io.stderr:write("\r\27[K") end -- the progress line
  io.stderr:write("rot: cancelled Slurm job", #ids > 1 and "s " or " ", table.concat(ids, ", "),
    "; waiting for its tasks to end\n")
  local listed, t0 = nil, sys.clock()
  repeat
    if listed then sys.sleep(0.5) end
    local st, out = sys.run({ "squeue", "-h", "-j", table.concat(ids, ","), "-o", "%i" },
      { capture = true, timeout = 30 })
    listed = st == 0 and out:match("%S") ~= nil
  until not listed or sys.clock() - t0 > bound
  if listed then
    io.stderr:write("rot: after ", bound, " s squeue still lists job", #ids > 1 and "s " or " ",
      table.concat(ids, ", "),
      " (cancelled; Slurm ends their tasks after its KillWait)\n")
  end
  for _, job in ipairs(jobs) do job.finished = true end
end

-- The last lines (at most n) of a task's log, or nil when it has none.
local function log_tail(path, n)
  local lines = {}
  for l in (sys.readfile(path) or ""):gmatch("[^\n]+") do
    if l:match("%S") then lines[#lines + 1] = l end
  end
  if #lines == 0 then return nil end
  return table.concat(lines, "\n", math.max(1, #lines - n + 1))
end

local SIGNAL_NAMES = { [9] = "SIGKILL", [15] = "SIGTERM", [6] = "SIGABRT", [11] = "SIGSEGV", [2] = "SIGINT" }

-- How the task's script (the worker) ended, from Slurm's "EXIT:SIGNAL".
local function worker_end(exit)
  local code, sig = (exit or ""):match("^(%d+):(%d+)$")
  if not code then return "ended (exit code " .. tostring(exit) .. ")" end
  sig, code = tonumber(sig), tonumber(code)
  if sig > 0 then
    return "was killed by signal " .. sig .. (SIGNAL_NAMES[sig] and (" (" .. SIGNAL_NAMES[sig] .. ")") or "")
  end
  return "exited with status " .. code
end

--[[ Every way a task can end without a point's result, in words a user can act on: the one
  place they are written. $where: "on node N before it measured this point" (or "before it
  started"), $node, $limit (-slurmTimeLimit), $worker (how the worker ended), $state. ]]
local WORDS = {
  CANCELLED = "was CANCELLED (scancel, or by an administrator) $where",
  TIMEOUT = "ran past its time limit (TIMEOUT; -slurmTimeLimit=$limit is too short for its points) $where",
  NODE_FAIL = "lost its node $node, which went down (NODE_FAIL), before it measured this point",
  OUT_OF_MEMORY = "ran out of memory (OUT_OF_MEMORY) $where",
  FAILED = "FAILED $where: its worker $worker",
  PREEMPTED = "was PREEMPTED by another job $where",
  BOOT_FAIL = "could not boot its node (BOOT_FAIL)",
  DEADLINE = "missed its deadline (DEADLINE) $where",
  COMPLETED = "COMPLETED on node $node, but left no result for this point",
  GONE = "ended, but Slurm no longer says how (its MinJobAge passed), and left no result for this point",
  other = "ended $state $where",
  -- its worker reported the point, but this run cannot use what it wrote
  missing = "reported this point $word, but its cache entry is not in cacheDir '$cacheDir' here (is cacheDir one "
    .. "shared directory on the nodes and here?)",
  foreign = "reported this point $word, but its cache entry was measured by a core ($core) this checkout does not "
    .. "build for it (is ROT_HOME the same checkout on the nodes and here?)",
}

-- Whether a worker's word for a point is only the mark of Slurm stopping the task around it
-- (SIGTERM, then SIGKILL, to every process of the task).
local function killed_by_slurm(said) return said:find("signal 15%f[%D]") or said:find("signal 9%f[%D]") end

--[[ Why point `index` of a job did not come back: its worker's word ("crashed: ..."), else how
  its task ended, with where, and the last lines of the task's log on the next lines. lost:
  {kind = "missing"|"foreign", ...} when the worker reported it but this run cannot use it. ]]
function M.why(job, index, lost)
  local r = sys.readfile(job.dir .. "/result/" .. index)
  local said = r and r:match("^failed (.-)%s*$")
  local task = task_of(#job.items, job.tasks, index)
  local st = job.states and job.states[task] or {}
  local state = state_of(job, task)
  if said and (state == "COMPLETED" or not killed_by_slurm(said)) then return said end
  local node = st.node and st.node ~= "" and st.node ~= "(null)" and st.node ~= "None" and st.node or nil
  local vars = { node = tostring(node), limit = job.time_limit, worker = worker_end(st.exit), state = state,
    where = node and ("on node " .. node .. " before it measured this point") or "before it started" }
  for k, v in pairs(lost or {}) do vars[k] = v end
  local words = (WORDS[lost and lost.kind or state] or WORDS.other):gsub("%$(%a+)", vars)
  local msg = string.format("Slurm task %d of job %s %s", task, job.id, words)
  if said then msg = msg .. " (its worker saw: " .. said .. ")" end
  local log = job.dir .. "/task-" .. task .. ".log"
  local tail = log_tail(log, 3)
  return msg .. "\nits log " .. log .. (tail and (" ends:\n  | " .. tail:gsub("\n", "\n  | ")) or " is empty")
end

-- Submits the points of each node type not yet in the cache (each job recorded in `jobs` as
-- soon as sbatch answers); returns per type {type=, rows= (from a lookup under its known
-- fingerprint, or nil), missing=, job=}.
local function submit_all(s, items, types, jobs)
  local per = {}
  local name = (s.script or util.basename(s.script_dir or "points")):gsub("[^%w_.-]", "_")
  for ti, ty in ipairs(types) do
    local fp = known_fp(s.config, ty)
    local missing, rows = items, nil
    if fp then
      rows = lookup.lookup(s, items, fp)
      missing = {}
      for i, row in ipairs(rows) do if not row.cached then missing[#missing + 1] = items[i] end end
    end
    per[ti] = { type = ty, rows = rows, missing = missing }
    if #missing > 0 then
      local job = sys.shielded(function() -- a job sbatch accepted is always recorded, so it can be cancelled
        local j = submit(s, ty, missing, name)
        jobs[#jobs + 1] = j
        return j
      end)
      per[ti].job = job
      io.stderr:write(string.format("rot: %d %s submitted to Slurm as job %s%s (%d %s), job directory %s\n",
        #missing, util.plural(#missing, "point"), job.id, ty.constraint ~= "" and (" on '"
          .. ty.constraint .. "' nodes") or "",
        job.tasks, util.plural(job.tasks, "task"), job.dir))
    end
  end
  return per
end

-- Says once per task the failures of its points (the table shows each row's first line), and the
-- points other rot runs were measuring when this run's workers reached them.
local function report(failed, waited)
  local said = {}
  for _, f in ipairs(failed) do
    local first, rest = f.why:match("^([^\n]*)\n?(.*)$")
    io.stderr:write("rot: ", util.point_name(f.row.point), " failed: ", first, "\n")
    if rest ~= "" and not said[rest] then said[rest] = true; io.stderr:write("  ", (rest:gsub("\n", "\n  ")), "\n") end
  end
  local n, by = 0, {}
  for who, count in pairs(waited) do n = n + count; by[#by + 1] = who end
  if n > 0 then
    table.sort(by)
    io.stderr:write(string.format("rot: %d %s %s being measured by another rot run when this run's workers reached "
      .. "them (%s): they waited, and took them from the cache\n",
      n, util.plural(n, "point"), util.plural(n, "was", "were"), table.concat(by, "; ")))
  end
end

-- Why a point its worker reported (`word`: measured, a hit) does not serve this run.
local function lost(s, row, word)
  local e = row.desc and lookup.read(s, row)
  if not e then return { kind = "missing", word = word, cacheDir = s:get("cacheDir") } end
  return { kind = "foreign", word = word, core = tostring(e.coreHash):sub(1, 12) }
end

--[[ The rows of a node type whose job ended: looked up again under the fingerprint its workers
  recorded (and the cores they stored); a point still missing failed, with why. ]]
local function collect(s, items, p, failed, waited)
  local fp = known_fp(s.config, p.type)
  local index = {}
  for i, it in ipairs(p.missing) do index[it] = i end
  keys.forget(s) -- the workers built and stored cores since this run first read the store
  local rows = {}
  if fp then rows = lookup.lookup(s, items, fp, true)
  else -- no worker ever ran: every point of this node type failed
    for i, it in ipairs(items) do rows[i] = { point = it.coord, spec = it.spec } end
  end
  for i, row in ipairs(rows) do
    local j = index[items[i]]
    if j then
      local r = sys.readfile(p.job.dir .. "/result/" .. j) or ""
      if row.cached then -- measured by this job's worker, else found in the cache (by it, or another run)
        if r:match("^measured") then row.cached, row.measured, row.slurm = nil, true, true end
        local who = r:match("\nwaited for ([^\n]+)")
        if who then waited[who] = (waited[who] or 0) + 1 end
      else
        row.failed = M.why(p.job, j, r:match("^measured") and lost(s, row, "measured") or r:match("^hit")
          and lost(s, row, "a hit"))
        failed[#failed + 1] = { row = row, why = row.failed }
      end
    end
  end
  return rows
end

-- On an error or an interruption in measure: the jobs not finished are cancelled (shielded).
local function canceller(jobs)
  return setmetatable({}, { __close = function(_, err)
    if err ~= nil then sys.shielded(cancel, jobs, 30) end
  end })
end

-- Stops with what to install where sbatch is not on PATH.
local function need_sbatch()
  if not sys.locate("sbatch") then
    util.fail("-executor=slurm needs Slurm's 'sbatch', which is not on PATH",
      "sudo apt-get install slurm-client (or load your cluster's Slurm module), or use -executor=local", 2)
  end
end

-- Whether every item would come from the cache on every node type (rot.cached): each looked up
-- under its type's fingerprint, none before a type's first job.
function M.cached(s, items)
  need_sbatch()
  for _, ty in ipairs(M.types(s.config)) do
    local fp = known_fp(s.config, ty)
    if not fp then return false end
    for _, row in ipairs(lookup.lookup(s, items, fp)) do if not row.cached then return false end end
  end
  return true
end

--[[ The executor: the rows of every node type (one row per point and node type; row.machine
  and row.nodeType say which), measured on the cluster or loaded like a local run's. ]]
function M.measure(s, items)
  local config = s.config
  need_sbatch()
  local jobs = {}
  local guard <close> = canceller(jobs)
  local per = submit_all(s, items, M.types(config), jobs)
  if #jobs > 0 then
    s:timed("measure", wait, jobs, session.shows_progress(config:get("progress")))
  end
  local out, failed, waited = {}, {}, {}
  for _, p in ipairs(per) do
    local rows = p.job and collect(s, items, p, failed, waited) or p.rows
    for _, row in ipairs(rows) do
      row.nodeType = p.type.constraint
      s:settle(row)
      out[#out + 1] = row
    end
  end
  report(failed, waited)
  return out
end

return M
