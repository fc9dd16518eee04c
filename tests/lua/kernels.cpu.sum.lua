-- The read kernel (sum) is bound by its loads, not by its additions: its loop keeps eight
-- independent vector partial sums, and the reduction after the loop adds them as a tree, not in
-- one dependent chain (which would take as long as the loop over 32 KiB). Checked on the
-- x86-64 code itself (objdump -d, AT&T syntax): recorded for both machine kinds
-- (tests/fixtures/asm), and sum compiled here as the peaks compile it (rot asm).
local t = require "tap"
local sys = require "rot.sys"
local session = require "rot.session"

local fixtures = "tests/fixtures/asm/"

-- The functions of objdump -d text: { {name=, insns = {{addr=, op=, args={...}}, ...}}, ... }
-- (source lines that objdump -S interleaves are skipped).
local function parse(text)
  local fns, cur = {}, nil
  for line in text:gmatch("[^\n]+") do
    local name = line:match("^%x+ <([%w_.]+)>:$")
    if name then
      cur = { name = name, insns = {} }
      fns[#fns + 1] = cur
    else
      local addr, op, rest = line:match("^%s+(%x+):%s+(%S+)%s*(.*)$")
      if cur and addr and op:match("^[%a][%w.]*$") then
        rest = rest:gsub("%s*#.*$", ""):gsub("%s*<[^>]*>%s*$", "")
        local args, depth, cur_arg = {}, 0, ""
        for ch in rest:gmatch(".") do -- split at commas outside parentheses
          if ch == "(" then depth = depth + 1 elseif ch == ")" then depth = depth - 1 end
          if ch == "," and depth == 0 then args[#args + 1] = cur_arg; cur_arg = "" else cur_arg = cur_arg .. ch end
        end
        if cur_arg ~= "" then args[#args + 1] = cur_arg end
        cur.insns[#cur.insns + 1] = { addr = tonumber(addr, 16), op = op, args = args }
      end
    end
  end
  return fns
end

-- An FP addition (scalar or packed, SSE or VEX/EVEX encoded).
local function is_add(op) return op:match("^v?add[ps][sd]$") ~= nil or op:match("^v?hadd[ps][sd]$") ~= nil end

-- A vector register's number and bytes (%xmm3: 3, 16), nil for anything else.
local function vreg(a)
  local k, n = a:match("^%%([xyz])mm(%d+)")
  if not k then return nil end
  return tonumber(n), ({ x = 16, y = 32, z = 64 })[k]
end

-- A memory operand: its stack byte offset (rsp- or rbp-relative: the spilled partial sums) or
-- "array" (anything else: the data), nil when a is no memory operand.
local function mem(a)
  if not a:find("(", 1, true) then return nil end
  local disp, base = a:match("^(%-?0?x?%x*)%(%%(r[sb]p)%)$")
  if base then
    local neg, hex = disp:match("^(%-?)0x(%x+)$")
    return { stack = base .. ":" .. (hex and (neg == "-" and -1 or 1) * tonumber(hex, 16)
      or tonumber(disp ~= "" and disp or "0")) }
  end
  return { array = true }
end

-- The bytes a store of instruction x writes (its source register's size, or its scalar suffix).
local function store_bytes(x)
  local _, bytes = vreg(x.args[1] or "")
  if x.op:match("s[sd]$") and not x.op:match("^v?movap") then bytes = x.op:match("sd$") and 8 or 4 end
  return bytes or 8
end

--[[ The sum loops of a function: conditional jumps back whose body adds array memory into
  vector registers (an addition with a memory operand, or of a register loaded from it in the
  body: SSE code loads unaligned vectors first); each {from=, to= (instruction indices of its
  body), adds= (additions of array data), accs= {[register] = true}, naccs=, per_acc= (the
  most such additions into one register an iteration), other= (instructions besides those
  additions and the loads), width= (bytes of a partial sum), elem= (bytes of an element)}. ]]
local function loops(fn)
  local at, out = {}, {}
  for i, x in ipairs(fn.insns) do at[x.addr] = i end
  for i, x in ipairs(fn.insns) do
    local target = x.op:match("^j") and x.op ~= "jmp" and tonumber((x.args[1] or ""):match("^(%x+)$") or "", 16)
    if target and target < x.addr and at[target] then
      local l = { from = at[target], to = i, adds = 0, accs = {}, naccs = 0, per_acc = 0, other = 0 }
      local into, loaded = {}, {}
      for j = l.from, l.to do
        local y = fn.insns[j]
        local src = y.args[1] or ""
        local m = mem(src)
        local r = is_add(y.op) and #y.args >= 2 and ((m and m.array) or loaded[vreg(src) or -1])
          and vreg(y.args[#y.args])
        if r then
          l.adds = l.adds + 1
          into[r] = (into[r] or 0) + 1
          if not l.accs[r] then l.accs[r], l.naccs = true, l.naccs + 1 end
          l.per_acc = math.max(l.per_acc, into[r])
          l.width = select(2, vreg(y.args[#y.args]))
          l.elem = y.op:match("d$") and 8 or 4
        elseif y.op:match("^v?mov") and m and m.array and vreg(y.args[#y.args]) then
          loaded[vreg(y.args[#y.args])] = true
        else
          l.other = l.other + 1
        end
      end
      if l.naccs > 0 then out[#out + 1] = l end
    end
  end
  return out
end

--[[ The reduction after a sum loop: the instructions that follow it (and any unconditional jump
  forward) up to the next conditional branch, call or return, as a dependence graph of registers
  and stack bytes. Each value keeps the additions on its longest path (adds), the instructions
  on it that are not register copies (ops) and which of the loop's partial sums reach it (from,
  a set). Returns the value that combines the most partial sums (the latest of those):
  {adds=, ops=, combined= (how many partial sums reach it)}. ]]
local function reduction(fn, loop)
  local regs, stack, accn = {}, {}, 0
  for r in pairs(loop.accs) do
    accn = accn + 1
    regs[r] = { adds = 0, ops = 0, from = { [r] = true }, n = 1 }
  end
  local function value_of(a)
    local r = vreg(a)
    if r then return regs[r] end
    local m = mem(a)
    if m and m.stack then
      local base, off = m.stack:match("^(%a+):(%-?%d+)$")
      return stack[base .. ":" .. off]
    end
    return nil
  end
  local best
  local at = {}
  for i, x in ipairs(fn.insns) do at[x.addr] = i end
  local i, steps = loop.to + 1, 0
  while fn.insns[i] and steps < 400 do
    steps = steps + 1
    local x = fn.insns[i]
    if x.op == "jmp" then
      local target = tonumber((x.args[1] or ""):match("^(%x+)$") or "", 16)
      if not (target and target > x.addr and at[target]) then break end
      i = at[target]
    elseif x.op:match("^j") or x.op:match("^call") or x.op:match("^ret") then
      break
    else
      local dest = x.args[#x.args]
      local srcs = {}
      for k = 1, #x.args - 1 do srcs[#srcs + 1] = x.args[k] end
      local vex = x.op:match("^v")
      if dest and ((not vex and #x.args == 2 and not x.op:match("^mov") and not x.op:match("^cvt"))
        or dest:find("{%k", 1, true) and not dest:find("{z}", 1, true)) then
        srcs[#srcs + 1] = dest:gsub("{.*$", "") -- the destination is read too (two operands, merge masking)
      end
      local zero = x.op:match("xor") and #x.args >= 2 and x.args[1] == x.args[2] -- a zeroing idiom
      local v = { adds = 0, ops = 0, from = {}, n = 0 }
      if not zero then
        for _, s in ipairs(srcs) do
          local w = value_of(s)
          if w then
            v.adds, v.ops = math.max(v.adds, w.adds), math.max(v.ops, w.ops)
            for r in pairs(w.from) do if not v.from[r] then v.from[r], v.n = true, v.n + 1 end end
          end
        end
      end
      local copy = x.op:match("^v?mov") and vreg(srcs[1] or "") and vreg(dest or "")
      if is_add(x.op) then v.adds = v.adds + 1 end
      if not copy then v.ops = v.ops + 1 end
      local r = dest and vreg(dest:gsub("{.*$", ""))
      local m = dest and mem(dest)
      if r then
        regs[r] = v
      elseif m and m.stack then
        local base, off = m.stack:match("^(%a+):(%-?%d+)$")
        for b = 0, store_bytes(x) - 1 do stack[base .. ":" .. (tonumber(off) + b)] = v end
      end
      if (r or (m and m.stack)) and v.n > 0 and (not best or v.n >= best.n) then best = v end
      i = i + 1
    end
  end
  return best and { adds = best.adds, ops = best.ops, combined = best.n } or { adds = 0, ops = 0, combined = 0 }, accn
end

local function log2(x) return math.log(x, 2) end

--[[ What the tests check of one compiled sum: the sum loops of every function (range, or run and
  run_thread where it is inlined), the one with the most partial sums, and its reduction.
  {loop=, red=, lanes=, fn=} or nil, why. ]]
local function analyse(text)
  local found
  for _, fn in ipairs(parse(text)) do
    for _, l in ipairs(loops(fn)) do
      if l.naccs >= 2 and (not found or l.naccs > found.loop.naccs) then found = { loop = l, fn = fn } end
    end
  end
  if not found then return nil, "no loop with vector partial sums" end
  found.red = reduction(found.fn, found.loop)
  found.lanes = found.loop.naccs * found.loop.width // found.loop.elem
  return found
end

-- The checks on one compiled sum, named by what: eight partial sums in the loop, one addition
-- into each an iteration, little else in it; the reduction combines all of them, log2(lanes)
-- additions deep (the fewest that can add that many lanes; one more for the total it is added
-- to), its other instructions no deeper than an extraction before each addition.
local function check(text, what)
  local a, why = analyse(text)
  if not t.ok(a, what .. ": a loop of vector partial sums is found (" .. tostring(why) .. ")") then return end
  local l, red = a.loop, a.red
  t.ok(l.naccs == 8 and l.per_acc == 1 and l.other <= 8, string.format("%s: the loop adds the data into %d independent "
    .. "partial sums (8), one addition into each an iteration (%d), besides %d other instructions (at most 8: the "
    .. "loop's own)", what, l.naccs, l.per_acc, l.other))
  local depth = log2(a.lanes)
  t.ok(red.combined == l.naccs and red.adds >= depth and red.adds <= depth + 1 and red.ops <= 2 * depth + 1,
    string.format("%s: the reduction after the loop is a tree: %d additions deep over %d lanes (log2: %d; a chain is "
      .. "%d), %d instructions deep (at most %d), combining %d of the %d partial sums", what, red.adds, a.lanes, depth,
      a.lanes, red.ops, 2 * depth + 1, red.combined, l.naccs))
  return a
end

-- recorded on both machine kinds: a kernel whose reduction is one dependent chain, and the
-- shipped one
local function fixture(name) return assert(sys.readfile(fixtures .. name)) end
for _, kind in ipairs({ "sapphirerapids", "epyc" }) do
  local chain = analyse(fixture("sum-chain-" .. kind .. ".s"))
  t.ok(chain and chain.red.combined == 8 and chain.red.adds >= 64, string.format("%s, the kernel before: its reduction "
    .. "is found to be a chain, %d additions deep over %d lanes", kind, chain and chain.red.adds or -1,
      chain and chain.lanes or -1))
  check(fixture("sum-tree-" .. kind .. ".s"), kind .. ", recorded")
end
-- a chain that the tests must tell from a tree: eight partial sums added one after another
-- in registers (no stack), the lanes then as a tree: 7 + 3 deep, not 6
local serial = [[
0000000000000000 <range>:
  10:	vaddpd (%rax),%zmm0,%zmm0
  16:	vaddpd 0x40(%rax),%zmm1,%zmm1
  1d:	vaddpd 0x80(%rax),%zmm2,%zmm2
  24:	vaddpd 0xc0(%rax),%zmm3,%zmm3
  2b:	vaddpd 0x100(%rax),%zmm4,%zmm4
  32:	vaddpd 0x140(%rax),%zmm5,%zmm5
  39:	vaddpd 0x180(%rax),%zmm6,%zmm6
  40:	vaddpd 0x1c0(%rax),%zmm7,%zmm7
  47:	add    $0x200,%rax
  4d:	cmp    %rdx,%rax
  50:	jb     10 <range+0x10>
  52:	vaddpd %zmm1,%zmm0,%zmm0
  58:	vaddpd %zmm2,%zmm0,%zmm0
  5e:	vaddpd %zmm3,%zmm0,%zmm0
  64:	vaddpd %zmm4,%zmm0,%zmm0
  6a:	vaddpd %zmm5,%zmm0,%zmm0
  70:	vaddpd %zmm6,%zmm0,%zmm0
  76:	vaddpd %zmm7,%zmm0,%zmm0
  7c:	vextractf64x4 $0x1,%zmm0,%ymm1
  83:	vaddpd %ymm1,%ymm0,%ymm0
  87:	vextractf64x2 $0x1,%ymm0,%xmm1
  8e:	vaddpd %xmm1,%xmm0,%xmm0
  92:	vunpckhpd %xmm0,%xmm0,%xmm1
  96:	vaddsd %xmm1,%xmm0,%xmm0
  9a:	ret
]]
local sa = analyse(serial)
t.ok(sa and sa.red.adds == 10 and sa.red.combined == 8, "partial sums added one after another (7 deep, then 3 over the "
  .. "lanes) are no tree: " .. (sa and sa.red.adds or -1) .. " deep")
-- a tree of additions whose lanes are gathered one by one (merge-masked broadcasts, as one
-- compiler built a rotation of the lanes): logarithmic in additions, a chain in instructions
local gathered = { serial:match("^(.-)  52:") }
local addr = 0x52
local function put(s) gathered[#gathered + 1] = string.format("  %x:\t%s", addr, s); addr = addr + 6 end
put("vaddpd %zmm4,%zmm0,%zmm0"); put("vaddpd %zmm5,%zmm1,%zmm1")
put("vaddpd %zmm6,%zmm2,%zmm2"); put("vaddpd %zmm7,%zmm3,%zmm3")
put("vaddpd %zmm2,%zmm0,%zmm0"); put("vaddpd %zmm3,%zmm1,%zmm1"); put("vaddpd %zmm1,%zmm0,%zmm0")
for _ = 1, 3 do
  put("vxorpd %xmm2,%xmm2,%xmm2")
  for k = 1, 8 do put(string.format("vbroadcastsd %%xmm0,%%zmm2{%%k%d}", k % 7 + 1)) end
  put("vaddpd %zmm2,%zmm0,%zmm0")
end
put("ret")
local ga = analyse(table.concat(gathered, "\n") .. "\n")
t.ok(ga and ga.red.adds == 6 and ga.red.ops > 13, "lanes gathered one by one (8 dependent merge-masked broadcasts a "
  .. "level) are a chain of instructions: " .. (ga and ga.red.ops or -1) .. " deep, though 6 additions")

-- sum compiled here as the peaks compile it: -O3 -march=native (the bandwidth sweeps) and
-- the ISA classes of the compute ceilings (their flags), double and float; on x86-64
local asm = require "rot.build.asm"
local describe = require "rot.describe"
local compute = require "rot.peaks.compute"
local s = session.current()
local function compiled(flags, macros)
  local desc, kinfo = describe.describe(s, { kernel = "sum", flags = flags, macros = macros or {} })
  return asm.asm(s, desc, kinfo)
end
local arch = require("rot.machine").topology().arch
if arch ~= "x86_64" then
  t.skip("compiled here: this machine is " .. tostring(arch) .. ", not x86-64: its code is checked by the recorded "
    .. "x86-64 fixtures above only")
else
  local sets = { { "-O3 -march=native" }, { "-O3 -march=native", { STREAM_TYPE = "float" } },
    { "-O2 -fno-tree-vectorize" } }
  for _, isa in ipairs(compute.isa) do sets[#sets + 1] = { isa.flags } end
  for _, set in ipairs(sets) do
    check(compiled(set[1], set[2]), "compiled here, '" .. set[1] .. "'" .. (set[2] and " float" or ""))
  end
end
t.done()
