-- rot.describe: a point as a script wrote it (a spec) checked and filled in with everything
-- that can change its result (a description), and the canonical text and hash it is cached by.
local sys = require "rot.sys"
local gen = require "rot.gen"
local util = require "rot.util"
local machine = require "rot.machine"
local kernels = require "rot.describe.kernels"
local toolchain = require "rot.describe.toolchain"
local protocol = require "rot.protocol"
local fields = require "rot.describe.fields"

local M = {}
local names_of, check_fields, counters_of = fields.names_of, fields.check, fields.counters

-- The rule vocabulary is the core's (core/protocol.h, through rot.protocol).
local function set_of(list)
  local out = {}
  for _, x in ipairs(list) do out[x] = true end
  return out
end
local EVENTS, ACTIONS = set_of(protocol.events), set_of(protocol.actions)
local RULE_FIELDS = set_of(protocol.rule_keys)
RULE_FIELDS.on, RULE_FIELDS.action = true, true
local SPEC_FIELDS = { kernel = true, params = true, threads = true, pin = true, workloads = true, macros = true,
  flags = true, cacheMode = true, counters = true, counts = true, rules = true, gpuMetrics = true, round = true,
  alongside = true, pointChild = true, minRunTime = true, count = true }

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
    if v ~= v or v == math.huge or v == -math.huge then
      util.fail("kernel '" .. w.kernel .. "': parameter '" .. k .. "' is " .. (v ~= v and "NaN" or tostring(v))
        .. ": it must be a finite number")
    end
    params[k] = v
  end
  local threads = w.threads or 1
  if math.type(threads) ~= "integer" or threads < 1 then
    util.fail("kernel '" .. w.kernel .. "': threads must be a positive integer")
  end
  return { kernel = w.kernel, params = params, threads = threads, pin = int_list(w.pin, "pin") }
end

-- The workloads of a spec: its workloads = {...}, or the one its kernel/params/threads/pin make.
local function workloads(spec, what)
  local wls = {}
  if spec.workloads then
    if spec.kernel then util.fail("give either kernel = ... or workloads = {...}, not both") end
    if type(spec.workloads) ~= "table" or #spec.workloads == 0 then util.fail("workloads must be a non-empty list") end
    for i, w in ipairs(spec.workloads) do wls[i] = workload(w, "workload " .. i) end
  else
    if type(spec.kernel) ~= "string" then util.fail("a measurement point needs kernel = \"name\"") end
    wls[1] = workload({ kernel = spec.kernel, params = spec.params, threads = spec.threads, pin = spec.pin }, what)
  end
  return wls
end

