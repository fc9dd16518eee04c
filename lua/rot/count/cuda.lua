--[[ rot.count.cuda: the metrics pass of a CUDA program. After its point's timed invocations, the
  program runs once more, never timed, with rot's CUDA library in metrics mode (core/cuda/metrics.c):
  CUPTI's range profiler takes every kernel launch as a range (automatic ranges) and replays it
  for as many passes as its metrics need (kernel replay). The metrics are the GPU kernels'
  (rot.gpu.roofline_metrics), summed per kernel region and NVTX range (rot.gpu.metriclines).

  As the counting pass's (rot.count), the pass is described (the point's description: its
  program by content, arguments, environment and machine, the device's identity among it; the
  metrics; the library's sources), looked up in the result cache under its hash, and run only
  when the cache has none. Each CUDA point's row gets row.cudaRecord (M.record's), or
  row.cudaFailed = why. ]]
local sys = require "rot.sys"
local util = require "rot.util"
local cache = require "rot.cache"
local build = require "rot.build"
local describe = require "rot.describe"
local lookup = require "rot.execute.lookup"
local outcome = require "rot.execute.outcome"
local gpu = require "rot.gpu"
local metriclines = require "rot.gpu.metriclines"
local ENV = require("rot.protocol").cuda.env

local M = {}

M.VERSION = 1 -- of a metrics pass's description and entry
M.SLOWER = 50 -- the pass gets this many times the timeout key without a line of output
M.OUT = "cuda-metrics" -- the library's output files in the run directory: OUT.PID

-- Whether a row is a CUDA program's point that ran (its regions to get metrics).
function M.wanted(row)
  return row.entry ~= nil and describe.cuda_program(row.desc)
end

--[[ What the library is: the hash of its sources (core/cuda/, the range profiler's steps it shares
  with the GPU core, core/Makefile): a changed library profiles again. Kept in the build
  directory's cudalib.memo while the files' signature holds, as the core's sources' hash is. ]]
