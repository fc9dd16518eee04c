--[[ rot.results.survey: the loop survey's rows of an application point (Intel Advisor's Survey):
  where its sampled invocations' samples landed, named in the program's own words (rot.symbols).
  A sample in a loop the counting pass found (the count's loops, matched by object and offset)
  is that loop's; any other is its function's, a shared library's, unknown code's (no file) or
  the kernel's. Each loop and function with at least surveyThreshold percent of the samples is
  a row, most first, and the rest one row. A row's time is its share of the samples times the
  program's time (wall time); a counted one has its counts (flops by class, bytes, traffic per
  level), so rot.results.counted and rot.results.placed place it as a counted region. A counted
  loop or function that ran while a marked region was open is that region's: its row is named
  "REGION > LOOP" and nests under the region's row; one that ran in several regions, or in and
  out of them, is a row for each, its time split by the instructions it ran in each. ]]
local util = require "rot.util"
local sys = require "rot.sys"

local M = {}

M.UNKNOWN, M.KERNEL = "unknown code", "kernel code"
M.FEW = 20 -- below this many samples an invocation, a point's shares are rough (said under the table)

-- The groups of an entry's samples, once a run: rot.history's record asks for its rows again.
local memo_groups = setmetatable({}, { __mode = "k" }) -- an entry -> {rec=, threshold=, groups=, total=}