--[[ A rule of a spec, checked: its fields and their types here (a script's words), its
  meaning (flush only where the child can run it, pin with a CPU, ...) by the core's own parser
  (rot.protocol.check_rule), so the two sides cannot disagree. ]]
local function rule(r, i)
  if type(r) ~= "table" then util.fail("rule " .. i .. " must be a table {on=, action=, ...}") end
  check_fields(r, RULE_FIELDS, "rule " .. i)
  for _, what in ipairs({ "event", "action" }) do
    local v, set = r[what == "event" and "on" or "action"], what == "event" and EVENTS or ACTIONS
    if not set[v] then
      util.fail("rule " .. i .. ": unknown " .. what .. " '" .. tostring(v) .. "'"
        .. util.did_you_mean(tostring(v), names_of(set)),
        what .. "s: " .. table.concat(names_of(set), ", "))
    end
  end
  for _, k in ipairs({ "run", "every", "thread", "cpu" }) do
    if r[k] ~= nil and (math.type(r[k]) ~= "integer" or r[k] < 0) then
      util.fail("rule " .. i .. ": " .. k .. " must be a non-negative integer")
    end
  end
  if r.text ~= nil and not tostring(r.text):match("^[%w_.-]+$") then
    util.fail("rule " .. i .. ": marker text must use letters, digits and _.- only")
  end
  local out = { on = r.on, action = r.action, run = r.run, every = r.every, thread = r.thread, cpu = r.cpu,
    text = r.text and tostring(r.text) }
  local ok, err = protocol.check_rule(protocol.rule_line(out))
  if not ok then util.fail("rule " .. i .. ": " .. err:gsub("^rule '.-': ", "")) end
  return out
end

--[[ The kernels the core is built with ({name=, path=, key=}): the workloads', then those
  `alongside` them (sorted by name then, so points of any of them share one core and one
  batch), and the macros they use (sorted). ]]
local function kernels_of(s, wls, alongside)
  local list, seen, macro_set, macro_list = {}, {}, {}, {}
  local names = {}
  for _, w in ipairs(wls) do names[#names + 1] = w.kernel end
  if alongside ~= nil then
    if type(alongside) ~= "table" then util.fail("alongside must be a list of kernel names") end
    for i, k in ipairs(alongside) do
      if type(k) ~= "string" then util.fail("alongside: entry " .. i .. " is not a kernel name") end
      names[#names + 1] = k
    end
    table.sort(names)
  end
  for _, name in ipairs(names) do
    if not seen[name] then
      local path = kernels.path(s, name)
      seen[name] = path
      list[#list + 1] = { name = name, path = path, key = kernels.key(s, path) }
      local used = s:remember("macros:" .. path, function()
        local m, err = gen.macros(path)
        if not m then util.fail("cannot read the macros of kernel '" .. path .. "': " .. tostring(err)) end
        return m
      end)
      for _, m in ipairs(used) do
        if not macro_set[m] then macro_set[m] = true; macro_list[#macro_list + 1] = m end
      end
    end
  end
  table.sort(macro_list)
  return list, macro_list, macro_set
end

local function macros_of(spec, list, macro_list, macro_set)
  local macros = {}
  for k, v in pairs(spec.macros or {}) do
    if type(k) ~= "string" then
      util.fail("a macro name must be a string, not a " .. type(k) .. " (" .. tostring(k) .. ")")
    end
    if type(v) ~= "string" and type(v) ~= "number" then
      util.fail("macro '" .. k .. "' has a " .. type(v) .. " value: a macro's value is a number or a string (it "
        .. "becomes #define " .. k .. " VALUE)")
    end
    local ok, err = gen.checkmacro(k, tostring(v))
    if not ok then util.fail(err) end
    if not macro_set[k] then
      local who = #list == 1 and ("kernel '" .. list[1].name .. "'") or "these kernels"
      util.fail(who .. " has no macro '" .. k .. "'" .. util.did_you_mean(k, macro_list),
        #macro_list > 0 and ("its macros: " .. table.concat(macro_list, ", "))
        or "a kernel uses a macro NAME by including \"macro/NAME.h\"")
    end
    macros[k] = tostring(v)
  end
  return macros
end

local function metrics_of(spec, gpu)
  local metrics = {}
  for i, m in ipairs(spec.gpuMetrics or {}) do
    if not gpu then util.fail("gpuMetrics need a GPU kernel (a .cu file)") end
    if type(m) ~= "string" or not m:match("^[%w_.]+$") then util.fail("GPU metric " .. i .. " is not a metric name") end
    metrics[i] = m
  end
  return metrics
end

--[[ describe(session, spec [, fp]) -> description, build inputs {kernels=, macros=, gpu=}.
  The description holds everything that can change the result: workloads, macros, flags,
  compiler, measurers, counts, cache mode, rules, run policy, the round (a second, third, ...
  independent measurement of the same point) and the machine (fp, else this one's; the
  executor adds a GPU point's device: rot.execute.lookup.describe). How a point is run without changing its result
  (alongside:
  more kernels in its core; pointChild) stays in the spec. Bad specs stop with what is wrong. ]]
function M.describe(s, spec, fp)
  if type(spec) ~= "table" then util.fail("a measurement point must be a table {kernel=..., ...}") end
  if spec.app ~= nil then
    if spec.kernel or spec.workloads then
      util.fail("a point measures a kernel or an application (app = ...), not both")
    end
    return require("rot.describe.app").describe(s, spec, fp)
  end
  local what = "the point for kernel '" .. tostring(spec.kernel or (spec.workloads and "workloads")) .. "'"
  check_fields(spec, SPEC_FIELDS, what)
  fields.count(spec)
  local wls = workloads(spec, what)
  local list, macro_list, macro_set = kernels_of(s, wls, spec.alongside)
  if spec.round ~= nil and (math.type(spec.round) ~= "integer" or spec.round < 1) then
    util.fail("round must be a positive integer (the n-th independent measurement of a point)")
  end
  if spec.minRunTime ~= nil and (type(spec.minRunTime) ~= "number" or spec.minRunTime < 0
    or spec.minRunTime > 3600) then
    util.fail("minRunTime must be a number of seconds from 0 to 3600")
  end
  if spec.pointChild ~= nil and spec.pointChild ~= "each" and spec.pointChild ~= "shared" then
    util.fail("pointChild must be 'each' or 'shared', not '" .. tostring(spec.pointChild) .. "'")
  end
  local gpu = false
  for _, k in ipairs(list) do gpu = gpu or k.path:match("%.cu$") ~= nil end
  local kinfo = { kernels = list, macros = macro_list, gpu = gpu }
  local flags = spec.flags or (gpu and ("-O3 -arch=" .. s:get("gpuArch")) or "-O2")
  local ok, err = gen.checkflags(flags)
  if not ok then util.fail(err) end
  local mode = spec.cacheMode or s:get("cacheMode")
  if mode ~= "warm" and mode ~= "cold" then
    util.fail("cacheMode must be 'warm' or 'cold', not '" .. tostring(mode) .. "'")
  end
  local counters, counts = counters_of(spec)
  local rules = {}
  for i, r in ipairs(spec.rules or {}) do rules[i] = rule(r, i) end
  fp = fp or machine.fingerprint(s.config)
  local desc = {
    workloads = wls, macros = macros_of(spec, list, macro_list, macro_set), flags = flags,
    compiler = toolchain.compiler_id(s), measurers = { time = true, counters = counters }, counts = counts,
    cacheMode = mode, rules = rules, ignoreDisturbed = s:get("ignoreDisturbed"),
    device = gpu and "gpu" or "cpu", gpuMetrics = metrics_of(spec, gpu),
    machine = fp,
    policy = { k = s:get("bestK"), epsilon = s:get("bestEpsilon"), maxRuns = s:get("maxRuns"),
      minRunTime = spec.minRunTime or s:get("minRunTime") },
    round = spec.round and spec.round > 1 and spec.round or nil,
  }
  return desc, kinfo
end

-- Whether a description is a CUDA program's (rot profile's, told apart by its ELF file).
function M.cuda_program(desc) return desc ~= nil and desc.app ~= nil and desc.app.cuda == true end

-- The canonical text of a description and its SHA-256: the cache key.
function M.key(desc)
  local text = util.serialize(desc)
  return text, sys.sha256(text)
end

return M
