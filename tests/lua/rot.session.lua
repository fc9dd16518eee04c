-- Unit tests of rot.session: where cores are built; who holds a lock; whether progress shows;
-- the progress line's estimate of the first peaks' time.
-- judges no time
local t = require "tap"
local sys = require "rot.sys"

-- where cores are built: the key buildDir, absolute or from the working directory, else build/core
local session = require "rot.session"
local function bconf(d) return { get = function(_, k) return ({ buildDir = d })[k] end } end
t.is(session.builddir("/h", bconf("")), "/h/build/core", "no buildDir: the checkout's build/core")
t.is(session.builddir("/h", bconf("/tmp/x/../b")), "/tmp/b", "an absolute buildDir, normalised")
t.is(session.builddir("/h", bconf("b/c")), sys.realpath(".") .. "/b/c",
  "a relative buildDir is taken from the working directory")

-- who holds a lock: the process /proc/locks names, with its command line
do
  local path = assert(os.getenv("ROT_TEST_TMP")) .. "/held.lock"
  assert(sys.writefile(path, ""))
  local holder <close> = require("rot.process").spawn({ "flock", path, "sleep", "5" }, { stdin = "null" })
  local who
  for _ = 1, 50 do
    who = session.holder(path)
    if who then break end
    sys.sleep(0.05)
  end
  if sys.stat("/proc/locks") then
    t.ok(who and who:find("^pid %d+: flock " .. path:gsub("%p", "%%%0") .. " sleep 5$"),
      "the holder of a lock: its pid and "
      .. "command (" .. tostring(who) .. ")")
  else
    t.is(who, nil, "no /proc/locks here: nobody is named")
  end
  holder:kill()
  t.is(session.holder(assert(os.getenv("ROT_TEST_TMP"))), nil, "a file nobody locks: no holder")
end

-- whether progress shows: the one answer every progress line and phase asks for
t.ok(session.shows_progress("always") and not session.shows_progress("never"),
  "-progress=always shows it, never does not")
t.is(session.shows_progress("auto"), sys.isatty(2), "-progress=auto shows it where stderr is a terminal")

-- the first peaks' estimate: from the pace so far, against the points and time the notice promises
do
  local s = session.current()
  s:set_estimate(1243, 60)
  s.estimate.t0 = sys.clock() - 61
  s.estimate.done = 412
  local text = s:estimate_text()
  t.ok(text:find("peaks 412/~1243 points, 61 s: ~1%d%d s left at this pace %(x3%.1 the promised pace%)"),
    "the estimate from the pace so far: " .. text)
  s:set_estimate(nil)
  t.is(s:estimate_text(), "", "without one: nothing")
end

t.done()
