--[[ rot.results.quantities: what a point's raw runs mean: time per invocation (the fastest run),
  spread and best-k's verdict, counters per invocation, GPU metrics, measured or declared
  counts, rates and intensity. Each job below is one function that names the row fields it sets
  (every one declared in core/vocabulary.h's RESULT_ROW, side quantities); its input is the
  point's report (row.entry: meta keys of PROTOCOL_META, runs of PROTOCOL_RUN_KEYS). ]]
local gpu = require "rot.gpu"
local rounds = require "rot.execute.rounds"
local protocol = require "rot.protocol"

local M = {}

local LIMITS = protocol.limits

--[[ Sets runs, disturbed, time, tscHz, timerOverheadNs, threads, cacheMode. The fastest usable
  run is "the" run: time per invocation = (its ns - the timer overhead) / its repetitions; with
  ignoreDisturbed only runs without preemption or migration are usable, when there are any. It
  is the best round's (rot.execute.rounds: a point measured in rounds takes its best). Returns
  the times of that round's usable runs, sorted (what best-k judges), and the fastest run. ]]
function M.time(row, ignore_disturbed)
  local e, m = row.entry, row.entry.meta
  local ov = m.timerOverheadNs or 0
  local usable = {}
  for _, r in ipairs(e.runs) do
    if not (ignore_disturbed and r.disturbed == 1) then usable[#usable + 1] = r end
  end
  if #usable == 0 then usable = e.runs end
  local function t_of(r) return math.max(r.ns - ov, 0) / r.reps * 1e-9 end
  local best
  for _, r in ipairs(usable) do
    if not best or t_of(r) < best.t then best = { t = t_of(r), run = r } end
  end
  local times = {}
  for _, r in ipairs(usable) do
    if r.round == best.run.round then times[#times + 1] = t_of(r) end
  end
  local ns, tsc, disturbed = 0, 0, 0
  for _, r in ipairs(e.runs) do
    ns, tsc = ns + r.ns, tsc + (r.tsc or 0)
    if r.disturbed == 1 then disturbed = disturbed + 1 end
  end
  table.sort(times)
  row.runs, row.disturbed, row.time = #e.runs, disturbed, best.t
  row.tscHz = ns > 0 and tsc / ns * 1e9 or nil
  row.timerOverheadNs = ov
  row.threads, row.cacheMode = m.threads or 1, m.cacheMode
  return times, best.run
end

--[[ Sets spread and converged: best-k's verdict on the best round's runs as they are now (a
  cached entry's runs and the ones added to it), not on the last batch's: the k fastest within
  epsilon, on the times the table shows (times: M.time's), so the '!' agrees with the spread
  beside it (the core's own flag where no epsilon is known). k, epsilon: the description's
  policy, else these. A point of several rounds has its spread from them (M.rounds). ]]
function M.verdict(row, times, k, epsilon)
  local policy = row.desc and row.desc.policy or {}
  k = policy.k or k
  local kk = math.min(k, #times)
  row.spread = times[1] > 0 and (times[kk] - times[1]) / times[1] or 0
  local eps = policy.epsilon or epsilon
  if eps then row.converged = #times >= k and row.spread <= eps else row.converged = row.entry.meta.converged == 1 end
end

-- Sets counters (per invocation, from the run best: M.time's), counterNames, multiplexed, and
-- report (what the kernel measured itself, meta report.NAME).
function M.counters(row, best)
  local m = row.entry.meta
  row.counters, row.counterNames = {}, {}
  for i = 0, LIMITS.counters - 1 do
    local name = m["event" .. i]
    if not name then break end
    local v = best["e" .. i]
    row.counterNames[#row.counterNames + 1] = name
    row.counters[name] = v and v / best.reps or nil
    if best.mux then row.multiplexed = true end
  end
  for key, v in pairs(m) do
    local name = type(key) == "string" and key:match("^report%.(.+)$")
    if name then
      row.report = row.report or {}
      row.report[name] = tonumber(v)
    end
  end
end

-- Sets gpuMetrics (a GPU point's CUPTI metrics, of one profiled invocation) and gpu (its
-- quantities when they are the hierarchical-roofline set, rot.gpu.quantities); nothing for
-- a point without metrics.
function M.gpu_metrics(row)
  local m = row.entry.meta
  if not m.gpuMetric0 then return end
  row.gpuMetrics = {}
  for i = 0, LIMITS.gpu_metrics - 1 do
    local name = m["gpuMetric" .. i]
    if not name then break end
    row.gpuMetrics[name] = tonumber(m["gpuValue" .. i])
  end
  row.gpu = gpu.quantities(row.gpuMetrics)
end

-- q's count (flops or bytes) from counters: the weighted sum of them the description's counts
-- give for it, or nil where they give none or one of those counters did not count.
function M.counted(desc, counters, q)
  local combo = desc and desc.counts and desc.counts[q]
  if not (combo and next(combo)) then return nil end
  local sum = 0
  for ev, w in pairs(combo) do
    if counters[ev] == nil then return nil end
    sum = sum + w * counters[ev]
  end
  return sum
end

-- Where a row's flops and bytes came from, as its `counts` says: one source, or each named.
function M.sources(flops, bytes) return flops == bytes and flops or ("flops " .. flops .. ", bytes " .. bytes) end

--[[ Sets flops and bytes (measured where the description's counts give a weighted sum of
  counters that all counted, or a GPU point's metrics, else declared), flopsRatio and bytesRatio
  (measured over declared), flopsDeclared, bytesDeclared, bytesWritten, workingSet, counts (where
  they come from) and bytesMeasured. ]]
function M.counts(row)
  local m = row.entry.meta
  row.flopsDeclared, row.bytesDeclared, row.workingSet = m.flops, m.bytes, m.workingSet
  row.bytesWritten = tonumber(m.bytesWritten) -- declared by the kernel, or nil: its traffic's mix
  local src = {}
  for _, q in ipairs({ "flops", "bytes" }) do
    local declared, sum = m[q], M.counted(row.desc, row.counters, q)
    row[q], src[q] = declared, "declared"
    if sum then
      row[q], src[q] = sum, "measured"
      row[q .. "Ratio"] = declared and declared > 0 and sum / declared or nil
    end
  end
  if row.gpu then
    row.flops, row.bytes, src.flops, src.bytes = row.gpu.flops.total, row.gpu.bytes.HBM, "measured", "measured"
    row.flopsRatio = m.flops and m.flops > 0 and row.flops / m.flops or nil
    row.bytesRatio = m.bytes and m.bytes > 0 and row.bytes / m.bytes or nil
  end
  row.counts = M.sources(src.flops, src.bytes)
  row.bytesMeasured = src.bytes == "measured" or nil
end

--[[ Sets gflops, gbs and intensity from time, flops and bytes: each nil where what it needs is
  missing (no time above 0, no flops or bytes). A row that moves no bytes has no bandwidth and
  no intensity, not 0 GB/s. Any row's: a point's, a region's, one whose counts it adopted. ]]
function M.rates(r)
  local t = r.time and r.time > 0 and r.time or nil
  local moved = r.bytes and r.bytes > 0 and r.bytes or nil
  r.gflops = t and r.flops and r.flops / t / 1e9 or nil
  r.gbs = t and moved and moved / t / 1e9 or nil
  r.intensity = moved and r.flops and r.flops / moved or nil
end

--[[ Sets rounds; its best round's neighbour figures (neighbourCpus, queueWait) and whether it
  ran beside a neighbour (besideNeighbour: rot.execute.neighbour; nil where nothing judged it);
  and for a point of two rounds or more roundsSpread, roundsBestSpread, roundsAgree, roundsRatio
  and spread: the verdict across its rounds (rot.execute.rounds), p the rounds policy they are
  judged by ({min=, eps=}). The measurement's pooled spread raises spread later (M.pool). ]]
function M.rounds(row, ignore_disturbed, p)
  local rs = rounds.of(row.entry, ignore_disturbed)
  row.rounds = #rs
  local best = rounds.best(rs)
  if best and (best.nbr or best.qwait) then
    row.neighbourCpus, row.queueWait, row.besideNeighbour = best.nbr, best.qwait, rounds.busy(best, p)
  end
  if #rs < 2 then return end
  local v = rounds.verdict(rounds.times(rs), p.eps, p.min)
  row.roundsSpread, row.roundsBestSpread, row.roundsAgree, row.roundsRatio = v.spread, v.best, v.agree, v.ratio
  row.spread = v.spread
end

--[[ Sets pooledSpread on the rows of one measurement whose rounds agree, and raises their
  spread to it: the spread pooled over them (rot.execute.rounds.pooled); nothing where too few
  rows have rounds. ]]
function M.pool(rows)
  local p = rounds.pooled(rows)
  if not p then return end
  for _, r in ipairs(rows) do
    if r.roundsAgree and r.rounds >= 2 then r.pooledSpread, r.spread = p, math.max(r.spread, p) end
  end
end

--[[ Adds the quantities to a row from its raw run outputs and the kernel's declared counts (k,
  epsilon: best-k's, where the row's description has none; rounds_policy: the rounds' {min=,
  eps=} (rot.execute.rounds.policy), nil where rounds are not judged); a row without a cache
  entry is left as it is. ]]
function M.derive(row, k, ignore_disturbed, epsilon, rounds_policy)
  if not row.entry then return row end
  local times, best = M.time(row, ignore_disturbed)
  M.verdict(row, times, k, epsilon)
  if rounds_policy then M.rounds(row, ignore_disturbed, rounds_policy) end
  M.counters(row, best)
  M.gpu_metrics(row)
  M.counts(row)
  M.rates(row)
  return row
end

return M
