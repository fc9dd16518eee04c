-- rot.describe.app: an application point (a spec with app = "program") checked and turned into
-- a description: the program's path and content hash, its arguments, the environment that
-- matters, its directory and inputs, counters, the run policy and the machine.
local sys = require "rot.sys"
local util = require "rot.util"
local machine = require "rot.machine"
local toolchain = require "rot.describe.toolchain"
local fields = require "rot.describe.fields"

local M = {}

local SPEC_FIELDS = { app = true, args = true, env = true, threads = true, dir = true, inputs = true, counters = true,
  counts = true, round = true, maxRuns = true, count = true }

-- The most invocations of an application point when its spec does not say (the maxRuns key's
-- value when it is lower): a program runs for seconds where a kernel runs for microseconds.
M.MAX_RUNS = 10

--[[ The environment variables that can change how a program runs, besides those a spec sets:
  the threading and memory runtimes' (OpenMP, MKL, OpenBLAS, BLIS, glibc's malloc), the
  loader's. Their values in rot's environment are part of the description. ]]
M.MATTERS = { "^OMP_", "^GOMP_", "^KMP_", "^MKL_", "^OPENBLAS_", "^BLIS_", "^GOTO_", "^MALLOC_", "^GLIBC_TUNABLES$",
  "^LD_LIBRARY_PATH$", "^LD_PRELOAD$", "^LD_BIND_NOW$", "^CUDA_VISIBLE_DEVICES$" }

function M.matters(name)
  for _, p in ipairs(M.MATTERS) do if name:match(p) then return true end end
  return false
end

-- A program's content hash, once per run for a path, size and time.
local function content_hash(s, path)
  local _, size, mtime = sys.stat(path)
  return s:remember("apphash:" .. path .. ":" .. tostring(size) .. ":" .. tostring(mtime), function()
    local text, err = sys.readfile(path)
    if not text then util.fail("cannot read program '" .. path .. "': " .. tostring(err)) end
    return sys.sha256(text)
  end)
end

-- Source files a program is built from, by extension: what compiles them.
local SOURCE = { c = "cc", cc = "c++", cpp = "c++", cxx = "c++", C = "c++", f = "gfortran", f90 = "gfortran",
  F90 = "gfortran", cu = "nvcc" }

-- Whether a file is one the kernel can execute: an ELF binary or a #! script.
local function runnable(path)
  local text = sys.readfile(path) or ""
  return text:sub(1, 4) == "\127ELF" or text:sub(1, 2) == "#!"
end

-- How the program app is named where it is given: rot profile's command line (cli) or a
-- script's app = "...".
local function named(app, cli) return cli and ("rot profile -- " .. app) or ("app = \"" .. app .. "\"") end

