--[[ rot.results.regions: the rows of an application point: the program's own (its time from
  start to end) and one per marked region, each best-k over the invocations: calls, time in all
  and per call, the best call, threads, declared or measured work, counters (never a 0 for a
  count that did not run: "not counted", and why), share of the program's time. The region
  becomes a coordinate of the point (point.region), so tables, plots, run records and
  comparisons treat each region as a point of its own. ]]
local util = require "rot.util"
local protocol = require "rot.protocol"
local quantities = require "rot.results.quantities"

local M = {}

M.PROGRAM = "(program)"

-- Regions whose markers cost more than this share of a call are said to be too short.
M.MARKER_SHARE = 0.05

-- A row of the point: the point's own fields, its coordinates with the region.
local function row_of(point_row, region)
  local r = {}
  for _, f in ipairs({ "desc", "entry", "partial", "cached", "measured", "failed", "planned", "machine",
    "nodeType", "hash",
    "text", "kinfo", "spec", "settled" }) do
    r[f] = point_row[f]
  end
  r.point = util.copy(point_row.point)
  r.point.region = region
  r.region, r.appPoint = region, point_row
  r.program = point_row.desc and util.basename(point_row.desc.app.path)
  return r
end

-- The k fastest of times {{t=, ...}} sorted: the best and the spread of the k fastest.
local function best_k(times, k)
  table.sort(times, function(a, b) return a.t < b.t end)
  local kk = math.min(k, #times)
  return times[1], times[1].t > 0 and (times[kk].t - times[1].t) / times[1].t or 0, #times >= k
end

-- The program's row: its time from start to end (best-k over the invocations), CPU time.
local function program_row(row, e, k, eps)
  local r = row_of(row, M.PROGRAM)
  local times = {}
  for i, run in ipairs(e.runs) do times[#times + 1] = { t = run.ns * 1e-9, run = run, index = i - 1 } end
  r.calls, r.share, r.markedThreads = 1, 1, nil
  if #times == 0 then return r, {} end
  local best, spread, enough = best_k(times, k)
  r.time, r.spread, r.runs, r.timePerCall = best.t, spread, #times, best.t
  r.converged = enough and spread <= eps
  r.busyThreads = ((best.run.utimeNs or 0) + (best.run.stimeNs or 0)) * 1e-9 / best.t
  r.ranThreads = best.run.threads
  r.markedThreads = r.ranThreads -- every thread the program ran was in it
  r.stdout = e.meta.stdout and util.unescape_token(e.meta.stdout) -- the fastest invocation's (its last 16 KiB)
  r.stdoutRun, r.stdoutBytes = e.meta.stdoutRun, e.meta.stdoutBytes
  -- the counted run's (a count made before rot kept it: nil)
  r.countedStdout = row.countRecord and row.countRecord.stdout
  local by_run = {}
  for _, x in ipairs(times) do by_run[x.index] = x.t end
  return r, by_run
end

-- Why counter i shows no count for a region record rec: the recorder could not open it, else
-- the calls its group did not run in (a region one thread entered: the process-wide counters').
local function not_counted(m, rec, i)
  if m["eventError" .. i] then return "not counted: " .. tostring(m["eventError" .. i]) end
  if rec.wholeProcess == 1 then
    if m.processCountersError then
      return "not counted: the process-wide counters: " .. tostring(m.processCountersError)
    end
    return string.format("not counted: one thread entered it, but the process-wide counters ran in %d of its %d "
      .. "calls (the process's first thread reads them: a region begun in another thread has none)",
      rec.processCalls or 0, rec.callsTotal or 0)
  end
  return string.format("not counted: the counters ran in %d of the region's %d calls (multiplexed with more events "
    .. "than the PMU counts at once?)", rec.countedCalls or 0, rec.callsTotal or 0)
end

-- Work and counters of a region row from its record rec: declared, measured by counts, none.
local function work(r, rec, m, desc)
  r.counters, r.counterNames, r.notCounted = {}, {}, {}
  for i = 0, protocol.limits.counters - 1 do
    local name = m["event" .. i]
    if not name then break end
    r.counterNames[#r.counterNames + 1] = name
    r.counters[name] = rec["e" .. i]
    if r.counters[name] == nil then r.notCounted[name] = not_counted(m, rec, i) end
  end
  local declared = (rec.workCalls or 0) > 0
  r.flopsDeclared = declared and rec.flops or nil
  r.bytesDeclared = declared and rec.bytes or nil
  r.bytesWritten = declared and (rec.writtenCalls or 0) >= (rec.callsTotal or 1) and rec.written or nil
  for _, q in ipairs({ "flops", "bytes" }) do
    local sum = quantities.counted(desc, r.counters, q)
    r[q], r[q .. "Source"] = r[q .. "Declared"], declared and "declared" or "none"
    if sum then
      r[q], r[q .. "Source"] = sum, "measured"
      r[q .. "Ratio"] = r[q .. "Declared"] and r[q .. "Declared"] > 0 and sum / r[q .. "Declared"] or nil
    end
  end
  r.bytesMeasured = r.bytesSource == "measured" or nil
  r.counts = quantities.sources(r.flopsSource, r.bytesSource)
end

-- One region's row from its records over the invocations (recs, each with its time t): timed
-- by the invocations that completed a call of it (none: no time, only calls never closed).
local function region_row(row, name, recs, m, k, eps, program_ns)
  local r = row_of(row, name)
  local timed = {}
  for _, x in ipairs(recs) do if (x.rec.calls or 0) > 0 then timed[#timed + 1] = x end end
  local best, spread, enough = best_k(#timed > 0 and timed or recs, k)
  local rec, empty = best.rec, (m.markerEmptyNs or 0) * 1e-9
  r.runs = #recs
  if #timed > 0 then r.time, r.spread, r.converged = best.t, spread, enough and spread <= eps end
  r.calls, r.callsTotal, r.markedThreads = rec.calls, rec.callsTotal, rec.threads
  r.regionRule = rec.wholeProcess == 1 and "process" or "threads" -- (an entry of an older rot: its threads')
  r.timePerCall = (rec.calls or 0) > 0 and r.time / rec.calls or nil
  for _, x in ipairs(recs) do
    local c = x.rec.minNs and math.max(x.rec.minNs * 1e-9 - empty, 0)
    if c and c > 0 and (not r.bestCall or c < r.bestCall) then r.bestCall = c end
  end
  r.neverClosed = (rec.open or 0) > 0 and rec.open or nil
  r.share = r.time and program_ns[rec.run] and program_ns[rec.run] > 0 and r.time / program_ns[rec.run] or nil
  r.markerShare = r.timePerCall and m.markerPairNs and m.markerPairNs * 1e-9 / r.timePerCall or nil
  local ws = tonumber(rec.workingSet)
  r.workingSet = ws and ws > 0 and ws or nil
  work(r, rec, m, row.desc)
  -- (a region that declares no bytes has no bandwidth, not 0 GB/s)
  if r.bestCall and r.bytes and r.bytes > 0 and (rec.calls or 0) > 0 then
    r.bestCallGbs = r.bytes / rec.calls / r.bestCall / 1e9
  end
  quantities.rates(r)
  return r
end

-- The region records of an entry by region name (in the order first seen), each with its
-- time: the longest thread's, less what an empty region measures a call.
local function records(e)
  local m = e.meta
  return util.group_by(e.regions or {}, function(rec)
    local t = math.max((rec.ns or 0) - (rec.calls or 0) * (m.markerEmptyNs or 0), 0) * 1e-9
    return util.unescape_token(rec.name), { t = t, rec = rec }
  end)
end

--[[ rows(row, k, epsilon) -> the rows of an application point row: its program's, then its
  regions', each followed by the loop survey's rows that ran in it, then the survey's other
  rows. Each row's threads: the point's (the threads it was told to use, else those it ran); a
  region's bound is that of the threads that entered it (boundThreads), or, for a
  region one thread entered (regionRule process: begun outside any parallel region, it takes
  the whole process's work while it is open), the threads the program ran. A failed point keeps what
  its invocations completed (row.partial, the core's result), each row marked with the failure
  and not judged by best-k (its invocations were cut short, not found to disagree). ]]
function M.rows(row, k, eps)
  local e = row.entry or row.partial
  local policy = row.desc and row.desc.policy or {}
  k, eps = policy.k or k, policy.epsilon or eps
  if not e then return { row_of(row, M.PROGRAM) } end
  local prog, program_ns = program_row(row, e, k, eps)
  local out, m = { prog }, e.meta
  local by, order = records(e)
  -- the loop survey's rows (its sampled invocations'): its hot loops and functions, those that
  -- ran in a region right after the region's row
  local nested, top = {}, {}
  local survey = require "rot.results.survey" -- (here: a table without an application's rows never needs it)
  for _, r in ipairs(survey.rows(row, prog, program_ns, k, function(name) return row_of(row, name) end) or {}) do
    local under = r.surveyRegion and by[r.surveyRegion] and r.surveyRegion
    if under then nested[under] = nested[under] or {} end
    table.insert(under and nested[under] or top, r)
  end
  for _, name in ipairs(order) do
    out[#out + 1] = region_row(row, name, by[name], m, k, eps, program_ns)
    for _, r in ipairs(nested[name] or {}) do out[#out + 1] = r end
  end
  for _, r in ipairs(top) do out[#out + 1] = r end
  local threads = row.desc.threads or prog.ranThreads or 1
  for _, r in ipairs(out) do
    r.threads, r.programThreads = threads, prog.ranThreads
    if r.region ~= M.PROGRAM and (r.markedThreads or 0) > 0 then
      r.boundThreads = r.regionRule == "process" and math.max(prog.ranThreads or 1, r.markedThreads) or r.markedThreads
    elseif (prog.ranThreads or 0) > 0 then -- the program's row and its survey's: the threads it ran
      r.boundThreads = prog.ranThreads
    end
    if row.failed then r.failedInvocation, r.converged = tostring(row.failed):match("^[^\n]*"), nil end
  end
  return out
end

-- Why a region's row has no point on a roofline (the key says it), or nil: it has one, or it
-- is the program's row of a program with regions (its work is theirs, unless it was counted).
-- An unmarked program's uncounted row says why: its plot has no other point.
function M.not_drawn(r)
  if not r.region then return nil end
  if r.region == M.PROGRAM then
    local e = r.entry or r.partial
    if (r.flops or 0) > 0 and (r.bytes or 0) > 0 or not e or (e.regions and #e.regions > 0) then return nil end
    return r.countFailed and "its count failed" or "no region marked, no work counted: rot profile -count places it"
  end
  if r.failed then return "its point failed" end
  if r.survey and not r.time then return "no samples" end
  if not r.survey and not (r.calls and r.calls > 0 and r.time) then return "no completed call" end
  if not (r.flops and r.flops > 0) and not (r.bytes and r.bytes > 0) then return "no work declared or counted" end
  if not (r.bytes and r.bytes > 0) then return "no bytes" end
  if not (r.flops and r.flops > 0) then return "no flops" end
  return nil
end

-- An application's point a region's row belongs to: its coordinates but the region, as
-- canonical text (the same for the program's row and every region of one point).
function M.point_key(point)
  local c = {}
  for k, v in pairs(point or {}) do if k ~= "region" then c[k] = v end end
  return util.serialize(c)
end

-- Whether a row is an application point's (before expand).
function M.is_app(row) return row.desc ~= nil and row.desc.app ~= nil end

-- rows with each application point's row replaced by its rows (M.rows); the others as they are.
function M.expand(rows, k, eps)
  local out, any = {}, false
  for _, r in ipairs(rows) do
    if M.is_app(r) and not r.region then
      any = true
      for _, x in ipairs(M.rows(r, k, eps)) do out[#out + 1] = x end
    else
      out[#out + 1] = r
    end
  end
  return out, any
end

-- The meta of a row's entry, or of what its failed point's invocations completed.
local function meta_of(r)
  local e = r.entry or r.partial or (r.appPoint and r.appPoint.partial)
  return e and e.meta or {}
end

-- The application points among rows (their program's rows).
local function app_points(rows)
  local n = 0
  for _, r in ipairs(rows) do if r.region == M.PROGRAM then n = n + 1 end end
  return n
end

--[[ What a begin/end pair of markers costs, as a table's header says it: "a marker pair 2.24
  us"; where the rows hold several application points, each of whose programs calibrated its
  own, the range of them. nil when no row has one. ]]
function M.pair_cost(rows)
  local lo, hi
  for _, r in ipairs(rows) do
    local ns = r.region == M.PROGRAM and meta_of(r).markerPairNs
    if ns then lo, hi = math.min(lo or ns, ns), math.max(hi or ns, ns) end
  end
  if not lo then return nil end
  if util.seconds(lo * 1e-9) == util.seconds(hi * 1e-9) then return "a marker pair " .. util.seconds(lo * 1e-9) end
  return string.format("a marker pair %s to %s (each point's program calibrates its own)", util.seconds(lo * 1e-9),
    util.seconds(hi * 1e-9))
end

--[[ The line for a region whose markers cost the program more than MARKER_SHARE of its time a
  call: the pair's cost (its point's calibration, the one its program measured, named when the
  table has several points), and what it means: what an empty region measures is taken off the
  region's time, but the markers' cost is added to the program's around it. ]]
local function marker_line(r, m, several)
  local who = "region '" .. r.region .. "'"
  if several then who = who .. " (" .. util.coords(r.appPoint.point or {}) .. ")" end
  local pair, call = util.seconds(m.markerPairNs * 1e-9), util.seconds(r.timePerCall)
  if r.markerShare > 1 then
    return string.format("%s: a begin/end pair costs %s, more than its %s a call (%.0f%%): the time its calls take the "
      .. "program is mostly the markers', and its own time is at the limit of what they resolve", who, pair, call,
      r.markerShare * 100)
  end
  return string.format("%s: a begin/end pair costs %s, %.0f%% of its %s a call: the markers add that to the program's "
    .. "time for each call (what an empty region measures is taken off the region's own time)", who, pair,
    r.markerShare * 100, call)
end

--[[ The line for a region one thread entered in a program that ran more (regionRule process):
  begun outside any parallel region, around the program's parallel work (a phase, a time
  loop), it takes the whole process's work while it is open and its time from begin to end. ]]
local function process_line(r)
  local ran = r.programThreads
  local counted = #(r.counterNames or {}) > 0 and ", its counters" or ""
  return string.format("region '%s' (in threads 1 (all %d)): one thread entered it, outside the program's parallel "
    .. "regions: it takes the whole process's work while it is open (all %d threads'%s, its "
      .. "counted flops and bytes) and "
    .. "its time from begin to end, and it is bounded by %d threads' ceilings; a region inside a parallel region takes "
    .. "the work of the threads that enter it", r.region, ran, ran, counted, ran)
end

--[[ The line for a region fewer threads entered than the program ran, but more than one: its
  counters and its bound are those threads' (as LIKWID's markers are). ]]
local function threads_line(r)
  local n, ran = r.markedThreads, r.programThreads
  local counted = #(r.counterNames or {}) > 0 and string.format(", its counters count %s only",
    util.plural(n, "that thread", "those threads")) or ""
  return string.format("region '%s': %d of the %d threads the program ran entered it: it is bounded by %s ceilings%s; "
    .. "if other threads work during its calls (a parallel loop inside it), begin and end it "
      .. "inside the parallel region, "
    .. "in every thread, to count and bound their work", r.region, n, ran,
    n .. " " .. util.plural(n, "thread's", "threads'"), counted)
end

--[[ The line for a program that ran fewer threads than it was told to use (OMP_NUM_THREADS:
  -threads, a script's threads): its regions are bounded by the ceilings of the threads they
  ran in, and its roofline draws those. nil when it ran as many. ]]
local function asked_line(r)
  local asked = r.appPoint and r.appPoint.desc and r.appPoint.desc.threads
  if not (asked and r.ranThreads and r.ranThreads < asked) then return nil end
  return string.format("application '%s' ran %d %s of the %d it was told to use (OMP_NUM_THREADS=%d): its regions "
    .. "are bounded by the ceilings of the threads that entered them, and its roofline draws those, not %d threads'",
    tostring(r.program), r.ranThreads, util.plural(r.ranThreads, "thread"), asked, asked, asked)
end

-- The processes of a program's tree that loaded rot's recorder (meta markerProcessI: "NAME
-- pid=PID marked=0|1"), in the order they attached: {{name=, pid=, marked=}}.
local function processes(m)
  local out = {}
  for i = 0, math.huge do
    local v = m["markerProcess" .. i]
    if not v then break end
    local name, pid, marked = tostring(v):match("^(%S+) pid=(%d+) marked=(%d)")
    if name then out[#out + 1] = { name = name, pid = tonumber(pid), marked = marked == "1" } end
  end
  return out
end

--[[ The lines on where a program's regions were recorded, when that is not simply the program
  itself: the processes its tree ran with rot's recorder that called markers (a launcher's
  program, a script's: their regions are the program's, every process's threads its threads;
  the file of such a process is not in the point's description, so a rebuilt one is found in
  the cache as it was), and markers called in a forked process that did not exec, which
  record nothing. say(line) writes one. ]]
local function process_lines(r, m, say)
  local procs, marking = processes(m), {}
  for _, p in ipairs(procs) do if p.marked then marking[#marking + 1] = string.format("'%s' (pid %d)",
    p.name, p.pid) end end
  local own = #marking == 1 and procs[1] and procs[1].marked
  if #marking > 0 and not own then
    say(string.format("application '%s': its regions were recorded in %s%s (of the %d processes "
      .. "of its tree that ran with "
      .. "rot's recorder, itself included); a region's threads are those of every process that entered it (calls: the "
      .. "thread with the most, time: the longest thread's, work summed); the point's description holds '%s' and its "
      .. "arguments, not the files they start: a rebuilt one is measured again with -useCachedResults=false",
      tostring(r.program), #marking == 1 and "" or (#marking .. " processes: "), table.concat(marking, ", "), #procs,
      tostring(r.program)))
  end
  if m.markersForked then
    say(string.format("application '%s': a process it forked without exec (pid %s) began regions %s %s: not "
      .. "recorded (a forked process shares its parent's memory and thread states); begin and "
        .. "end regions in the process "
      .. "that records, or exec a program from the fork", tostring(r.program), tostring(m.markersForkedPid),
      tostring(m.markersForked), util.plural(tonumber(m.markersForked), "time")))
  end
  return procs
end

-- A program's output as printed: each line indented by two spaces; "(nothing)" when empty.
local function indented(text)
  if not text or text == "" then return "  (nothing)\n" end
  return (text:gsub("\n$", ""):gsub("[^\n]*", "  %0")) .. "\n"
end

--[[ outputs(rows, out): each program's own output (the showOutput key), under a line naming
  its point: its fastest invocation's (the last 16 KiB the core keeps: the invocation whose
  time the program's row shows), and its counted run's where it was counted (under Valgrind),
  so that what the program says of itself (its own timer, its checksum) stands beside rot's. ]]
function M.outputs(rows, out)
  for _, r in ipairs(rows) do
    local e = r.region == M.PROGRAM and (r.entry or r.partial)
    if e then
      local who = "application '" .. tostring(r.program) .. "' (" .. util.coords(r.appPoint.point or {}) .. ")"
      if r.stdout then
        local shown = #r.stdout < (r.stdoutBytes or 0) and string.format("; its last %s of %s", util.bytes(#r.stdout),
          util.bytes(r.stdoutBytes)) or ""
        out:write(string.format("output of %s, its fastest invocation (%d of %s%s):\n", who, (r.stdoutRun or 0) + 1,
          tostring(e.meta.invocations or "?"), shown), indented(r.stdout))
      end
      local counted = r.appPoint.countRecord
      if counted and r.countedStdout then
        out:write("output of ", who, ", its counted run (under Valgrind):\n", indented(r.countedStdout))
      elseif counted then
        out:write("output of ", who, ", its counted run: not kept (counted by an older rot: -useCachedResults=false "
          .. "counts it again)\n")
      end
    end
  end
end

-- Whether rows hold survey rows of the application point whose program's row is prog.
local function surveyed(rows, prog)
  for _, r in ipairs(rows) do if r.survey and r.appPoint == prog.appPoint then return true end end
  return false
end

-- The lines under a table of application rows: counters not counted (with the hint), calls
-- never closed, markers too costly for a region, programs that ran fewer threads than asked,
-- regions fewer threads entered than ran, where a program's regions were recorded (a
-- launcher's), programs whose markers recorded nothing.
function M.legend(rows, out)
  local said, several = {}, app_points(rows) > 1
  local function say(line) if not said[line] then said[line] = true; out:write(line, "\n") end end
  for _, r in ipairs(rows) do
    if r.failedInvocation and r.region == M.PROGRAM then
      say("FAILED " .. util.coords(r.appPoint.point or {}) .. ": its rows are what its invocations completed before it "
        .. "failed (not cached): " .. r.failedInvocation)
    end
    local m = meta_of(r)
    for _, name in ipairs(r.counterNames or {}) do
      if r.notCounted and r.notCounted[name] then say(name .. " " .. r.notCounted[name]) end
    end
    if m.countersHint then say("hint: " .. m.countersHint) end
    if r.neverClosed then
      say(string.format("region '%s': %d call(s) never closed (begun, not ended when the program ended): only its "
        .. "completed calls are counted", r.region, r.neverClosed))
    end
    if r.markerShare and r.markerShare > M.MARKER_SHARE and r.region ~= M.PROGRAM then
      say(marker_line(r, m, several))
    end
    if r.region == M.PROGRAM and asked_line(r) then say(asked_line(r)) end
    if r.region ~= M.PROGRAM and r.time and r.markedThreads and r.programThreads
      and r.markedThreads < r.programThreads then
      say(r.regionRule == "process" and process_line(r) or threads_line(r))
    end
    local procs = r.region == M.PROGRAM and (r.entry or r.partial) and process_lines(r, m, say) or {}
    if r.region == M.PROGRAM and r.entry and m.markersAttached == 0 then
      say("application '" .. tostring(r.program)
        .. "': no region recorded: rot's marker recorder was not loaded into it "
        .. "(a statically linked program, or one that clears LD_PRELOAD): only its whole time is measured")
    elseif r.region == M.PROGRAM and r.entry and not (r.entry.regions and #r.entry.regions > 0)
      and surveyed(rows, r) then
      say("application '" .. tostring(r.program) .. "' called no marker: its rows are its program's and the loop "
        .. "survey's (where its samples landed)")
    elseif r.region == M.PROGRAM and r.entry and not (r.entry.regions and #r.entry.regions > 0) then
      local names = {}
      for _, p in ipairs(procs) do names[#names + 1] = p.name end
      say("application '" .. tostring(r.program) .. "' called no marker" .. (#procs > 1 and (", nor did any process it "
        .. "started with rot's recorder (" .. table.concat(names, ", ") .. ")") or "") .. ": only its whole time is "
        .. "measured (a process that closes descriptor 3, clears LD_PRELOAD or ROT_MARKERS_FD, "
          .. "or is statically linked, "
        .. "records nothing)")
    end
  end
  if app_points(rows) > 0 then require("rot.results.survey").legend(rows, out, say) end
end

return M
