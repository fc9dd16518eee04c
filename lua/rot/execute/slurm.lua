-- rot.execute.slurm: the executor that measures on a Slurm cluster (-executor=slurm): every
-- point looked up in the cache as usual, the missing ones written to a job directory under
-- cacheDir (a shared file system) and submitted as one sbatch array job per node type (tasks
-- on exclusive nodes); it waits with a progress line and reads the results back from the
-- shared cache. Each array task runs `rot worker JOBDIR TASK` (rot.execute.worker).
local sys = require "rot.sys"
local util = require "rot.util"
local lookup = require "rot.execute.lookup"

local M = { name = "slurm" }

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

-- The fingerprint of a node type, as its workers recorded it (nil before its first job).
function M.fp_path(config, ty) return config:get("cacheDir") .. "/machines/slurm-" .. ty.file .. ".fp" end
local fp_path = M.fp_path

local function known_fp(config, ty)
  local text = sys.readfile(fp_path(config, ty))
  local f = text and load("return " .. text, "fingerprint", "t", {})
  local ok, fp = pcall(f or error)
  return ok and type(fp) == "table" and fp or nil
end

-- Writes the job directory and submits the array job; returns the job.
local function submit(s, ty, items, name)
  local config = s.config
  local base = config:get("cacheDir") .. "/jobs"
  sys.mkdir(base)
  local id = string.format("%d-%x", sys.pid(), math.floor(sys.clock() * 1e6) % 0x10000000)
  local dir = base .. "/" .. id .. "-" .. ty.file
  local ok, err = sys.mkdir(dir .. "/result")
  if not ok then util.fail("cannot write the job directory '" .. dir .. "': " .. err, "set -cacheDir to a shared, writable directory") end
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
  local argv = { "sbatch", "--parsable", "--job-name=rot-" .. name, "--array=0-" .. (tasks - 1), "--exclusive",
    "--output=" .. dir .. "/task-%a.log" }
  if config:get("slurmPartition") ~= "" then argv[#argv + 1] = "--partition=" .. config:get("slurmPartition") end
  if ty.constraint ~= "" then argv[#argv + 1] = "--constraint=" .. ty.constraint end
  if config:get("slurmAccount") ~= "" then argv[#argv + 1] = "--account=" .. config:get("slurmAccount") end
  if config:get("slurmTimeLimit") ~= "" then argv[#argv + 1] = "--time=" .. config:get("slurmTimeLimit") end
  for _, a in ipairs({ dir .. "/task.sh", s.home, dir }) do argv[#argv + 1] = a end
  local st, out = sys.run(argv, { capture = true })
  local jobid = st == 0 and out:match("^(%d+)")
  if not jobid then slurm_fail("sbatch refused the job" .. (ty.constraint ~= "" and (" for constraint '" .. ty.constraint .. "'") or ""), out) end
  return setmetatable({ id = jobid, dir = dir, type = ty, tasks = tasks, items = items, finished = false }, {
    __close = function(job) -- Ctrl-C (or an error) while waiting: the job goes too
      if not job.finished then sys.run({ "scancel", job.id }, { quiet = true }) end
    end })
end

-- States of the job's tasks: {[task] = {state=, node=, exit=}}; from squeue while queued,
-- then from scontrol (which remembers finished jobs for MinJobAge seconds).
local function states(job)
  local out = {}
  local st, text = sys.run({ "squeue", "-h", "-j", job.id, "-o", "%i %T %N" }, { capture = true })
  local queued = 0
  if st == 0 then
    for task, state, node in text:gmatch("%d+_%[?([%d,%-]+)%]? (%S+) ?([^\n]*)") do
      for a, b in (task .. ","):gmatch("(%d+)%-?(%d*),") do
        for t = tonumber(a), tonumber(b ~= "" and b or a) do out[t] = { state = state, node = node }; queued = queued + 1 end
      end
    end
  end
  if queued < job.tasks then
    local _, all = sys.run({ "scontrol", "show", "job", "-o", job.id }, { capture = true })
    for line in (all or ""):gmatch("[^\n]+") do
      local t = tonumber(line:match("ArrayTaskId=(%d+)"))
      if t and not out[t] then
        out[t] = { state = line:match("JobState=(%S+)"), node = line:match(" NodeList=(%S+)"), exit = line:match("ExitCode=(%S+)") }
      end
    end
  end
  return out
end

local FINAL = { COMPLETED = true, FAILED = true, CANCELLED = true, TIMEOUT = true, NODE_FAIL = true, OUT_OF_MEMORY = true,
  PREEMPTED = true, BOOT_FAIL = true, DEADLINE = true }

-- Waits for the jobs, with a progress line on stderr.
local function wait(jobs, show)
  while true do
    local counts, done_points, total_points, open = { pending = 0, running = 0, done = 0, failed = 0 }, 0, 0, false
    for _, job in ipairs(jobs) do
      job.states = states(job)
      for t = 0, job.tasks - 1 do
        local s = job.states[t]
        local state = s and s.state or "COMPLETED" -- gone from both: long finished
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

-- Why a point did not come back: its worker's word, else its task's end.
local function why(job, index)
  local r = sys.readfile(job.dir .. "/result/" .. index)
  if r and r:match("^failed ") then return r:sub(8):gsub("%s+$", "") end
  local task, n = 0, #job.items
  while (task + 1) * n // job.tasks < index do task = task + 1 end
  local s = job.states and job.states[task] or {}
  return string.format("Slurm task %d of job %s ended %s on node %s (exit %s); its log: %s", task, job.id,
    tostring(s.state or "unknown"), tostring(s.node or "?"), tostring(s.exit or "?"), job.dir .. "/task-" .. task .. ".log")
end

-- Submits the points of each node type not yet in the cache; returns per type {type=, rows=
-- (from a lookup under its known fingerprint, or nil), missing=, job=}.
local function submit_all(s, items, types)
  local per = {}
  local name = util.basename(s.script_dir or "points"):gsub("[^%w_.-]", "_")
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
      local job = submit(s, ty, missing, name)
      per[ti].job = job
      io.stderr:write(string.format("rot: %d point%s submitted to Slurm as job %s%s (%d task%s), job directory %s\n",
        #missing, #missing == 1 and "" or "s", job.id, ty.constraint ~= "" and (" on '" .. ty.constraint .. "' nodes") or "",
        job.tasks, job.tasks == 1 and "" or "s", job.dir))
    end
  end
  return per
end

-- The rows of a node type whose job ended: looked up again under the fingerprint its workers
-- recorded; a point that is still missing failed, with why.
local function collect(s, items, p)
  local fp = known_fp(s.config, p.type)
  local index = {}
  for i, it in ipairs(p.missing) do index[it] = i end
  local rows = {}
  if fp then rows = lookup.lookup(s, items, fp)
  else -- no worker ever ran: every point of this node type failed
    for i, it in ipairs(items) do rows[i] = { point = it.coord, spec = it.spec } end
  end
  for i, row in ipairs(rows) do
    local j = index[items[i]]
    if j then
      local r = sys.readfile(p.job.dir .. "/result/" .. j)
      if row.cached then
        row.cached = nil
        if r and r:match("^hit") then row.cached = true else row.measured, row.slurm = true, true end
      else
        row.failed = why(p.job, j)
        io.stderr:write("rot: point ", util.serialize(row.point), " failed: ", row.failed, "\n")
      end
    end
  end
  return rows
end

--[[ The executor: the rows of every node type (one row per point and node type; row.machine
  and row.nodeType say which), measured on the cluster or loaded like a local run's. ]]
function M.measure(s, items)
  local config = s.config
  if not sys.locate("sbatch") then
    util.fail("-executor=slurm needs Slurm's 'sbatch', which is not on PATH",
      "sudo apt-get install slurm-client (or load your cluster's Slurm module), or use -executor=local", 2)
  end
  local types = M.types(config)
  local per = submit_all(s, items, types)
  local jobs = {}
  for _, p in ipairs(per) do if p.job then jobs[#jobs + 1] = p.job end end
  do
    local mode = config:get("progress")
    local guard <close> = setmetatable({}, { __close = function()
      for _, job in ipairs(jobs) do getmetatable(job).__close(job) end
    end })
    if #jobs > 0 then s:timed("measure", wait, jobs, mode == "always" or (mode == "auto" and sys.isatty(2))) end
  end
  local out = {}
  for _, p in ipairs(per) do
    local rows = p.job and collect(s, items, p) or p.rows
    for _, row in ipairs(rows) do
      row.nodeType = p.type.constraint
      s:settle(row)
      out[#out + 1] = row
    end
  end
  return out
end

return M
