-- rot.cli: the commands (measure, build, profile, history, compare, run, ...): arguments, the
-- configuration loaded and the closing summary of a measure run.
local sys = require "rot.sys"
local util = require "rot.util"
local config = require "rot.config"
local session = require "rot.session"
local execute = require "rot.execute"
local describe = require "rot.describe"
local build = require "rot.build"
local usage = require "rot.cli.usage"

local M = {}
local home
local handlers

--[[ The script a command names: a path (a .lua name, or one with a slash), else a shipped or
  user measurement's name. runs: the command (history, compare) whose subject may also be a
  program rot profile ran, by its path. A path to nothing stops with the nearest name in its
  folder, a directory says so. ]]
local function resolve_script(cfg, what, runs)
  if what:match("%.lua$") or what:find("/") then
    local st = sys.stat(what)
    if st == "file" then return assert(sys.realpath(what)) end
    local subject = runs and not what:match("%.lua$") and "measurement script or program" or "measurement script"
    if st == "dir" then util.fail("'" .. what .. "' is a directory, not a " .. subject) end
    local dir = util.dirname(what)
    local near = sys.nearest(util.basename(what), sys.listdir(dir) or {})
    util.fail("no " .. subject .. " '" .. what .. "'" .. (near and ("; did you mean '" .. dir .. "/" .. near .. "'?")
      or ""), runs and ("rot " .. runs .. " takes a measurement (triad, study.lua) or a program rot profile ran "
      .. "(./solver), by the path it was profiled by") or nil)
  end
  local list = require "rot.cli.list"
  local path = list.find(home, cfg, what)
  if path then return path end
  local names = {}
  for _, m in ipairs(list.all(home, cfg)) do names[#names + 1] = m.name end
  util.fail("unknown measurement '" .. what .. "'" .. util.did_you_mean(what, names),
    "`rot list` shows the measurements; a script path (study.lua) works too")
end

-- A loaded configuration, or a stop with why (a key or value from the command line or a
-- configuration file) and where the keys are listed.
local function loaded(cfg, err)
  if not cfg then
    local keyed = err:find("configuration key", 1, true) or err:find("^bad value")
    util.fail(err, keyed and "`rot config` lists every key with its type, default and allowed values" or nil)
  end
  return cfg
end

local function handler(e)
  local s = session.peek()
  if s then s:description_error() end -- runs before the stack unwinds
  if util.is_error(e) then return e end
  -- a Lua error inside rot's library caused by a script: name the script's line first
  local msg = tostring(e)
  local at = util.user_frame(2)
  if at and not msg:find(at, 1, true) then msg = at .. ": in a call into rot: " .. msg end
  -- the frames below the script's (rot's command line calling it) say nothing to its author
  return (debug.traceback(msg, 2):gsub("\n\t%[C%]: in function 'xpcall'\n.*$", ""))
end

local function report_error(e)
  io.stdout:flush()
  if util.is_error(e) then
    io.stderr:write("rot: ", e.message, "\n")
    if e.hint then io.stderr:write("hint: ", e.hint, "\n") end
    return e.code or 1 -- 128 + a signal: interrupted; 2: a tool is missing (its hint installs it)
  end
  io.stderr:write("rot: ", tostring(e), "\n") -- a script's own Lua error: its file:line first
  return 1
end

-- A session for this command (rot.session): the checkout, configuration and executor, the
-- script's folder and name; rot build writes a script's outputs into its run directory.
local function start(cfg, o)
  o = o or {}
  local s = session.new { home = home, config = cfg, script_dir = o.script_dir, script = o.script,
    executor = execute.choose(cfg, o.build_only) }
  if o.build_only then s:set_output_dir(s:run_dir() .. "/out") end
  session.set_current(s)
  return s
end

