--[[ rot.count: the counting pass. After a rot.measure's points are timed, the ones asked to be
  counted (spec count = true, or the count key) run once more, never timed, under the counting
  engine (rot.count.engine: Valgrind with rot's own tool). A kernel's point is one invocation of
  `run` in rot-count; a program's is its whole run, each marked region apart.

  The pass goes the pipeline's way. Each count is described (rot.describe.count: the build or
  program, the simulated caches, the engine) and looked up in the result cache under its hash.
  The rest are counted in jobs: one a build for kernels (rot-count runs all its points), one a
  program. A job builds, runs under the engine, reads what it said, caches each point's count
  (rot.execute.outcome.write) and says each failure. The session's progress line counts the
  points.

  Each counted row gets row.countRecord (M.record's: rot.results.counted turns it into the row's
  fields), or row.countFailed = why. ]]
local sys = require "rot.sys"
local util = require "rot.util"
local cache = require "rot.cache"
local build = require "rot.build"
local keys = require "rot.build.keys"
local describe = require "rot.describe"
local dcount = require "rot.describe.count"
local lookup = require "rot.execute.lookup"
local outcome = require "rot.execute.outcome"
local engine = require "rot.count.engine"
local caches = require "rot.count.caches"
local WORDS = require("rot.protocol").count

local M = {}

M.STDOUT_BYTES = 16384 -- a counted program's output kept, its last bytes (as the core keeps a timed one's)
M.STEP = "counting under Valgrind" -- what the progress line counts meanwhile

--[[ Whether a row is asked to be counted: its spec's count, else the count key, which asks for
  the script's points only: the machine's ceilings measured on the side (Session:aside) are the
  run's points where rot measure peaks is the script, never under another script's -count. ]]
local function asked(s, row)
  local c = row.spec and row.spec.count
  if c == nil and s.aside_depth == 0 then c = s:get("count") end
  return c == true
end

-- Whether a row is to be counted: asked, timed, a CPU point's.
local function wanted(s, row)
  return asked(s, row) and row.entry ~= nil and row.desc ~= nil and row.desc.device == "cpu"
end

--[[ Whether the rows asked to be counted can be counted here: not where the executor measures
  nothing (rot build), not where it measured elsewhere (a Slurm run's), and GPU points never;
  the two last are said once. ]]
local function here(s, rows)
  if s.executor.builds_only then return false end
  local why
  for _, row in ipairs(rows) do
    if asked(s, row) and row.desc and row.desc.device == "gpu" then
      why = "GPU points are not counted (the counting pass runs CPU code under Valgrind)"
    end
  end
  if not s.executor.measures_here then
    why = "the counting pass runs where rot runs: points measured with -executor=" .. s.executor.name
      .. " are not counted"
  end
  if why and s:once("count: " .. why) then
    s:quiet()
    io.stderr:write("rot: note: ", why, "\n")
  end
  return s.executor.measures_here
end

-- The simulated hierarchy, once a run: {levels=, line=, option=, words=}.
local function simulation(s)
  return s:remember("count-caches", function()
    local levels, line = caches.levels(s)
    return { levels = levels, line = line, option = caches.option(levels, line), words = caches.describe(levels, line) }
  end)
end

--[[ The note on an OpenMP program's counted run, which ran with OMP_WAIT_POLICY=passive (apps.env),
  where an OpenMP runtime's code ran in it: the basenames of libgomp (GCC's, also under a wheel's
  hashed name), libomp (LLVM's) and libiomp5 (Intel's). ]]
M.OPENMP_NOTE = "counted with OMP_WAIT_POLICY=passive set (an OpenMP program's threads sleep at a barrier: their "
  .. "spinning is not counted)"
local OPENMP = { "^libgomp[.-]", "^libomp[.-]", "^libiomp%d*[.-]" }