-- The hint for a source file given as the program: compile it (with rot's markers on the
-- include path), then name the program.
local function compile_hint(s, app, ext, cli)
  local out = app:sub(1, #app - #ext - 1)
  if not out:find("/") then out = "./" .. out end
  return string.format("compile it first: %s -O2 -fopenmp -I %s/core/include -o %s %s, then %s", SOURCE[ext],
    s and s.home or "ROT", out, app, named(out, cli))
end

-- Stops for a program that cannot be found: a name not on PATH (a file of that name here
-- needs ./), a path to nothing (the nearest name in its folder), a folder.
local function missing(app, cli)
  if not app:find("/") then
    util.fail("no program '" .. app .. "' on PATH", sys.stat(app) and
      (named("./" .. app, cli) .. " (a program in the current directory is named with ./, as a shell needs it)") or nil)
  end
  if sys.stat(app) == "dir" then util.fail("'" .. app .. "' is a directory, not a program") end
  local dir, base = util.dirname(app), util.basename(app)
  local near = sys.nearest(base, sys.listdir(dir) or {})
  util.fail("no program '" .. app .. "'" .. (near and ("; did you mean '" .. dir .. "/" .. near .. "'?") or ""))
end

--[[ program(app [, s, cli]) -> the absolute path of the program app names (a name with a slash
  from the current directory, as a shell takes it; a bare name from PATH), checked to be one
  that can run; else a stop whose hint fits where it was given (cli: rot profile's command
  line; else a script's app = "..."): a source file is compiled first, a binary made
  executable. s: the session (for rot's include path in a hint). ]]
function M.program(app, s, cli)
  if type(app) ~= "string" or app == "" then util.fail("app must be the program to run, a path or a name on PATH") end
  local found = sys.locate(app)
  local ext = app:match("%.(%w+)$")
  if found and SOURCE[ext] and not runnable(found) then -- an executable source file: no program all the same
    util.fail("'" .. app .. "' is source code, not a program", compile_hint(s, app, ext, cli))
  end
  if found then return assert(sys.realpath(found)) end
  if SOURCE[ext] and sys.stat(app) == "file" and not runnable(app) then -- (a bare name too: a file here)
    util.fail("'" .. app .. "' is source code, not a program", compile_hint(s, app, ext, cli))
  end
  if not (app:find("/") and sys.stat(app) == "file") then missing(app, cli) end
  if runnable(app) then util.fail("program '" .. app .. "' is not executable", "chmod +x " .. app) end
  util.fail("'" .. app .. "' is not a program (neither an ELF binary nor a #! script)")
end

-- A value as the program gets it: strings as they are, whole numbers without a fraction.
local function text(v, what)
  if type(v) == "string" then return v end
  if math.type(v) == "integer" then return string.format("%d", v) end
  if type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge then
    return v == math.floor(v) and math.abs(v) < 2 ^ 53 and string.format("%d", v) or string.format("%.17g", v)
  end
  util.fail(what .. " must be a string or a finite number, not " .. tostring(v))
end

local function args_of(spec)
  local out = {}
  if spec.args ~= nil and type(spec.args) ~= "table" then util.fail("args must be a list of arguments") end
  for i, a in ipairs(spec.args or {}) do out[i] = text(a, "argument " .. i) end
  return out
end

-- The spec's environment (NAME = value) and rot's own that matters (M.MATTERS), apart.
local function env_of(spec, threads)
  local env = {}
  if spec.env ~= nil and type(spec.env) ~= "table" then util.fail("env must be a table NAME = value") end
  for k, v in pairs(spec.env or {}) do
    if type(k) ~= "string" or not k:match("^[%a_][%w_]*$") then
      util.fail("env: '" .. tostring(k) .. "' is no variable name")
    end
    env[k] = text(v, "env." .. k)
  end
  if threads and env.OMP_NUM_THREADS == nil then env.OMP_NUM_THREADS = tostring(threads) end
  local inherited = {}
  for k, v in pairs(sys.environ()) do
    if env[k] == nil and M.matters(k) then inherited[k] = v end
  end
  return env, inherited
end

-- The files the result depends on, by content: {path = hash}.
local function inputs_of(s, spec)
  local out = {}
  if spec.inputs ~= nil and type(spec.inputs) ~= "table" then util.fail("inputs must be a list of files") end
  for i, f in ipairs(spec.inputs or {}) do
    if type(f) ~= "string" or sys.stat(f) ~= "file" then
      util.fail("input " .. i .. ": no file '" .. tostring(f) .. "'")
    end
    local path = assert(sys.realpath(f))
    out[path] = content_hash(s, path)
  end
  return out
end

--[[ describe(session, spec [, fp]) -> description, build inputs {kernels = {}, macros = {},
  app = true}. What can change the result: the program (by content), its arguments, the
  environment it gets (the spec's, and rot's own variables that matter), the directory it runs
  in, the inputs the spec names, its sampling period (samplingInterval), the counters, the threads it is told to
  use, the run policy,
  the round and the machine; and the compiler that builds rot's recorder. ]]
function M.describe(s, spec, fp)
  fields.check(spec, SPEC_FIELDS, "the point for application '" .. tostring(spec.app) .. "'")
  fields.count(spec)
  local path = M.program(spec.app, s)
  if spec.threads ~= nil and (math.type(spec.threads) ~= "integer" or spec.threads < 1) then
    util.fail("threads must be a positive integer (the threads the program is told to use)")
  end
  if spec.round ~= nil and (math.type(spec.round) ~= "integer" or spec.round < 1) then
    util.fail("round must be a positive integer (the n-th independent measurement of a point)")
  end
  if spec.maxRuns ~= nil and (math.type(spec.maxRuns) ~= "integer" or spec.maxRuns < 1 or spec.maxRuns > 100000) then
    util.fail("maxRuns must be a whole number from 1 to 100000 (invocations at most)")
  end
  local dir = spec.dir or "."
  if type(dir) ~= "string" or sys.stat(dir) ~= "dir" then util.fail("dir: no directory '" .. tostring(dir) .. "'") end
  local counters, counts = fields.counters(spec)
  local interval = s:get("samplingInterval") -- (ms; the core's sample input: ns)
  if interval > 0 and interval < 0.01 then
    util.fail("samplingInterval must be 0 (not sampled) or from 0.01 to 1000 ms, not " .. interval)
  end
  local env, inherited = env_of(spec, spec.threads)
  local desc = {
    app = { path = path, hash = content_hash(s, path), args = args_of(spec), env = env, inherited = inherited,
      dir = assert(sys.realpath(dir)), inputs = inputs_of(s, spec),
      sample = interval > 0 and math.floor(interval * 1e6 + 0.5) or nil },
    threads = spec.threads, measurers = { time = true, counters = counters }, counts = counts, device = "cpu",
    compiler = toolchain.compiler_id(s), machine = fp or machine.fingerprint(s.config),
    policy = { k = s:get("bestK"), epsilon = s:get("bestEpsilon"),
      maxRuns = spec.maxRuns or math.min(s:get("maxRuns"), M.MAX_RUNS) },
    round = spec.round and spec.round > 1 and spec.round or nil,
  }
  -- a CUDA program: rot's CUDA library beside the recorder; the device joins its machine (lookup)
  local cuda = require("rot.describe.cuda").program(path)
  desc.app.cuda = cuda and true or nil
  return desc, { kernels = {}, macros = {}, gpu = false, app = true, cuda = cuda }
end

-- The program's name (its file's), for words.
function M.name(desc) return util.basename(desc.app.path) end

return M
