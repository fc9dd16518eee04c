-- rot.execute.batch: one measuring core process for a batch of points: their input written in
-- the core's protocol (core/protocol.h, rot.protocol), its results read back point by point as
-- they come, and a new core for the rest when one dies or hangs.
local sys = require "rot.sys"
local records = require "rot.records"
local process = require "rot.process"
local util = require "rot.util"
local protocol = require "rot.protocol"
local neighbour = require "rot.execute.neighbour"

local M = {}

-- The input keys the core reads (core/protocol.h): a line with any other is a bug here.
local KEYS = {}
for _, k in ipairs(protocol.input) do KEYS[k] = true end
local FRAMING, STATUS = protocol.framing, protocol.status

-- A number as the core reads it back exactly (its input, and rot-core's NAME=VALUE arguments).
local function num(x) return string.format("%.17g", x) end
M.num = num

-- An application point's lines: its program, arguments, environment (sorted), directory and
-- sampling period (app.sample, ns; none: not sampled).
local function app_lines(desc, lines)
  local a = desc.app
  lines[#lines + 1] = "app " .. util.escape_token(a.path)
  for _, x in ipairs(a.args) do lines[#lines + 1] = "arg " .. util.escape_token(x) end
  for _, k in ipairs(util.sorted_keys(a.env)) do
    lines[#lines + 1] = "env " .. k .. "=" .. util.escape_token(a.env[k])
  end
  lines[#lines + 1] = "dir " .. util.escape_token(a.dir)
  if a.cuda then lines[#lines + 1] = "cuda 1" end
  if a.sample then lines[#lines + 1] = "sample " .. num(a.sample) end
end

--[[ The core's input lines for one point (appended to lines): its workloads and parameters (an
  application point: its program), counters, GPU metrics, rules and run policy; need: runs still
  wanted; exact: exactly that many (extending a cached entry); child: "each" or "shared" (nil:
  the pointChild key's; an application point's invocations are each a fresh child). ]]
function M.point_lines(s, desc, need, exact, lines, child)
  local first = #lines + 1
  if desc.app then app_lines(desc, lines) end
  for _, w in ipairs(desc.workloads or {}) do
    lines[#lines + 1] = "workload " .. w.kernel .. " threads " .. w.threads ..
        (#w.pin > 0 and (" pin " .. table.concat(w.pin, ",")) or "")
    for _, k in ipairs(util.sorted_keys(w.params)) do lines[#lines + 1] = "param " .. k .. " " .. num(w.params[k]) end
  end
  for _, c in ipairs(desc.measurers.counters) do lines[#lines + 1] = "counter " .. c end
  for _, m in ipairs(desc.gpuMetrics or {}) do lines[#lines + 1] = "gpumetric " .. m end
  for _, r in ipairs(desc.rules or {}) do lines[#lines + 1] = "rule " .. protocol.rule_line(r) end
  local p = desc.policy
  child = desc.app and "each" or child or s:get("pointChild")
  if child == "auto" then child = desc.device == "gpu" and "shared" or "each" end
  for _, kv in ipairs({ { "ignoreDisturbed", desc.ignoreDisturbed and 1 or 0 }, { "runs", need }, { "bestK", p.k },
    { "bestEpsilon", num(p.epsilon) }, { "maxRuns", exact and need or math.max(p.maxRuns, need) },
    { "minRunTime", p.minRunTime and num(p.minRunTime) }, { "cacheMode", desc.cacheMode },
    { "timeout", num(s:get("timeout")) }, { "child", child } }) do
    if kv[2] ~= nil then lines[#lines + 1] = kv[1] .. " " .. kv[2] end
  end
  for i = first, #lines do assert(KEYS[lines[i]:match("^%S+")], "not an input key of the core: " .. lines[i]) end
end

--[[ One point's result from the core's record lines: {status=, error=, meta=, runs=, stderr=}.
  Refused input is a bug in the script's point (or in rot): it stops the run. ]]
function M.point_result(desc, text)
  local res, err = records.parse(text)
  if not res then
    return { status = STATUS.failed, error = "the measuring core's output is unreadable: " .. err,
      meta = protocol.strict_meta({}), runs = {} }
  end
  if res.status == STATUS.ok and (res.meta.complete ~= 1 or #res.runs == 0) then
    local what = desc.app and ("application '" .. util.basename(desc.app.path)) or ("kernel '"
      .. desc.workloads[1].kernel)
    res.status, res.error = STATUS.failed, what .. "' ended the measurement early"
  end
  if res.meta.hint then res.error = (res.error or "failed") .. "\nhint: " .. res.meta.hint end
  if res.meta.failure == "input" then
    local msg, hint = res.error:match("^(.-)\nhint: (.*)$")
    util.fail(msg or res.error, hint)
  end
  return res
end

-- How a core process ended, in words: ", killed by signal 9 (...)", ", exit status 3", or "".
local function ended(st)
  if not st then return "" end
  if st <= 128 then return ", exit status " .. st end
  return ", killed by signal " .. (st - 128) .. (st == 137 and
    " (SIGKILL: from another process, which may be the measured kernel, or from the out-of-memory killer)" or "")
end

-- The input of items[i..], written to the run directory.
local function write_input(s, items, i)
  local lines = {}
  for j = i, #items do
    lines[#lines + 1] = FRAMING.point .. " " .. j
    M.point_lines(s, items[j].desc, items[j].need, items[j].exact, lines, items[j].child)
    lines[#lines + 1] = FRAMING["end"]
  end
  local path = s:run_dir() .. "/in"
  assert(sys.writefile(path, table.concat(lines, "\n") .. "\n"))
  return path
end

-- How long the driver waits for a word from the core before it gives up on it: the point's
-- timeout and a grace of 30 s and a tenth of it (the core's own set-up and report).
local function patience(s)
  local t = s:get("timeout")
  return t + 30 + 0.1 * t
end

-- Reads point i's record lines; returns them, or nil and why the core gave none.
local function read_point(s, proc, i)
  local text, last, begin = {}, FRAMING["end"] .. " " .. i, FRAMING.begin .. " "
  while true do
    local line, e = proc:line(patience(s))
    if not line then
      if e == "interrupted" then util.interrupted(sys.interrupted()) end
      return nil, e
    end
    if line == last then return table.concat(text, "\n") .. "\n" end
    if line:sub(1, #begin) ~= begin then text[#text + 1] = line end
  end
end

-- The failure of a point whose core died or hung (proc ended or killed here).
local function core_failure(s, proc, why)
  proc:kill() -- a core that ended already keeps the status it ended with
  local st = proc:wait()
  local log = (sys.readfile(s:run_dir() .. "/core.err") or ""):gsub("%s+$", "")
  return { status = STATUS.failed, meta = protocol.strict_meta({}), runs = {},
    error = why == "timeout" and ("the measuring core gave no answer for " .. math.floor(patience(s)) ..
      " s and was killed") or ("the measuring core ended unexpectedly" .. ended(st) .. (log ~= "" and (": "
        .. log) or "")) }
end

-- The session's neighbour sampler (rot.execute.neighbour), made at its first use.
function M.sampler(s) return s:remember("neighbour sampler", neighbour.sampler) end

--[[ Measures items {desc=, need=, exact=, child=} with one core process (binary), in order;
  done(item, res) is called as each result arrives, and may return "stop" to end the batch
  (the rest then get done(item, nil)). A kernel that kills the core only loses its own point:
  a new core measures the rest. The core's own timeout bounds each point; the driver gives up
  on a core that says nothing for longer. Each result's meta.pointSeconds is the time it took
  here (from the last result, or the core's start), which its cache entry keeps (what the
  peaks' time budget counts for a point taken from the cache, rot.peaks.budget), and
  meta.measuredAt when it arrived (UTC: the date of a ceiling measured from it, rot.peaks),
  meta.neighbourCpus the CPUs busy outside rot meanwhile; its runs carry that and the core's
  queueWait (rot.execute.neighbour.stamp). ]]
function M.run(s, binary, items, done)
  local i = 1
  while i <= #items do
    local input = write_input(s, items, i)
    local t = sys.clock()
    local proc <close>, err = process.spawn({ binary, "--batch", input }, { stderr = s:run_dir() .. "/core.err" })
    if not proc then util.fail("cannot start the measuring core: " .. err) end
    local stop = false
    while i <= #items and not stop do
      local text, why = read_point(s, proc, i)
      local res = text and M.point_result(items[i].desc, text) or core_failure(s, proc, why)
      res.meta.pointSeconds, t = string.format("%.4f", sys.clock() - t), sys.clock()
      res.meta.measuredAt = os.date("!%Y-%m-%dT%H:%M:%SZ")
      res.meta.neighbourCpus = M.sampler(s).sample(proc:pid())
      neighbour.stamp(s, res)
      stop = done(items[i], res) == "stop"
      i = i + 1
      if not text then break end -- a new core for the rest
    end
    if stop then
      for j = i, #items do done(items[j], nil) end
      return
    end
  end
end

return M