-- Whether the objects a counted run ran code in (rot.count.engine.loops' objects) hold an OpenMP runtime.
function M.openmp(objects)
  for _, path in pairs(objects or {}) do
    local base = util.basename(path)
    for _, p in ipairs(OPENMP) do if base:match(p) then return true end end
  end
  return false
end

--[[ record(entry) -> a count as rows take it (rot.results.counted): {counts=, levels=, line=,
  note=, caches=, flags=, stdout=, loops= (a program's: rot.count.engine.loops')}, from a count's
  cache entry (its counted lines, a kernel's those of its point's region alone: meta
  countRegion); nil when they are no count. A program's note says it ran with
  OMP_WAIT_POLICY=passive where it ran an OpenMP runtime's code (M.openmp). ]]
function M.record(e)
  local text = e and e.counted and engine.text(e.counted)
  local parsed = text and engine.parse(text)
  local region = parsed and e.meta.countRegion
  local counts = parsed and (region and parsed.regions[tostring(region)] or not region and parsed)
  if not counts then return nil end
  local m = e.meta
  local note, loops = m.countNote and tostring(m.countNote), not region and engine.loops(text) or nil
  if loops and note == M.OPENMP_NOTE then note = nil end -- (entries that said it of every program)
  if loops and not note and M.openmp(loops.objects) then note = M.OPENMP_NOTE end
  return { counts = counts, levels = parsed.levels, line = parsed.line, note = note,
    caches = m.countCaches, flags = m.countFlags, stdout = m.stdout and util.unescape_token(m.stdout), loops = loops }
end

-- Writes a counted item's cache entry ({lines=, meta=}); returns its record.
local function store(s, it, got)
  got.meta.script = s.script
  local e = { description = it.text, coreHash = "", meta = got.meta, runs = {}, counted = got.lines }
  outcome.write(s, it.path, e)
  return M.record(e)
end

-- A row's count failed: said on stderr (with its hint), kept as row.countFailed.
local function failed(s, row, why, hint)
  row.countFailed = why
  s:quiet()
  io.stderr:write("rot: counting ", util.point_name(row.point), " failed: ", why, "\n")
  if hint then io.stderr:write("hint: ", hint, "\n") end
end

-- The points of a job that rot-count or the engine have not stepped the progress line for yet.
local function step_rest(s, job)
  for _, it in ipairs(job.items) do
    if not it.stepped then it.stepped = true; s:advance() end
  end
end

--[[ The skeleton of every job (job.items: {row=, cd=, note=, text=, hash=, path=}, their count's
  description's text and hash): the build (the build lock held while it runs), the run under the
  engine, what it said read, and each point's count cached or its failure said. The job's kind
  gives the rest: prog(paths), env(paths), dir, line(job, text) for each line of its stdout,
  result(job, i, run) -> {lines=, meta=} or nil, why, hint. ]]
local function count_job(s, job, sim)
  local first = job.items[1]
  local measuring <close> = build.measuring(s)
  local lock <close> = build.lock(s) -- the build directory's rot-count stays this one while it runs
  local paths, err = engine.build(s, first.cd, first.row.kinfo)
  if not paths then
    for _, it in ipairs(job.items) do failed(s, it.row, err:match("^[^\n]*")) end
    io.stderr:write(err:match("^[^\n]*\n?(.*)$"), "\n")
    return step_rest(s, job)
  end
  local dir = s:run_dir()
  local run = { out = dir .. "/counts", log = dir .. "/count.log", err = dir .. "/count.err",
    patience = s:get("timeout") * engine.SLOWER }
  sys.remove(run.out)
  local argv, perr = engine.argv(paths, run.out, run.log, sim.option, job.env(paths), job.prog(paths), job.loops), nil
  run.status, run.why, perr = s:timed("count", engine.run, argv, job.dir or dir, run.patience,
    function(l) job.line(s, job, l) end, run.err)
  if run.why == "start" then util.fail("cannot start the counting engine: " .. tostring(perr)) end
  run.text = sys.readfile(run.out)
  run.parsed = engine.parse(run.text)
  for i, it in ipairs(job.items) do
    local got, why, hint = job.result(job, i, run)
    if got then
      got.meta.countCaches = sim.words
      it.row.countRecord = store(s, it, got)
    else
      if run.why == "timeout" then
        why = job.what(it) .. " ran past " .. math.floor(run.patience) .. " s under the counting engine"
      end
      failed(s, it.row, why, hint)
    end
  end
  step_rest(s, job)
end

-- The tool's output lines of one region: its header lines and that region's line alone (no
-- program line, no other region's).
local function one_region(text, id)
  local W, out = WORDS.records, {}
  for _, l in ipairs(engine.lines(text) or {}) do
    local word, name = l:match("^(%S+)"), l:match("^%S+ name=(%S+)")
    if word ~= W.program and (word ~= W.region or name == id) then out[#out + 1] = l end
  end
  return out
end

--[[ A kernel job: the points of one rot-count build, run at once, each its region named by its
  place in the job. rot-count's words on each point ("counted ID", "failed ID") step the line;
  a point it did not count to its end (a crash leaves its region partial) failed. ]]
local kernels = {}

function kernels.what(it) return "kernel '" .. it.row.desc.workloads[1].kernel .. "'" end

function kernels.env() return {} end

-- rot-count's argv: for each point ID warm|cold KERNEL THREADS NAME=VALUE ... [+ ...], then --.
function kernels.prog(paths, job)
  local words = { paths.harness }
  for i, it in ipairs(job.items) do
    if i > 1 then words[#words + 1] = "--" end
    words[#words + 1] = tostring(i)
    words[#words + 1] = it.row.desc.cacheMode == "cold" and "cold" or "warm"
    for j, w in ipairs(it.row.desc.workloads) do
      if j > 1 then words[#words + 1] = "+" end
      words[#words + 1] = w.kernel
      words[#words + 1] = tostring(w.threads)
      for _, k in ipairs(util.sorted_keys(w.params)) do
        words[#words + 1] = k .. "=" .. string.format("%.17g", w.params[k])
      end
    end
  end
  return words
end

function kernels.line(s, job, l)
  local word, id = engine.harness_line(l)
  local it = word and job.items[tonumber(id)]
  if not it then return end
  job.finished[id] = word == WORDS.harness.counted
  if not it.stepped then it.stepped = true; s:advance() end
end

function kernels.result(job, i, run)
  local id, it = tostring(i), job.items[i]
  if run.parsed and run.parsed.regions[id] and job.finished[id] then
    return { lines = one_region(run.text, id),
      meta = { countRegion = id, countFlags = it.cd.flags, countNote = it.note } }
  end
  local why, hint = engine.why(run.log, kernels.what(it), "count a build without AVX-512 (-mno-avx512f)")
  return nil, engine.harness_why(sys.readfile(run.err), id) or why, hint
end

--[[ An application job: its one point's program run once under the engine, with rot's counting
  recorder as its markers' (ROT_MARKERS) and its environment (threads waiting passively: an
  OpenMP barrier's spinning would count its loads); its output's last M.STDOUT_BYTES kept. ]]
local apps = {}

function apps.what(it) return "application '" .. util.basename(it.row.desc.app.path) .. "'" end

function apps.env(paths, job)
  local env = { ROT_MARKERS = paths.recorder, OMP_WAIT_POLICY = "passive", GOMP_SPINCOUNT = "0" }
  for k, v in pairs(job.items[1].row.desc.app.env) do env[k] = v end
  return env
end

function apps.prog(_, job)
  local app = job.items[1].row.desc.app
  return { app.path, table.unpack(app.args) }
end

function apps.line(_, job, l)
  local said = job.said
  said[#said + 1], said.bytes = l, said.bytes + #l + 1
  while said.bytes > M.STDOUT_BYTES and #said > 1 do said.bytes = said.bytes - #table.remove(said, 1) - 1 end
end

function apps.result(job, _, run)
  local it = job.items[1]
  local name = apps.what(it)
  if run.status ~= 0 or not run.parsed then
    local why, hint = engine.why(run.log, name, "build it without AVX-512 for counting (add -mno-avx512f to its "
      .. "compiler flags, or -march=x86-64-v3 for -march=native): the count is then of that build", run.err)
    if run.status and run.status ~= 0 and run.parsed and not why:find("AVX", 1, true) then
      why = name .. " exited with status " .. run.status .. " under the counting engine"
    end
    return nil, why, hint
  end
  local note -- (an OpenMP program's is said from the objects its run ran code in: M.record)
  local entry = it.row.entry
  if next(run.parsed.regions) == nil and entry and entry.regions and #entry.regions > 0 then
    note = "the counted run recorded no region where the timed one did: the engine counts the program it starts, "
      .. "not the processes that one starts in turn (sh -c, env, a wrapper script); count the program itself"
  end
  local out = table.concat(job.said, "\n") .. (#job.said > 0 and "\n" or "")
  return { lines = engine.lines(run.text), meta = { countNote = note, stdout = util.escape_token(out) } }
end

-- A job of items of one kind (kernels or apps), its functions bound to it.
local function job_of(kind, items)
  local job = { items = items, finished = {}, said = { bytes = 0 } }
  job.what, job.line, job.result = kind.what, kind.line, kind.result
  job.env = function(paths) return kind.env(paths, job) end
  job.prog = function(paths) return kind.prog(paths, job) end
  job.dir = kind == apps and items[1].row.desc.app.dir or nil
  job.loops = kind == apps -- (a program's loops: the loop survey's, rot.results.survey)
  return job
end

--[[ The rows to count, each count described (rot.describe.count) and looked up in the result
  cache: hits get their record; the rest become jobs, kernels grouped by the build key of their
  counted description, an application alone. Returns the jobs and the hits. ]]
local function plan(s, rows, sim)
  local pending, hits, cdir = {}, 0, s:get("cacheDir")
  for _, row in ipairs(rows) do
    if wanted(s, row) then
      local it = { row = row, cd = row.desc }
      if not row.desc.app then it.cd, it.note = dcount.counted(s, row.desc) end
      local cdesc = dcount.describe(row.desc, { engine = engine.identity(s), caches = sim.option, line = sim.line,
        build = not row.desc.app and keys.key(s, it.cd, row.kinfo) or nil })
      it.text, it.hash = describe.key(cdesc)
      it.path, it.group = cache.path(cdir, it.hash), cdesc.build or it
      local rec = s:get("useCachedResults") and M.record(lookup.read(s, it, "counting"))
      if rec then
        row.countRecord, hits = rec, hits + 1
      else
        pending[#pending + 1] = it
      end
    end
  end
  local jobs = {}
  local groups, order = util.group_by(pending, function(it) return it.group end)
  for i, k in ipairs(order) do
    local g = groups[k]
    jobs[i] = job_of(g[1].row.desc.app and apps or kernels, g)
  end
  return jobs, hits
end

--[[ cached(s, desc): the count the cache holds of an application point's description desc (as
  rows take it: row.countRecord), or nil; nothing is counted (rot compare -remeasure: a loop of
  the survey is found in a fresh invocation's samples by its program's count). ]]
function M.cached(s, desc)
  if not (desc.app and s:get("useCachedResults")) then return nil end
  local sim = simulation(s)
  local it = {}
  it.text, it.hash = describe.key(dcount.describe(desc, { engine = engine.identity(s), caches = sim.option,
    line = sim.line }))
  it.path = cache.path(s:get("cacheDir"), it.hash)
  return M.record(lookup.read(s, it, "counting"))
end

--[[ count(s, rows): the counting pass over a rot.measure's rows (before an application's are
  expanded into its regions'). Rows not asked to be counted are left as they are. ]]
function M.count(s, rows)
  local any, ask = false, false
  for _, row in ipairs(rows) do any, ask = any or wanted(s, row), ask or asked(s, row) end
  if not ask or not here(s, rows) or not any then return end
  engine.check(s)
  local sim = simulation(s)
  local jobs, hits = plan(s, rows, sim)
  s:add_counted(0, hits)
  if #jobs == 0 then return end
  local n, step = 0, s.step
  for _, job in ipairs(jobs) do n = n + #job.items end
  local restore <close> = setmetatable({}, { __close = function() s:set_step(step); s:done() end })
  s:begin(n, "counting " .. util.count(n, "point") .. " under Valgrind (10-100x slower than a native run)")
  s:set_step(M.STEP)
  for _, job in ipairs(jobs) do
    count_job(s, job, sim)
    local ok = 0
    for _, it in ipairs(job.items) do ok = ok + (it.row.countRecord and 1 or 0) end
    s:add_counted(ok, 0, #job.items - ok) -- (the summary counts the counts made, not the ones that failed)
  end
end

return M
