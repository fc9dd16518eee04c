-- Unit tests of the counting pass (rot.count) with a fake engine (Valgrind would take minutes):
-- a count described by the describe stage (rot.describe.count), its text and hash describe's;
-- each point's count cached in the result cache (rot.cache: its lines, checksummed) and read
-- back on a rerun with nothing run; a damaged entry counted again; rot-count's words and the
-- engine's read through rot.protocol.count; failures worded (a point rot-count refused, a build
-- that failed, a run past its time, a program that exited); an application's output kept; the
-- session's progress line; executors that measure elsewhere or nothing.
-- topology: ordinary
-- judges no time
local t = require "tap"
local rot = require "rot"
local sys = require "rot.sys"
local cache = require "rot.cache"
local session = require "rot.session"
local describe = require "rot.describe"
local dcount = require "rot.describe.count"
local count = require "rot.count"
local engine = require "rot.count.engine"
local WORDS = require("rot.protocol").count

local tmp = assert(os.getenv("ROT_TEST_TMP"))
local S = session.current()
rot.set("cacheDir", tmp .. "/cache")
rot.set("buildDir", tmp .. "/build")
rot.set("progress", "never")
S.scheduled = true -- (no machine-wide measuring lock: nothing is measured here)
S.executor = require("rot.execute").executors["local"]

-- The fake engine: a run's argv read for its output file and program; the tool's output written
-- from `output(prog)` (lines after the magic), rot-count's words from `said(prog)` (stdout lines,
-- stderr text, exit status).
local fake = { runs = 0, builds = 0 }
engine.check = function() end
engine.identity = function() return { valgrind = "valgrind-3.19.0", tool = "0123456789abcdef" } end
engine.build = function(_, desc, kinfo)
  fake.builds = fake.builds + 1
  if fake.build_error then return nil, fake.build_error end
  return { tool = "/fake/valgrind", harness = not kinfo.app and "/fake/rot-count" or nil, recorder = "/fake/rec.so" }
end
engine.run = function(argv, dir, patience, line, err)
  fake.runs, fake.argv, fake.dir = fake.runs + 1, argv, dir
  local out, prog
  for i, a in ipairs(argv) do
    out = out or a:match("^%-%-rot%-out=(.*)$")
    if a == "--error-exitcode=0" then prog = { table.unpack(argv, i + 1) } end
  end
  if prog[1]:match("^%-%-rot%-cache=") then table.remove(prog, 1) end
  fake.loops = prog[1] == "--rot-loops=yes" -- (a program's: the loop survey's)
  if fake.loops then table.remove(prog, 1) end
  local lines, stdout, stderr, status = fake.output(prog)
  if lines then assert(sys.writefile(out, engine.text(lines))) end
  assert(sys.writefile(err, stderr or ""))
  for _, l in ipairs(stdout or {}) do line(l) end
  if status == "timeout" then return nil, "timeout" end
  return status or 0
end

