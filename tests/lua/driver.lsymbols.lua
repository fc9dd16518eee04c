-- Tests of rot.symbols (driver/lsymbols.c over driver/symbols.c, elfutils' libdwfl) on programs
-- built here from tests/loops/nest.c: -O2 -g (a loop's latch at its `for` line, the inlined
-- helper's loop named with the line that inlined it), without -g (the symbol table's names),
-- stripped (object and offset), the maths library (a shared library named as such), a file
-- that is not there and one that is no ELF file.
-- judges no time
local t = require "tap"
local sys = require "rot.sys"
local symbols = require "rot.symbols"

local dir = os.getenv("ROT_TEST_TMP") or (os.tmpname() .. ".d")
sys.mkdir(dir)
local src = "tests/loops/nest.c"
local function build(out, ...)
  local argv = { "gcc", "-O2", "-o", dir .. "/" .. out, src, ... }
  return sys.run(argv, { quiet = true }) == 0
end
t.ok(build("nest", "-g") and build("nest-nog") and sys.run({ "strip", "-o", dir .. "/nest-stripped",
  dir .. "/nest" }) == 0,
  "nest built -O2 -g, without -g, and stripped")

-- the lines the source names (a LOOP comment on each loop's `for`) and the helper's call
local line = {}
local n = 0
for l in io.lines(src) do
  n = n + 1
  line[l:match("/%* LOOP (%S+) %*/") or ""] = n
  if l:match("sum %+= dot_scaled") then line.call = n end
end

-- main's offset and size in the file, from binutils' nm (independent of libdw)
local function nm_symbol(path, name, dynamic)
  local _, out = sys.run({ "nm", dynamic and "-D" or "--defined-only", path }, { capture = true })
  for a, kind, s in (out or ""):gmatch("(%x+) (%a) ([^\n]+)") do
    if s:gsub("@.*$", "") == name and kind:match("[TtW]") then return tonumber(a, 16) end
  end
end
local main = nm_symbol(dir .. "/nest", "main")
local st <close> = symbols.open()

local w = st:lookup(dir .. "/nest", main)
t.ok(w and w.func == "main" and w.funcOffset == main and w.name == "main" and w.object == "nest" and not w.shared,
  "main's entry: its own function, named as the program calls it, in the program (not a library)")
-- every place of main: one whose innermost function is the inlined helper, at the helper's
-- loop, inlined at main's call
local inlined, at_lines = nil, {}
for off = main, main + w.funcSize - 1 do
  local p = st:lookup(dir .. "/nest", off)
  if p.line then at_lines[p.line] = true end
  if #p.inlined == 2 and p.inlined[1].func == "dot_scaled" then inlined = inlined or p end
end
t.ok(inlined and inlined.inlined[2].func == "main" and inlined.inlined[2].line == line.call and
  (inlined.line == line.helper or inlined.line == line.helper + 1),
  "the helper inlined in main: dot_scaled at its loop's lines, inlined at line " .. tostring(line.call))
t.ok(at_lines[line.outer] and at_lines[line.helper] and inlined and inlined.file:match("tests/loops/nest%.c$"),
  "main's code names the outer loop's line " .. tostring(line.outer) .. " and the helper's " .. tostring(line.helper) ..
  ", in the source file")

local g = st:lookup(dir .. "/nest-nog", nm_symbol(dir .. "/nest-nog", "main"))
t.ok(g and g.func == "main" and g.file == nil and g.line == nil and #g.inlined == 0,
  "built without -g: the symbol table's name, no line")
local s = st:lookup(dir .. "/nest-stripped", main + 4)
t.ok(s and s.func == nil and s.name == string.format("nest-stripped+0x%x", main + 4),
  "stripped: the object and offset (" .. tostring(s and s.name) .. ")")

-- the maths library this driver runs with, and exp in it by its dynamic symbol
local libm
for l in io.lines("/proc/self/maps") do libm = libm or l:match("(/%S+/libm%.so%.6)$") end
local exp = libm and nm_symbol(libm, "exp", true)
local c = exp and st:lookup(libm, exp + 8)
t.ok(c and c.shared and c.object == "libm.so.6" and c.name == "libm.so.6: exp" and c.func == "exp",
  "a shared library named as such, the symbol without its version: " .. tostring(c and c.name))

local none, why = st:lookup(dir .. "/missing", 16)
t.ok(none == nil and why:match("^cannot read '.*/missing': No such file"),
  "a file that is not there: " .. tostring(why))
none, why = st:lookup(src, 16)
t.ok(none == nil and why:match("is no ELF file"), "a file that is no ELF file: " .. tostring(why))
t.raises(function() st:lookup(dir .. "/nest", -1) end, "not negative", "a negative offset is refused")
st:close()
t.raises(function() st:lookup(dir .. "/nest", main) end, "closed", "a closed session refuses lookups")
t.done()
