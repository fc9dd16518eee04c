-- rot.session: one invocation of rot: where it runs (checkout, script, build directory), its
-- configuration and executor, its run directory, its memo, what it did (the summary line), and
-- rot's locks (lock: says once that it waits for another rot, and counts the wait). Its state is
-- declared in new() and written only through its methods.
local sys = require "rot.sys"
local util = require "rot.util"
local gen = require "rot.gen"

local M = {}
local Session = {}
Session.__index = Session
M.Session = Session

--[[ new{home=, config=, script_dir=, builddir=, executor=, script=, scheduled=}: home is the
  checkout, script_dir the folder of the measurement script (kernels/ beside it are found),
  builddir where cores are built (default M.builddir: buildDir, else home/build/core; a Slurm
  worker builds on its node), executor the module that measures points (rot.execute: local,
  slurm, build), script the measurement's name (recorded in every cache entry it writes),
  scheduled: a Slurm task, whose node the scheduler gave it (no machine-wide measuring lock). ]]
function M.new(o)
  return setmetatable({
    home = o.home, config = o.config, script_dir = o.script_dir, script = o.script,
    builddir = o.builddir or M.builddir(o.home, o.config), executor = o.executor, scheduled = o.scheduled,
    output_dir = o.output_dir, memo = {}, t_start = sys.clock(),
    -- what the run record keeps (rot.history): every row settled outside Session:aside, in
    -- order (an interrupted run's too), and the axes rot.measure saw, in order
    rows = {}, axes = {}, aside_depth = 0,
    -- rot.measure calls under way (counted by rot.measure), and whether the script's error was
    -- raised in one (set by the CLI's error handler): rot build fails on an error in the points'
    -- description, and stops with a note on the script's others
    describing = 0, error_describing = false,
    count = { points = 0, hits = 0, measured = 0, failed = 0, slurm = 0, builds = 0, build_failures = 0, refused = 0 },
    aside_count = { points = 0, hits = 0, measured = 0, failed = 0, slurm = 0 }, -- rows settled in aside
    time = { build = 0, measure = 0, cache = 0, plot = 0, wait = 0, count = 0 }, -- wait: for another rot's lock
    -- the counting pass's points (rot.count): counted under its engine, found in its cache
    counted = { counted = 0, hits = 0, failed = 0 },
    waited = {}, -- the locks it said it waits for (rot.session.lock)
    said = {}, -- what it said once (Session:once): a note, a warning, by what
    -- (set later, each by its method) step: the step the progress line counts (the peaks'
    -- rounds: Session:set_step); no_device: why GPU points cannot run here, once a core said so
    -- (Session:set_no_device); settle_hook: called with each settled row (a Slurm worker
    -- reports it: Session:on_settle); output_dir: where rot build writes outputs (Session:set_output_dir)
    step = nil, no_device = nil, settle_hook = nil,
  }, Session)
end

-- Where cores are built: the key buildDir (absolute; a relative one from the working
-- directory), else (or with no config) the checkout's build/core.
function M.builddir(home, config)
  local d = config and config:get("buildDir") or ""
  if d == "" then return home .. "/build/core" end
  if d:sub(1, 1) ~= "/" then
    local cwd = sys.realpath(".")
    if not cwd then
      util.fail("cannot resolve buildDir '" .. d .. "': the working directory is gone", "give an absolute path")
    end
    d = cwd .. "/" .. d
  end
  return util.normpath(d)
end

function Session:get(key) return self.config:get(key) end

-- The value memo[key], computed once by f().
function Session:remember(key, f)
  local v = self.memo[key]
  if v == nil then v = f(); self.memo[key] = v end
  return v
end

-- Forgets memo entries: the key which, or every key for which which(key) is true (what other
-- processes may have changed since: the core-hash store, a kernel's recorded files).
function Session:forget(which)
  for k in pairs(self.memo) do
    if k == which or (type(which) == "function" and which(k)) then self.memo[k] = nil end
  end
end

-- True the first time it is asked about what in this invocation (a note, a warning said once).
function Session:once(what)
  if self.said[what] then return false end
  self.said[what] = true
  return true
end

-- Adds to the summary's count of points the counting pass counted, found in its cache, and
-- failed to count.
function Session:add_counted(counted, hits, failed)
  local n = self.counted
  n.counted, n.hits, n.failed = n.counted + counted, n.hits + hits, n.failed + (failed or 0)
end

-- Adds n (default 1) to the summary's count of what (builds, build_failures, refused).
function Session:add(what, n)
  self.count[what] = self.count[what] + (n or 1)
end

--[[ What the progress line estimates the time left of, from the pace so far: points as many as
  a measurement took where its figure was measured, in seconds (the machine's first peaks: their
  line promises a time); nil: none. ]]
function Session:set_estimate(points, seconds)
  self.estimate = points and { points = points, seconds = seconds, done = 0, t0 = sys.clock() } or nil
end

-- The estimate's words on the progress line: "peaks 412/~1243 points, 61 s: ~120 s left at
-- this pace (x2.1 the idle one)"; "" without one.
function Session:estimate_text()
  local e = self.estimate
  if not (e and e.done > 0) then return "" end
  local el = sys.clock() - e.t0
  local left = e.done < e.points and string.format("~%.0f s left at this pace", el / e.done * (e.points - e.done))
    or "more points than there"
  return string.format("  peaks %d/~%d points, %.0f s: %s (x%.1f the promised pace)", e.done, e.points, el, left,
    el / e.done / (e.seconds / e.points))
end

-- The step the progress line counts (nil: none; Session:aside's end clears it).
function Session:set_step(text) self.step = text end

-- Why GPU points cannot run here, as a core said it (the rest of the run's GPU points fail so).
function Session:set_no_device(why) self.no_device = why end

-- f(row) is called with each row settled from now on.
function Session:on_settle(f) self.settle_hook = f end

-- Where this invocation writes tables, CSV files and plots instead of outputDir.
function Session:set_output_dir(dir) self.output_dir = dir end

--[[ A to-be-closed scope in which the points of a rot.measure are described: an error raised in
  it is one in the points' description (Session:description_error, from the CLI's handler). ]]
function Session:describing_scope()
  self.describing = self.describing + 1
  return setmetatable({}, { __close = function() self.describing = self.describing - 1 end })
end

-- Notes that the script's error was one in its points' description (or that the script did not
-- load: it describes nothing), when one is under way or always.
function Session:description_error(always)
  if always or self.describing > 0 then self.error_describing = true end
end

-- f(...) with its time added to the summary's `what` (build, measure, cache, plot).
-- (counted also when f raises: an interrupted run's summary shows the time it measured).
function Session:timed(what, f, ...)
  local t0 = sys.clock()
  local count <close> = setmetatable({}, { __close = function()
    self.time[what] = self.time[what] + (sys.clock() - t0)
  end })
  return f(...)
end

-- Whether progress shows on stderr for the key progress's value (mode): always, never, or auto
-- (where stderr is a terminal). Every progress line and phase asks this.
function M.shows_progress(mode)
  return mode == "always" or (mode == "auto" and sys.isatty(2))
end

--[[ The progress line on stderr (a terminal, unless -progress=always|never): begin(n) before n
  points, every settle() steps it (advance() where a point is done but settled already: the
  counting pass's), quiet() clears it before a message, done() at the end; self.step, when set
  (the peaks' rounds, the counting pass), names the step it counts (cleared by aside's end).
  note: said once instead where no line shows (stderr no terminal), unless -progress=never. ]]
function Session:begin(n, note)
  local mode = self:get("progress")
  self.progress = { on = M.shows_progress(mode), n = n, i = 0, hits = 0, t0 = sys.clock() }
  if note and mode ~= "never" and not self.progress.on then io.stderr:write("rot: ", note, "\n") end
end

function Session:quiet()
  io.stdout:flush() -- what went to stdout before comes before the message, in one file too
  if self.progress and self.progress.on then io.stderr:write("\r\27[K"); io.stderr:flush() end
end
Session.done = Session.quiet

--[[ An executor's one report of a row's outcome, as soon as it is known: a hit (row.cached), a
  measurement (row.measured, row.slurm) or a failure (row.failed, the reason). Counts it for
  the summary (so an interrupted run still says what it did), steps the progress line and
  calls on_settle(row) when set (a Slurm worker reports each point). Every row an executor
  returns is settled exactly once. ]]
function Session:settle(row)
  if row.settled then error("rot: internal error: a row was settled twice", 2) end
  row.settled = true
  local c = self.aside_depth == 0 and self.count or self.aside_count
  c.points = c.points + 1
  if row.failed then c.failed = c.failed + 1
  elseif row.cached then c.hits = c.hits + 1
  elseif row.measured then
    c.measured = c.measured + 1
    if row.slurm then c.slurm = c.slurm + 1 end
  end
  if self.aside_depth == 0 then self.rows[#self.rows + 1] = row end
  if self.settle_hook then self.settle_hook(row) end
  if self.estimate and row.measured then self.estimate.done = self.estimate.done + 1 end
  self:advance(row.cached)
end

-- Steps the progress line by one point (hit: one a cache held).
function Session:advance(hit)
  local p = self.progress
  if not p then return end
  p.i, p.hits = p.i + 1, p.hits + (hit and 1 or 0)
  if not p.on then return end
  local el = sys.clock() - p.t0
  io.stderr:write(string.format("\r\27[K%spoint %d/%d  hits %d  elapsed %.1f s  eta %.1f s%s",
    self.step and (self.step .. ": ") or "", p.i, p.n, p.hits, el, el / p.i * math.max(p.n - p.i, 0),
    self:estimate_text()))
  io.stderr:flush()
end

-- The progress line during round r of a point's rounds: its i-th point of n (no eta: how many
-- rounds the points still want is known only as they agree).
function Session:round_progress(r, i, n)
  local p = self.progress
  if not (p and p.on) then return end
  io.stderr:write(string.format("\r\27[K%sround %d: point %d/%d  settled %d/%d  elapsed %.1f s%s",
    self.step and (self.step .. ": ") or "", r, i, n, p.i, p.n, sys.clock() - p.t0, self:estimate_text()))
  io.stderr:flush()
end

-- The rows the run record keeps from position first on, put in the order of rows (an executor's
-- rows, in item order): they were settled as each finished, which rounds make any order.
function Session:record_order(first, rows)
  local tail, placed = {}, {}
  for i = first, #self.rows do tail[self.rows[i]] = true; self.rows[i] = nil end
  for _, r in ipairs(rows) do
    if tail[r] and not placed[r] then placed[r] = true; self.rows[#self.rows + 1] = r end
  end
  for r in pairs(tail) do if not placed[r] then self.rows[#self.rows + 1] = r end end -- (none: every row is returned)
end

-- f(...) with the rows it settles kept out of the run record: points measured on the side,
-- such as the machine's ceilings measured first (rot.peaks), are no part of the script's run.
function Session:aside(f, ...)
  self.aside_depth = self.aside_depth + 1
  local restore <close> = setmetatable({}, { __close = function()
    self.aside_depth, self.step = self.aside_depth - 1, nil
  end })
  return f(...)
end

-- Notes the axes of one rot.measure (the run record lists coordinates in this order); not
-- those of one in Session:aside, whose rows the record does not keep either.
function Session:note_axes(names)
  if self.aside_depth > 0 then return end
  local seen = {}
  for _, a in ipairs(self.axes) do seen[a] = true end
  for _, a in ipairs(names) do
    if not seen[a] then seen[a] = true; self.axes[#self.axes + 1] = a end
  end
end

--[[ This invocation's run directory (the core's input and stderr; rot build writes a script's
  outputs there, nowhere else): cacheDir/run/PID-HOST-STAMP, removed at the end; ones left by
  a killed rot on this host are removed by the next (a cache folder shared by Slurm nodes holds
  other hosts' live ones, whose pids mean nothing here). ]]
function Session:run_dir()
  if self.rundir then return self.rundir end
  local base = self:get("cacheDir") .. "/run"
  util.ensure_dir(base, "cache directory", "cacheDir")
  local host = util.hostname():gsub("[^%w.-]", "_")
  for _, d in ipairs(sys.listdir(base) or {}) do
    local pid, h = d:match("^(%d+)%-(.+)%-%x+$")
    if not pid then pid, h = d:match("^(%d+)%-%x+$"), host end -- a name without a host: this host's
    pid = tonumber(pid)
    if pid and h == host and pid ~= sys.pid() and not sys.alive(pid) then sys.removetree(base .. "/" .. d) end
  end
  local dir = base .. "/" .. sys.pid() .. "-" .. host .. "-" .. string.format("%x",
    math.floor(sys.clock() * 1e6) % 0x1000000)
  util.ensure_dir(dir, "cache directory", "cacheDir")
  self.rundir = dir
  return dir
end

-- This invocation's name, as the rounds it measures are stamped with: its run directory's.
function Session:invocation() return (self:run_dir():match("[^/]+$")) end

function Session:cleanup()
  if self.rundir then sys.removetree(self.rundir); self.rundir = nil end
end

-- Where tables, CSV files and plots go (created, with a clear error when it cannot be written).
function Session:outdir()
  local dir = self.output_dir or self:get("outputDir")
  util.ensure_dir(dir, "output directory", "outputDir")
  return dir
end

-- Points settled in Session:aside (the machine's ceilings, looked up or measured for the
-- script's results), for the closing lines: "" when there were none.
function Session:aside_summary(what)
  local a = self.aside_count
  if a.points == 0 then return "" end
  if what == "described" then return string.format("; the machine's ceilings: %d points", a.points) end
  return string.format("; the machine's ceilings: %d points, %d hits, %d measured, %d failed", a.points, a.hits,
    a.measured, a.failed)
end

-- How many points failed, the script's and the ceilings' (a run with any exits with 1).
function Session:failures() return self.count.failed + self.aside_count.failed end

-- The closing line of a measure run: the script's points, then the ceilings'.
function Session:summary()
  local c, t = self.count, self.time
  local n = self.counted
  local counted = n.counted + n.hits + n.failed > 0
    and string.format("count %.2f s (%d counted, %s%d from the cache), ",
    t.count, n.counted, n.failed > 0 and (n.failed .. " failed, ") or "", n.hits) or ""
  return string.format("rot: %d points, cache: %d hits, %d measured%s, %d failed%s; time: build %.2f s, "
    .. "measure %.2f s, cache %.3f s, %splot %.2f s, %stotal %.2f s",
    c.points, c.hits, c.measured, c.slurm > 0 and (" (" .. c.slurm .. " on Slurm)") or "",
    c.failed, self:aside_summary(), t.build, t.measure, t.cache, counted, t.plot,
    t.wait > 0 and string.format("waiting for another rot %.2f s, ", t.wait) or "", sys.clock() - self.t_start)
end

-- The closing line of rot build.
function Session:build_summary()
  local c = self.count
  return string.format("rot build: %d %s built, %d failed; %d points described%s%s; time: build %.2f s, total %.2f s",
    c.builds, util.plural(c.builds, "core"), c.build_failures, c.points,
    c.refused > 0 and string.format(", %d with parameters their kernel refuses", c.refused) or "",
    self:aside_summary("described"),
    self.time.build, sys.clock() - self.t_start)
end

-- The session scripts run in (rot.measure and the library use it); set by the CLI.
local current
function M.current()
  if not current then error("no rot session: scripts run through `rot measure` or `rot run`", 2) end
  return current
end
function M.set_current(s) current = s end

--[[ Who holds the lock at path: "pid 4711: rot-driver measure triad" (its command line, at most
  120 bytes), from /proc/locks (the holder of a flock on the file's device and inode, not a
  waiter) and /proc/PID/cmdline; nil where the machine does not say (no /proc, a holder in
  another namespace). ]]
function M.holder(path)
  local _, _, _, _, where = sys.stat(path)
  local locks = where and sys.readfile("/proc/locks")
  local pid = locks and locks:match("\n?%d+: FLOCK +%S+ +%S+ +(%d+) " .. where:gsub("%p", "%%%0") .. " ")
  if not pid then return nil end
  local cmd = (sys.readfile("/proc/" .. pid .. "/cmdline") or ""):gsub("%z$", ""):gsub("%z", " ")
  if #cmd > 120 then cmd = cmd:sub(1, 117) .. "..." end
  return "pid " .. pid .. (cmd ~= "" and (": " .. cmd) or "")
end

--[[ The lock at path (rot.gen's, a to-be-closed value), or nil, message when it cannot be
  opened. When another process holds it, says so once per path and run, with who holds it (the
  progress line cleared first), then waits; the wait counts in the summary's time. ]]
function M.lock(path)
  local lock, err = gen.lock(path, false)
  if lock or err ~= "busy" then return lock, err end
  local s = current
  if not (s and s.waited[path]) then
    if s then s.waited[path] = true; s:quiet() end
    local who = M.holder(path)
    io.stderr:write("rot: waiting for another rot process (lock '", path, "'", who and (", held by " .. who)
      or "", ")\n")
  end
  if not s then return gen.lock(path) end
  return s:timed("wait", gen.lock, path)
end
function M.peek() return current end -- the session, or nil before the CLI has made one

return M