local function counts(flops, loaded)
  local parts = {}
  for _, k in ipairs(WORDS.classes) do parts[#parts + 1] = k .. "=" .. (k == "fp64_256" and flops or 0) end
  parts[#parts + 1] = "loaded=" .. loaded .. " stored=" .. (loaded // 2)
  for _, k in ipairs(WORDS.traffic) do parts[#parts + 1] = k .. "=" .. (k == "fill1" and loaded or 0) end
  return table.concat(parts, " ")
end
local W = WORDS.records

-- rot-count's run of the points in prog ("/fake/rot-count ID warm KERNEL THREADS n=N -- ..."):
-- each region's flops n, its loads 24 n; rot-count's word on each; the ones in `refuse` fail
-- (their regions written all the same, partial, as a point that crashed leaves its own).
local function harness(refuse)
  return function(prog)
    local lines = { W.line .. " 64", W.level .. " 1 size=49152 assoc=12", W.misuses .. " 0",
      W.program .. " threads=1 " .. counts(0, 0) }
    local stdout, stderr, id = {}, "", nil
    for i = 2, #prog do
      if prog[i - 1] == prog[1] or prog[i - 1] == "--" then id = prog[i] end
      local n = prog[i]:match("^n=(%d+)")
      if n and refuse and refuse[id] then
        lines[#lines + 1] = W.region .. " name=" .. id .. " calls=1 threads=1 whole_process=1 " .. counts(1, 24)
        stdout[#stdout + 1] = WORDS.harness.failed .. " " .. id
        stderr = stderr .. WORDS.harness.point .. " " .. id .. ": " .. refuse[id] .. "\n"
      elseif n then
        lines[#lines + 1] = W.region .. " name=" .. id .. " calls=1 threads=1 whole_process=1 " .. counts(n, 24 * n)
        stdout[#stdout + 1] = WORDS.harness.counted .. " " .. id
      end
    end
    return lines, stdout, stderr, next(refuse or {}) and 1 or 0
  end
end

-- A kernel row as rot.measure hands it to the pass: described, timed (its entry), asked to count.
local function row(n, extra)
  local spec = { kernel = "triad", params = { n = n }, count = true }
  for k, v in pairs(extra or {}) do spec[k] = v end
  local desc, kinfo = describe.describe(S, spec)
  return { point = { n = n }, spec = spec, desc = desc, kinfo = kinfo, entry = { meta = {}, runs = {} } }
end

-- describe through describe: the count's description made from the point's, hashed as a point's is
do
  local a, b = row(1000), row(1000, { minRunTime = 2, round = 2, counters = { "cycles" } })
  local o = { engine = engine.identity(S), caches = "49152:12", line = 64, build = "k" }
  local da, db = dcount.describe(a.desc, o), dcount.describe(b.desc, o)
  local ta, ha = describe.key(da)
  t.ok(da.count == dcount.VERSION and da.workloads[1].kernel == "triad" and da.workloads[1].params.n == 1000 and
    da.cacheMode == "warm" and da.build == "k" and da.machine == a.desc.machine and da.caches == "49152:12",
    "a kernel's count is of its workloads, cache mode, build, simulated caches, engine and machine")
  t.is(ta, describe.key(db), "the timed point's policy, round and counters are no part of it: " .. ha:sub(1, 12))
  t.ok(ha ~= select(2, describe.key(dcount.describe(row(2000).desc, o))), "another size is another count")
  t.raises(function() dcount.describe(a.desc, { engine = o.engine }) end, "build key",
    "a kernel's count needs its build key")
end

-- two points of one build: one rot-count run, each point's count cached under its description's hash
fake.output = harness()
local rows = { row(1000), row(2000) }
count.count(S, rows)
t.is(fake.runs, 1, "two points of one build: one run of rot-count")
local r1 = rows[1].countRecord
t.ok(r1 and r1.counts.fp64_256 == 1000 and r1.counts.loaded == 24000 and rows[2].countRecord.counts.fp64_256 == 2000,
  "each point's record holds its own region's counts")
t.ok(r1 and r1.levels[1].size == 49152 and r1.line == 64 and r1.caches:find("L1 ") == 1,
  "and the simulated levels and the caches in words (" .. tostring(r1 and r1.caches) .. ")")
local files, results = {}, tmp .. "/cache/results/"
for _, p in ipairs(sys.listdir(results) or {}) do
  for _, f in ipairs(sys.listdir(results .. p) or {}) do files[#files + 1] = results .. p .. "/" .. f end
end
t.is(#files, 2, "two entries in the one result cache (cacheDir/results)")
local e = cache.read(files[1])
t.ok(e and e.counted and e.counted[1] == W.line .. " 64" and e.meta.countRegion ~= nil and
  e.description:find('%["count"%]=') ~= nil,
  "an entry keeps the tool's lines, its point's region and the count's description")
local own = 0
for _, l in ipairs(e and e.counted or {}) do
  own = own + ((l:match("^" .. W.region .. " ") or l:match("^" .. W.program .. " ")) and 1 or 0)
end
t.is(own, 1, "its own region's line alone (no program line, no other point's region)")
local text = sys.readfile(files[1])
t.ok(text:find("\ncounted " .. W.line .. " 64\n") and text:find("\nchecksum %x+\n$"),
  "written as every entry, checksummed")

-- a rerun: every count from the cache, nothing built or run; the summary says so
fake.runs, fake.builds = 0, 0
local again = { row(1000), row(2000) }
count.count(S, again)
t.ok(fake.runs == 0 and fake.builds == 0 and again[2].countRecord and again[2].countRecord.counts.fp64_256 == 2000,
  "a rerun takes both counts from the cache, nothing built or run")
t.ok(S:summary():find("count [%d.]+ s %(2 counted, 2 from the cache%)") ~= nil, "the summary: " .. S:summary())

-- a damaged entry: said, counted again
do
  local f = assert(io.open(files[1], "r+"))
  f:seek("set", 40)
  f:write("X")
  f:close()
  local err = t.capture("stderr", function() count.count(S, { row(1000), row(2000) }) end)
  t.ok(err:find("corrupted cache entry '.-': checksum mismatch; counting it again") and fake.runs == 1,
    "a damaged entry is said and counted again (" .. err:gsub("\n", " ") .. ")")
end

-- failures worded: a point rot-count refused, in its own words; the rest of its run kept
fake.output = harness({ ["2"] = "bad parameter 'n=3e3'" })
local two = { row(3000), row(4000) }
local err = t.capture("stderr", function() count.count(S, two) end)
t.ok(two[1].countRecord and two[2].countFailed == "bad parameter 'n=3e3'",
  "a point rot-count refused fails in its words")
t.ok(err:find("rot: counting point 'n=4000' failed: bad parameter 'n=3e3'\n", 1, true) ~= nil,
  "said on stderr: " .. err)
t.ok(S:summary():find("1 failed, ") ~= nil, "and the summary counts it failed")

-- a build that fails: every point of it, the compiler's lines once
fake.build_error = "the counting pass for kernel 'triad' does not build:\ntriad.c:3: error: oops"
err = t.capture("stderr", function() two = { row(5000), row(6000) }; count.count(S, two) end)
fake.build_error = nil
t.ok(two[1].countFailed == "the counting pass for kernel 'triad' does not build:" and two[2].countFailed ==
  two[1].countFailed, "a build that fails fails each of its points")
local _, said = err:gsub("triad.c:3: error: oops", "")
t.is(said, 1, "the compiler's lines said once")

-- a run past its patience
fake.output = function(prog) return nil, {}, "", "timeout" end
t.capture("stderr", function() two = { row(7000) }; count.count(S, two) end)
t.ok(tostring(two[1].countFailed):find("^kernel 'triad' ran past %d+ s under the counting engine$") ~= nil,
  "a run past its time: " .. tostring(two[1].countFailed))

-- an application: its program run under the engine with the recorder, its output's last bytes kept
local prog = tmp .. "/app.sh"
assert(sys.writefile(prog, "#!/bin/sh\necho hi\n"))
sys.run({ "chmod", "+x", prog })
local function app_row()
  local spec = { app = prog, args = { "a b" }, count = true }
  local desc, kinfo = describe.describe(S, spec)
  return { point = { app = "x" }, spec = spec, desc = desc, kinfo = kinfo,
    entry = { meta = {}, runs = {}, regions = {} } }
end
fake.output = function(p)
  fake.prog = p
  return { W.line .. " 64", W.misuses .. " 0", W.forks .. " n=1", W.program .. " threads=2 " .. counts(8, 80),
    W.region .. " name=solve%20it calls=3 threads=2 whole_process=0 " .. counts(6, 60), "newword x=1",
    W.loops .. " n=0", W.object .. " id=0 path=" .. p[1], W.object .. " id=1 path=/usr/lib/libgomp.so.1" },
    { "Triad: 1.0", "done" }, "", 0
end
local a = { app_row() }
count.count(S, a)
local rec = a[1].countRecord
t.ok(fake.prog[1] == prog and fake.prog[2] == "a b" and fake.dir == a[1].desc.app.dir,
  "its program and argument, in its directory")
t.ok(fake.loops, "its loops found (--rot-loops=yes: the loop survey's)")
t.ok(rec and rec.counts.program.fp64_256 == 8 and rec.counts.regions["solve it"].calls == 3 and rec.counts.forks == 1,
  "its program's and regions' counts (a name %XX-escaped, a word it does not know skipped)")
t.is(rec and rec.stdout, "Triad: 1.0\ndone\n", "its output kept with its count")
t.ok(rec and rec.note == count.OPENMP_NOTE, "and how it was counted: an OpenMP runtime's code ran in it")
fake.runs = 0
local b = { app_row() }
count.count(S, b)
t.ok(fake.runs == 0 and b[1].countRecord.stdout == "Triad: 1.0\ndone\n",
  "a rerun takes it, output and all, from the cache")
-- a program that ran no OpenMP runtime's code: no word of OMP_WAIT_POLICY, also from an entry
-- written when every program's count said it
fake.output = function(p)
  return { W.line .. " 64", W.misuses .. " 0", W.program .. " threads=1 " .. counts(4, 40), W.loops .. " n=0",
    W.object .. " id=0 path=" .. p[1], W.object .. " id=1 path=/usr/lib/x86_64-linux-gnu/libm.so.6" }, {}, "", 0
end
local serial = { app_row() }
serial[1].desc.app.args = { "serial" }
count.count(S, serial)
local srec = serial[1].countRecord
local stored = { counted = { W.line .. " 64", W.program .. " threads=1 " .. counts(4, 40), W.loops .. " n=0",
  W.object .. " id=0 path=/x/app" }, meta = { countNote = count.OPENMP_NOTE } }
t.ok(srec and srec.counts.program and srec.note == nil and count.record(stored).note == nil
  and count.openmp({ "/opt/intel/lib/libiomp5.so" }) and count.openmp({ "/w/numpy.libs/libgomp-a34b3233.so.1.0.0" }),
  "a program that ran no OpenMP runtime: no OMP_WAIT_POLICY note, nor from an entry that said it of every program")
fake.output = function() return { W.line .. " 64", W.misuses .. " 0", W.program .. " threads=1 " .. counts(0, 0) },
  {}, "", 3 end
local c = { app_row() }
c[1].desc.app.args = { "other" }
t.capture("stderr", function() count.count(S, c) end)
t.is(c[1].countFailed, "application 'app.sh' exited with status 3 under the counting engine", "a program that exits 3")

-- the session's progress line counts the points under the stage, and is cleared after
rot.set("progress", "always")
fake.output = harness()
err = t.capture("stderr", function() count.count(S, { row(8000), row(9000) }) end)
rot.set("progress", "never")
t.ok(err:find(count.STEP .. ": point 1/2", 1, true) and err:find(count.STEP .. ": point 2/2", 1, true) and
  err:sub(-4) == "\r\27[K", "the session's line steps once a point as rot-count says it: " .. err:gsub("[\r\27]", "|"))
t.is(S.step, nil, "and the step is cleared after")

-- the count key: the script's points counted, not the machine's ceilings measured on the side
do
  local function keyed(n) -- a point asked by the key alone (its spec says nothing)
    local r = row(n)
    r.spec.count = nil
    return r
  end
  rot.set("count", true)
  fake.runs, fake.output = 0, harness()
  local side = { keyed(11000) }
  S:aside(count.count, S, side)
  t.ok(fake.runs == 0 and side[1].countRecord == nil,
    "-count=true counts no point measured aside (the machine's ceilings a first roofline measures)")
  local own = { keyed(11000) }
  count.count(S, own)
  t.ok(fake.runs == 1 and own[1].countRecord ~= nil, "and counts the script's own")
  rot.set("count", false)
end

-- executors: one that measures elsewhere (a Slurm run's) says why nothing is counted; rot build, nothing
fake.runs = 0
S.executor = { name = "slurm", measures_here = false }
err = t.capture("stderr", function() count.count(S, { row(10000) }) end)
t.ok(fake.runs == 0 and err:find("points measured with %-executor=slurm are not counted") ~= nil,
  "a Slurm run's: " .. err)
S.executor = { name = "build", measures_here = false, builds_only = true }
err = t.capture("stderr", function() count.count(S, { row(10000) }) end)
t.ok(fake.runs == 0 and err == "", "rot build's: nothing counted, nothing said")
t.done()