function M.library(s)
  return s:remember("cuda-library", function()
    local files = {}
    for _, f in ipairs(assert(sys.listdir(s.home .. "/core/cuda"))) do
      if f:match("%.[ch]$") then files[#files + 1] = s.home .. "/core/cuda/" .. f end
    end
    table.sort(files)
    for _, f in ipairs({ "gpurange.c", "gpurange.h", "escape.c", "Makefile" }) do
      files[#files + 1] = s.home .. "/core/" .. f
    end
    return assert(sys.sha256files(files, { s.home }, false, s.builddir .. "/cudalib.memo")):sub(1, 16)
  end)
end

--[[ describe(desc, metrics, library) -> the pass's description of a CUDA point described as desc:
  its program (by content, arguments, environment, directory, inputs; not its sampling), the
  threads it is told, its machine (the device's identity among it), the metrics and the library. ]]
function M.describe(desc, metrics, library)
  local app = util.copy(desc.app)
  app.sample = nil -- how its timed invocations are sampled changes nothing profiled
  return { cudaMetrics = M.VERSION, app = app, threads = desc.threads, machine = desc.machine,
    metrics = util.copy(metrics), library = library }
end

--[[ record(entry[, metrics]) -> the pass as rows take it: rot.gpu.metriclines.parse's of the
  entry's lines, or nil (no entry, or lines that do not parse). ]]
function M.record(e, metrics)
  if not (e and e.counted) then return nil end
  return (metriclines.parse(table.concat(e.counted, "\n") .. "\n", metrics))
end

-- The argv that runs a point's program with the library in metrics mode, writing to out.
local function argv(app, lib, out, metrics)
  local a = { "env", "CUDA_INJECTION64_PATH=" .. lib, "NVTX_INJECTION64_PATH=" .. lib,
    ENV.metrics .. "=" .. table.concat(metrics, ","), ENV.out .. "=" .. out }
  for _, k in ipairs(util.sorted_keys(app.env or {})) do a[#a + 1] = k .. "=" .. app.env[k] end
  a[#a + 1] = app.path
  for _, x in ipairs(app.args or {}) do a[#a + 1] = x end
  return a
end

-- Runs argv in dir as the counting pass runs its engine (rot.count.engine.run); gives up after
-- patience seconds without a line. Its status, or nil, "timeout", or nil and why it did not start.
local function run(a, dir, patience, err)
  local st, why, perr = require("rot.count.engine").run(a, dir, patience, nil, err)
  if why == "start" then return nil, "cannot start it: " .. tostring(perr) end
  return st, why
end

-- The outputs the library wrote (OUT.PID in dir), concatenated in pid order; nil when none.
local function outputs(dir)
  local names = {}
  for _, f in ipairs(sys.listdir(dir) or {}) do
    if f:match("^" .. M.OUT:gsub("%-", "%%-") .. "%.%d+$") then names[#names + 1] = f end
  end
  table.sort(names)
  local parts = {}
  for _, f in ipairs(names) do parts[#parts + 1] = sys.readfile(dir .. "/" .. f) or "" end
  return #parts > 0 and table.concat(parts) or nil
end

--[[ judge(status, why, text, metrics, name, stderr) -> the lines to cache, or nil and why the pass
  failed: the program timed out or exited with a failure, the library wrote nothing (its last
  line on stderr), its output does not parse, or profiling stopped before any launch was. ]]
function M.judge(status, why, text, metrics, name, stderr)
  local said = (stderr or ""):match("([^\n]+)\n?$")
  if why == "timeout" then return nil, name .. " ran past its patience in the metrics pass" end
  if not status then return nil, name .. ": " .. tostring(why) end
  if status ~= 0 then
    return nil, name .. " exited with status " .. status .. " in the metrics pass" .. (said and (": " .. said) or "")
  end
  if not text then
    return nil, name .. " wrote no metrics: rot's CUDA library did not start in it"
      .. (said and (" (" .. said .. ")") or "")
  end
  local p, perr = metriclines.parse(text, metrics)
  if not p then return nil, name .. ": " .. perr end
  if #p.errors > 0 and next(p.kernels) == nil then return nil, name .. ": profiling failed: " .. p.errors[1] end
  local out = {}
  for l in text:gmatch("[^\n]+") do out[#out + 1] = l end
  return out
end

-- A row's pass run: the library built (the build lock held while it runs), the program run once.
local function profile(s, row, it, metrics)
  local name = "application '" .. util.basename(row.desc.app.path) .. "'"
  local measuring <close> = build.measuring(s)
  local dir = s:run_dir() .. "/cuda-" .. it.hash:sub(1, 12)
  sys.mkdir(dir)
  local err = dir .. "/stderr"
  local got, why = build.with_core(s, row.desc, row.kinfo, function(binary)
    local lib = binary:gsub("[^/]*$", "") .. "librot-cuda.so"
    local st, w = s:timed("count", run, argv(row.desc.app, lib, dir .. "/" .. M.OUT, metrics),
      row.desc.app.dir, s:get("timeout") * M.SLOWER, err)
    return M.judge(st, w, outputs(dir), metrics, name, sys.readfile(err))
  end)
  if not got then return nil, why end
  outcome.write(s, it.path, { description = it.text, coreHash = "", meta = { script = s.script }, runs = {},
    counted = got })
  return M.record({ counted = got }, metrics)
end

--[[ pass(s, rows): the metrics pass over a rot.measure's rows (before an application's are
  expanded into its regions'): each CUDA point that ran, from the cache or profiled once. Not
  where the executor measures nothing or measured elsewhere (a Slurm run's). ]]
function M.pass(s, rows)
  if s.executor.builds_only or not s.executor.measures_here then return end
  local metrics, lib = gpu.roofline_metrics, nil
  for _, row in ipairs(rows) do
    if M.wanted(row) then
      lib = lib or M.library(s)
      local it = {}
      it.text, it.hash = describe.key(M.describe(row.desc, metrics, lib))
      it.path = cache.path(s:get("cacheDir"), it.hash)
      local rec = s:get("useCachedResults") and M.record(lookup.read(s, it, "profiling"), metrics)
      if not rec then
        if s:once("cuda-metrics-note") then
          s:quiet()
          io.stderr:write("rot: profiling CUDA programs once more for their kernels' metrics (CUPTI's range profiler, ",
            "each launch replayed for every pass its metrics need: slower than a timed run)\n")
        end
        local why
        rec, why = profile(s, row, it, metrics)
        if not rec then
          row.cudaFailed = why
          s:quiet()
          io.stderr:write("rot: the metrics pass of ", util.point_name(row.point), " failed: ", why, "\n")
        end
      end
      row.cudaRecord = rec or nil
    end
  end
end

return M
