-- rot.models.pipeline_model: the pipeline performance model (Cornelis & Lemeire): instruction dependence
-- graphs, an event-driven simulator of compute units (their Algorithm 1), the closed form of
-- equation (1), and issue/completion latencies read off a "boat hull" of measured times.
local util = require "rot.util"
local M = {}

--[[ graph(spec): expands a declarative kernel into a flat instruction list.
  spec = { {name=, class=, deps={names}}, {loop=trips, body={...}}, ... }
  In a loop, a dependence on a name inside the body means the previous instruction of that
  name: the same trip, or the last trip for names defined later in the body (a carried value).
  Returns { {class=, deps={indices}} , ... } in program order. ]]
function M.graph(spec)
  local out, last = {}, {}
  local function emit(list)
    for _, ins in ipairs(list) do
      if ins.loop then
        for _ = 1, ins.loop do emit(ins.body) end
      else
        assert(ins.class, "instruction '" .. tostring(ins.name) .. "' needs a class")
        local deps = {}
        for _, d in ipairs(ins.deps or {}) do
          if last[d] then deps[#deps + 1] = last[d] end
        end
        out[#out + 1] = { class = ins.class, deps = deps, name = ins.name }
        if ins.name then last[ins.name] = #out end
      end
    end
  end
  emit(spec)
  return out
end

-- A chain of n dependent instructions of one class.
function M.chain(class, n)
  return M.graph { { loop = n, body = { { name = "x", class = class, deps = { "x" } } } } }
end

-- binary heap of events ordered by time, completions before issues at the same time
local function less(a, b)
  if a.t ~= b.t then return a.t < b.t end
  if a.kind ~= b.kind then return a.kind == "complete" end
  return a.seq < b.seq
end
local function push(h, e)
  h.n = h.n + 1
  h.seq = h.seq + 1
  e.seq = h.seq
  local i = h.n
  h[i] = e
  while i > 1 do
    local p = i // 2
    if less(h[i], h[p]) then h[i], h[p] = h[p], h[i]; i = p else break end
  end
end
local function pop(h)
  local top = h[1]
  h[1] = h[h.n]
  h[h.n] = nil
  h.n = h.n - 1
  local i = 1
  while true do
    local l, r, m = 2 * i, 2 * i + 1, i
    if l <= h.n and less(h[l], h[m]) then m = l end
    if r <= h.n and less(h[r], h[m]) then m = r end
    if m == i then break end
    h[i], h[m] = h[m], h[i]
    i = m
  end
  return top
end

-- The first instruction of warp w not yet issued, when its class is c and the instructions it
-- depends on are done (in-order issue per warp: an earlier one not issued blocks later ones).
local function ready(graph, w, c)
  for i = w.next, #graph do
    if not w.issued[i] then
      local ins = graph[i]
      if ins.class ~= c then return nil end
      for _, d in ipairs(ins.deps) do if not w.done[d] then return nil end end
      return i
    end
  end
  return nil
end

-- A group of warps starts on the unit.
local function add_group(sim)
  local g = { remaining = sim.warps_per_group }
  sim.active_groups = sim.active_groups + 1
  for _ = 1, sim.warps_per_group do
    sim.warps[#sim.warps + 1] = { group = g, issued = {}, done = {}, next = 1, ndone = 0 }
  end
end

-- The warp with an instruction of class c ready, round-robin from the last one that issued of
-- that class: {w=, i= (the instruction), wi= (the warp's place)}, or nil.
local function pick(sim, c)
  local n, start = #sim.warps, sim.rr[c] or 0
  for k = 1, n do
    local wi = (start + k - 1) % n + 1
    local w = sim.warps[wi]
    if w then
      local i = ready(sim.graph, w, c)
      if i then return { w = w, i = i, wi = wi } end
    end
  end
  return nil
end

-- Class e.class's pipeline at time e.t: it issues a ready instruction (its completion and its
-- next issue scheduled), else tries again.
local function issue(sim, e)
  local c = e.class
  local limited = sim.issue_limit and (sim.issued_at[e.t] or 0) >= sim.issue_limit
  local found = #sim.warps > 0 and not limited and pick(sim, c) or nil
  if found then
    local p = sim.pipes[c]
    found.w.issued[found.i] = true
    while found.w.issued[found.w.next] do found.w.next = found.w.next + 1 end
    sim.rr[c] = found.wi
    sim.issued_at[e.t] = (sim.issued_at[e.t] or 0) + 1
    push(sim.heap, { t = e.t + p.completion, kind = "complete", w = found.w, i = found.i })
    push(sim.ctimes, { t = e.t + p.completion, kind = "complete" })
    push(sim.heap, { t = e.t + p.issue, kind = "issue", class = c })
  elseif limited or sim.ctimes.n == 0 then
    push(sim.heap, { t = e.t + 1, kind = "issue", class = c }) -- Algorithm 1: try the next cycle
  else
    -- nothing is ready before a completion: wait for it (what stepping one cycle at a time
    -- reaches with integer latencies; exact with real-valued ones too)
    push(sim.heap, { t = math.max(sim.ctimes[1].t, e.t), kind = "issue", class = c })
  end
end

-- An instruction completes at e.t; a warp whose last one it was leaves, and a group whose last
-- warp left makes room for a waiting one.
local function complete(sim, e)
  pop(sim.ctimes)
  local w = e.w
  w.done[e.i] = true
  w.ndone = w.ndone + 1
  sim.t_end = math.max(sim.t_end, e.t)
  if w.ndone < #sim.graph then return end
  local g = w.group
  g.remaining = g.remaining - 1
  for k = #sim.warps, 1, -1 do if sim.warps[k] == w then table.remove(sim.warps, k) end end
  if g.remaining == 0 then
    sim.active_groups = sim.active_groups - 1
    if sim.waiting > 0 then
      sim.waiting = sim.waiting - 1
      add_group(sim)
    end
  end
end

--[[ simulate{ graph=, pipelines={class={issue=λ, completion=Λ}}, units=P, frequency=f (Hz),
    groups=N_total, concurrent=M (groups per unit at once), warps=warps per group,
    issue_limit=instructions per cycle per unit (optional) }
  -> { cycles=, seconds= } for the busiest unit (N = ceil(N_total / P) groups). ]]
function M.simulate(o)
  local graph, pipes = o.graph, o.pipelines
  for _, ins in ipairs(graph) do
    if not pipes[ins.class] then error("no pipeline for instruction class '" .. ins.class .. "'", 2) end
  end
  local groups_here = math.ceil((o.groups or 1) / (o.units or 1))
  local sim = { graph = graph, pipes = pipes, issue_limit = o.issue_limit, warps_per_group = o.warps or 1,
    waiting = groups_here - math.min(o.concurrent or 1, groups_here), heap = { n = 0, seq = 0 },
    ctimes = { n = 0, seq = 0 }, -- pending completion times, popped in the same order
    warps = {}, active_groups = 0, rr = {}, -- rr: round-robin position per class
    issued_at = {}, -- issue count per cycle, for the issue limit
    t_end = 0 }
  for _ = 1, math.min(o.concurrent or 1, groups_here) do add_group(sim) end
  local classes = {}
  for c in pairs(pipes) do classes[#classes + 1] = c end
  table.sort(classes)
  for _, c in ipairs(classes) do push(sim.heap, { t = 0, kind = "issue", class = c }) end
  while sim.active_groups > 0 do
    local e = pop(sim.heap)
    if e.kind == "issue" then issue(sim, e) else complete(sim, e) end
  end
  return { cycles = sim.t_end, seconds = o.frequency and sim.t_end / o.frequency or nil }
end

-- Equation (1): W warps of N dependent instructions on one pipeline (λ issue, Λ completion).
function M.closed_form(N, W, issue, completion)
  if W <= completion / issue then return N * completion + (W - 1) * issue end
  return completion + (N * W - 1) * issue
end

-- How far past the knee of the hull (Λ/λ chains, where issuing stops keeping up) its most
-- concurrent sample must lie for λ to be measured rather than bounded: 25% (there its time is
-- a quarter above one chain's; a shared VM's noise is well within that).
M.filled = 0.25

--[[ Latencies from a boat hull: samples = { {w=concurrency, t=time for N instructions each} }.
  The least concurrent sample is latency-bound (t = NΛ + (W-1)λ), the one with the least time
  per instruction (t / NW: the hull's throughput-bound end) throughput-bound (t = Λ + (NW-1)λ);
  solving both together (a few fixed-point rounds) gives the issue latency λ and the completion
  latency Λ, in the unit of t. The most concurrent sample is not taken as such: one slowed by
  something outside the pipeline (a neighbour, registers spilled) would set λ. Where no sample
  reaches the throughput bound, λ is at most Λ over the largest concurrency: the third value
  returned says whether one does (the most concurrent sample lies M.filled past the knee Λ/λ),
  else λ is that upper bound, not a measured issue rate. ]]
function M.latencies(samples, N)
  table.sort(samples, function(a, b) return a.w < b.w end)
  local lo, hi = samples[1], samples[#samples]
  for _, s in ipairs(samples) do
    if s.t / s.w < hi.t / hi.w then hi = s end
  end
  local issue, completion = hi.t / (N * hi.w), lo.t / N
  for _ = 1, 20 do
    completion = (lo.t - (lo.w - 1) * issue) / N
    issue = (hi.t - completion) / (N * hi.w - 1)
  end
  return issue, completion, samples[#samples].w >= (1 + M.filled) * completion / issue
end

--[[ validate(samples, N, nsim): the model against a measured boat hull of one instruction
  class (samples { {w=, t=}, ... }: w independent chains or warps, t for N instructions
  each): λ and Λ from the hull, then every sample simulated (chains of nsim instructions,
  scaled to N: the time is linear in N) and compared, as in the paper's Table II.
  Returns { issue=, completion=, filled= (M.latencies' third value: issue is measured, not an
  upper bound), points = { {w=, measured=, simulated=, err=}, ... }, mean = mean |error|,
  deviation = its standard deviation }. ]]
function M.validate(samples, N, nsim)
  nsim = nsim or 256
  local issue, completion, filled = M.latencies(samples, N)
  local out, mean, sd = { issue = issue, completion = completion, filled = filled, points = {} }, 0, 0
  for _, s in ipairs(samples) do
    local sim = M.simulate { graph = M.chain("unit", nsim), pipelines = { unit = { issue = issue,
      completion = completion } },
      warps = s.w }
    local t = sim.cycles * N / nsim
    local err = (t - s.t) / s.t
    out.points[#out.points + 1] = { w = s.w, measured = s.t, simulated = t, err = err, ghz = s.ghz }
    mean = mean + math.abs(err)
  end
  mean = mean / #samples
  for _, p in ipairs(out.points) do sd = sd + (math.abs(p.err) - mean) ^ 2 end
  out.mean, out.deviation = mean, math.sqrt(sd / #samples)
  return out
end

-- The samples of class oi (its point.op: that index, or its name): {w=, t= ns, or cycles at the
-- row's own clock where ghz is a function}.
local function samples_of(rows, oi, name, x, ghz)
  local per_row, samples = type(ghz) == "function", {}
  for _, r in ipairs(rows) do
    local g = per_row and r.time and ghz(r)
    if (r.point.op == oi or r.point.op == name) and r.time and (g or not per_row) then
      samples[#samples + 1] = { w = r.point[x], t = r.time * 1e9 * (g or 1), ghz = g or nil }
    end
  end
  return samples
end

--[[ hulls(rows, names, N, x, ghz): validate() for every instruction class of a hull sweep.
  rows: measured results with point.op (an index into names, or the name) and point[x] (chains or warps),
  time in s, N instructions per chain; ghz converts ns into cycles: one clock for every row (GHz),
  or function(row) -> the clock read beside that row (a row without one is left out), so each
  row is in cycles of its own clock and the hull is fit in cycles (a shared VM's clock wanders
  over a sweep). Returns the per-point records {op, w, measured, simulated (ns), err (%)} and the
  per-class ones {op, issue, completion (ns; at the rows' median clock where each has its own),
  issue_cycles, issue_is ("measured", or "at most" where no sample reached the throughput bound:
  M.latencies), completion_cycles, mean, deviation (%)}, with their rot.records columns. ]]
function M.hulls(rows, names, N, x, ghz)
  local points, classes, per_row = {}, {}, type(ghz) == "function"
  for oi, name in ipairs(names) do
    local samples = samples_of(rows, oi, name, x, ghz)
    if #samples >= 2 then
      local v, clocks = M.validate(samples, N), {}
      for _, p in ipairs(v.points) do
        local g = p.ghz or 1
        clocks[#clocks + 1] = g
        points[#points + 1] = { op = name, w = p.w, measured = p.measured / g,
          simulated = p.simulated / g, err = p.err * 100,
          ghz = p.ghz }
      end
      local unit = per_row and util.median(clocks) or 1 -- GHz: cycles per ns
      local cyc = per_row and 1 or ghz
      classes[#classes + 1] = { op = name, issue = v.issue / unit, completion = v.completion / unit,
        issue_cycles = cyc and v.issue * cyc, completion_cycles = cyc and v.completion * cyc,
        issue_is = v.filled and "measured" or "at most", mean = v.mean * 100, deviation = v.deviation * 100 }
    end
  end
  return points, classes
end

-- The per-point records' columns; clocked: with the clock read beside each point (hulls given
-- a clock per row).
function M.point_columns(xtitle, clocked)
  local c = { { "op", "op" }, { xtitle, "w", "%d" }, { "measured_ns", "measured", "%.0f" },
    { "simulated_ns", "simulated", "%.0f" }, { "error_pct", "err", "%.1f" } }
  if clocked then c[#c + 1] = { "clock_GHz", "ghz", "%.3f" } end
  return c
end

M.class_columns = { { "op", "op" }, { "issue_ns", "issue", "%.3f" }, { "completion_ns", "completion", "%.3f" },
  { "issue_cycles", "issue_cycles", "%.2f" }, { "issue_is", "issue_is" }, { "completion_cycles",
    "completion_cycles", "%.2f" },
  { "mean_abs_error_pct", "mean", "%.1f" }, { "deviation_pct", "deviation", "%.1f" } }

return M