-- Runs a script file with its arguments; modules beside it can be required by name.
local function run_script(path, args)
  package.path = util.dirname(path) .. "/?.lua;" .. package.path
  local chunk, err = loadfile(path)
  if not chunk then
    local s = session.peek()
    if s then s:description_error(true) end -- a script that does not load describes nothing
    return false, err
  end
  _G.arg = args or {}
  return xpcall(chunk, handler, table.unpack(args or {}))
end

-- rot build: what the script did with unmeasured points does not matter; a script that
-- cannot go on without measured values stops, and the note says where. An error in a point's
-- description (inside rot.measure: an unknown kernel, a bad parameter), a parameter value its
-- kernel refuses, a core that does not compile, or an interrupt fails.
local function build_end(s, ok, err)
  io.stdout:write(s:build_summary(), "\n")
  if not ok and (s.error_describing or util.is_interruption(err)) then return report_error(err) end
  if not ok then
    io.stderr:write("rot: note: the script stopped before its end (points it would have described "
      .. "after that were not built): ",
      (util.is_error(err) and err.message or tostring(err)):match("^[^\n]*"), "\n")
  end
  return (s.count.build_failures > 0 or s.count.refused > 0) and 1 or 0
end

--[[ The cache directory, checked before any point is looked up (else each lookup would fail
  on its own): a file there, a path that cannot be made a directory (a file above it, no
  permission) or a directory that cannot be read stops with one error. One that exists is not
  asked to be writable here: a run whose points are all cached only reads it (measuring checks
  that it can write). ]]
local function check_cache_dir(dir)
  local kind = sys.stat(dir)
  if kind and kind ~= "dir" then
    util.fail("cache directory '" .. dir .. "' is not a directory", "set -cacheDir=DIR to a directory of your own")
  end
  if not kind then return util.ensure_dir(dir, "cache directory", "cacheDir") end
  local listed, err = sys.listdir(dir)
  if not listed then
    util.fail("cannot read cache directory '" .. dir .. "': " .. util.reason(dir, err, "unreadable"),
      "set -cacheDir=DIR to a directory of your own, or fix its permissions")
  end
end

--[[ A measurement's run: the session (o.script_dir, o.script: its name), body() run as a
  script is (errors reported, the cache directory checked first), its run record under o.path
  (a script's path; rot profile's program) with o.args, the summary; its exit status. ]]
