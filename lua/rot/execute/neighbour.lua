--[[ rot.execute.neighbour: a neighbour seen without a PMU. Rounds catch a slow core process,
  but not a neighbour busy through every round of a point: its rounds then agree on a low
  value. Two figures see it, for each point as it is measured:
  - the CPU time the machine spent outside rot's own processes over the point's window, in
    CPUs (/proc/stat's busy time against rot's /proc/PID/stat: the driver's own and its
    children's, the measuring core's): a neighbour anywhere on the machine, one that shares
    the memory bus too. /proc counts in ticks of 10 ms, so the window reaches back at least
    WINDOW seconds (across points: a neighbour busy through a point's round is busy through
    the points before it too);
  - the share of their time the point's own threads waited on a run queue (the core's
    queueWait, from /proc/PID/task/TID/schedstat, in ns): a neighbour on their CPUs.
  A round whose figures pass the thresholds ran beside a neighbour; a point whose best round
  did is flagged and measured again as one whose rounds disagree (rot.execute.rounds).
  docs/usage.md, "A busy machine", has the thresholds' figures. ]]
local sys = require "rot.sys"

local M = {}

M.WINDOW = 0.5 -- seconds the CPU time outside rot is taken over, at least
M.MIN_WINDOW = 0.25 -- the shortest window: the first point of a run waits for it
M.HZ = 100 -- /proc's clock ticks a second (USER_HZ: 100 on every Linux ABI rot builds for)
M.CPUS = 0.5 -- CPUs busy outside rot, on average over the window, that make a neighbour (busyCpus)
M.QUEUE = 0.2 -- the share of their time the point's threads waited for a CPU, that does (busyWait)

-- The machine's busy ticks since boot, all CPUs (/proc/stat's first line: user, nice, system,
-- irq, softirq, steal; guest time is in user), and how many CPUs it counts; nil where unreadable.
local function machine_busy()
  local text = sys.readfile("/proc/stat")
  local f = {}
  for v in (text and text:match("^cpu%s+([^\n]*)") or ""):gmatch("%d+") do f[#f + 1] = tonumber(v) end
  if #f < 8 then return nil end
  local cpus = 0
  for _ in text:gmatch("\ncpu%d+ ") do cpus = cpus + 1 end
  return f[1] + f[2] + f[3] + f[6] + f[7] + f[8], cpus
end

-- A process's CPU ticks: its own and its waited-for children's (utime stime cutime cstime of
-- /proc/PID/stat, after the command's closing parenthesis); 0 where it is gone.
local function process_ticks(pid)
  local text = sys.readfile("/proc/" .. tostring(pid) .. "/stat")
  local rest = text and text:match("^.*%)%s+(.*)$")
  if not rest then return 0 end
  local f = {}
  for v in rest:gmatch("%S+") do f[#f + 1] = v end
  -- after ")": state is field 3 of the file, so utime (14) is the 12th here
  return (tonumber(f[12]) or 0) + (tonumber(f[13]) or 0) + (tonumber(f[14]) or 0) + (tonumber(f[15]) or 0)
end

--[[ A sampler: sample(core_pid) after each point, at once, returns the CPUs busy outside rot
  over the window that ends now (at least WINDOW back, to the sample nearest it; the first
  sample is where it starts, and the second waits until it reaches MIN_WINDOW), or nil when the
  machine does not say (no /proc/stat).
  rot's own: this process, its children it waited for (a core that ended, make, the compiler),
  and the core measuring now (core_pid, or nil). ]]
function M.sampler()
  local samples, self_pid = {}, sys.pid()
  local o = {}
  local function now_sample(core_pid)
    local busy, cpus = machine_busy()
    if not busy then return nil end
    local own = process_ticks(self_pid) + (core_pid and process_ticks(core_pid) or 0)
    return { t = sys.clock(), out = busy - own, cpus = cpus }
  end
  function o.sample(core_pid)
    local now = now_sample(core_pid)
    if not now then return nil end
    if #samples == 1 and now.t - samples[1].t < M.MIN_WINDOW then -- the run's first point: its window made long enough
      sys.sleep(M.MIN_WINDOW - (now.t - samples[1].t))
      now = now_sample(core_pid) or now
    end
    samples[#samples + 1] = now
    local from -- the newest sample at least WINDOW old; else the oldest
    for i = #samples - 1, 1, -1 do
      if now.t - samples[i].t >= M.WINDOW then from = i; break end
    end
    if from and from > 1 then -- older samples are no more needed
      local kept = {}
      for i = from, #samples do kept[#kept + 1] = samples[i] end
      samples, from = kept, 1
    end
    local first = samples[from or 1]
    local span = now.t - first.t
    if first == now or span < M.MIN_WINDOW then return nil end
    return math.floor(math.max(now.out - first.out, 0) / M.HZ / span * 1000 + 0.5) / 1000
  end
  return o
end

-- The session's tally of the points measured in it: how many, beside a neighbour, converged.
local function tally(s)
  return s:remember("neighbour tally", function() return { n = 0, busy = 0, converged = 0, cpus = 0, judged = 0 } end)
end

--[[ stamp(s, res): a point's result (rot.execute.batch's) marked with its neighbour figures:
  each run gets nbr and qwait (its round's: meta.neighbourCpus, the driver's, and meta.queueWait,
  the core's) and at (when the result arrived, CLOCK_MONOTONIC), which its cache entry keeps
  with the round; and the session's tally of the run counts it (M.line says what it saw). ]]
function M.stamp(s, res)
  local nbr, qwait = tonumber(res.meta.neighbourCpus), tonumber(res.meta.queueWait)
  local at = math.floor(sys.clock() * 1000 + 0.5) / 1000
  for _, r in ipairs(res.runs or {}) do r.nbr, r.qwait, r.at = nbr, qwait, at end
  if res.status ~= require("rot.protocol").status.ok then return end
  local t = tally(s)
  t.n = t.n + 1
  t.busy = t.busy + (M.busy(nbr, qwait, s.get and M.thresholds(s) or nil) and 1 or 0)
  t.converged = t.converged + (tonumber(res.meta.converged) == 1 and 1 or 0)
  if nbr then t.cpus, t.judged = t.cpus + nbr, t.judged + 1 end
  t.loadavg = res.meta.loadavg or t.loadavg
end

--[[ line(s, cpus) -> the line that ends a run measured on a busy machine, or nil: at least
  M.LINE_MIN points measured, and a quarter of them or more beside a neighbour, or half or more
  unconverged (best-k) while the machine spent M.CPUS / 2 CPUs outside rot on average. cpus: the
  machine's; peaks: whether the machine's ceilings were measured in the run. ]]
M.LINE_MIN = 8
function M.line(s, cpus, peaks)
  local t = tally(s)
  if t.n < M.LINE_MIN then return nil end
  local mean = t.judged > 0 and t.cpus / t.judged or 0
  local cpus_t = s.get and s:get("busyCpus") or M.CPUS
  if not (t.busy >= t.n / 4 or (cpus_t > 0 and t.converged <= t.n / 2 and mean >= cpus_t / 2)) then return nil end
  return string.format("rot: the machine was busy while measuring: %d of %d points ran beside a neighbour (%.2f CPUs "
    .. "busy outside rot on average, load %s on %d CPUs), %d of %d converged (best-k); measure "
      .. "again when it is quieter "
    .. "(`uptime` shows the load): the next run measures the flagged points again%s", t.busy, t.n, mean,
    tostring(t.loadavg or "?"):match("^(%S+ %S+ %S+)") or "?", cpus, t.converged, t.n,
    peaks and ", and `rot measure peaks -useCachedResults=false` measures the machine's ceilings afresh" or "")
end

--[[ Whether a round ran beside a neighbour: its CPUs busy outside rot (nbr) or its threads'
  run-queue wait (qwait) at or past the thresholds p = {cpus=, wait=} (the keys busyCpus and
  busyWait; default M.CPUS, M.QUEUE; 0: that figure never judges); nil figures judge nothing. ]]
function M.busy(nbr, qwait, p)
  local c, w = p and p.cpus or M.CPUS, p and p.wait or M.QUEUE
  return (c > 0 and (tonumber(nbr) or 0) >= c) or (w > 0 and (tonumber(qwait) or 0) >= w)
end

-- The thresholds of session s (the keys busyCpus and busyWait), as M.busy takes them.
function M.thresholds(s) return { cpus = s:get("busyCpus"), wait = s:get("busyWait") } end

return M
