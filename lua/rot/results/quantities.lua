-- rot.results.quantities: what a point's raw runs mean: time per invocation (the fastest
-- run), spread, rates, intensity, counters per invocation, measured or declared counts.
local gpu = require "rot.gpu"

local M = {}

-- Adds the quantities to a row from its raw run outputs and the kernel's declared counts (k,
-- epsilon: best-k's, where the row's description has none).
-- Time per invocation = (run ns - timer overhead) / repetitions; the fastest run is "the" run
-- (with ignoreDisturbed, the fastest run without preemption or migration, when there is one).
function M.derive(row, k, ignore_disturbed, epsilon)
  local e = row.entry
  if not e then return row end
  local m = e.meta
  local ov = m.timerOverheadNs or 0
  local usable = {}
  for _, r in ipairs(e.runs) do
    if not (ignore_disturbed and r.disturbed == 1) then usable[#usable + 1] = r end
  end
  if #usable == 0 then usable = e.runs end
  local times, ns, tsc, best, disturbed = {}, 0, 0, nil, 0
  for i, r in ipairs(usable) do
    times[i] = math.max(r.ns - ov, 0) / r.reps * 1e-9
    if not best or times[i] < best.t then best = { t = times[i], run = r } end
  end
  for _, r in ipairs(e.runs) do
    ns, tsc = ns + r.ns, tsc + (r.tsc or 0)
    if r.disturbed == 1 then disturbed = disturbed + 1 end
  end
  table.sort(times)
  row.runs = #e.runs
  row.disturbed = disturbed
  row.time = times[1]
  local policy = row.desc and row.desc.policy or {}
  k = policy.k or k
  local kk = math.min(k, #times)
  row.spread = times[1] > 0 and (times[kk] - times[1]) / times[1] or 0
  -- best-k's verdict on the runs as they are now (a cached entry's runs and the ones added to
  -- it), not on the last batch's: the k fastest within epsilon, on the times the table shows
  -- (timer overhead subtracted, disturbed runs left out under ignoreDisturbed), so the '!'
  -- agrees with the spread beside it (the core's own flag where no epsilon is known)
  local eps = policy.epsilon or epsilon
  if eps then row.converged = #times >= k and row.spread <= eps else row.converged = m.converged == 1 end
  row.threads, row.cacheMode = m.threads or 1, m.cacheMode
  row.timerOverheadNs = ov
  row.tscHz = ns > 0 and tsc / ns * 1e9 or nil
  -- counters: per invocation, from the fastest run
  row.counters, row.counterNames = {}, {}
  for i = 0, 15 do
    local name = m["event" .. i]
    if not name then break end
    local v = best.run["e" .. i]
    row.counterNames[#row.counterNames + 1] = name
    row.counters[name] = v and v / best.run.reps or nil
    if best.run.mux then row.multiplexed = true end
  end
  row.flopsDeclared, row.bytesDeclared, row.workingSet = m.flops, m.bytes, m.workingSet
  row.bytesWritten = tonumber(m.bytesWritten) -- declared by the kernel, or nil: its traffic's mix
  -- GPU points: the CUPTI metrics (one profiled invocation) and, when they are the
  -- hierarchical-roofline set, measured flops and HBM bytes
  for key, v in pairs(m) do -- what the kernel measured itself
    local name = type(key) == "string" and key:match("^report%.(.+)$")
    if name then
      row.report = row.report or {}
      row.report[name] = tonumber(v)
    end
  end
  if m.gpuMetric0 then
    row.gpuMetrics = {}
    for i = 0, 63 do
      local name = m["gpuMetric" .. i]
      if not name then break end
      row.gpuMetrics[name] = tonumber(m["gpuValue" .. i])
    end
    row.gpu = gpu.quantities(row.gpuMetrics)
  end
  local src = {}
  for _, q in ipairs({ "flops", "bytes" }) do
    local combo = row.desc and row.desc.counts and row.desc.counts[q]
    local declared = m[q]
    row[q], src[q] = declared, "declared"
    if combo and next(combo) then
      local sum, complete = 0, true
      for ev, w in pairs(combo) do
        local v = row.counters[ev]
        if v == nil then complete = false else sum = sum + w * v end
      end
      if complete then
        row[q], src[q] = sum, "measured"
        row[q .. "Ratio"] = declared and declared > 0 and sum / declared or nil
      end
    end
  end
  if row.gpu then
    row.flops, row.bytes, src.flops, src.bytes = row.gpu.flops.total, row.gpu.bytes.HBM, "measured", "measured"
    row.flopsRatio = m.flops and m.flops > 0 and row.flops / m.flops or nil
    row.bytesRatio = m.bytes and m.bytes > 0 and row.bytes / m.bytes or nil
  end
  row.counts = src.flops == src.bytes and src.flops or ("flops " .. src.flops .. ", bytes " .. src.bytes)
  row.bytesMeasured = src.bytes == "measured" or nil
  row.gflops = row.flops / row.time / 1e9
  row.gbs = row.bytes / row.time / 1e9
  row.intensity = row.bytes > 0 and row.flops / row.bytes or nil
  return row
end

return M