local function measurement(cfg, o, build_only)
  check_cache_dir(cfg:get("cacheDir")) -- before the session, whose run directory (rot build's) is in it
  local s = start(cfg, { script_dir = o.script_dir, script = o.script, build_only = build_only })
  if not build_only then s:outdir() end -- an output directory that cannot be written: said before measuring
  local ok, err = o.body()
  s:cleanup()
  if build_only then return build_end(s, ok, err) end
  local _, stop = require("rot.history.record").save(s, { path = o.path, args = o.args, ok = ok, err = err })
  if stop and ok then ok, err = false, stop end -- Ctrl-C while the record was written
  local code = 0
  io.stdout:flush() -- the table whole before any line on stderr, in one file too
  if not ok then code = report_error(err) end
  if s:failures() > 0 and code == 0 then code = 1 end
  io.stderr:flush()
  local busy = require("rot.execute.neighbour").line(s, require("rot.machine").cpuinfo().cpus,
    s.aside_count.measured > 0)
  if busy then io.stderr:write(busy, "\n") end -- a busy machine's run: one line says so, and what to do
  -- the summary counts points: after an error before any, it would read as an empty success
  -- (an interruption keeps it: it says where the run was)
  if ok or util.is_interruption(err) or s.count.points + s.aside_count.points > 0 then
    io.stdout:write(s:summary(), "\n")
  end
  return code
end

local function measure(cfg, pos, build_only)
  if not pos[2] then util.fail(pos[1] .. " needs a measurement name or script", "rot " .. pos[1] .. " triad") end
  local path = resolve_script(cfg, pos[2])
  local args = { table.unpack(pos, 3) }
  return measurement(cfg, { path = path, args = args, script_dir = util.dirname(path),
    script = util.script_name(path), body = function() return run_script(path, args) end }, build_only)
end

-- rot profile [-threads=N] [-counters=EV,EV] [--] PROGRAM [ARG ...]: one application point
-- (rot.cli.profile), its outputs named after the program, its runs recorded under its path.
local function profile(cfg, pos, own, build_only)
  local o = require("rot.cli.profile").plan(pos, own)
  o.body = function() return xpcall(o.run, handler) end
  return measurement(cfg, o, build_only)
end

--[[ rot asm KERNEL|PATH.c [-MACRO=v ...] [-optimization=FLAGS]: a kernel by name is looked
  for as a script in the working directory would look (./kernels, then the shipped ones); a
  kernel's file (study/kernels/myscale.c) as its study's script would. ]]
local function asm(cfg, pos, asm_opts)
  if not pos[2] then
    util.fail("asm needs a kernel name", "rot asm triad -STREAM_UNROLL=4 -optimization='-O3 -march=native'")
  end
  local name, file = pos[2], nil
  if name:match("%.cu?$") then
    file = sys.realpath(name)
    if not file then util.fail("no kernel file '" .. name .. "'") end
    name = util.basename(file):match("^(.*)%.cu?$")
  end
  local s = start(cfg, { script_dir = file and util.dirname(util.dirname(file)) or sys.realpath(".") or "." })
  local kernels = require("rot.describe.kernels").all(s)
  local files = not file and not kernels.path[name] and require("rot.describe.kernels").in_studies(name) or {}
  if #files > 0 then -- a study's kernel: by its file
    local more = #files > 3 and string.format(" (and %d more)", #files - 3) or ""
    util.fail("unknown kernel '" .. name .. "' here (a script in this folder would not find it either)"
      .. util.did_you_mean(name, kernels.names), "a study's kernel is built as its script builds it: rot asm "
      .. table.concat(files, ", or rot asm ", 1, math.min(#files, 3)) .. more)
  end
  local spec = { kernel = name, macros = {} }
  for _, kv in ipairs(asm_opts) do
    if kv[1] == "optimization" then spec.flags = kv[2] else spec.macros[kv[1]] = kv[2] end
  end
  local found = file and kernels.path[name]
  if file and (not found or sys.realpath(found) ~= file) then
    util.fail("kernel file '" .. pos[2] .. "' is not where a script finds its kernels" .. (found and (" (rot took "
      .. found .. ")") or ""),
      "a study's kernels are in a folder named kernels beside its script")
  end
  local desc, kinfo = describe.describe(s, spec)
  local out = require("rot.build.asm").asm(s, desc, kinfo)
  io.stdout:write("# kernel ", name, " (", kinfo.kernels[1].path, "), flags '", desc.flags,
    "', compiler ", desc.compiler, "\n")
  for _, k in ipairs(util.sorted_keys(desc.macros)) do io.stdout:write("# macro ", k, " = ", desc.macros[k], "\n") end
  io.stdout:write(out)
  return 0
end

-- rot events [all]: what this machine can count (the core of a triad point asks libpfm4)
local function events(cfg, pos)
  local s = start(cfg)
  if pos[2] and pos[2] ~= "all" then util.fail("usage: rot events [all]") end
  local desc, kinfo = describe.describe(s, { kernel = "triad" })
  local st, out = build.with_core(s, desc, kinfo, function(binary)
    return sys.run({ binary, "--events", pos[2] }, { capture = true })
  end)
  io.stdout:write(out or "")
  if pos[2] ~= "all" then
    io.stdout:write("software events (always available): perf::TASK-CLOCK perf::CPU-CLOCK perf::CONTEXT-SWITCHES "
      .. "perf::CPU-MIGRATIONS perf::PAGE-FAULTS\n",
      "`rot events all` lists every event name, marked where it cannot be opened here; use them in a "
        .. "point's counters = {...}\n")
  end
  return st == 0 and 0 or 1
end

-- rot worker JOBDIR TASK: the job's configuration, with the worker's own command line on top
local function worker(_, pos, opts)
  if not pos[2] or not pos[3] then util.fail("worker needs a job directory and a task number", "rot help worker") end
  local function load_config(o)
    local all = {}
    for _, x in ipairs(o) do all[#all + 1] = x end
    for _, x in ipairs(opts) do all[#all + 1] = x end
    return loaded(config.load(home .. "/config/site.conf", all))
  end
  local s, code = require("rot.execute.worker").run(home, pos[2], pos[3], load_config)
  s:cleanup()
  io.stdout:write(s:summary(), "\n")
  return code
end

-- rot run FILE.lua [ARG ...]
local function run(cfg, pos)
  if not pos[2] then util.fail("run needs a Lua file") end
  local path = sys.realpath(pos[2])
  if not path then util.fail("no Lua file '" .. pos[2] .. "'") end
  local s = start(cfg, { script_dir = util.dirname(path) })
  local ok, e = run_script(path, { table.unpack(pos, 3) })
  s:cleanup()
  if not ok then return report_error(e) end
  return 0
end

-- The commands that need the configuration: handler(cfg, pos, opts, own) -> exit status (own:
-- rot asm's macros, rot compare's -failOn, -machine, -remeasure and -minEffect).
handlers = {
  measure = function(cfg, pos) return measure(cfg, pos) end,
  profile = function(cfg, pos, _, own) return profile(cfg, pos, own) end,
  build = function(cfg, pos) return measure(cfg, pos, true) end,
  list = function(cfg, pos) return require("rot.cli.list").run(home, cfg, pos) end,
  config = function(cfg) return usage.show_config(cfg) end,
  cache = function(cfg, pos) return require("rot.cli.cache").run(cfg, pos) end,
  asm = function(cfg, pos, _, asm_opts) return asm(cfg, pos, asm_opts) end,
  predict = function(cfg, pos) start(cfg); return require("rot.cli.models").predict(pos) end,
  utilization = function(cfg, pos) start(cfg); return require("rot.cli.models").utilization(pos) end,
  events = events,
  history = function(cfg, pos)
    start(cfg)
    return require("rot.cli.history").history(cfg, pos, function(c, w) return resolve_script(c, w, "history") end)
  end,
  compare = function(cfg, pos, _, copts)
    start(cfg)
    local resolve = function(c, w) return resolve_script(c, w, "compare") end
    return require("rot.cli.history").compare(cfg, pos, copts, resolve)
  end,
  worker = worker,
  run = run,
}

-- The options of the commands that have their own beside the configuration keys (rot compare:
-- -failOn, -machine, -remeasure, -minEffect; rot profile: -threads, -counters), as their usage
-- writes them.
local OWN = { compare = { failOn = "-failOn=slower|any", machine = "-machine=ID,ID", remeasure = "-remeasure[=N]",
  minEffect = "-minEffect=F" }, profile = { threads = "-threads=N", counters = "-counters=EVENT,..." } }

-- Stops at an option of a command with options of its own that is neither one of them nor a
-- configuration key, naming the nearest of both.
local function check_own(cmd, opts)
  local keys, names = {}, {}
  for _, n in ipairs(config.names()) do keys[n] = true; names[#names + 1] = n end
  for n in pairs(OWN[cmd]) do names[#names + 1] = n end
  table.sort(names)
  for _, o in ipairs(opts) do
    local k = o:match("^%-([^=]+)=")
    if k and not keys[k] then
      local near = require("rot.sys").nearest(k, names)
      local usage = {}
      for _, n in ipairs(util.sorted_keys(OWN[cmd])) do usage[#usage + 1] = OWN[cmd][n] end
      util.fail("unknown option '-" .. k .. "' for rot " .. cmd .. (near and ("; did you mean '-" .. near
        .. "'?") or ""),
        "rot " .. cmd .. "'s own options: " .. table.concat(usage, ", ")
          .. "; `rot config` lists the configuration keys")
    end
  end
end

local function main(h, argv)
  home = h
  local opts, pos = {}, {}
  local after = "; an argument for the script that starts with - goes after --: rot measure study.lua -- -O2"
  for i, a in ipairs(argv) do
    if a == "--" then -- the end of the options: the rest is the script's, verbatim
      table.move(argv, i + 1, #argv, #pos + 1, pos)
      break
    elseif a == "--help" or a == "-h" then
      pos = { "help", pos[1] }
      break
    elseif pos[1] == "profile" and pos[2] and a:match("^%-.") then -- after the program: the program's?
      require("rot.cli.profile").option_after(argv, i, pos, opts, OWN.profile)
      opts[#opts + 1] = a
    elseif a:match("^%-%-%a") and a ~= "--names" then -- GNU style: said, never passed on to a script
      local k = a:match("^%-%-([^=]+)")
      util.fail("bad option '" .. a .. "': options take one dash, -key=value" .. util.did_you_mean(k, config.names()),
        "e.g. -quick=true; rot config lists the keys" .. after)
    elseif a:match("^%-[^=]+=") then
      opts[#opts + 1] = a
    elseif a == "-remeasure" then -- rot compare's one option without a value (its default rounds)
      opts[#opts + 1] = "-remeasure="
    elseif a == "-count" or a == "-showOutput" then -- a key alone: set (rot profile -count -- ./prog)
      opts[#opts + 1] = a .. "=true"
    elseif a:match("^%-%a") then
      local alone = { "-count", "-showOutput", "-remeasure" } -- the options that stand alone
      for _, k in ipairs(config.names()) do alone[#alone + 1] = "-" .. k end
      util.fail("bad option '" .. a .. "': options are -key=value" .. util.did_you_mean(a, alone),
        "rot config lists the keys" .. after)
    else
      pos[#pos + 1] = a
    end
  end
  if not pos[1] then return usage.help(nil, true) end -- a bare `rot`: the usage, on stderr, exit 2
  local cmd = pos[1]
  if cmd == "help" then return usage.help(pos[2]) end
  -- rot asm: options that are no configuration key are the kernel's macros (or -optimization)
  local asm_opts = {}
  if cmd == "asm" then
    local keys, rest = {}, {}
    for _, k in ipairs(config.names()) do keys[k] = true end
    for _, o in ipairs(opts) do
      local k, v = o:match("^%-([^=]+)=(.*)$")
      if keys[k] then rest[#rest + 1] = o else asm_opts[#asm_opts + 1] = { k, v } end
    end
    opts = rest
  end
  -- rot compare: -failOn, -machine, -remeasure and -minEffect are its own options, no
  -- configuration keys; so are rot profile's -threads and -counters
  if OWN[cmd] then
    local rest = {}
    for _, o in ipairs(opts) do
      local k, v = o:match("^%-([^=]+)=(.*)$")
      if OWN[cmd][k] then asm_opts[k] = v else rest[#rest + 1] = o end
    end
    opts = rest
    check_own(cmd, opts)
  end
  if cmd == "completion" then return usage.completion(pos) end
  local cfg = loaded(config.load(home .. "/config/site.conf", opts))
  local h = handlers[cmd]
  if h then return h(cfg, pos, opts, asm_opts) end
  util.fail("unknown command '" .. cmd .. "'" .. util.did_you_mean(cmd, usage.command_names()),
    "rot help lists the commands")
end

-- Runs a command; every error it stops with, here or in a script, is said by report_error
-- (with its exit status), a Lua error inside rot with its traceback.
function M.main(h, argv)
  local written = require("rot.selfprofile").start() -- ROT_PROFILE=FILE: where rot's own time goes
  local ok, r = xpcall(main, handler, h, argv)
  if written then written() end
  if ok then return r end
  return report_error(r)
end

return M
