-- rot.cli.profile: `rot profile -- PROGRAM [ARG ...]`: one application point, measured as a
-- script's would be: the table, NAME.csv, NAME.json and the roofline NAME.svg/.png (NAME: the
-- program's file name), its run recorded under the program's path (rot history ./PROGRAM).
local sys = require "rot.sys"
local util = require "rot.util"

local M = {}

--[[ The threads the program is told to use (OMP_NUM_THREADS), and the point's coordinate:
  -threads; else the whole number OMP_NUM_THREADS in rot's environment says; else one per CPU,
  what OpenMP takes by default (a program that is no OpenMP one is told and goes its own way).
  Another value of OMP_NUM_THREADS in the environment (a list, "4,2") is left as it is: no
  count told, that text the coordinate. ]]
local function threads_of(own)
  if own.threads then
    local n = math.tointeger(tonumber(own.threads))
    if not n or n < 1 then
      util.fail("bad value '" .. own.threads .. "' for -threads: a whole number of threads, 1 or more",
        "-threads=1 runs it on one thread; without -threads it runs one per CPU (OMP_NUM_THREADS)")
    end
    return n, n
  end
  local env = sys.environ().OMP_NUM_THREADS
  if env then
    local n = math.tointeger(tonumber(env))
    if n and n >= 1 then return n, n end
    return nil, env
  end
  local n = require("rot.machine").cpuinfo().cpus
  return n, n
end

-- The spec of the point: the program and its arguments, the threads it is told, -counters.
local function spec_of(prog, args, threads, own)
  local spec = { app = prog, args = args, threads = threads }
  if own.counters then
    spec.counters = {}
    for ev in own.counters:gmatch("[^,]+") do spec.counters[#spec.counters + 1] = ev end
  end
  return spec
end

--[[ option_after(argv, i, pos, opts, own): argv[i], an option after the program (pos[2]), is
  rot's when it is a key of rot's (a configuration key, or one of own: -threads, -counters), as
  before the program; else it is the program's: a stop with the command line that passes it
  after -- (opts: rot's options before it). ]]
function M.option_after(argv, i, pos, opts, own)
  local k = argv[i]:match("^%-([^=-][^=]*)=")
  for _, n in ipairs(require("rot.config").names()) do if k == n then return end end
  if k and own[k] then return end
  local words = { "rot", "profile" }
  for _, o in ipairs(opts) do words[#words + 1] = util.shell_word(o) end
  words[#words + 1] = "--"
  for j = 2, #pos do words[#words + 1] = util.shell_word(pos[j]) end
  for j = i, #argv do words[#words + 1] = util.shell_word(argv[j]) end
  util.fail("bad option '" .. argv[i] .. "' after the program: rot's options go before it, the program's after --",
    table.concat(words, " "))
end

--[[ plan(pos, own) -> {path, args, script_dir, script, run}: what rot.cli's measurement runs for
  `rot profile` (pos: "profile", the program, its arguments; own: -threads, -counters). The
  point's coordinates: the command and the threads (runs at another count are other points in
  history and compare, as a script's thread axis makes them). ]]
function M.plan(pos, own)
  own = own or {}
  local prog = pos[2]
  if not prog then
    util.fail("profile needs a program to run",
      "rot profile -- ./myprogram ARG ... (its loops are found without markers; rot/markers.h marks regions)")
  end
  if own.threads then threads_of(own) end -- a bad -threads: said before anything starts
  local args = { table.unpack(pos, 3) }
  local found = sys.locate(prog)
  local path = found and sys.realpath(found) or prog -- a missing one is said when it is described
  local name = util.basename(path):gsub("[^%w_.-]", "_")
  local command = table.concat({ util.basename(path), table.unpack(args) }, " ")
  local function run()
    local rot = require "rot"
    require("rot.describe.app").program(prog, require("rot.session").current(), true) -- its hints: this command line's
    local threads, coordinate = threads_of(own)
    local spec = spec_of(prog, args, threads, own)
    local r = rot.measure(rot.space { rot.axis("command", { command }), rot.axis("threads", { coordinate }) },
      function() return spec end)
    r:table()
    r:csv(name)
    r:json(name)
    r:roofline { name = name, title = "rot profile " .. command }
  end
  return { path = path, args = args, script_dir = sys.realpath(".") or ".", script = name, run = run }
end

return M
