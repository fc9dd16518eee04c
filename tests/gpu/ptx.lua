-- Compiled-code checks of the GPU kernels, no device needed (run by tests/e2e/build-gpu.t): every kernel and
-- macro setting the shipped gpu-* measurements build (the "built" lines of `rot build`, in the
-- file arg[1]) is compiled to PTX for its architecture, as its core would be, and checked
-- against the kernel's declared counts (rot-core --declared): the precision of the arithmetic,
-- flops and global bytes per element, chains that really chain, shared atomics and CAS, no
-- register spills, registers that allow the occupancy the launch assumes. Failures name the
-- kernel, the macro setting and the source line. TAP output.
package.path = os.getenv("ROT_HOME") .. "/tests/lua/?.lua;" .. os.getenv("ROT_HOME")
  .. "/tests/gpu/?.lua;" .. package.path
local t = require "tap"
local ptxcheck = require "ptxcheck"
local ptx = require "rot.gpu.ptx"
local sys = require "rot.sys"

local combos = {}
for line in assert(sys.readfile(arg[1])):gmatch("[^\n]+") do
  local k, m, f = line:match("^built (gpu_[%w_]+) macros (%S+) flags (.+)$")
  if k then
    local macros = {}
    for name, v in m:gmatch("([%w_]+)=([^,]+)") do macros[name] = v end
    combos[#combos + 1] = { kernel = k, macros = macros, flags = f, text = k .. (m ~= "-" and (" " .. m) or "") }
  end
end
t.ok(#combos >= 10, #combos .. " GPU kernel settings are built by the shipped measurements")

for _, c in ipairs(combos) do
  local ok, err = ptxcheck.check(c)
  if not ok then
    t.ok(false, c.text .. ": " .. (type(err) == "table" and err.message or tostring(err)))
  else
    local fails = err
    t.ok(#fails == 0, c.text .. " (" .. c.flags .. "): " .. (#fails == 0
      and "precision, counts, chains and registers as declared" or #fails .. " problem(s)"))
    for _, f in ipairs(fails) do
      io.write("#   ", c.text, ": ", f[1], f[2] and (" at " .. ptx.where(f[3], f[2]) .. " (" .. f[2].text
        .. ")") or "", "\n")
    end
  end
end

-- the checks themselves catch what they are for: a folded integer chain, an f64 literal leak
local function check_text(kernel, macros, text)
  local e = ptx.parse(text)[1]
  return (ptxcheck.checks[kernel])(e, { kernel = kernel, macros = macros })
end
local folded = [[
.visible .entry k(
{
	mov.u64 	%rd1, %clock64;
$L__BB0_3:
	add.s32 	%r15, %r15, 28;
	add.s64 	%rd12, %rd12, 4;
	setp.ne.s64 	%p3, %rd12, 0;
	@%p3 bra 	$L__BB0_3;
	mov.u64 	%rd2, %clock64;
	ret;
}
]]
local f = check_text("gpu_chain", { GCHAIN_OP = "4" }, folded:gsub("add%.s32 \t%%r15, %%r15, 28",
  "addc.cc.u32 \t%%r15, %%r15, 28"))
t.ok(#f == 1 and f[1][1]:find("folded") ~= nil, "the check catches four adds folded into one")
local unchained = [[
.visible .entry k(
{
	mov.u64 	%rd1, %clock64;
$L__BB0_3:
	fma.rn.f32 	%f1, %f9, 0f3F7FBE77, 0f3A83126F;
	fma.rn.f32 	%f2, %f9, 0f3F7FBE77, 0f3A83126F;
	add.s64 	%rd12, %rd12, 2;
	setp.ne.s64 	%p3, %rd12, 0;
	@%p3 bra 	$L__BB0_3;
	mov.u64 	%rd2, %clock64;
	ret;
}
]]
f = check_text("gpu_chain", { GCHAIN_OP = "1" }, unchained)
t.ok(#f == 1 and f[1][1]:find("not a chain") ~= nil, "and two independent FMAs posing as a chain")
local chain = unchained:gsub("%%f2, %%f9", "%%f2, %%f1")
t.is(#check_text("gpu_chain", { GCHAIN_OP = "1" }, chain), 0, "two dependent FMAs between the clock reads pass")
local early = chain:gsub("\tmov%.u64 \t%%rd2, %%clock64;\n", ""):gsub("%$L__BB0_3:",
  "\tmov.u64 \t%%rd2, %%clock64;\n$L__BB0_3:", 1)
f = check_text("gpu_chain", { GCHAIN_OP = "1" }, early)
t.ok(#f == 1 and f[1][1]:find("outside the clock64 reads") ~= nil,
  "and a clock read before the chain is caught: the chain would be untimed")
t.is(ptx.precision("fma.rn.f64"), "f64", "an f64 FMA is f64 arithmetic (an unsuffixed 2.0 literal's leak)")
t.is(ptx.flops_of("fma.rn.f16x2"), 4, "a half2 FMA is 4 flops")
t.is(ptx.width("ld.global.nc.v4.f32"), 16, "a v4.f32 load moves 16 bytes")
t.done()