-- The sampled invocations' records of an entry: objects by run and id, the samples, the
-- sampled lines by run.
local function gather(e)
  local objects, samples, sampled = {}, {}, {}
  for _, r in ipairs(e.samples or {}) do
    local run = r.run or 0
    if r.record == "object" then
      objects[run] = objects[run] or {}
      objects[run][r.id] = util.unescape_token(tostring(r.path))
    elseif r.record == "sample" then
      samples[#samples + 1] = { run = run, obj = r.obj, off = tonumber(r.off) or 0, n = r.n or 0 }
    elseif r.record == "sampled" then
      sampled[run] = r
    end
  end
  return objects, samples, sampled
end

-- A file's path as its real path (a count and the kernel may name one file two ways).
local function canon(memo, p)
  if not memo[p] then memo[p] = sys.realpath(p) or p end
  return memo[p]
end

--[[ The count's loops by file: path -> {loops sorted by depth, deepest first}, each with its
  nest's depth (the deepest loop under its outermost one). ]]
local function loops_by_file(l, memo)
  local byid, out = {}, {}
  for _, x in ipairs(l.loops) do byid[x.id] = x end
  local function root(x)
    while x.parent and x.parent ~= 0 and byid[x.parent] do x = byid[x.parent] end
    return x
  end
  local nest = {}
  for _, x in ipairs(l.loops) do
    local r = root(x).id
    nest[r] = math.max(nest[r] or 0, x.depth)
  end
  for _, x in ipairs(l.loops) do
    x.nest = nest[root(x).id]
    local p = canon(memo, l.objects[x.obj] or "?")
    out[p] = out[p] or {}
    table.insert(out[p], x)
  end
  for _, list in pairs(out) do table.sort(list, function(a, b) return a.depth > b.depth end) end
  return out
end

-- A loop's name: where its latch is (FILE:LINE, else OBJECT+0xOFF), the function there (the
-- innermost inlined one), its depth in its nest.
local function loop_name(st, path, x)
  local w = st:lookup(path, x.latches[1]) or {}
  local fn = w.inlined and w.inlined[1] and w.inlined[1].func or w.func
  local place = w.file and w.line and (util.basename(w.file) .. ":" .. w.line)
    or string.format("%s+0x%x", util.basename(path), x.latches[1])
  return string.format("%s loop%s (depth %d of %d)", place, fn and (" in " .. fn) or "", x.depth, x.nest),
    { file = w.file, line = w.line, func = fn }
end

-- A function's key and name from a lookup w of code in file path: a shared library's with its
-- soname ("libm.so.6: exp"), another file's than the program's with its name; a stripped
-- file's code is its file's ("prog: no symbols"); rot's recorder's (its calibration) is rot's.
local function function_of(path, w, program)
  if util.basename(path):match("^librot%-markers") then return "rot", "rot's marker recorder" end
  if not w then return "file|" .. path, util.basename(path) .. ": not readable" end
  if not (w.func and w.funcOffset) then return "file|" .. path, util.basename(path) .. ": no symbols" end
  local name = w.shared and w.name or path ~= program and (util.basename(path) .. ": " .. w.func) or w.func
  return "fn|" .. path .. "|" .. w.funcOffset, name
end

-- The keys of a loop's or function's line that are no counts.
local NOT_COUNTS = { id = true, obj = true, head = true, ["end"] = true, depth = true, parent = true, off = true,
  named = true, entries = true, iterations = true, back = true, nest = true, instrs = true }

-- The counts of a row: the sum of its loops' or functions' count lines; and of each region's
-- part of them (g.parts: region -> {counts=, instrs=, entries=, iterations=}), its
-- instructions' runs in all (g.instrs).
local function add_counts(g, c)
  g.counts = g.counts or {}
  for k, v in pairs(c) do
    if type(v) == "number" and not NOT_COUNTS[k] then g.counts[k] = (g.counts[k] or 0) + v end
  end
  g.instrs = (g.instrs or 0) + (c.instrs or 0)
  for _, p in ipairs(c.parts or {}) do
    g.parts = g.parts or {}
    local q = g.parts[p.region] or { instrs = 0, entries = 0, iterations = 0 }
    g.parts[p.region] = q
    add_counts(q, p)
    q.parts, q.entries, q.iterations = nil, q.entries + (p.entries or 0), q.iterations + (p.iterations or 0)
  end
end

--[[ Each group that ran in a marked region (its parts) split into a group a region, "REGION >
  NAME", and the rest (outside every region) kept where it ran there: each with its part's
  counts, entries and iterations, and the share of the group's samples its instructions' runs
  are of the group's. A group with no part, or no runs counted, stays whole. ]]
local function split(groups)
  local keys = util.sorted_keys(groups)
  for _, key in ipairs(keys) do
    local g = groups[key]
    if g.parts and (g.instrs or 0) > 0 then
      local regions, rest = util.sorted_keys(g.parts), g.instrs
      for _, region in ipairs(regions) do
        local p = g.parts[region]
        local k = "region|" .. region .. "|" .. key
        local sub = util.copy(g)
        sub.key, sub.name, sub.region, sub.parts = k, region .. " > " .. g.name, region, nil
        sub.counts, sub.entries, sub.iterations = p.counts, g.entries and p.entries, g.iterations and p.iterations
        sub.split = #regions > 1 or p.instrs < g.instrs or nil
        sub.n, sub.byRun = g.n * p.instrs / g.instrs, {}
        for run, n in pairs(g.byRun) do sub.byRun[run] = n * p.instrs / g.instrs end
        groups[k] = sub
        rest = rest - p.instrs
        for c, v in pairs(p.counts or {}) do g.counts[c] = g.counts[c] - v end
        g.entries = g.entries and g.entries - p.entries
        g.iterations = g.iterations and g.iterations - p.iterations
      end
      if rest > 0 then
        for run, n in pairs(g.byRun) do g.byRun[run] = n * rest / g.instrs end
        g.n, g.split, g.parts = g.n * rest / g.instrs, true, nil
      else
        groups[key] = nil
      end
    end
  end
end

-- The files with under half the threshold of the samples: not looked up (libdwfl's first look-up
-- in libc.so.6 takes 45 ms), their code one group each. path -> true.
local function cold_files(objects, samples, memo, threshold)
  local cold, all = {}, 0
  for _, smp in ipairs(samples) do
    local file = smp.obj > 1 and canon(memo, (objects[smp.run] or {})[smp.obj] or "?") or ""
    cold[file], all = (cold[file] or 0) + smp.n, all + smp.n
  end
  for file, n in pairs(cold) do cold[file] = n < threshold / 2 * all or nil end
  return cold
end

-- The counts of the groups (groups_of's): of every loop of a sampled loop's function (hot:
-- {file=, lo=, hi=}), of each sampled function, of unknown code.
local function attach_counts(l, groups, byfile, hot, loop_group, memo)
  for _, h in ipairs(hot) do
    for _, x in ipairs(byfile[h.file] or {}) do
      if x.latches[1] >= h.lo and x.latches[1] < h.hi then loop_group(h.file, x) end
    end
  end
  for _, f in ipairs(l.functions) do
    local file = canon(memo, l.objects[f.obj] or "?")
    local g = groups[f.named == 1 and ("fn|" .. file .. "|" .. f.off) or ("file|" .. file)]
    if g then add_counts(g, f) end
  end
  if l.unknown and groups.unknown then add_counts(groups.unknown, l.unknown) end
end

--[[ The groups the samples of program path land in, by key: {key=, name=, kind= (loop, function,
  unknown, kernel), n=, byRun={run -> n}, counts=, loop fields}; and the samples by run in all.
  Only code that was sampled is looked up: a sampled loop's, and every loop of its function
  (loops of one name are one group: a vectorised body and its remainder, one sampled or not); a
  file with less than half the threshold of the samples is one group, unnamed within. ]]
local function groups_of(e, rec, st, path, threshold)
  local objects, samples = gather(e)
  local memo, groups, total = {}, {}, {}
  local cold = cold_files(objects, samples, memo, threshold)
  local program = canon(memo, path)
  local l = rec and rec.loops
  local byfile = l and loops_by_file(l, memo) or {}
  local named = {} -- loop id -> its group
  local function group(key, name, kind)
    local g = groups[key]
    if not g then
      g = { key = key, name = name, kind = kind, n = 0, byRun = {} }
      groups[key] = g
    end
    return g
  end
  local function loop_group(file, x)
    if not named[x.id] then
      local name, at = loop_name(st, file, x)
      local g = group("loop|" .. name, name, "loop")
      g.file, g.line, g.func, g.depth, g.nest = at.file, at.line, at.func, x.depth, x.nest
      g.entries, g.iterations = (g.entries or 0) + (x.entries or 0), (g.iterations or 0) + (x.iterations or 0)
      g.object = util.basename(file)
      add_counts(g, x)
      named[x.id] = g
    end
    return named[x.id]
  end
  local where, hot = {}, {} -- path and offset -> its group; the sampled loops' functions
  for _, smp in ipairs(samples) do
    local g
    if smp.obj == 0 then
      g = group("unknown", M.UNKNOWN, "unknown")
    elseif smp.obj == 1 then
      g = group("kernel", M.KERNEL, "kernel")
    else
      local file = canon(memo, (objects[smp.run] or {})[smp.obj] or "?")
      local at = file .. "@" .. smp.off
      g = where[at]
      if not g then
        if cold[file] then g = group("file|" .. file, util.basename(file), "function") end
        for _, x in ipairs(not g and byfile[file] or {}) do
          if smp.off >= x.head and smp.off <= x["end"] then
            g = loop_group(file, x)
            local w = st:lookup(file, x.head)
            if w and w.funcOffset then
              hot[#hot + 1] = { file = file, lo = w.funcOffset, hi = w.funcOffset + (w.funcSize or 0) }
            end
            break
          end
        end
        if not g then
          local key, name = function_of(file, st:lookup(file, smp.off), program)
          g = group(key, name, "function")
          g.object = g.object or util.basename(file)
        end
        where[at] = g
      end
    end
    g.n = g.n + smp.n
    g.byRun[smp.run] = (g.byRun[smp.run] or 0) + smp.n
    total[smp.run] = (total[smp.run] or 0) + smp.n
  end
  if l then
    attach_counts(l, groups, byfile, hot, loop_group, memo)
    split(groups)
  end
  return groups, total
end

-- The spread of a row's time over the invocations: how far the k-th fastest of its
-- invocations' own times (their share of the samples times their time) lies above the fastest.
local function spread_of(g, total, run_ns, k)
  local t = {}
  for run, n in pairs(total) do
    if n > 0 and run_ns[run] then t[#t + 1] = (g.byRun[run] or 0) / n * run_ns[run] end
  end
  table.sort(t)
  if #t == 0 or t[1] <= 0 then return nil end
  return (t[math.min(k, #t)] - t[1]) / t[1]
end

--[[ The invocations whose samples give the shares: the faster half (at least k, all where
  fewer), as the program's time is its fastest invocations': a slow one (a neighbour took a CPU,
  threads spun at a barrier meanwhile) has its samples elsewhere. run -> true. ]]
local function fastest(program_ns, k)
  local runs = util.sorted_keys(program_ns)
  table.sort(runs, function(a, b) return program_ns[a] < program_ns[b] end)
  local use = {}
  for i, run in ipairs(runs) do
    if i <= math.max(k, math.ceil(#runs / 2)) then use[run] = true end
  end
  return use
end

--[[ rows(row, prog, program_ns, k, make) -> the survey's rows of an application point row (nil
  where its invocations were not sampled): prog its program's row (its time), program_ns its
  invocations' times by run, k the best-k rule's k, make(name) a new row of the point with that
  region. The threshold is the surveyThreshold key's (percent of the samples). ]]
function M.rows(row, prog, program_ns, k, make)
  local e = row.entry or row.partial
  if not (e and e.samples and #e.samples > 0 and prog.time) then return nil end
  local ok, pct = pcall(function() return require("rot.session").current():get("surveyThreshold") end)
  local threshold = (ok and pct or 1) / 100
  local m = memo_groups[e] -- (a run's record asks for the rows again)
  if not (m and m.rec == row.countRecord and m.threshold == threshold) then
    local st <close> = require("rot.symbols").open()
    m = { rec = row.countRecord, threshold = threshold }
    m.groups, m.total = groups_of(e, row.countRecord, st, row.desc.app.path, threshold)
    memo_groups[e] = m
  end
  local groups, total = m.groups, m.total
  local use = fastest(program_ns, k)
  local all = 0
  for run, n in pairs(total) do if use[run] then all = all + n end end
  if all == 0 then return nil end
  for _, g in pairs(groups) do
    g.n = 0
    for run, n in pairs(g.byRun) do if use[run] then g.n = g.n + n end end
  end
  local hot, rest = {}, { n = 0, byRun = {}, count = 0 }
  for _, g in pairs(groups) do
    if g.n > 0 and g.n / all >= threshold then
      hot[#hot + 1] = g
    elseif g.n > 0 then
      rest.n, rest.count = rest.n + g.n, rest.count + 1
      for run, n in pairs(g.byRun) do rest.byRun[run] = (rest.byRun[run] or 0) + n end
    end
  end
  table.sort(hot, function(a, b) return a.n > b.n or (a.n == b.n and a.name < b.name) end)
  if rest.n > 0 then
    rest.name = string.format("other code (%d %s under %g%%)", rest.count,
      util.plural(rest.count, "loop or function", "loops and functions"), threshold * 100)
    rest.kind = "other"
    hot[#hot + 1] = rest
  end
  local out = {}
  for _, g in ipairs(hot) do
    local r = make(g.name)
    r.survey, r.samples, r.share = g.kind, math.floor(g.n + 0.5), g.n / all
    r.surveyRegion, r.surveySplit = g.region, g.split
    r.time = r.share * prog.time
    r.spread = spread_of(g, total, program_ns, k)
    r.sampleError = math.sqrt((1 - r.share) / g.n) -- (a share's standard error, relative: binomial)
    r.runs = prog.runs
    r.sourceFile, r.sourceLine, r.func, r.object = g.file, g.line, g.func, g.object
    r.loopDepth, r.nestDepth, r.loopEntries, r.loopIterations = g.depth, g.nest, g.entries, g.iterations
    r.flopsSource, r.bytesSource, r.counts = "none", "none", "none"
    r.surveyCounts = g.counts
    out[#out + 1] = r
  end
  return out
end

-- The line on the survey's rows of prog's point that ran in a marked region, where there are.
local function nesting(rows, prog, who, say)
  local nested, split = false, false
  for _, x in ipairs(rows) do
    if x.survey and x.appPoint == prog.appPoint then
      nested, split = nested or x.surveyRegion ~= nil, split or x.surveySplit == true
    end
  end
  if not nested then return end
  say(who .. ": a row 'REGION > LOOP' is the loop's or function's work while REGION was open (the innermost)"
    .. (split and "; one that ran in several regions, or in and out of them, is a row for each, its time split by "
      .. "the instructions it ran in each (counted): such a row's rate assumes its instructions took as long in each, "
      .. "so it is never marked above its bound" or ""))
end

--[[ The lines under a table with survey rows: how they were sampled (every program's once), a
  program with few samples, samples lost; and where sampling was refused, why and what to set. ]]
function M.legend(rows, out, say)
  for _, r in ipairs(rows) do
    local e = r.region == "(program)" and (r.entry or r.partial)
    if e then
      local who = "application '" .. tostring(r.program) .. "'"
      if e.meta and e.meta.sampling then
        say(who .. ": not sampled, so no loop survey: " .. util.unescape_token(tostring(e.meta.sampling))
          .. " (samplingInterval=0 stops asking)")
      end
      local _, _, sampled = gather(e)
      local n, lost, runs, period = 0, 0, 0, nil
      for _, x in pairs(sampled) do
        n, lost, runs, period = n + (x.samples or 0), lost + (x.lost or 0), runs + 1, x.periodNs
      end
      if runs > 0 and n == 0 then
        say(string.format("%s: sampled every %s of a thread's CPU time, and no sample landed (no thread ran that "
          .. "long): no loop survey; a shorter samplingInterval samples it", who, util.seconds((period or 0) * 1e-9)))
      elseif runs > 0 then
        say(string.format("%s: sampled every %s of a thread's CPU time, %d %s in %d %s; a loop's or function's time is "
          .. "its share of the samples times the program's wall time (its flops: all threads'), known to about "
          .. "2/sqrt(its samples) (25 samples: 40%%)", who,
          util.seconds((period or 0) * 1e-9), n, util.plural(n, "sample"), runs, util.plural(runs, "invocation")))
        if n < M.FEW * runs then
          say(string.format("%s: %.0f samples an invocation: its shares are rough; a longer run, or a shorter "
            .. "samplingInterval, gives more", who, n / runs))
        end
        local procs = 0
        for _, x in pairs(sampled) do procs = math.max(procs, x.processes or 1) end
        if procs > 1 and r.appPoint.countRecord then
          say(string.format("%s: its samples are those of its %d processes (it forked); the counted rows hold the "
            .. "first process's counts alone", who, procs))
        end
        if lost > 0 then say(string.format("%s: %d samples lost (the ring buffer was full)", who, lost)) end
        if r.appPoint.countFailed then
          say(who .. ": its survey has functions only: its count failed, and only the count finds loops")
        elseif not r.appPoint.countRecord then
          say(who .. ": its survey has functions only: rot profile -count finds its loops and counts each one's work")
        end
        nesting(rows, r, who, say)
      end
    end
  end
end

return M
