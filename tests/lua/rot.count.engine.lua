-- Tests of rot.count.engine's reading of the counting tool's output (core/count/tool.c and
-- loops.c): a region and the program as before, and, with --rot-loops=yes, the objects, loops
-- (head, end, latches, nest, entries, iterations, counts), functions and unknown code, each
-- region's part of them; an output without loops has none. Its words are counts.h's
-- (rot.protocol.count): the output's lines apart from its first and back, rot-count's words on
-- its points, and the engine's identity changing with its sources.
-- judges no time
local t = require "tap"
local engine = require "rot.count.engine"
local WORDS = require("rot.protocol").count

local counts = " fp32_scalar=0 fp32_128=0 fp32_256=0 fp64_scalar=%d fp64_128=0 fp64_256=0 loaded=%d stored=0" ..
  " fill1=64 evict1=0 fill2=0 evict2=0 fill3=0 evict3=0 fill4=0 evict4=0"
local head = table.concat({
  "rotcount 1", "line 64", "level 1 size=49152 assoc=12", "misuses 0",
  "program threads=1" .. counts:format(2010, 24344),
  "region name=row calls=1 threads=1" .. counts:format(2010, 24344) }, "\n") .. "\n"
local loops = table.concat({
  "loops n=2",
  "object id=0 path=/usr/lib/x86_64-linux-gnu/libc.so.6",
  "object id=1 path=/tmp/a%20b/mv",
  "loop id=1 obj=1 head=0x1278 end=0x12ac latches=0x12aa depth=1 parent=0 entries=3 iterations=600 back=597" ..
    counts:format(10, 4800),
  "loop id=2 obj=1 head=0x1280 end=0x1297 latches=0x1295,0x12a0 depth=2 parent=1 entries=600 iterations=120000" ..
    " back=119400" .. counts:format(2000, 19200),
  "function obj=1 off=0x1240 named=1" .. counts:format(0, 320),
  "function obj=0 off=0x9bd80 named=0" .. counts:format(0, 16),
  "unknown" .. counts:format(0, 8) }, "\n") .. "\n"

local p = engine.parse(head .. loops)
t.ok(p and p.program.fp64_scalar == 2010 and p.regions.row and p.regions.row.calls == 1,
  "the program and its region read as ever, the loop lines beside them")
