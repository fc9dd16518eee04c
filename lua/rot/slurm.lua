-- rot.slurm: measuring on a Slurm cluster (-executor=slurm). The driver looks every point up
-- in the cache as usual, writes the missing ones to a job directory under cacheDir (a shared
-- file system), submits one sbatch array job per node type (tasks on exclusive nodes), waits
-- with a progress line, and reads the results back from the shared cache. Each array task runs
-- `rot worker JOBDIR TASK` (M.worker): the same description, build and core as a local run,
-- each result written into the shared cache as it is done.
local sys = require "rot.sys"
local util = require "rot.util"
local cache = require "rot.cache"
local machine = require "rot.machine"

local M = {}

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
local function fp_path(config, ty) return config:get("cacheDir") .. "/machines/slurm-" .. ty.file .. ".fp" end

local function known_fp(config, ty)
  local text = sys.readfile(fp_path(config, ty))
  local f = text and load("return " .. text, "fingerprint", "t", {})
  local ok, fp = pcall(f or error)
  return ok and type(fp) == "table" and fp or nil
end

-- Writes the job directory and submits the array job; returns the job.
local function submit(runner, ctx, ty, items, name)
  local config = ctx.config
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
  assert(sys.writefile(dir .. "/job", util.serialize({ home = ctx.home, script_dir = ctx.script_dir, options = opts,
    type = ty, tasks = tasks, points = points })))
  assert(sys.writefile(dir .. "/task.sh", TASK_SCRIPT))
  local argv = { "sbatch", "--parsable", "--job-name=rot-" .. name, "--array=0-" .. (tasks - 1), "--exclusive",
    "--output=" .. dir .. "/task-%a.log" }
  if config:get("slurmPartition") ~= "" then argv[#argv + 1] = "--partition=" .. config:get("slurmPartition") end
  if ty.constraint ~= "" then argv[#argv + 1] = "--constraint=" .. ty.constraint end
  if config:get("slurmAccount") ~= "" then argv[#argv + 1] = "--account=" .. config:get("slurmAccount") end
  if config:get("slurmTimeLimit") ~= "" then argv[#argv + 1] = "--time=" .. config:get("slurmTimeLimit") end
  for _, a in ipairs({ dir .. "/task.sh", ctx.home, dir }) do argv[#argv + 1] = a end
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

--[[ The slurm executor behind rot.measure: returns the rows of every node type (one row per
  point and node type, row.machine says which), measured or loaded like a local run's. ]]
function M.measure(runner, ctx, items)
  local config, stats = ctx.config, runner.stats
  if not sys.locate("sbatch") then
    util.fail("-executor=slurm needs Slurm's 'sbatch', which is not on PATH",
      "sudo apt-get install slurm-client (or load your cluster's Slurm module), or use -executor=local", 2)
  end
  local types = M.types(config)
  stats.points = stats.points + #items * #types
  local per, jobs = {}, {}
  local name = util.basename(ctx.script_dir or "points"):gsub("[^%w_.-]", "_")
  for ti, ty in ipairs(types) do
    local fp = known_fp(config, ty)
    local missing, rows = items, nil
    if fp then
      local pending
      rows, pending = runner.lookup(items, fp)
      missing = {}
      for i, row in ipairs(rows) do
        if row.cached then stats.hits = stats.hits + 1 else missing[#missing + 1] = items[i] end
      end
      for _, row in ipairs(pending) do row.pending = true end
    end
    per[ti] = { type = ty, rows = rows, missing = missing }
    if #missing > 0 then
      jobs[#jobs + 1] = submit(runner, ctx, ty, missing, name)
      per[ti].job = jobs[#jobs]
      io.stderr:write(string.format("rot: %d point%s submitted to Slurm as job %s%s (%d task%s), job directory %s\n",
        #missing, #missing == 1 and "" or "s", jobs[#jobs].id, ty.constraint ~= "" and (" on '" .. ty.constraint .. "' nodes") or "",
        jobs[#jobs].tasks, jobs[#jobs].tasks == 1 and "" or "s", jobs[#jobs].dir))
    end
  end
  do
    local mode = config:get("progress")
    local closers = {}
    for i, job in ipairs(jobs) do closers[i] = job end
    local guard <close> = setmetatable({}, { __close = function()
      for _, job in ipairs(closers) do getmetatable(job).__close(job) end
    end })
    if #jobs > 0 then
      runner.timed("measure", wait, jobs, mode == "always" or (mode == "auto" and sys.isatty(2)))
    end
  end
  local out = {}
  for _, p in ipairs(per) do
    local rows = p.rows
    if p.job then
      local fp = known_fp(config, p.type)
      local index = {}
      for i, it in ipairs(p.missing) do index[it] = i end
      if fp then
        rows = runner.lookup(items, fp)
      else -- no worker ever ran: every point of this node type failed
        rows = {}
        for i, it in ipairs(items) do rows[i] = { point = it.coord, spec = it.spec } end
      end
      for i, row in ipairs(rows) do
        local j = index[items[i]]
        if j then
          local r = sys.readfile(p.job.dir .. "/result/" .. j)
          if row.cached then
            row.cached = nil
            if r and r:match("^hit") then row.cached = true; stats.hits = stats.hits + 1
            else row.measured, row.slurm = true, true; stats.measured = stats.measured + 1; stats.slurm = stats.slurm + 1 end
          else
            row.failed = why(p.job, j)
            stats.failed = stats.failed + 1
            io.stderr:write("rot: point ", util.serialize(row.point), " failed: ", row.failed, "\n")
          end
        end
      end
    end
    for _, row in ipairs(rows) do
      row.nodeType = p.type.constraint
      out[#out + 1] = row
    end
  end
  return out
end

--[[ `rot worker JOBDIR TASK`: one array task. Measures its share of the job's points (a
  contiguous block) with this node's description, builds in a node-local directory with the
  ccache under cacheDir, records the node type's fingerprint and each point's outcome. ]]
function M.worker(home, jobdir, task, load_config)
  local text = sys.readfile(jobdir .. "/job")
  local f = text and load("return " .. text, "job", "t", {})
  local ok, job = pcall(f or error)
  if not ok or type(job) ~= "table" then util.fail("'" .. jobdir .. "' holds no rot job") end
  task = math.tointeger(tonumber(task))
  if not task or task < 0 or task >= job.tasks then util.fail("task '" .. tostring(task) .. "' is not in job '" .. jobdir .. "'") end
  local config = load_config(job.options)
  local runner = require "rot.runner"
  local fp = machine.fingerprint(config)
  local builddir = (os.getenv("TMPDIR") or "/tmp") .. "/rot-build-" .. (os.getenv("USER") or "user") .. "-" .. machine.id(fp)
  runner.setup(home, config, job.script_dir, builddir)
  local rot = require "rot"
  rot.config = config
  if not os.getenv("CCACHE_DIR") then sys.setenv("CCACHE_DIR", config:get("cacheDir") .. "/ccache") end
  sys.mkdir(config:get("cacheDir") .. "/machines")
  assert(sys.writefile(fp_path(config, job.type), util.serialize(fp)))
  local n = #job.points
  local first, last = task * n // job.tasks + 1, (task + 1) * n // job.tasks
  local items, at = {}, {}
  for i = first, last do
    items[#items + 1] = job.points[i]
    at[job.points[i]] = i
  end
  runner.t_start = sys.clock()
  runner.stats.points = #items
  local rows, pending = runner.lookup(items)
  runner.stats.hits = #rows - #pending
  local result = function(row, what) sys.writefile(jobdir .. "/result/" .. at[items[row.item]], what .. "\n") end
  for i, row in ipairs(rows) do
    row.item = i
    if row.cached then result(row, "hit") end
  end
  runner.set_on_point(function(row)
    if row.failed then result(row, "failed " .. row.failed:gsub("\n", " ")) else result(row, "measured") end
  end)
  runner.measure_here(pending)
  io.stdout:write(string.format("rot worker: task %d of job %s on %s: points %d-%d, %d cached, %d measured, %d failed\n",
    task, jobdir, machine.id(fp), first, last, #rows - #pending, runner.stats.measured, runner.stats.failed))
  return runner.stats.failed > 0 and 1 or 0
end

return M
