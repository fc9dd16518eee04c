-- rot.runner: turns measurement descriptions into results: canonical descriptions and
-- their hashes, the result cache, core builds (make + ccache), core runs, merging of runs.
local sys = require "rot.sys"
local cache = require "rot.cache"
local build = require "rot.build"
local core = require "rot.core"
local process = require "rot.process"
local util = require "rot.util"
local machine = require "rot.machine"

local M = {}

-- what one rot invocation did, for the closing summary (the thesis's RuntimeMonitor)
local stats = { points = 0, hits = 0, measured = 0, failed = 0, builds = 0, slurm = 0,
  time = { build = 0, measure = 0, cache = 0, plot = 0 } }
M.stats = stats

local ctx -- home, config, script_dir; set by setup()

-- builddir: where cores are built (default home/build/core; a Slurm worker builds on its node).
function M.setup(home, config, script_dir, builddir)
  ctx = { home = home, config = config, script_dir = script_dir, memo = {}, builddir = builddir or (home .. "/build/core") }
end

function M.timed(what, f, ...)
  local t0 = sys.clock()
  local r = table.pack(f(...))
  stats.time[what] = stats.time[what] + (sys.clock() - t0)
  return table.unpack(r, 1, r.n)
end

local function cfg(key) return ctx.config:get(key) end
local function warn(msg) io.stderr:write("rot: warning: ", msg, "\n") end

local function memo(key, f)
  local v = ctx.memo[key]
  if v == nil then v = f(); ctx.memo[key] = v end
  return v
end

-- "gcc 12.2.0 x86_64-linux-gnu", "clang 14.0.6 x86_64-pc-linux-gnu": part of every
-- description, so a compiler update re-measures. GCC and clang (its -dumpversion) both work.
local function compiler_id()
  return memo("compiler", function()
    local cc = cfg("compiler")
    if not cc:match("^[%w/._+-]+$") then
      util.fail("compiler '" .. cc .. "' is not a plain program name or path (letters, digits and /._+- only)")
    end
    local st, ver = sys.run({ cc, "-dumpfullversion" }, { capture = true })
    if st ~= 0 or not (ver or ""):match("^%d") then -- clang: no -dumpfullversion
      st, ver = sys.run({ cc, "-dumpversion" }, { capture = true })
    end
    if not st or st ~= 0 or not (ver or ""):match("^%d") then
      util.fail("compiler '" .. cc .. "' cannot be run (or says no version)",
        "set -compiler=gcc or -compiler=clang, or: sudo apt-get install gcc")
    end
    local _, vendor = sys.run({ cc, "--version" }, { capture = true })
    local family = (vendor or ""):find("clang") and "clang" or ((vendor or ""):find("Free Software") and "gcc") or cc
    local _, mach = sys.run({ cc, "-dumpmachine" }, { capture = true })
    return family .. " " .. ver:gsub("%s+$", "") .. " " .. (mach or ""):gsub("%s+$", "") ..
      (family ~= cc and (" (" .. cc .. ")") or "")
  end)
end

-- Kernel files: beside the script (kernels/), then shipped (ROT_HOME/kernels/ and one level below).
local function kernel_dirs()
  local dirs = {}
  local shipped = ctx.home .. "/kernels"
  local beside = ctx.script_dir and ctx.script_dir .. "/kernels"
  if beside and (sys.realpath(beside) or beside) ~= (sys.realpath(shipped) or shipped) then dirs[#dirs + 1] = beside end
  dirs[#dirs + 1] = shipped
  return dirs
end

function M.kernels()
  return memo("kernels", function()
    local found, names, shadowed = {}, {}, {}
    local function scan(dir, depth)
      local list = sys.listdir(dir)
      if not list then return end
      table.sort(list)
      for _, f in ipairs(list) do
        local path = dir .. "/" .. f
        local name = f:match("^([%w_]+)%.c$") or f:match("^([%w_]+)%.cu$")
        if name and not found[name] then
          found[name] = path
          names[#names + 1] = name
        elseif name then
          shadowed[name] = shadowed[name] or path -- a later folder's kernel of the same name
        elseif depth > 0 and sys.stat(path) == "dir" then
          scan(path, depth - 1)
        end
      end
    end
    for _, d in ipairs(kernel_dirs()) do scan(d, 1) end
    table.sort(names)
    return { path = found, names = names, shadowed = shadowed }
  end)
end

local function kernel_path(name)
  local k = M.kernels()
  local p = k.path[name]
  if not p then
    util.fail("unknown kernel '" .. name .. "'" .. util.did_you_mean(name, k.names),
      "kernels are .c files in " .. table.concat(kernel_dirs(), " or "))
  end
  if k.shadowed[name] and not ctx.memo["shadow:" .. name] then
    ctx.memo["shadow:" .. name] = true
    io.stderr:write("rot: note: kernel '", name, "' is ", p, ", which shadows ", k.shadowed[name], "\n")
  end
  return p
end

local EVENTS = { workloadStart = true, workloadStop = true, threadCreated = true, threadExited = true,
  runStart = true, runEnd = true, fault = true }
local ACTIONS = { flush = true, pin = true, marker = true, startCounters = true, stopCounters = true }

local function names_of(set)
  local out = {}
  for k in pairs(set) do out[#out + 1] = k end
  table.sort(out)
  return out
end

local function check_fields(t, known, what)
  for k in pairs(t) do
    if not known[k] then
      util.fail("unknown field '" .. tostring(k) .. "' in " .. what .. util.did_you_mean(tostring(k), names_of(known)))
    end
  end
end

local function int_list(v, what)
  if v == nil or v == "none" then return {} end
  if type(v) ~= "table" then util.fail(what .. " must be a list of CPU numbers or \"none\"") end
  local out = {}
  for i, c in ipairs(v) do
    if math.type(c) ~= "integer" or c < 0 then util.fail(what .. ": entry " .. i .. " is not a CPU number") end
    out[i] = c
  end
  return out
end

local function workload(w, where)
  check_fields(w, { kernel = true, params = true, threads = true, pin = true }, where)
  if type(w.kernel) ~= "string" then util.fail(where .. " needs kernel = \"name\"") end
  local params = {}
  for k, v in pairs(w.params or {}) do
    if type(k) ~= "string" or type(v) ~= "number" then
      util.fail("kernel '" .. w.kernel .. "': parameter '" .. tostring(k) .. "' must be a number")
    end
    params[k] = v
  end
  local threads = w.threads or 1
  if math.type(threads) ~= "integer" or threads < 1 then util.fail("kernel '" .. w.kernel .. "': threads must be a positive integer") end
  return { kernel = w.kernel, params = params, threads = threads, pin = int_list(w.pin, "pin") }
end

local function rule(r, i)
  if type(r) ~= "table" then util.fail("rule " .. i .. " must be a table {on=, action=, ...}") end
  check_fields(r, { on = true, action = true, run = true, every = true, thread = true, cpu = true, text = true },
    "rule " .. i)
  if not EVENTS[r.on] then
    util.fail("rule " .. i .. ": unknown event '" .. tostring(r.on) .. "'" .. util.did_you_mean(tostring(r.on), names_of(EVENTS)),
      "events: " .. table.concat(names_of(EVENTS), ", "))
  end
  if not ACTIONS[r.action] then
    util.fail("rule " .. i .. ": unknown action '" .. tostring(r.action) .. "'" .. util.did_you_mean(tostring(r.action), names_of(ACTIONS)),
      "actions: " .. table.concat(names_of(ACTIONS), ", "))
  end
  for _, k in ipairs({ "run", "every", "thread", "cpu" }) do
    if r[k] ~= nil and (math.type(r[k]) ~= "integer" or r[k] < 0) then
      util.fail("rule " .. i .. ": " .. k .. " must be a non-negative integer")
    end
  end
  if r.text ~= nil and not tostring(r.text):match("^[%w_.-]+$") then
    util.fail("rule " .. i .. ": marker text must use letters, digits and _.- only")
  end
  if r.action == "pin" and not r.cpu then util.fail("rule " .. i .. ": pin needs cpu = N") end
  if r.action == "flush" and r.on ~= "runStart" and r.on ~= "workloadStart" then
    util.fail("rule " .. i .. ": flush works on runStart or workloadStart")
  end
  return { on = r.on, action = r.action, run = r.run, every = r.every, thread = r.thread, cpu = r.cpu,
    text = r.text and tostring(r.text) }
end

local SPEC_FIELDS = { kernel = true, params = true, threads = true, pin = true, workloads = true, macros = true,
  flags = true, cacheMode = true, counters = true, counts = true, rules = true, gpuMetrics = true }

local function nvcc() return cfg("cuda") .. "/bin/nvcc" end

local function kinfo0(kernels, macro_list) return { kernels = kernels, macros = macro_list, gpu = true } end

-- The machine a point is measured on (rot.machine's fingerprint); for GPU points also the
-- device: name, SMs, compute capability, driver. The device is asked once per boot (through
-- the GPU core's --device) and remembered in cacheDir/machines.
function M.identity(gpu_kinfo)
  local fp = ctx.machine or machine.fingerprint(ctx.config)
  if not gpu_kinfo then return fp end
  return memo("gpu-identity:" .. machine.id(fp), function()
    local id = {}
    for k, v in pairs(fp) do id[k] = v end
    id.gpu = M.gpu_device(gpu_kinfo)
    return id
  end)
end

function M.gpu_device(kinfo)
  local boot = (sys.readfile("/proc/sys/kernel/random/boot_id") or "unknown"):gsub("%s+", "")
  local visible = os.getenv("CUDA_VISIBLE_DEVICES") or "all"
  local file = cfg("cacheDir") .. "/machines/gpu-" .. sys.sha256(boot .. "|" .. visible .. "|" .. cfg("cuda")):sub(1, 16)
  local known = sys.readfile(file)
  if known then return (known:gsub("%s+$", "")) end
  local binary = M.locked_build({ macros = {}, flags = "-O3 -arch=" .. cfg("gpuArch"), compiler = compiler_id() }, kinfo)
  local st, out = sys.run({ binary, "--device" }, { capture = true })
  local dev = st == 0 and out:match("^device ([^\n]+)") or "none"
  sys.mkdir(cfg("cacheDir") .. "/machines")
  sys.writefile(file, dev .. "\n")
  return dev
end

-- Fills in everything that can change a result; returns the description and build inputs.
function M.describe(spec)
  if type(spec) ~= "table" then util.fail("a measurement point must be a table {kernel=..., ...}") end
  local what = "the point for kernel '" .. tostring(spec.kernel or (spec.workloads and "workloads")) .. "'"
  check_fields(spec, SPEC_FIELDS, what)
  local wls = {}
  if spec.workloads then
    if spec.kernel then util.fail("give either kernel = ... or workloads = {...}, not both") end
    if type(spec.workloads) ~= "table" or #spec.workloads == 0 then util.fail("workloads must be a non-empty list") end
    for i, w in ipairs(spec.workloads) do wls[i] = workload(w, "workload " .. i) end
  else
    if type(spec.kernel) ~= "string" then util.fail("a measurement point needs kernel = \"name\"") end
    wls[1] = workload({ kernel = spec.kernel, params = spec.params, threads = spec.threads, pin = spec.pin }, what)
  end
  -- the kernels to build and the macros they use
  local kernels, kset, macro_set, macro_list = {}, {}, {}, {}
  for _, w in ipairs(wls) do
    if not kset[w.kernel] then
      local path = kernel_path(w.kernel)
      kset[w.kernel] = path
      -- its object's name: the path from the checkout, or from its study (moves keep it)
      local home = ctx.home .. "/"
      local key = path:sub(1, #home) == home and path:sub(#home + 1) or util.relpath(util.dirname(util.dirname(path)), path)
      kernels[#kernels + 1] = { name = w.kernel, path = path, key = key }
      local used = memo("macros:" .. path, function() return assert(build.macros(path)) end)
      for _, m in ipairs(used) do
        if not macro_set[m] then macro_set[m] = true; macro_list[#macro_list + 1] = m end
      end
    end
  end
  table.sort(macro_list)
  local gpu = false
  for _, k in ipairs(kernels) do gpu = gpu or k.path:match("%.cu$") ~= nil end
  local macros = {}
  for k, v in pairs(spec.macros or {}) do
    local ok, err = build.checkmacro(tostring(k), tostring(v))
    if not ok then util.fail(err) end
    if not macro_set[k] then
      local who = #kernels == 1 and ("kernel '" .. kernels[1].name .. "'") or "these kernels"
      util.fail(who .. " has no macro '" .. k .. "'" .. util.did_you_mean(k, macro_list),
        #macro_list > 0 and ("its macros: " .. table.concat(macro_list, ", "))
        or "a kernel uses a macro NAME by including \"macro/NAME.h\"")
    end
    macros[k] = tostring(v)
  end
  local flags = spec.flags or (gpu and ("-O3 -arch=" .. cfg("gpuArch")) or "-O2")
  local ok, err = build.checkflags(flags)
  if not ok then util.fail(err) end
  local mode = spec.cacheMode or cfg("cacheMode")
  if mode ~= "warm" and mode ~= "cold" then util.fail("cacheMode must be 'warm' or 'cold', not '" .. tostring(mode) .. "'") end
  local counters = {}
  for i, c in ipairs(spec.counters or {}) do
    if type(c) ~= "string" or c == "" or c:find("[%s=]") then
      util.fail("counter " .. i .. " must be an event name without spaces or '='")
    end
    counters[i] = c
  end
  local counts = {}
  for q, combo in pairs(spec.counts or {}) do
    if q ~= "flops" and q ~= "bytes" then util.fail("counts: only flops and bytes can be measured, not '" .. tostring(q) .. "'") end
    counts[q] = {}
    for ev, weight in pairs(combo) do
      local known = false
      for _, c in ipairs(counters) do known = known or c == ev end
      if not known then util.fail("counts." .. q .. " uses '" .. tostring(ev) .. "', which is not in counters") end
      if type(weight) ~= "number" then util.fail("counts." .. q .. "['" .. ev .. "'] must be a number") end
      counts[q][ev] = weight
    end
  end
  local rules = {}
  for i, r in ipairs(spec.rules or {}) do rules[i] = rule(r, i) end
  local metrics = {}
  for i, m in ipairs(spec.gpuMetrics or {}) do
    if not gpu then util.fail("gpuMetrics need a GPU kernel (a .cu file)") end
    if type(m) ~= "string" or not m:match("^[%w_.]+$") then util.fail("GPU metric " .. i .. " is not a metric name") end
    metrics[i] = m
  end
  local desc = {
    workloads = wls, macros = macros, flags = flags,
    compiler = compiler_id(), measurers = { time = true, counters = counters }, counts = counts,
    cacheMode = mode, rules = rules, ignoreDisturbed = cfg("ignoreDisturbed"),
    device = gpu and "gpu" or "cpu", gpuMetrics = metrics, machine = M.identity(gpu and kinfo0(kernels, macro_list)),
    policy = { k = cfg("bestK"), epsilon = cfg("bestEpsilon"), maxRuns = cfg("maxRuns"),
      minRunTime = cfg("minRunTime") },
  }
  local kinfo = { kernels = kernels, macros = macro_list, gpu = gpu }
  if #metrics > 0 then M.check_metrics(desc, kinfo) end
  return desc, kinfo
end

-- Hash of everything that decides the core binary, so a known core hash needs no build.
-- Where the files a kernel's last build read are recorded (from the compiler's .d file).
local function deps_file(kpath) return cfg("cacheDir") .. "/deps/" .. sys.sha256(kpath):sub(1, 16) end

--[[ After a build: every file the compiler read for each kernel (-MMD's dependency file: its
  own source, headers beside it or anywhere else, .cuh), without the generated ones. The next
  build key hashes them, so a header that changes rebuilds and re-measures. ]]
local function record_deps(kinfo)
  local coredir = ctx.home .. "/core"
  for _, k in ipairs(kinfo.kernels) do
    local d = sys.readfile(ctx.builddir .. "/kernels/" .. k.name .. "-" .. sys.sha256(k.key or k.path):sub(1, 12) .. ".d")
    if d then
      local rule = d:match("^(.-[^\\])\n") or d -- the first rule: the object and what it read
      rule = rule:gsub("\\\n", " ")
      local files, seen = {}, {}
      local first = true
      for tok in rule:gsub("\\ ", "\0"):gmatch("%S+") do
        tok = tok:gsub("%z", " ")
        if first then first = false -- the target
        else
          local path = util.normpath(tok:sub(1, 1) == "/" and tok or (coredir .. "/" .. tok))
          local inside = util.relpath(ctx.builddir, path):sub(1, 2) ~= ".."
          if not inside and not seen[path] then seen[path] = true; files[#files + 1] = path end
        end
      end
      table.sort(files)
      sys.mkdir(cfg("cacheDir") .. "/deps")
      sys.writefile(deps_file(k.path), table.concat(files, "\n") .. "\n")
    end
  end
end

-- Hash of everything that decides the core binary, so a known core hash needs no build: the
-- core's sources, each kernel's own file and every file its last build read (else its folder),
-- macros, flags, compiler, machine. Names are hashed relative to the checkout or the kernel's
-- folder: a moved checkout or study keeps its keys.
local function build_key(desc, kinfo)
  local core_src = memo("coresrc", function()
    local dir, files = ctx.home .. "/core", {}
    for _, f in ipairs(assert(sys.listdir(dir))) do
      if f:match("%.[ch]$") or f == "Makefile" then files[#files + 1] = dir .. "/" .. f end
    end
    table.sort(files)
    return assert(sys.sha256files(files, { ctx.home }))
  end)
  local ksrc = {}
  for i, k in ipairs(kinfo.kernels) do
    local kdir = util.dirname(k.path)
    ksrc[i] = k.name .. "@" .. memo("ksrc:" .. k.path, function()
      local files = {}
      for f in (sys.readfile(deps_file(k.path)) or ""):gmatch("[^\n]+") do files[#files + 1] = f end
      if #files == 0 then -- never built: its folder
        for _, f in ipairs(assert(sys.listdir(kdir))) do
          if f:match("%.[ch]$") or f:match("%.cuh?$") then files[#files + 1] = kdir .. "/" .. f end
        end
        table.sort(files)
      end
      return assert(sys.sha256files(files, { ctx.home, kdir, util.dirname(kdir) }, true))
    end)
  end
  return sys.sha256(util.serialize({ core = core_src, kernels = ksrc,
    macros = desc.macros, flags = desc.flags, compiler = desc.compiler, machine = desc.machine }))
end

-- The core-hash repository: build key -> hash of the core binary it produced.
local function repo_path() return cfg("cacheDir") .. "/cores" end

local function repo()
  return memo("repo", function()
    local r = {}
    local text = sys.readfile(repo_path())
    for k, h in (text or ""):gmatch("(%x+) (%x+)\n") do r[k] = h end
    return r
  end)
end

local function repo_store(key, hash)
  if not hash then return end
  local r = repo()
  if r[key] == hash then return end
  r[key] = hash
  local lines = {}
  for k, h in pairs(r) do lines[#lines + 1] = k .. " " .. h .. "\n" end
  table.sort(lines)
  local ok, err = sys.writefile(repo_path(), table.concat(lines))
  if not ok then util.fail("cannot write the core-hash repository: " .. err) end
end

-- After a build: the key the next run computes (the files it read are known now) maps to the
-- same binary, so that run needs no build.
local function rekey(desc, kinfo, core_hash)
  for _, k in ipairs(kinfo.kernels) do ctx.memo["ksrc:" .. k.path] = nil end
  repo_store(build_key(desc, kinfo), core_hash)
end

local function ensure_dir(dir, what, key)
  local ok, err = sys.mkdir(dir)
  if not ok or not sys.writable(dir) then
    util.fail("cannot write " .. what .. " '" .. dir .. "': " .. (err or "permission denied"),
      "set -" .. key .. "=DIR to a writable directory, or fix its permissions")
  end
end

-- Generates the core's inputs and runs make; returns the binary and its hash.
local function build_core(desc, kinfo)
  local bdir = ctx.builddir
  local gendir = bdir .. "/gen"
  local ccache = sys.locate("ccache")
  if not ccache then util.fail("'ccache' is not installed", "sudo apt-get install ccache", 2) end
  if not sys.locate("make") then util.fail("'make' is not installed", "sudo apt-get install make", 2) end
  local macros = {}
  for _, m in ipairs(kinfo.macros) do macros[m] = desc.macros[m] or false end
  for _, k in ipairs(kinfo.kernels) do
    local ok, err = build.checkpath("kernel path", k.path)
    if not ok then util.fail(err) end
  end
  -- no absolute path of the checkout, the build or a study reaches the binary
  local paths = { { ctx.home, "rot" }, { bdir, "build" } }
  for _, k in ipairs(kinfo.kernels) do
    local dir = util.dirname(k.path)
    if dir:sub(1, #ctx.home + 1) ~= ctx.home .. "/" then paths[#paths + 1] = { dir, "kernels" } end
  end
  local changed, err = build.generate({ gendir = gendir, flags = desc.flags, macros = macros,
    kernels = kinfo.kernels, paths = paths })
  if not changed then util.fail(err) end
  local coredir = ctx.home .. "/core"
  local st, out = sys.run({ "make", "-s", "-j2", "-C", coredir, "O=" .. util.relpath(coredir, bdir),
    "GEN=" .. util.relpath(coredir, gendir), "CC=ccache " .. cfg("compiler"), "CUDA=" .. cfg("cuda"),
    "NVCC=ccache " .. nvcc() }, { capture = true })
  if st ~= 0 then -- the compiler's last lines, with what was being built
    local lines = {}
    for l in (out or ""):gmatch("[^\n]+") do lines[#lines + 1] = l end
    local from = math.max(1, #lines - 29)
    return nil, M.what_built(desc, kinfo) .. " does not compile:\n" ..
      (from > 1 and "...\n" or "") .. table.concat(lines, "\n", from)
  end
  stats.builds = stats.builds + 1
  record_deps(kinfo)
  local binary = bdir .. "/rot-core"
  return binary, assert(sys.sha256files({ binary }))
end

-- "kernel 'x' (path) with macros A=1, B=2 and flags '-O3'": what a core build is made of.
-- A description's macro settings, sorted: { "NAME=VALUE", ... }.
local function macro_settings(desc)
  local out = {}
  for _, m in ipairs(util.sorted_keys(desc.macros or {})) do out[#out + 1] = m .. "=" .. desc.macros[m] end
  return out
end

function M.what_built(desc, kinfo)
  local names, macros = {}, macro_settings(desc)
  for _, k in ipairs(kinfo.kernels) do names[#names + 1] = "kernel '" .. k.name .. "' (" .. k.path .. ")" end
  return table.concat(names, ", ") .. (#macros > 0 and (" with macros " .. table.concat(macros, ", ")) or "") ..
    " and flags '" .. desc.flags .. "'"
end

-- build_core under the build lock, for callers that only need the binary.
function M.locked_build(desc, kinfo)
  local bdir = ctx.builddir
  ensure_dir(bdir, "build directory", "cacheDir")
  local lock <close> = assert(build.lock(bdir .. "/.lock"))
  local binary, err = M.timed("build", build_core, desc, kinfo)
  if not binary then util.fail(err) end
  return binary
end

-- Checks GPU metric names before anything is measured, with CUPTI's host API for the chip
-- (-gpuChip, or the device's): unknown names are an error naming them and near ones.
function M.check_metrics(desc, kinfo)
  local key = "metrics:" .. cfg("gpuChip") .. ":" .. table.concat(desc.gpuMetrics, ",")
  if ctx.memo[key] then return ctx.memo[key] end
  if sys.stat(nvcc()) ~= "file" then
    util.fail("cannot check GPU metrics: the CUDA toolkit is not installed ('" .. nvcc() .. "' missing)",
      "set -cuda=DIR to the toolkit")
  end
  local chip = cfg("gpuChip")
  if chip == "auto" then -- the device's, from its identity (asked once per boot)
    chip = M.gpu_device(kinfo):match("chip (%S+)")
    if not chip then -- nothing will be profiled here either: the points are refused
      warn("GPU metric names not checked: no CUDA device to name the chip (set -gpuChip=GH100 to check them here)")
      ctx.memo[key] = { chip = nil, passes = nil }
      return ctx.memo[key]
    end
  end
  -- a check that passed is remembered per chip, metric list and toolkit: reruns start nothing
  local file = cfg("cacheDir") .. "/machines/metrics-" ..
    sys.sha256(chip .. "|" .. cfg("cuda") .. "|" .. table.concat(desc.gpuMetrics, ",")):sub(1, 16)
  local known = tonumber((sys.readfile(file) or ""):match("^passes (%d+)"))
  if known then
    ctx.memo[key] = { chip = chip, passes = known }
    return ctx.memo[key]
  end
  local binary = M.locked_build(desc, kinfo)
  local args = { binary, "--metrics", chip }
  for _, m in ipairs(desc.gpuMetrics) do args[#args + 1] = m end
  local st, out = sys.run(args, { capture = true })
  local bad = {}
  for name, near in out:gmatch("unknown (%S+) ?([^\n]*)") do
    bad[#bad + 1] = "'" .. name .. "'" .. (near ~= "" and (" (near: " .. near:gsub(" ", ", ") .. ")") or "")
  end
  if #bad > 0 then
    util.fail("unknown GPU metric" .. (#bad > 1 and "s " or " ") .. table.concat(bad, "; ") .. " for chip " .. chip)
  end
  local err = out:match("error ([^\n]*)")
  local passes = tonumber(out:match("passes (%d+)"))
  if st ~= 0 or err or not passes then
    util.fail("cannot check GPU metrics for chip " .. chip .. ": " .. (err or out))
  end
  io.stderr:write(string.format("rot: %d GPU metrics checked for %s: %d profiling pass%s per point\n",
    #desc.gpuMetrics, chip, passes, passes == 1 and "" or "es"))
  sys.mkdir(cfg("cacheDir") .. "/machines")
  sys.writefile(file, "passes " .. passes .. "\n")
  ctx.memo[key] = { chip = chip, passes = passes }
  return ctx.memo[key]
end

-- The core's input lines for one point.
local function point_lines(desc, need_runs, exact, lines)
  for _, w in ipairs(desc.workloads) do
    lines[#lines + 1] = "workload " .. w.kernel .. " threads " .. w.threads ..
        (#w.pin > 0 and (" pin " .. table.concat(w.pin, ",")) or "")
    for _, k in ipairs(util.sorted_keys(w.params)) do
      lines[#lines + 1] = string.format("param %s %.17g", k, w.params[k])
    end
  end
  for _, c in ipairs(desc.measurers.counters) do lines[#lines + 1] = "counter " .. c end
  for _, m in ipairs(desc.gpuMetrics) do lines[#lines + 1] = "gpumetric " .. m end
  for _, r in ipairs(desc.rules) do
    local l = "rule " .. r.on .. " " .. r.action
    for _, k in ipairs({ "run", "every", "thread", "cpu", "text" }) do
      if r[k] ~= nil then l = l .. " " .. k .. "=" .. r[k] end
    end
    lines[#lines + 1] = l
  end
  lines[#lines + 1] = "ignoreDisturbed " .. (desc.ignoreDisturbed and 1 or 0)
  local p = desc.policy
  lines[#lines + 1] = "runs " .. need_runs
  lines[#lines + 1] = "bestK " .. p.k
  lines[#lines + 1] = "bestEpsilon " .. string.format("%.17g", p.epsilon)
  lines[#lines + 1] = "maxRuns " .. (exact and need_runs or math.max(p.maxRuns, need_runs))
  lines[#lines + 1] = "minRunTime " .. string.format("%.17g", p.minRunTime)
  lines[#lines + 1] = "cacheMode " .. desc.cacheMode
  lines[#lines + 1] = "timeout " .. string.format("%.17g", cfg("timeout"))
  local child = cfg("pointChild")
  if child == "auto" then child = desc.device == "gpu" and "shared" or "each" end
  lines[#lines + 1] = "child " .. child
end

-- One point's result from the core's record lines (status, error, meta, runs, stderr).
local function point_result(desc, text)
  local res, err = core.parse(text)
  if not res then
    return { status = "failed", error = "the measuring core's output is unreadable: " .. err, meta = {}, runs = {} }
  end
  if res.status == "ok" and (res.meta.complete ~= 1 or #res.runs == 0) then
    res.status, res.error = "failed", "kernel '" .. desc.workloads[1].kernel .. "' ended the measurement early"
  end
  if res.meta.hint then res.error = (res.error or "failed") .. "\nhint: " .. res.meta.hint end
  if res.meta.failure == "input" then
    local msg, hint = res.error:match("^(.-)\nhint: (.*)$")
    util.fail(msg or res.error, hint)
  end
  return res
end

-- This invocation's run directory (rot build writes a script's outputs there: nowhere else) (the core's input, its stderr): under cacheDir/run, removed
-- at the end; ones left by a killed rot are removed by the next.
local function run_dir()
  if ctx.rundir then return ctx.rundir end
  local base = cfg("cacheDir") .. "/run"
  ensure_dir(base, "cache directory", "cacheDir")
  for _, d in ipairs(sys.listdir(base) or {}) do
    local pid = tonumber(d:match("^(%d+)%-"))
    if pid and pid ~= sys.pid() and not sys.alive(pid) then sys.removetree(base .. "/" .. d) end
  end
  local dir = base .. "/" .. sys.pid() .. "-" .. string.format("%x", math.floor(sys.clock() * 1e6) % 0x1000000)
  ensure_dir(dir, "cache directory", "cacheDir")
  ctx.rundir = dir
  return dir
end

--[[ Why a result cannot be true, or nil: a run of 0 ns (or none), or, where this machine's
  ceilings are stored, a bandwidth or flop rate ten times beyond the fastest of them (the
  kernel's declared counts may overstate its work a little; a tenfold excess is not a
  measurement). Checked before anything is cached. ]]
function M.implausible(row, res)
  local m, best = res.meta, nil
  for _, r in ipairs(res.runs) do
    local ns, reps = tonumber(r.ns), tonumber(r.reps)
    if not ns or not reps or reps < 1 or ns <= 0 then
      return string.format("a run took %s ns for %s invocation(s)", tostring(r.ns), tostring(r.reps))
    end
    local t = math.max(ns - (m.timerOverheadNs or 0), 1) / reps * 1e-9
    if not best or t < best then best = t end
  end
  if not best then return "no timed run" end
  if row.kinfo and row.kinfo.gpu then return nil end -- a GPU's limits are not the CPU's
  local limits = memo("limits", function()
    local peaks = require "rot.peaks"
    local l = { gbs = 0, gflops = 0 }
    for _, quick in ipairs({ false, true }) do
      for _, r in ipairs(peaks.read_csv(peaks.path(cfg("cacheDir"), machine.fingerprint(ctx.config), quick)) or {}) do
        if r.kind == "bandwidth" then l.gbs = math.max(l.gbs, r.value) end
        if r.kind == "compute" then l.gflops = math.max(l.gflops, r.value) end
      end
    end
    return l
  end)
  local gbs, gflops = (m.bytes or 0) / best / 1e9, (m.flops or 0) / best / 1e9
  if limits.gbs > 0 and gbs > 10 * limits.gbs then
    return string.format("%.4g GB/s is more than ten times this machine's fastest measured bandwidth (%.4g GB/s)", gbs, limits.gbs)
  end
  if limits.gflops > 0 and gflops > 10 * limits.gflops then
    return string.format("%.4g GFLOP/s is more than ten times this machine's fastest measured compute (%.4g GFLOP/s)", gflops, limits.gflops)
  end
  return nil
end

-- The measurement the points belong to (its name), recorded in each entry written.
function M.set_script(name) ctx.script = name end

-- f(row) after each point measure_here ends (measured, failed, or found cached after all).
function M.set_on_point(f) ctx.on_point = f end

function M.run_dir() return run_dir() end

function M.cleanup()
  if ctx and ctx.rundir then sys.removetree(ctx.rundir); ctx.rundir = nil end
end

--[[ Measures items {desc=, need=, exact=} with one core process, in order; done(item, res) is
  called as each result arrives (and may return "stop" to end the batch). A kernel that kills
  the core only loses its own point: the core is started again for the rest. The core's own
  timeout bounds each point; the driver gives up on a core that says nothing for longer. ]]
local function run_batch(binary, items, done)
  local i = 1
  while i <= #items do
    local dir = run_dir()
    local lines = {}
    for j = i, #items do
      lines[#lines + 1] = "point " .. j
      point_lines(items[j].desc, items[j].need, items[j].exact, lines)
      lines[#lines + 1] = "end"
    end
    assert(sys.writefile(dir .. "/in", table.concat(lines, "\n") .. "\n"))
    local proc <close>, err = process.spawn({ binary, "--batch", dir .. "/in" }, { stderr = dir .. "/core.err" })
    if not proc then util.fail("cannot start the measuring core: " .. err) end
    local grace = 30 + 0.1 * cfg("timeout")
    local stop = false
    while i <= #items and not stop do
      local text, why = {}, nil
      while true do
        local line, e = proc:line(cfg("timeout") + grace)
        if not line then why = e; break end
        if line == "end " .. i then break end
        if not line:match("^begin ") then text[#text + 1] = line end
      end
      if why == "interrupted" then util.interrupted(sys.interrupted()) end
      if why then -- the core died or hung: this point fails, the core starts again for the rest
        proc:kill() -- a core that ended already keeps the status it ended with
        local st = proc:wait()
        local log = (sys.readfile(dir .. "/core.err") or ""):gsub("%s+$", "")
        local how = st and (st > 128 and (", killed by signal " .. (st - 128) ..
          (st == 137 and " (SIGKILL: from another process, which may be the measured kernel, or from the out-of-memory killer)" or "")) or
          (", exit status " .. st)) or ""
        local res = { status = "failed", meta = {}, runs = {},
          error = why == "timeout" and ("the measuring core gave no answer for " .. math.floor(cfg("timeout") + grace) ..
            " s and was killed") or ("the measuring core ended unexpectedly" .. how .. (log ~= "" and (": " .. log) or "")) }
        stop = done(items[i], res) == "stop"
        i = i + 1
        break
      end
      stop = done(items[i], point_result(items[i].desc, table.concat(text, "\n") .. "\n")) == "stop"
      i = i + 1
    end
    if stop then
      for j = i, #items do done(items[j], nil) end
      return
    end
  end
end

-- progress line on stderr (terminal only unless -progress=always)
local progress = {}
function progress.start(n)
  local mode = cfg("progress")
  progress.on = mode == "always" or (mode == "auto" and sys.isatty(2))
  progress.n, progress.i, progress.t0 = n, 0, sys.clock()
end
function progress.step()
  if not progress.n then return end -- not started: a Slurm worker
  progress.i = progress.i + 1
  if not progress.on then return end
  local el = sys.clock() - progress.t0
  local eta = progress.i > 0 and el / progress.i * (progress.n - progress.i) or 0
  io.stderr:write(string.format("\r\27[Kpoint %d/%d  hits %d  elapsed %.1f s  eta %.1f s",
    progress.i, progress.n, stats.hits, el, eta))
  io.stderr:flush()
end
function progress.done()
  if progress.on then io.stderr:write("\r\27[K"); io.stderr:flush() end
end


-- The governor key: set it on every CPU once, before anything is measured.
local function set_governor()
  local g = cfg("governor")
  if g == "" or ctx.memo.governor then return end
  local cpus = sys.listdir("/sys/devices/system/cpu") or {}
  local n = 0
  for _, c in ipairs(cpus) do
    local path = "/sys/devices/system/cpu/" .. c .. "/cpufreq/scaling_governor"
    if c:match("^cpu%d+$") and sys.stat(path) then
      local f, err = io.open(path, "w")
      local ok = f and f:write(g) and f:close()
      if not ok then
        util.fail("cannot set the cpufreq governor '" .. g .. "' on " .. c .. ": " .. tostring(err or "write refused"),
          "run as root, or leave -governor unset; available: " ..
          tostring(sys.readfile("/sys/devices/system/cpu/" .. c .. "/cpufreq/scaling_available_governors")))
      end
      n = n + 1
    end
  end
  if n == 0 then
    util.fail("cannot set the cpufreq governor '" .. g .. "': this machine exposes no cpufreq (no /sys/devices/system/cpu/cpu*/cpufreq)",
      "leave -governor unset here; the measured frequency is recorded as unknown")
  end
  ctx.memo.governor = true
end

-- The generated files of a point (macro headers, flags) in their own directory, for rot asm.
local function asm_gen(desc, kinfo)
  local gendir = ctx.home .. "/build/asm/gen"
  ensure_dir(gendir, "build directory", "cacheDir")
  local macros = {}
  for _, m in ipairs(kinfo.macros) do macros[m] = desc.macros[m] or false end
  local changed, err = build.generate({ gendir = gendir, flags = desc.flags, macros = macros, kernels = kinfo.kernels })
  if not changed then util.fail(err) end
  return gendir
end

--[[ A GPU kernel's PTX (with line info: `.loc` directives name source lines), compiled as a
  point's core would compile it, and what ptxas -v says of it for the same architecture
  (registers, spills, shared memory). desc, kinfo from M.describe. ]]
function M.ptx(desc, kinfo)
  local gendir = asm_gen(desc, kinfo)
  local k = kinfo.kernels[1]
  local out = ctx.home .. "/build/asm/" .. k.name .. ".ptx"
  local st, msg = sys.run({ nvcc(), "-std=c++20", "-lineinfo", "-I" .. ctx.home .. "/core", "-I" .. gendir,
    "--options-file", gendir .. "/kernel.flags", "-ptx", k.path, "-o", out }, { capture = true })
  if st ~= 0 then util.fail(M.what_built(desc, kinfo) .. " does not compile to PTX:\n" .. (msg or ""):gsub("%s+$", "")) end
  local ptx = assert(sys.readfile(out))
  local arch = desc.flags:match("%-arch=(%S+)") or desc.flags:match("%-arch (%S+)") or cfg("gpuArch")
  local info
  st, info = sys.run({ cfg("cuda") .. "/bin/ptxas", "-v", "-arch=" .. arch, out, "-o", out .. ".cubin" }, { capture = true })
  if st ~= 0 then util.fail("ptxas failed on " .. M.what_built(desc, kinfo) .. ":\n" .. (info or "")) end
  return ptx, info
end

-- Annotated assembly of a kernel, compiled exactly as a point would be (same flags, same
-- generated macro headers, same compiler), with the source interleaved (objdump -S).
function M.asm(spec)
  local desc, kinfo = M.describe(spec)
  if kinfo.gpu then
    local ptx, info = M.ptx(desc, kinfo)
    return "# ptxas -v:\n" .. info:gsub("[^\n]+", "# %0") .. "\n" .. ptx, desc
  end
  local gendir = asm_gen(desc, kinfo)
  local k = kinfo.kernels[1]
  local obj = ctx.home .. "/build/asm/" .. k.name .. ".o"
  local st, out = sys.run({ cfg("compiler"), "-std=gnu11", "-gdwarf-4", "-I" .. ctx.home .. "/core", "-I" .. gendir,
    "@" .. gendir .. "/kernel.flags", "-c", k.path, "-o", obj }, { capture = true })
  if st ~= 0 then
    util.fail("compiling kernel '" .. k.name .. "' (" .. k.path .. ") with flags '" .. desc.flags .. "' failed:\n" ..
      (out or ""):gsub("%s+$", ""))
  end
  if not sys.locate("objdump") then util.fail("'objdump' is not installed", "sudo apt-get install binutils") end
  st, out = sys.run({ "objdump", "-d", "-S", "-l", "--no-show-raw-insn", "-w", obj }, { capture = true })
  if st ~= 0 then util.fail("objdump failed on '" .. obj .. "':\n" .. out) end
  return out, desc
end

-- Builds the core for a point without measuring anything; returns the binary (rot events,
-- tests).
function M.build(spec)
  return M.locked_build(M.describe(spec))
end

-- Measures (or loads) every item {coord=, spec=}; returns rows in the same order.
--[[ Describes every item {coord=, spec=} (on the machine fp, this one's by default) and looks
  it up in the cache. Returns the rows, in item order, and those still to measure. ]]
function M.lookup(items, fp)
  local runs_wanted = cfg("runs")
  local use_cached, check = cfg("useCachedResults"), cfg("shouldCheckCoreHash")
  local cdir = cfg("cacheDir")
  local rows, pending = {}, {}
  ctx.machine = fp
  for i, item in ipairs(items) do
    local desc, kinfo = M.describe(item.spec)
    local text = util.serialize(desc)
    local row = { point = item.coord, spec = item.spec, desc = desc, text = text, hash = sys.sha256(text), kinfo = kinfo,
      machine = machine.id(desc.machine) }
    rows[i] = row
    row.path = cache.path(cdir, row.hash)
    local entry, err, kind = M.timed("cache", cache.read, row.path)
    if kind == "corrupt" then warn(err .. "; measuring it again") end
    if entry and entry.description ~= text then
      warn("cache entry '" .. row.path .. "' holds another description; measuring again")
      entry = nil
    end
    row.cached_entry = use_cached and entry or nil
    row.key = build_key(desc, kinfo)
    local known = repo()[row.key]
    local e = row.cached_entry
    if e and #e.runs >= runs_wanted and (not check or (known and known == e.coreHash)) then
      row.entry, row.cached = e, true
    else
      pending[#pending + 1] = row
    end
  end
  ctx.machine = nil
  return rows, pending
end

-- Measures (or loads) every item {coord=, spec=}; returns rows in the same order. With
-- -executor=slurm the missing points are measured on the cluster (rot.slurm).
function M.measure(items)
  if ctx.build_only then return M.build_only(items) end
  if cfg("executor") == "slurm" then return require("rot.slurm").measure(M, ctx, items) end
  stats.points = stats.points + #items
  progress.start(#items)
  local rows, pending = M.lookup(items)
  for _ = 1, #items - #pending do
    stats.hits = stats.hits + 1
    progress.step()
  end
  M.measure_here(pending)
  progress.done()
  return rows
end

--[[ rot build: every core the items need is built (once per build key in this run, cached
  points too), nothing is measured. Prints one "built" line per core (kernel, macros, flags) or
  the compiler's message; rows come back as cached where they are, else "not measured". ]]
function M.build_only(items)
  local rows = M.lookup(items)
  ctx.built = ctx.built or {}
  stats.points = stats.points + #rows
  for _, row in ipairs(rows) do
    local done = ctx.built[row.key]
    if done == nil then
      ensure_dir(ctx.builddir, "build directory", "cacheDir")
      ensure_dir(cfg("cacheDir"), "cache directory", "cacheDir")
      local lock <close> = assert(build.lock(ctx.builddir .. "/.lock"))
      local binary, err = M.timed("build", build_core, row.desc, row.kinfo)
      done = binary and true or err
      ctx.built[row.key] = done
      if binary then
        repo_store(row.key, err)
        local macros = macro_settings(row.desc)
        local names = {}
        for _, k in ipairs(row.kinfo.kernels) do names[#names + 1] = k.name end
        io.stdout:write("built ", table.concat(names, "+"), " macros ", #macros > 0 and table.concat(macros, ",") or "-",
          " flags ", row.desc.flags, "\n")
      else
        io.stderr:write("rot: ", err, "\n")
        stats.build_failures = (stats.build_failures or 0) + 1
      end
    end
    if row.cached then
      stats.hits = stats.hits + 1
    else
      row.failed = done == true and "not measured (rot build)" or done:match("^[^\n]*")
    end
  end
  return rows
end

-- Builds the cores and measures rows (from M.lookup) on this machine, grouped by build.
function M.measure_here(pending)
  local runs_wanted = cfg("runs")
  local use_cached, check = cfg("useCachedResults"), cfg("shouldCheckCoreHash")
  local cdir = cfg("cacheDir")
  local groups, order = {}, {}
  for _, row in ipairs(pending) do
    if not groups[row.key] then groups[row.key] = {}; order[#order + 1] = row.key end
    table.insert(groups[row.key], row)
  end
  if #order > 0 then
    ensure_dir(cdir, "cache directory", "cacheDir")
    set_governor()
  end
  local function fail_row(row, why)
    row.failed = why
    stats.failed = stats.failed + 1
    progress.step()
    if ctx.on_point then ctx.on_point(row) end
  end
  for _, key in ipairs(order) do
    local group = groups[key]
    -- GPU points: skipped (one line) without the toolkit, refused fast without a device
    local gpu = group[1].kinfo.gpu
    local skip = gpu and (ctx.no_device or (sys.stat(nvcc()) ~= "file" and
      ("CUDA toolkit not found ('" .. nvcc() .. "' missing): GPU points are skipped")))
    if skip then
      if not ctx.said_skip then
        progress.done()
        io.stderr:write("rot: ", skip, "\n")
        ctx.said_skip = true
      end
      for _, row in ipairs(group) do fail_row(row, skip) end
      goto next_group
    end
    ensure_dir(ctx.builddir, "build directory", "cacheDir")
    local lock <close> = assert(build.lock(ctx.builddir .. "/.lock"))
    local binary, core_hash = M.timed("build", build_core, group[1].desc, group[1].kinfo)
    if not binary then -- its points fail with the compiler's message; the sweep goes on
      progress.done()
      io.stderr:write("rot: ", core_hash, "\n")
      for _, row in ipairs(group) do fail_row(row, core_hash:match("^[^\n]*")) end
      if cfg("onFailure") == "stop" then util.fail("stopping after a failed point (onFailure=stop)") end
      goto next_group
    end
    repo_store(key, core_hash)
    rekey(group[1].desc, group[1].kinfo, core_hash)
    local todo = {}
    for _, row in ipairs(group) do
      -- another rot may have measured it while this one waited for the lock
      local e = row.cached_entry
      if use_cached and not (e and #e.runs >= runs_wanted) then
        local again = M.timed("cache", cache.read, row.path)
        if again and again.description == row.text then e = again end
      end
      local usable = e and (not check or e.coreHash == core_hash)
      if usable and #e.runs >= runs_wanted then
        row.entry, row.cached = e, true
        stats.hits = stats.hits + 1
        progress.step()
        if ctx.on_point then ctx.on_point(row) end
      else
        local base = usable and e or nil
        todo[#todo + 1] = { row = row, desc = row.desc, base = base, exact = base ~= nil,
          need = base and (runs_wanted - #base.runs) or runs_wanted }
      end
    end
    M.timed("measure", run_batch, binary, todo, function(item, res)
      local row = item.row
      if not res then -- the batch stopped before this point
        fail_row(row, ctx.no_device or "not measured: the run stopped before it")
        return
      end
      if res.status == "ok" then
        local why = M.implausible(row, res)
        if why then res.status, res.error = "failed", "implausible result, not cached: " .. why end
      end
      if res.status == "ok" then
        if ctx.script then res.meta.script = ctx.script end -- which measurement wrote it (rot cache clear NAME)
        local new = { description = row.text, coreHash = core_hash, meta = res.meta, runs = res.runs }
        if item.base then new = cache.merge(item.base, new) end
        local ok, werr = M.timed("cache", cache.write, row.path, new)
        if not ok then
          util.fail("cannot write the result cache: " .. werr,
            "set -cacheDir=DIR to a writable directory, or fix its permissions")
        end
        row.entry, row.measured = new, true
        stats.measured = stats.measured + 1
        progress.step()
        if ctx.on_point then ctx.on_point(row) end
      elseif res.meta.failure == "nodevice" then
        -- no device: say it once, and stop the core before the other GPU points
        ctx.no_device = res.error
        progress.done()
        io.stderr:write("rot: ", res.error, " (GPU points fail; CPU points go on)\n")
        ctx.said_skip = true
        fail_row(row, res.error)
        return "stop"
      else
        fail_row(row, res.error or "failed")
        progress.done()
        io.stderr:write("rot: point ", util.serialize(row.point), " failed: ", row.failed, "\n")
        if res.stderr and res.stderr ~= "" then
          io.stderr:write("  its last lines on stderr:\n")
          for l in res.stderr:gmatch("[^\n]+") do io.stderr:write("  | ", l, "\n") end
        end
        if cfg("onFailure") == "stop" then
          util.fail("stopping after a failed point (onFailure=stop)")
        end
      end
    end)
    lock:unlock()
    ::next_group::
  end
end

function M.build_summary()
  return string.format("rot build: %d core%s built, %d failed; %d points described; time: build %.2f s, total %.2f s",
    stats.builds, stats.builds == 1 and "" or "s", stats.build_failures or 0, stats.points, stats.time.build,
    sys.clock() - (M.t_start or sys.clock()))
end

-- rot build: measure nothing, build every core (see M.build_only).
function M.set_build_only() ctx.build_only = true end
function M.building() return ctx ~= nil and ctx.build_only == true end

function M.summary()
  local t = stats.time
  local total = sys.clock() - (M.t_start or sys.clock())
  return string.format("rot: %d points, cache: %d hits, %d measured%s, %d failed; time: build %.2f s, "
    .. "measure %.2f s, cache %.3f s, plot %.2f s, total %.2f s",
    stats.points, stats.hits, stats.measured, stats.slurm > 0 and (" (" .. stats.slurm .. " on Slurm)") or "",
    stats.failed, t.build, t.measure, t.cache, t.plot, total)
end

return M
