-- Unit tests of rot.results.survey on recorded samples and a recorded count (no program runs):
-- a sample in a counted loop is the innermost loop's, kernel and unknown code are rows of their
-- own, the shares come from the faster half of the invocations, a row's time is its share of
-- the program's, its counts are its loop's, and what is under the threshold is one row.
-- judges no time
local t = require "tap"
local function near(got, want, tol, name)
  t.ok(got and math.abs(got - want) <= tol, name .. " (" .. tostring(got) .. ")")
end
local regions = require "rot.results.regions"
local counted = require "rot.results.counted"

local P = "/nonexistent/survey/mv" -- (no file: the names are its object and offsets)
local desc = { app = { path = P, args = {}, env = {}, inputs = {} }, threads = 1,
  policy = { k = 2, epsilon = 0.05, maxRuns = 10 }, counts = {} }
local samples = {}
local function add(record, fields)
  fields.record = record
  samples[#samples + 1] = fields
end
for run, ns in pairs({ [0] = 10e6, [1] = 30e6, [2] = 10.5e6, [3] = 11e6 }) do
  add("sampled", { run = run, periodNs = 1000000, samples = 20, lost = 0, processes = 1 })
  add("object", { run = run, id = 2, path = P })
  if run == 1 then -- the slow invocation: elsewhere (a neighbour's, a barrier's)
    add("sample", { run = run, obj = 2, off = "0x1500", n = 50, callers = "-" })
  else
    add("sample", { run = run, obj = 2, off = "0x1300", n = 48, callers = "-" }) -- the inner loop
    add("sample", { run = run, obj = 2, off = "0x1284", n = 16, callers = "-" }) -- the outer one
    add("sample", { run = run, obj = 1, off = "0x0", n = 8, callers = "-" })
    add("sample", { run = run, obj = 0, off = "0x0", n = 4, callers = "-" })
    add("sample", { run = run, obj = 2, off = "0x1500", n = run == 0 and 1 or 0, callers = "-" })
  end
end
local runs = {}
for run, ns in pairs({ [0] = 10e6, [1] = 30e6, [2] = 10.5e6, [3] = 11e6 }) do
  runs[run + 1] = { ns = ns, threads = 1 }
end
local loops = { objects = { [3] = P }, functions = {}, unknown = { fp64_scalar = 7, loaded = 8, stored = 0 },
  loops = { { id = 1, obj = 3, head = 0x1280, ["end"] = 0x1320, latches = { 0x131c }, depth = 1, parent = 0,
    entries = 1,
    iterations = 100, fp64_scalar = 100, loaded = 800, stored = 0 },
    { id = 2, obj = 3, head = 0x1290, ["end"] = 0x1310, latches = { 0x1308 }, depth = 2, parent = 1, entries = 100,
      iterations = 10000, fp64_scalar = 20000, loaded = 160000, stored = 0 } } }
local record = { counts = { program = {} }, levels = {}, loops = loops }
local row = { point = { command = "mv" }, desc = desc, entry = { meta = {}, runs = runs, samples = samples },
  countRecord = record, measured = true }
local rows = regions.rows(row, 2, 0.02)
local by = {}
for _, r in ipairs(rows) do by[r.region] = r end
local inner = by[string.format("mv+0x%x loop (depth 2 of 2)", 0x1308)]
local outer = by[string.format("mv+0x%x loop (depth 1 of 2)", 0x131c)]
t.ok(inner and outer, "a sample in a counted loop is the innermost loop's, named by object and offset with its depth")
local prog = rows[1]
t.is(prog.region, regions.PROGRAM, "the program's row first")
-- the faster half: runs 0 and 2 (10 and 10.5 ms); their 153 samples: 96 inner, 32 outer, 16 kernel,
-- 8 unknown, 1 elsewhere
near(inner.share, 96 / 153, 1e-12, "its share: its samples over the faster half's (the slow invocation's left out)")
near(inner.time, 96 / 153 * prog.time, 1e-15, "its time: its share of the program's time")
t.ok(by["kernel code"] and by["unknown code"], "kernel and unknown code are rows of their own")
t.is(by["kernel code"].survey, "kernel", "each row says what it is")
local rest
for _, r in ipairs(rows) do if r.survey == "other" then rest = r end end
t.ok(rest and rest.region:match("^other code %(1 loop or function under") and math.abs(rest.share - 1 / 153) < 1e-12,
  "what is under the threshold is one row")
t.is(rows[2], inner, "the rows most first")
counted.apply(inner)
t.is(inner.flopsCounted, 20000, "a loop's counts are its own (its inner loop's are not its outer's)")
t.is(inner.counts, "counted", "its flops and bytes are the counted ones")
t.ok(inner.gflops and math.abs(inner.gflops - 20000 / inner.time / 1e9) < 1e-9, "its rate from its time")
counted.apply(by["unknown code"])
t.is(by["unknown code"].flopsCounted, 7, "unknown code's counts are its own")
t.is(inner.loopIterations, 10000, "its iterations in the counted run")
local total = 0
for _, r in ipairs(rows) do if r.survey then total = total + r.share end end
near(total, 1, 1e-12, "the rows share the whole time")
local plain = regions.rows({ point = {}, desc = desc, entry = { meta = {}, runs = runs, samples = samples },
  measured = true }, 2, 0.02)
local names = {}
for _, r in ipairs(plain) do if r.survey == "loop" then names[#names + 1] = r.region end end
t.is(#names, 0, "without a count: no loops, the samples are functions'")
t.done()
