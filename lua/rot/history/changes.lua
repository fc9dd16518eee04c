--[[ rot.history.changes: what changed from one run record to the next, as `rot history` says
  it: kernel sources by file, flags, macros, an application's environment, the threads its
  points ran at, every other key of its points' descriptions (counters, run policy, cache
  mode, ...), the script and its arguments, configuration keys given on the command line, the
  machine, the git commit, the ceilings its points were bound by. ]]
local util = require "rot.util"

local M = {}

-- Every source file the record's builds read: name -> hash (a file read by several builds
-- has one hash in one run).
local function files_of(r)
  local out = {}
  for _, files in pairs(r.sources or {}) do
    if type(files) == "table" then for name, h in pairs(files) do out[name] = h end end
  end
  return out
end

-- The set of values f(build) takes over a record's builds, as a sorted list.
local function build_set(r, f)
  local set, out = {}, {}
  for _, b in ipairs(r.builds or {}) do
    for _, v in ipairs(f(b)) do
      if not set[v] then set[v] = true; out[#out + 1] = v end
    end
  end
  table.sort(out)
  return out, set
end

local function flags_of(b) return { tostring(b.flags) } end
-- A build's table field (macros, env) as sorted NAME=VALUE strings.
local function assignments(field) return function(b) return util.assignments(b[field]) end end

-- "what: a, b -> c" when the sets differ (nil when they are the same).
local function set_change(what, a, b)
  local la, sa = build_set(a, what.f)
  local lb, sb = build_set(b, what.f)
  local same = #la == #lb
  for v in pairs(sa) do same = same and sb[v] end
  if same then return nil end
  local gone, new = {}, {}
  for _, v in ipairs(la) do if not sb[v] then gone[#gone + 1] = v end end
  for _, v in ipairs(lb) do if not sa[v] then new[#new + 1] = v end end
  return what.name .. " " .. (#gone > 0 and table.concat(gone, " ") or "(none)") .. " -> " ..
    (#new > 0 and table.concat(new, " ") or "(none)")
end

--[[ The thread counts a record's points ran at: "threads 2 -> 1" when the set differs (rot
  profile's -threads, a script's argument or key that sets them without a thread axis; a
  thread axis over the same counts is no change). Records from before points kept their
  threads say nothing. ]]
local function thread_change(a, b, out)
  local function set(r)
    local s, list = {}, {}
    for _, p in ipairs(r.points or {}) do
      local t = p.threads
      if t and not s[t] then s[t] = true; list[#list + 1] = t end
    end
    table.sort(list)
    return list
  end
  local ta, tb = set(a), set(b)
  if #ta == 0 or #tb == 0 then return end
  local sa, sb = table.concat(ta, " "), table.concat(tb, " ")
  if sa ~= sb then out[#out + 1] = "threads " .. sa .. " -> " .. sb end
end

-- Source files changed, added or removed: "kernels/scale.c changed", ...
local function source_changes(a, b, out)
  local fa, fb = files_of(a), files_of(b)
  for _, name in ipairs(util.sorted_keys(fb)) do
    if fa[name] == nil then out[#out + 1] = name .. " added"
    elseif fa[name] ~= fb[name] then out[#out + 1] = name .. " changed" end
  end
  for _, name in ipairs(util.sorted_keys(fa)) do
    if fb[name] == nil then out[#out + 1] = name .. " no longer read" end
  end
end

-- Keys that say where things go or how they are shown, never what is measured: a change of
-- them is no change of a run (a new user gave -cacheDir on every command and read it as one).
local WHERE = { cacheDir = true, outputDir = true, userConfigFile = true, buildDir = true, progress = true,
  gnuplot = true, pdf = true, historyRuns = true }

-- Configuration keys given on the command line: "-runs=10 (was 5)", "-quick=true (new)".
local function key_changes(a, b, out, said)
  local ka, kb = {}, {}
  for k, v in pairs(a.keys or {}) do if not WHERE[k] then ka[k] = v end end
  for k, v in pairs(b.keys or {}) do if not WHERE[k] then kb[k] = v end end
  for _, k in ipairs(util.sorted_keys(kb)) do
    if ka[k] == nil then out[#out + 1], said[k] = "-" .. k .. "=" .. tostring(kb[k]) .. " (new)", true
    elseif tostring(ka[k]) ~= tostring(kb[k]) then
      out[#out + 1], said[k] = "-" .. k .. "=" .. tostring(kb[k]) .. " (was " .. tostring(ka[k]) .. ")", true
    end
  end
  for _, k in ipairs(util.sorted_keys(ka)) do
    if kb[k] == nil then out[#out + 1], said[k] = "-" .. k .. " dropped (was " .. tostring(ka[k]) .. ")", true end
  end
end

--[[ The words `rot history` names a described key by (rot.history.record.described): its
  configuration key's or option's name where it has one; any other key by its path. ]]
M.WORDS = { ["measurers.counters"] = "counters", ["policy.k"] = "bestK", ["policy.epsilon"] = "bestEpsilon",
  ["policy.maxRuns"] = "maxRuns", ["policy.minRunTime"] = "minRunTime", ["app.dir"] = "directory" }

-- A described value as history shows it: at most 60 characters.
local function short(v)
  return #v > 60 and (v:sub(1, 57) .. "...") or v
end

--[[ The keys of the points' descriptions whose values changed (rot.history.record.described,
  kept per build: compared as the sets of values over a record's builds): "counters (none) ->
  perf::TASK-CLOCK", "cacheMode warm -> cold"; a key given on the command line whose change
  key_changes said already (-cacheMode=cold (was warm)) is not said twice. Records from before
  builds kept their descriptions say nothing. ]]
local function described_changes(a, b, out, said)
  local function values(r)
    local by, any = {}, false
    for _, bld in ipairs(r.builds or {}) do
      if bld.described then
        any = true
        for k, v in pairs(bld.described) do
          by[k] = by[k] or {}
          by[k][v] = true
        end
      end
    end
    return any and by or nil
  end
  local va, vb = values(a), values(b)
  if not (va and vb) then return end
  local keys = {}
  for k in pairs(va) do keys[k] = true end
  for k in pairs(vb) do keys[k] = true end
  for _, k in ipairs(util.sorted_keys(keys)) do
    local sa, sb = util.sorted_keys(va[k] or {}), util.sorted_keys(vb[k] or {})
    local word = M.WORDS[k] or k
    local ta, tb = #sa > 0 and table.concat(sa, " | ") or "(none)", #sb > 0 and table.concat(sb, " | ") or "(none)"
    if ta ~= tb and not said[word] then out[#out + 1] = word .. " " .. short(ta) .. " -> " .. short(tb) end
  end
end

-- The script, its arguments, the machines and the commit.
local function run_changes(a, b, out)
  -- (rot profile's "script" is the program, said with the sources already)
  local script = util.basename(tostring(b.script))
  if a.scriptHash ~= b.scriptHash and not files_of(b)[script] then out[#out + 1] = script .. " changed" end
  local aa, ab = table.concat(a.args or {}, " "), table.concat(b.args or {}, " ")
  if aa ~= ab then out[#out + 1] = "arguments '" .. aa .. "' -> '" .. ab .. "'" end
  local ma, mb = table.concat(a.machines or { a.machine }, "+"), table.concat(b.machines or { b.machine }, "+")
  if ma ~= mb then out[#out + 1] = "machine " .. ma .. " -> " .. mb end
  local ga, gb = a.git or {}, b.git or {}
  if ga.commit and gb.commit and ga.commit ~= gb.commit then
    out[#out + 1] = "commit " .. ga.commit:sub(1, 10) .. " -> " .. gb.commit:sub(1, 10)
  end
end

-- A record's ceilings by label ("L4 triad", "double avx512 fma"): label -> {value=, unit=,
-- unstable=}.
local function ceilings_of(r)
  local out, c = {}, r.ceilings or {}
  for _, kind in ipairs({ { "compute", "gflops", "GFLOP/s" }, { "bandwidth", "gbs", "GB/s" } }) do
    for _, x in ipairs(c[kind[1]] or {}) do
      out[tostring(x.label)] = { value = x[kind[2]], unit = kind[3], unstable = x.unstable }
    end
  end
  return out
end

-- Ceilings that moved or became (or stopped being) unstable: "ceilings: DRAM triad 36.9 ->
-- 38.1 GB/s, L4 triad no longer unstable" (the machine's peaks measured again in between); a
-- move that does not show in four digits is none. Ceilings of another thread count are not
-- compared: "ceilings: at 2 threads (1 before)".
local function ceiling_changes(a, b, out)
  if (a.ceilings == nil) ~= (b.ceilings == nil) then
    out[#out + 1] = b.ceilings and "ceilings: stored peaks now bound the points" or "ceilings: none now"
    return
  end
  if not b.ceilings then return end
  local ta, tb = a.ceilings.threads or 1, b.ceilings.threads or 1
  if ta ~= tb then
    out[#out + 1] = string.format("ceilings: at %d %s (%d before)", tb, util.plural(tb, "thread"), ta)
    return
  end
  local ca, cb, said = ceilings_of(a), ceilings_of(b), {}
  for _, name in ipairs(util.sorted_keys(cb)) do
    local x, y = ca[name], cb[name]
    local from, to = x and string.format("%.4g", x.value), string.format("%.4g", y.value)
    if x and from ~= to then
      said[#said + 1] = string.format("%s %s -> %s %s", name, from, to, y.unit)
    elseif x and (x.unstable or false) ~= (y.unstable or false) then
      said[#said + 1] = name .. (y.unstable and " now unstable" or " no longer unstable")
    end
  end
  if #said > 3 then said = { said[1], said[2], said[3], (#said - 3) .. " more" } end
  if #said > 0 then out[#out + 1] = "ceilings: " .. table.concat(said, ", ") end
end

--[[ changes(a, b) -> { "kernels/scale.c changed", "flags -O2 -> -O3", ... }: what differs from
  record a (the run before) to record b; empty when nothing did. ]]
function M.changes(a, b)
  local out = {}
  source_changes(a, b, out)
  out[#out + 1] = set_change({ name = "flags", f = flags_of }, a, b)
  out[#out + 1] = set_change({ name = "macros", f = assignments("macros") }, a, b)
  out[#out + 1] = set_change({ name = "environment", f = assignments("env") }, a, b)
  thread_change(a, b, out)
  local said = {}
  key_changes(a, b, out, said)
  described_changes(a, b, out, said)
  run_changes(a, b, out)
  ceiling_changes(a, b, out)
  return out
end

return M
