-- rot.execute.worker: `rot worker JOBDIR TASK`, one Slurm array task of -executor=slurm: its
-- share of the job's points (a contiguous block) described with this node's fingerprint,
-- built in a node-local directory with the ccache under cacheDir, measured by the local
-- executor, each point's outcome written to the job directory as soon as it is known.
local sys = require "rot.sys"
local util = require "rot.util"
local machine = require "rot.machine"
local session = require "rot.session"
local lookup = require "rot.execute.lookup"
local executor = require "rot.execute.local"
local slurm = require "rot.execute.slurm"

local M = {}

local function read_job(jobdir)
  local text = sys.readfile(jobdir .. "/job")
  local f = text and load("return " .. text, "job", "t", {})
  local ok, job = pcall(f or error)
  if not ok or type(job) ~= "table" then util.fail("'" .. jobdir .. "' holds no rot job") end
  return job
end

--[[ Runs task `task` of the job in jobdir; load_config(options) gives the configuration the
  job was submitted with (the worker's own command line on top). Returns the session (for
  its summary) and the exit status: 1 when a point failed. ]]
function M.run(home, jobdir, task, load_config)
  local job = read_job(jobdir)
  task = math.tointeger(tonumber(task))
  if not task or task < 0 or task >= job.tasks then util.fail("task '" .. tostring(task) .. "' is not in job '" .. jobdir .. "'") end
  local config = load_config(job.options)
  local fp = machine.fingerprint(config)
  local s = session.new { home = home, config = config, script_dir = job.script_dir, executor = executor,
    builddir = (os.getenv("TMPDIR") or "/tmp") .. "/rot-build-" .. (os.getenv("USER") or "user") .. "-" .. machine.id(fp) }
  session.set_current(s)
  require("rot").config = config
  if not os.getenv("CCACHE_DIR") then sys.setenv("CCACHE_DIR", config:get("cacheDir") .. "/ccache") end
  sys.mkdir(config:get("cacheDir") .. "/machines")
  assert(sys.writefile(slurm.fp_path(config, job.type), util.serialize(fp)))
  local n = #job.points
  local first, last = task * n // job.tasks + 1, (task + 1) * n // job.tasks
  local items = {}
  for i = first, last do items[#items + 1] = job.points[i] end
  local rows, pending = lookup.lookup(s, items)
  s.on_settle = function(row)
    local what = row.failed and ("failed " .. row.failed:gsub("\n", " ")) or row.cached and "hit" or "measured"
    sys.writefile(jobdir .. "/result/" .. (first + row.item - 1), what .. "\n")
  end
  for _, row in ipairs(rows) do if row.cached then s:settle(row) end end
  executor.measure_pending(s, pending)
  io.stdout:write(string.format("rot worker: task %d of job %s on %s: points %d-%d, %d cached, %d measured, %d failed\n",
    task, jobdir, machine.id(fp), first, last, s.count.hits, s.count.measured, s.count.failed))
  return s, s.count.failed > 0 and 1 or 0
end

return M
