-- point: measures one point described on the command line, for the core tests:
--   rot measure tests/core/point.lua KERNEL N [key=value ...]
-- keys: threads, pin (a,b), mode (warm|cold), counter (repeatable), rule (on:action[:k=v,...]),
-- flops (EVENT*weight: measured flops from a counter), macro (NAME:VALUE, repeatable),
-- param (NAME:VALUE, a parameter besides n, repeatable), flags (comma-separated compiler
-- flags). Prints the table; writes point.csv.
local rot = require "rot"
local spec = { kernel = arg[1], params = { n = tonumber(arg[2]) }, counters = {}, rules = {} }
for i = 3, #arg do
  local k, v = arg[i]:match("^(%w+)=(.*)$")
  if k == "threads" then spec.threads = math.tointeger(tonumber(v))
  elseif k == "pin" then
    spec.pin = {}
    for c in v:gmatch("%d+") do spec.pin[#spec.pin + 1] = math.tointeger(tonumber(c)) end
  elseif k == "mode" then spec.cacheMode = v
  elseif k == "macro" then
    local name, value = v:match("^([%w_]+):(.*)$")
    spec.macros = spec.macros or {}
    spec.macros[name] = value
  elseif k == "param" then
    local name, value = v:match("^([%w_]+):(.*)$")
    spec.params[name] = tonumber(value)
  elseif k == "flags" then spec.flags = v:gsub(",", " ")
  elseif k == "counter" then spec.counters[#spec.counters + 1] = v
  elseif k == "flops" then
    local ev, w = v:match("^(.*)%*(.*)$")
    spec.counts = { flops = { [ev] = tonumber(w) } }
  elseif k == "rule" then
    local on, action, rest = v:match("^(%w+):(%w+):?(.*)$")
    local r = { on = on, action = action }
    for kk, vv in rest:gmatch("(%w+)=([%w_.-]+)") do r[kk] = math.tointeger(tonumber(vv)) or vv end
    spec.rules[#spec.rules + 1] = r
  else rot.fail("point.lua: bad argument '" .. arg[i] .. "'") end
end
local r = rot.measure(rot.space { rot.axis("p", { 1 }) }, function() return spec end)
r:table()
r:csv("point")
local row = r.rows[1]
if row.entry then
  local m = row.entry.meta
  print("events: " .. tostring(m.events))
  print("threadTable: " .. tostring(m.threadTable))
  print("threadsCounted: " .. tostring(m.threadsCounted))
  print("ruleFlushes: " .. tostring(m.ruleFlushes))
  print(string.format("declared: flops=%.17g bytes=%.17g workingSet=%s", m.flops, m.bytes, tostring(m.workingSet)))
  if m.tallyFlops then print(string.format("tally: flops=%.17g bytes=%.17g", m.tallyFlops, m.tallyBytes)) end
  if m.bytesWritten then print(string.format("declared written: %.17g", m.bytesWritten)) end
  if m.tallyWritten then print(string.format("tally written: %.17g", m.tallyWritten)) end
  if row.report then
    local keys = {}
    for k in pairs(row.report) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do keys[_] = k .. "=" .. string.format("%.17g", row.report[k]) end
    print("report: " .. table.concat(keys, " "))
  end
  for i, run in ipairs(row.entry.runs) do
    print(string.format("run %d: ns=%d reps=%d cpus=%s e0=%s counting=%s", i - 1, run.ns, run.reps,
      tostring(run.cpus), tostring(run.e0), tostring(run.counting)))
  end
end