local named = engine.parse(head .. "region name=1e3 calls=1 threads=1" .. counts:format(0, 8) .. "\n")
t.ok(named.regions["1e3"] and named.order[2] == "1e3", "a region named '1e3' keeps its name (not the number 1000)")
local l = engine.loops(head .. loops)
t.ok(l and l.objects[0]:match("libc%.so%.6$") and l.objects[1] == "/tmp/a b/mv", "objects by id, paths unescaped")
t.is(#l.loops, 2, "two loops")
local outer, inner = l.loops[1], l.loops[2]
t.ok(outer.obj == 1 and outer.head == 0x1278 and outer["end"] == 0x12ac and outer.depth == 1 and outer.parent == 0 and
  outer.entries == 3 and outer.iterations == 600 and outer.back == 597, "a loop's range, nest, entries and iterations")
t.ok(#inner.latches == 2 and inner.latches[1] == 0x1295 and inner.latches[2] == 0x12a0 and inner.parent == 1 and
  inner.depth == 2, "its latches, parent and depth")
t.ok(inner.fp64_scalar == 2000 and inner.loaded == 19200 and inner.fill1 == 64, "its counts, as a region's")
t.ok(#l.functions == 2 and l.functions[1].off == 0x1240 and l.functions[1].named == 1 and l.functions[2].named == 0,
  "each function's code outside its loops")
local sum = l.unknown.loaded
for _, x in ipairs(l.loops) do sum = sum + x.loaded end
for _, x in ipairs(l.functions) do sum = sum + x.loaded end
t.is(sum, p.program.loaded, "loops, functions and unknown code hold every byte of the program's line")
-- each region's part of them: the loop's, the function's, unknown code's
local parts = table.concat({
  "regionloop region=row%20one id=2 entries=400 iterations=80000 back=79600 instrs=240000" ..
    counts:format(1300, 12800),
  "regionfunction region=row%20one obj=1 off=0x1240 named=1 instrs=5" .. counts:format(0, 32),
  "regionunknown region=row%20one instrs=2" .. counts:format(0, 8),
  "regionloop region=nowhere id=9 instrs=1" .. counts:format(0, 8) }, "\n") .. "\n"
local lp = engine.loops(head .. loops .. parts)
local ip = lp.loops[2].parts
t.ok(ip and #ip == 1 and ip[1].region == "row one" and ip[1].iterations == 80000 and ip[1].entries == 400 and
  ip[1].back == 79600 and ip[1].instrs == 240000 and ip[1].fp64_scalar == 1300 and not ip[1].id,
  "a loop's part in a region: its region's name, its iterations, entries, back edges, runs and counts")
t.ok(not lp.loops[1].parts and lp.functions[1].parts and lp.functions[1].parts[1].loaded == 32 and
  not lp.functions[2].parts and lp.unknown.parts and lp.unknown.parts[1].instrs == 2,
  "a function's part and unknown code's, matched by their place; one that ran in no region has none")
t.is(engine.loops(head .. loops).loops[2].parts, nil, "without parts (no region open), none")
t.is(engine.loops(head), nil, "an output without loops (counted without --rot-loops) has none")
t.is(engine.loops(nil), nil, "nor has no output")

-- the output's lines after its first (a count's cache entry keeps them), and its text again
local lines = engine.lines(head)
t.ok(lines and #lines == 5 and lines[1] == "line 64" and engine.text(lines) == head,
  "its lines after '" .. WORDS.magic .. "', and the same text again from them")
t.is(engine.lines("rotcount 2\nline 64\n"), nil, "another version's output is none of the tool's")
t.ok(engine.parse(engine.text({ "forks n=2", "later x=1", "misuses 3" })).forks == 2,
  "forks read (FILE.PID holds each child's counts), a word it does not know skipped")

-- the engine's identity (part of every count's description, so of its cache key) changes with
-- any of the tool's sources: a new output format never reads an older count's lines
local sys = require "rot.sys"
local home = assert(os.getenv("ROT_TEST_TMP")) .. "/home"
for _, d in ipairs({ "/core/count", "/core/include/rot" }) do sys.run({ "mkdir", "-p", home .. d }) end
for _, f in ipairs({ "/core/count/counts.h", "/core/count/loops.c", "/core/Makefile",
  "/core/include/rot/markers.h" }) do
  assert(sys.writefile(home .. f, f .. "\n"))
end
local function identity() return engine.identity({ home = home, remember = function(_, _, f) return f() end }) end
local before = identity()
assert(sys.writefile(home .. "/core/count/counts.h", "another output format\n"))
local after = identity()
t.ok(before.tool ~= after.tool and before.valgrind == after.valgrind,
  "the engine's identity changes with the tool's sources (counts.h: " .. before.tool .. " -> " .. after.tool .. ")")

-- rot-count's words: a point counted or failed on stdout, why on stderr
t.ok(select(2, engine.harness_line(WORDS.harness.counted .. " 12")) == "12" and
  engine.harness_line(WORDS.harness.failed .. " 3") == WORDS.harness.failed,
  "rot-count's word on each point, with its ID")
t.is(engine.harness_line("Triad: 12"), nil, "a kernel's own line is none of them")
local said = "rot-count: point 1: kernel 'x' did not initialize: out of memory\n" ..
  "rot-count: point 12: bad parameter 'q'\n"
t.is(engine.harness_why(said, "12"), "bad parameter 'q'", "why point 12 failed, in rot-count's words")
t.is(engine.harness_why(said, "2"), nil, "none for a point it said nothing of")
t.done()
