--[[ rot.count.engine: the counting engine, Valgrind with rot's own tool (core/count/): is it
  here, what it is (its identity is part of every count's description), building the tool and a
  build's rot-count, running a program under it and reading what the two said, in the words
  core/count/counts.h declares (rot.protocol.count). ]]
local sys = require "rot.sys"
local util = require "rot.util"
local build = require "rot.build"
local WORDS = require("rot.protocol").count

local M = {}
local W = WORDS.records

M.INSTALL = "sudo apt-get install valgrind"
M.SLOWER = 100 -- a counted program gets this many times the timeout key

-- Stops unless valgrind, its headers and its static libraries (the tool links them) are here.
function M.check(s)
  s:remember("count-engine-checked", function()
    if not sys.locate("valgrind") then
      util.fail("the counting pass needs Valgrind, which is not installed", M.INSTALL, 2)
    end
    if sys.stat("/usr/include/valgrind/pub_tool_basics.h") ~= "file" then
      util.fail("the counting pass needs Valgrind's tool headers (/usr/include/valgrind)", M.INSTALL, 2)
    end
    local arch = select(2, sys.run({ "uname", "-m" }, { capture = true })) or ""
    if not arch:match("^x86_64") then
      util.fail("the counting pass runs on x86-64 Linux only (rot's Valgrind tool is built for amd64), not on "
        .. arch:gsub("%s+$", ""))
    end
    return true
  end)
end

--[[ What the engine is: Valgrind's version and the hash of rot's tool's sources (core/count/,
  core/Makefile and the markers' header): a new Valgrind or a changed tool counts again. ]]
function M.identity(s)
  return s:remember("count-engine", function()
    local _, v = sys.run({ "valgrind", "--version" }, { capture = true })
    local files = {}
    for _, f in ipairs(assert(sys.listdir(s.home .. "/core/count"))) do
      if f:match("%.[ch]$") then files[#files + 1] = s.home .. "/core/count/" .. f end
    end
    table.sort(files)
    files[#files + 1] = s.home .. "/core/Makefile"
    files[#files + 1] = s.home .. "/core/include/rot/markers.h" -- librot-count.so is built from it
    return { valgrind = (v or "?"):gsub("%s+$", ""), tool = assert(sys.sha256files(files, { s.home })):sub(1, 16) }
  end)
end

-- The make target of the build's rot-count, as make in core/ names it.
local function harness_target(s) return util.relpath(s.home .. "/core", s.builddir) .. "/rot-count" end

--[[ Builds the tool (and, for kernel points, rot-count with desc's kernels, macros and flags:
  the generated files rewritten for it); the caller holds the build lock until it has run them.
  Returns the paths {tool=, harness=, recorder=}, or nil and the compiler's last lines. ]]
function M.build(s, desc, kinfo)
  return s:timed("build", function()
    build.generate(s, desc, kinfo)
    local targets = { "count-tool" }
    if not kinfo.app then targets[2] = harness_target(s) end
    local st, out = build.make(s, s.builddir, targets)
    if st ~= 0 then
      local tail = (out or ""):match("([^\n]*\n?[^\n]*\n?[^\n]*\n?[^\n]*\n?[^\n]*)$") or ""
      return nil, "the counting pass for " .. build.what(desc, kinfo) .. " does not build:\n" .. tail
    end
    local d = s.builddir
    return { tool = d .. "/count/valgrind", harness = not kinfo.app and (d .. "/rot-count") or nil,
      recorder = d .. "/count/librot-count.so" }
  end)
end

-- The argv that runs prog (an argv) under the tool: env settings first, then valgrind; loops:
-- its loops found and counted apart (--rot-loops=yes: M.loops reads them).
function M.argv(paths, out, log, option, env, prog, loops)
  local argv = { "env", "VALGRIND_LIB=" .. paths.tool }
  for _, k in ipairs(util.sorted_keys(env or {})) do argv[#argv + 1] = k .. "=" .. env[k] end
  for _, a in ipairs({ "valgrind", "--tool=rotcount", "--rot-out=" .. out, "--log-file=" .. log,
    "--trace-children=no", "--error-exitcode=0" }) do
    argv[#argv + 1] = a
  end
  if option ~= "" then argv[#argv + 1] = "--rot-cache=" .. option end
  if loops then argv[#argv + 1] = "--rot-loops=yes" end
  for _, a in ipairs(prog) do argv[#argv + 1] = a end
  return argv
end

--[[ Runs argv (M.argv's, or any program run untimed: rot.count.cuda's) in dir, stdin on
  /dev/null, stderr into the file err, calling line(text) with each line the program writes on
  stdout; gives up after patience seconds without a line. Returns the exit status, or nil and
  "timeout", or nil, "start" and why it could not be started. ]]
function M.run(argv, dir, patience, line, err)
  local process = require "rot.process"
  local proc <close>, perr = process.spawn(argv, { dir = dir, stdin = "null", stderr = err })
  if not proc then return nil, "start", perr end
  while true do
    local text, why = proc:line(patience)
    if not text then
      if why == "interrupted" then util.interrupted(sys.interrupted()) end
      if why == "timeout" then proc:kill(); proc:wait(); return nil, "timeout" end
      break
    end
    if line then line(text) end
  end
  return proc:wait()
end

--[[ Why a run under the engine failed, from its log: an instruction Valgrind cannot decode
  (AVX-512: its EVEX prefix 0x62) with the build hint, else the program's last line on stderr
  (stderr: that file), else the log's last lines. avx512 true: the log says AVX-512. ]]
function M.why(log_path, what, hint, stderr)
  local log = sys.readfile(log_path) or ""
  local bytes = log:match("unhandled instruction bytes: (0x%x+[^\n]*)")
  if bytes and bytes:match("^0x62") then
    return what .. " uses AVX-512 instructions, which the counting engine (Valgrind " ..
      (log:match("Using Valgrind%-([%d.]+)") or "3.19") .. ") cannot decode", hint, true
  end
  if bytes then return what .. " runs an instruction the counting engine cannot decode (bytes " .. bytes .. ")", nil end
  local said = (sys.readfile(stderr or "") or ""):match("([^\n]+)\n?$")
  if said then return what .. " failed under the counting engine: " .. said, nil end
  local lines = {}
  for l in log:gmatch("[^\n]+") do
    l = l:gsub("^==%d+== ?", "")
    if l ~= "" then lines[#lines + 1] = l end
  end
  return what .. " failed under the counting engine" .. (#lines > 0 and (": " .. table.concat(lines, " | ",
    math.max(1, #lines - 3))) or ""), nil
end

-- The keys whose values are names, kept as written: a region named "1e3" is no number.
local NAMES = { name = true, region = true, path = true }

-- A line of the tool's output ("region name=x calls=1 fp64_256=8000 ..."): its key=value pairs.
local function pairs_of(text)
  local t = {}
  for k, v in text:gmatch("([%w_]+)=(%S+)") do
    t[k] = not NAMES[k] and tonumber(v) or util.unescape_token(v)
  end
  return t
end

-- The lines of the tool's output after its first (its words: counts.h's), or nil when the text
-- is no output of it.
function M.lines(text)
  local magic = WORDS.magic .. "\n"
  if not text or text:sub(1, #magic) ~= magic then return nil end
  local out = {}
  for l in text:sub(#magic + 1):gmatch("[^\n]+") do out[#out + 1] = l end
  return out
end

-- The tool's output again from its lines (M.lines's: a count's cache entry keeps them).
function M.text(lines) return WORDS.magic .. "\n" .. table.concat(lines, "\n") .. (#lines > 0 and "\n" or "") end

--[[ The tool's output file as a table: {line=, levels={{size=, assoc=}, ...}, misuses=, forks=,
  program={threads=, <count>=...}, regions={name -> {calls=, threads=, <count>=...}},
  order={names}}; nil and why when it is not one. A word it does not know is skipped. ]]
function M.parse(text)
  if not M.lines(text) then return nil, "no output of rot's counting tool" end
  local out = { levels = {}, regions = {}, order = {} }
  for l in text:gmatch("[^\n]+") do
    local word, rest = l:match("^(%S+)%s*(.*)$")
    if word == W.line then out.line = tonumber(rest)
    elseif word == W.misuses then out.misuses = tonumber(rest)
    elseif word == W.forks then out.forks = pairs_of(rest).n
    elseif word == W.level then out.levels[#out.levels + 1] = pairs_of(rest)
    elseif word == W.program then out.program = pairs_of(rest)
    elseif word == W.region then
      local r = pairs_of(rest)
      r.name = tostring(r.name)
      out.regions[r.name] = r
      out.order[#out.order + 1] = r.name
    end
  end
  return out
end

--[[ The loops of the tool's output (rotcount --rot-loops=yes, core/count/loops.c), nil when it
  counted none: {objects={[id]=path}, loops={{id=, obj=, head=, ["end"]=, latches={offsets},
  depth=, parent= (0: none), entries=, iterations=, back=, instrs= (its instructions' runs),
  <count>=..., parts=}, ...} (by object and head; an offset is the address the object's file
  links it at), functions={{obj=, off=, named= (1: off is its symbol's entry, 0: its lowest
  offset that ran), instrs=, <count>=..., parts=}: each function's code outside its loops},
  unknown={instrs=, <count>=..., parts=} (code in no file) or nil}. Loops, functions and unknown
  code together hold every count of the program's line. parts: the regions' parts of one, each
  {region= (its name), instrs=, <count>=... (a loop's: entries=, iterations=, back= too)}: what
  it ran while that region was open (the innermost); the rest ran outside every region. ]]
function M.loops(text)
  if not (text or ""):find("\n" .. W.loops .. " n=%d+\n") then return nil end
  local out = { objects = {}, loops = {}, functions = {} }
  local byid, fns = {}, {}
  local function fn_key(o) return o.obj .. "|" .. tostring(o.off) .. "|" .. tostring(o.named) end
  local function part(of, o)
    if not of then return end
    o.region = tostring(o.region)
    of.parts = of.parts or {}
    of.parts[#of.parts + 1] = o
  end
  for l in text:gmatch("[^\n]+") do
    local word, rest = l:match("^(%S+)%s*(.*)$")
    if word == W.object then
      local o = pairs_of(rest)
      out.objects[o.id] = tostring(o.path)
    elseif word == W.loop then
      local o = pairs_of(rest)
      local latches = {}
      for x in tostring(o.latches):gmatch("[^,]+") do latches[#latches + 1] = tonumber(x) end
      o.latches = latches
      out.loops[#out.loops + 1] = o
      byid[o.id] = o
    elseif word == W["function"] then
      local o = pairs_of(rest)
      out.functions[#out.functions + 1] = o
      fns[fn_key(o)] = o
    elseif word == W.unknown then
      out.unknown = pairs_of(rest)
    elseif word == W.regionloop then
      local o = pairs_of(rest)
      part(byid[o.id], o)
      o.id = nil
    elseif word == W.regionfunction then
      local o = pairs_of(rest)
      part(fns[fn_key(o)], o)
      o.obj, o.off, o.named = nil, nil, nil
    elseif word == W.regionunknown then
      part(out.unknown, pairs_of(rest))
    end
  end
  return out
end

--[[ What rot-count said of its points: on a line of its stdout ("counted ID", "failed ID") the
  word (WORDS.harness.counted or .failed) and the ID; nil on another line. ]]
function M.harness_line(line)
  local word, id = line:match("^(%S+) (%S+)$")
  if word == WORDS.harness.counted or word == WORDS.harness.failed then return word, id end
  return nil
end

-- Why rot-count said point id failed, from its stderr's text ("rot-count: point ID: WHY"), or nil.
function M.harness_why(text, id)
  local head = WORDS.harness.point .. " " .. id .. ": "
  for l in (text or ""):gmatch("[^\n]+") do
    if l:sub(1, #head) == head then return l:sub(#head + 1) end
  end
  return nil
end

return M
