--[[ rot.count: the counting pass. After a rot.measure's points are timed, the ones asked to be
  counted (spec count = true, or the count key) run once more, under the counting engine
  (rot.count.engine: Valgrind with rot's own tool), never timed: a kernel's one invocation of
  `run`, a program's whole run with each marked region apart. What decides a count (the build
  or the program, its arguments, inputs and environment, the simulated caches, the engine) is
  its description; counts are cached by its hash under cacheDir/counts, so a rerun counts
  nothing again. Each counted row gets row.countRecord = {counts=, levels=, line=, note=,
  caches=, flags=, loops= (a program's: rot.count.engine.loops')} (rot.results.counted turns
  it into the row's fields), or row.countFailed = why. ]]
local sys = require "rot.sys"
local util = require "rot.util"
local build = require "rot.build"
local keys = require "rot.build.keys"
local engine = require "rot.count.engine"
local caches = require "rot.count.caches"

local M = {}

M.VERSION = 1 -- of the count's description and entry
M.STDOUT_BYTES = 16384 -- a counted program's output kept, its last bytes (as the core keeps a timed one's)

-- Whether a row is asked to be counted (its spec's count, else the count key).
local function asked(s, row)
  local c = row.spec and row.spec.count
  if c == nil then c = s:get("count") end
  return c == true
end

-- Whether a row is to be counted: asked, timed, a CPU point's.
local function wanted(s, row)
  return asked(s, row) and row.entry ~= nil and row.desc ~= nil and row.desc.device == "cpu"
end

-- Says once why rows asked to be counted are not: GPU points, a Slurm run's.
local function not_here(s, rows)
  local why
  for _, row in ipairs(rows) do
    if asked(s, row) and row.desc and row.desc.device == "gpu" then
      why = "GPU points are not counted (the counting pass runs CPU code under Valgrind)"
    end
  end
  if s.executor.name == "slurm" and (why or next(rows)) then
    why = "the counting pass runs where rot runs: points measured with -executor=slurm are not counted"
  end
  if why and s:once("count: " .. why) then
    s:quiet()
    io.stderr:write("rot: note: ", why, "\n")
  end
  return s.executor.name == "slurm"
end

-- The simulated hierarchy, once a run: {levels=, line=, option=, words=}.
local function simulation(s)
  return s:remember("count-caches", function()
    local levels, line = caches.levels(s)
    return { levels = levels, line = line, option = caches.option(levels, line), words = caches.describe(levels, line) }
  end)
end

-- A kernel point's count description, the description its rot-count is built from (its flags
-- the counted ones) and the note on them.
local function describe_kernel(s, row, sim)
  local d = row.desc
  local flags, note = engine.count_flags(s, d.flags)
  local cd = util.copy(d)
  cd.flags = flags
  local wl = {}
  for i, w in ipairs(d.workloads) do wl[i] = { kernel = w.kernel, params = w.params, threads = w.threads } end
  return { count = M.VERSION, engine = engine.identity(s), caches = sim.option, line = sim.line,
    build = keys.key(s, cd, row.kinfo), workloads = wl, cacheMode = d.cacheMode }, cd, note
end

-- An application point's count description: its program by content, arguments, environment,
-- directory and inputs, the threads it is told, the machine.
local function describe_app(s, row, sim)
  local d = row.desc
  local app = util.copy(d.app)
  app.sample = nil -- (how its timed invocations are sampled changes nothing counted)
  return { count = M.VERSION, engine = engine.identity(s), caches = sim.option, line = sim.line, app = app,
    threads = d.threads, machine = d.machine, loops = true }
end

local function entry_path(s, hash) return s:get("cacheDir") .. "/counts/" .. hash:sub(1, 2) .. "/" .. hash end

--[[ A count as rows take it (rot.results.counted): {counts=, levels=, line=, note=, caches=,
  flags=} from an entry {description=, output= (the counting tool's lines: a kernel's, those of
  its point's region alone), region= (a kernel's: that region's name), note=, caches=, flags=};
  nil when its output is no count. ]]
local function record_of(e)
  local parsed = engine.parse(e.output)
  local counts = parsed and (e.region and parsed.regions[e.region] or parsed)
  if not counts then return nil end
  return { counts = counts, levels = parsed.levels, line = parsed.line, note = e.note, caches = e.caches, flags = e.flags,
    stdout = e.stdout, loops = not e.region and engine.loops(e.output) or nil }
end

-- The cached count of a description's text and hash, or nil.
local function read_entry(s, text, hash)
  local e = util.deserialize(sys.readfile(entry_path(s, hash)), "count entry")
  return type(e) == "table" and e.description == text and e.version == M.VERSION and type(e.output) == "string" and
    record_of(e) or nil
end

-- Writes a count's entry; returns its record.
local function write_entry(s, hash, e)
  local path = entry_path(s, hash)
  util.ensure_dir(util.dirname(path), "cache directory", "cacheDir")
  local ok, err = sys.writefile(path, util.serialize(e) .. "\n")
  if not ok then util.fail("cannot write the count cache: " .. tostring(err), util.write_hint("cacheDir", err)) end
  return record_of(e)
end

-- The tool's output of one region: its header lines and that region's line alone.
local function one_region(text, id)
  local out = {}
  for l in text:gmatch("[^\n]+") do
    if not l:match("^region ") and not l:match("^program ") or l:match("^region name=" .. id .. " ") then out[#out + 1] = l end
  end
  return table.concat(out, "\n") .. "\n"
end

-- The progress of the counting pass on stderr (a terminal, unless -progress says): a line
-- stepped per point, or one line per batch where stderr is no terminal.
local function progress(s, n, what)
  local mode = s:get("progress")
  local tty = mode == "always" or (mode == "auto" and sys.isatty(2))
  local t0, i = sys.clock(), 0
  s:quiet()
  if mode ~= "never" and not tty then
    io.stderr:write(string.format("rot: counting %s under Valgrind (10-100x slower than a native run)\n", what))
  end
  return function()
    i = i + 1
    if not tty then return end
    io.stderr:write(string.format("\r\27[Kcounting %s under Valgrind: point %d/%d  elapsed %.1f s", what, i, n,
      sys.clock() - t0))
    if i == n then io.stderr:write("\r\27[K") end
    io.stderr:flush()
  end
end

-- A row's count failed: said on stderr (with its hint), kept as row.countFailed.
local function failed(s, row, why, hint)
  row.countFailed = why
  s:quiet()
  io.stderr:write("rot: counting ", util.point_name(row.point), " failed: ", why, "\n")
  if hint then io.stderr:write("hint: ", hint, "\n") end
end

-- The rot-count words of one point: ID warm|cold KERNEL THREADS NAME=VALUE ... [+ ...].
local function harness_words(id, desc, words)
  words[#words + 1] = id
  words[#words + 1] = desc.cacheMode == "cold" and "cold" or "warm"
  for i, w in ipairs(desc.workloads) do
    if i > 1 then words[#words + 1] = "+" end
    words[#words + 1] = w.kernel
    words[#words + 1] = tostring(w.threads)
    for _, k in ipairs(util.sorted_keys(w.params)) do words[#words + 1] = k .. "=" .. string.format("%.17g", w.params[k]) end
  end
end

--[[ Counts a group of kernel points that share one rot-count build (items {row=, cd=, text=,
  hash=, note=}): built, run once under the engine with every point, each point's region
  cached and kept. ]]
local function count_kernels(s, group, sim)
  local first = group[1]
  local measuring <close> = build.measuring(s)
  local lock <close> = build.lock(s) -- the build directory's rot-count stays this one while it runs
  local paths, err = engine.build(s, first.cd, first.row.kinfo)
  if not paths then
    for _, it in ipairs(group) do failed(s, it.row, err:match("^[^\n]*")) end
    io.stderr:write(err, "\n")
    return
  end
  local prog = { paths.harness }
  for i, it in ipairs(group) do
    if i > 1 then prog[#prog + 1] = "--" end
    harness_words(tostring(i), it.row.desc, prog)
  end
  local dir = s:run_dir()
  local out, log = dir .. "/counts", dir .. "/count.log"
  sys.remove(out)
  local step = progress(s, #group, #group .. " " .. util.plural(#group, "point") .. " built with "
    .. tostring(first.row.desc.flags)) -- one pass a build
  local finished = {} -- the points rot-count said it counted to their end ("counted ID")
  local st = s:timed("count", engine.run, engine.argv(paths, out, log, sim.option, {}, prog), dir,
    s:get("timeout") * engine.SLOWER, function(line)
      if line:match("^%a+ %d+$") then step() end
      local id = line:match("^counted (%d+)$")
      if id then finished[id] = true end
    end, dir .. "/count.err")
  local said = sys.readfile(dir .. "/count.err") or "" -- rot-count's words on a point that failed
  local text = sys.readfile(out)
  local parsed = engine.parse(text)
  for i, it in ipairs(group) do
    if parsed and parsed.regions[tostring(i)] and finished[tostring(i)] then -- (a crash leaves its region partial)
      it.row.countRecord = write_entry(s, it.hash, { version = M.VERSION, description = it.text, note = it.note,
        flags = it.cd.flags, caches = sim.words, output = one_region(text, tostring(i)), region = tostring(i) })
    else
      local own = said:match("rot%-count: point " .. i .. ": ([^\n]*)")
      local why, hint = engine.why(log, "kernel '" .. it.row.desc.workloads[1].kernel .. "'",
        "count a build without AVX-512 (-mno-avx512f)")
      failed(s, it.row, own or why, hint)
    end
  end
end

--[[ Counts one application point: its program run once under the engine, with rot's counting
  recorder as its markers' (ROT_MARKERS) and its environment (threads waiting passively:
  an OpenMP barrier's spinning would count its loads). ]]
local function count_app(s, it, sim)
  local row, d = it.row, it.row.desc
  local measuring <close> = build.measuring(s)
  local lock <close> = build.lock(s)
  local paths, err = engine.build(s, d, row.kinfo)
  if not paths then return failed(s, row, err) end
  local env = { ROT_MARKERS = paths.recorder, OMP_WAIT_POLICY = "passive", GOMP_SPINCOUNT = "0" }
  for k, v in pairs(d.app.env) do env[k] = v end
  local dir = s:run_dir()
  local out, log = dir .. "/counts", dir .. "/count.log"
  sys.remove(out)
  local prog = { d.app.path, table.unpack(d.app.args) }
  local step = progress(s, 1, "application '" .. util.basename(d.app.path) .. "'")
  local said, kept = {}, 0 -- the program's output, its last M.STDOUT_BYTES (as the timed runs keep theirs)
  local st, why = s:timed("count", engine.run, engine.argv(paths, out, log, sim.option, env, prog, true), d.app.dir,
    s:get("timeout") * engine.SLOWER, function(line)
      said[#said + 1], kept = line, kept + #line + 1
      while kept > M.STDOUT_BYTES and #said > 1 do kept = kept - #table.remove(said, 1) - 1 end
    end, dir .. "/count.err")
  step()
  local parsed = engine.parse(sys.readfile(out))
  if st ~= 0 or not parsed then
    local name = "application '" .. util.basename(d.app.path) .. "'"
    local text, hint = engine.why(log, name, "build it without AVX-512 for counting (add -mno-avx512f to its "
      .. "compiler flags, or -march=x86-64-v3 for -march=native): the count is then of that build", dir .. "/count.err")
    if why == "timeout" then text = name .. " ran past " .. math.floor(s:get("timeout") * engine.SLOWER) .. " s under the counting engine" end
    if st and st ~= 0 and parsed and not text:find("AVX", 1, true) then text = name .. " exited with status " .. st .. " under the counting engine" end
    return failed(s, row, text, hint)
  end
  local note = "counted with OMP_WAIT_POLICY=passive set (an OpenMP program's threads sleep at a barrier: their "
    .. "spinning is not counted)"
  if next(parsed.regions) == nil and row.entry and row.entry.regions and #row.entry.regions > 0 then
    note = "the counted run recorded no region where the timed one did: the engine counts the program it starts, "
      .. "not the processes that one starts in turn (sh -c, env, a wrapper script); count the program itself"
  end
  row.countRecord = write_entry(s, it.hash, { version = M.VERSION, description = it.text, caches = sim.words,
    output = sys.readfile(out), note = note, stdout = table.concat(said, "\n") .. (#said > 0 and "\n" or "") })
end

-- The rows to count, described and looked up: hits kept, the rest {row=, cd=, text=, hash=,
-- note=} for kernels grouped by the build key of their counted flags, and for applications.
local function plan(s, rows, sim)
  local groups, order, apps, hits = {}, {}, {}, 0
  for _, row in ipairs(rows) do
    if wanted(s, row) then
      local cdesc, cd, note
      if row.desc.app then cdesc = describe_app(s, row, sim) else cdesc, cd, note = describe_kernel(s, row, sim) end
      local text = util.serialize(cdesc)
      local hash = sys.sha256(text)
      local e = s:get("useCachedResults") and read_entry(s, text, hash)
      if e then
        row.countRecord, hits = e, hits + 1
      elseif row.desc.app then
        apps[#apps + 1] = { row = row, text = text, hash = hash }
      else
        local k = cdesc.build
        if not groups[k] then groups[k] = {}; order[#order + 1] = k end
        table.insert(groups[k], { row = row, cd = cd, text = text, hash = hash, note = note })
      end
    end
  end
  return groups, order, apps, hits
end

--[[ cached(s, desc): the count the cache holds of an application point's description desc (as
  rows take it: row.countRecord), or nil; nothing is counted (rot compare -remeasure: a loop of
  the survey is found in a fresh invocation's samples by its program's count). ]]
function M.cached(s, desc)
  if not (desc.app and s:get("useCachedResults")) then return nil end
  local text = util.serialize(describe_app(s, { desc = desc }, simulation(s)))
  return read_entry(s, text, sys.sha256(text))
end

--[[ count(s, rows): the counting pass over a rot.measure's rows (before an application's are
  expanded into its regions'). Rows not asked to be counted are left as they are. ]]
function M.count(s, rows)
  local any, ask = false, false
  for _, row in ipairs(rows) do any, ask = any or wanted(s, row), ask or asked(s, row) end
  if not ask or s.executor.name == "build" or not_here(s, rows) or not any then return end
  engine.check(s)
  local sim = simulation(s)
  local groups, order, apps, hits = plan(s, rows, sim)
  s:add_counted(0, hits)
  local function done(items) -- (the summary counts the counts made, not the ones that failed)
    local n = 0
    for _, it in ipairs(items) do if it.row.countRecord then n = n + 1 end end
    s:add_counted(n, 0, #items - n)
  end
  for _, k in ipairs(order) do
    count_kernels(s, groups[k], sim)
    done(groups[k])
  end
  for _, it in ipairs(apps) do
    count_app(s, it, sim)
    done({ it })
  end
end

return M
