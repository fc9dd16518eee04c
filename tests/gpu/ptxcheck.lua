-- ptxcheck: the compiled-code checks of tests/gpu/ptx.lua as a module: check(combo) compiles one
-- kernel and macro setting to PTX as its core would and returns the list of what is wrong.
local describe = require "rot.describe"
local build = require "rot.build"
local asm = require "rot.build.asm"
local session = require "rot.session"
local ptx = require "rot.gpu.ptx"
local sys = require "rot.sys"
local M = {}

-- declared flops and bytes of one element (or step), from the kernel itself
local function declared(binary, kernel, ...)
  local st, out = sys.run({ binary, "--declared", kernel, ... }, { capture = true })
  assert(st == 0, out)
  return tonumber(out:match("flops (%S+)")), tonumber(out:match("bytes (%S+)"))
end

local function near(a, b) return a and b and math.abs(a - b) <= 1e-9 * math.max(1, math.abs(b)) end

-- The innermost loops with instructions matching pattern.
local function loops_with(e, pattern)
  local out = {}
  for _, l in ipairs(ptx.loops(e)) do
    if l.innermost and #ptx.select(e, l.first, l.last, pattern) > 0 then out[#out + 1] = l end
  end
  return out
end

-- The smallest loop around l (its enclosing grid-stride loop).
local function enclosing(e, l)
  local best
  for _, o in ipairs(ptx.loops(e)) do
    if (o.first ~= l.first or o.last ~= l.last) and o.first <= l.first and o.last >= l.last
      and (not best or o.last - o.first < best.last - best.first) then best = o end
  end
  return best
end

local function no_precision_but(tally, want, allowed)
  for p, n in pairs(tally.precision) do
    if p ~= want and not (allowed and allowed[p]) then
      for _, ins in ipairs(tally.arith) do
        if ptx.precision(ins.op) == p then return ins end
      end
      return true
    end
  end
end

local TYPES = { double = "f64", float = "f32" }
local INT_TYPES = { [0] = "f32", [1] = "f64", [2] = "f16", [3] = nil }

-- kernel -> function(entry, combo, binary) -> list of {what, instruction}
local checks = {}
-- the kernels whose check asks their core for the declared counts (binary): only theirs is built
local asks_core = { gpu_intensity = true }

local function stream_check(e, c, binary)
  local fails = {}
  local prec = TYPES[c.macros.GSTREAM_TYPE or "double"]
  local reduction = c.kernel == "gpu_dot" or c.kernel == "gpu_read"
  local f, b = declared(binary, c.kernel, "n=1000")
  local loops = loops_with(e, "^ld%.global")
  if #loops == 0 then loops = loops_with(e, "^st%.global") end
  if #loops == 0 then return { { "no grid-stride loop with global memory instructions: the work was eliminated" } } end
  local l = loops[1]
  local tl = ptx.tally(e, l.first, l.last)
  local per = #tl.stores > 0 and #tl.stores or 1
  if reduction then per = #tl.loads // (c.kernel == "gpu_dot" and 2 or 1) end
  if not near((tl.loaded + tl.stored) / per, b / 1000) then
    fails[#fails + 1] = { string.format("global bytes per element %g, declared %g", (tl.loaded + tl.stored) / per,
      b / 1000), tl.loads[1] or tl.stores[1] }
  end
  if not near(tl.flops / per, f / 1000) then
    fails[#fails + 1] = { string.format("flops per element %g, declared %g", tl.flops / per, f / 1000), tl.arith[1] }
  end
  local leak = no_precision_but(tl, prec, reduction and { f64 = true } or nil)
  if leak then fails[#fails + 1] = { "arithmetic in another precision than " .. prec, leak ~= true and leak or nil } end
  if not reduction and #tl.stores == 0 then
    fails[#fails + 1] = { "no global store in the loop: the result is never written" }
  end
  if reduction and #ptx.select(e, 1, #e.instrs, "^atom%.global") + #ptx.select(e, 1, #e.instrs,
    "^red%.global") == 0 then
    fails[#fails + 1] = { "the reduction's sum never reaches memory (no global atomic)" }
  end
  return fails
end
for _, k in ipairs({ "gpu_copy", "gpu_scale", "gpu_add", "gpu_triad", "gpu_dot", "gpu_read", "gpu_write" }) do
  checks[k], asks_core[k] = stream_check, true
end

checks.gpu_intensity = function(e, c, binary)
  local fails = {}
  local ty = tonumber(c.macros.GINT_TYPE or 0)
  local mad = ({ [0] = "^fma%.rn%.f32", [1] = "^fma%.rn%.f64", [2] = "^fma%.rn%.f16x2", [3] = "^mad%.lo%.s32" })[ty]
  local f, b = declared(binary, "gpu_intensity", "n=1000", "fpe=8")
  local per_mad = f / 1000 / 8 -- flops of one multiply-add of one element: 2 x lanes
  local loops = loops_with(e, mad)
  if #loops == 0 then return { { "no loop of multiply-adds (" .. mad .. "): the work was eliminated" } } end
  for _, l in ipairs(loops) do
    local tl = ptx.tally(e, l.first, l.last, ty == 3)
    local outer = enclosing(e, l)
    local elems = outer and #ptx.select(e, outer.first, outer.last, "^ld%.global") or 1
    if not l.step then
      fails[#fails + 1] = { "cannot read the trip count of the multiply-add loop", e.instrs[l.last] }
    elseif not near(tl.flops / l.step / elems, per_mad) then
      fails[#fails + 1] = { string.format("%g flops per element and multiply-add in the loop (%d instructions, step "
        .. "%d, %d elements), declared %g",
        tl.flops / l.step / elems, #ptx.select(e, l.first, l.last, mad), l.step, elems, per_mad), ptx.select(e,
          l.first, l.last, mad)[1] }
    end
    local other = ptx.select(e, l.first, l.last, "^cvt")
    if #other > 0 then
      fails[#fails + 1] = { #other .. " conversions inside the multiply-add loop (constants not hoisted)", other[1] }
    end
    local leak = INT_TYPES[ty] and no_precision_but(tl, INT_TYPES[ty]) or (ty == 3
      and next(tl.precision) and tl.arith[1])
    if leak then
      fails[#fails + 1] = { "arithmetic in another precision than the macro setting's", leak ~= true and leak or nil }
    end
  end
  local g = loops_with(e, "^st%.global")
  local grid = #g > 0 and g[1] or nil
  for _, l in ipairs(ptx.loops(e)) do
    if #ptx.select(e, l.first, l.last, "^st%.global") > 0 then grid = l end
  end
  if not grid then
    fails[#fails + 1] = { "no global store: the result is never written" }
  else
    local tl = ptx.tally(e, grid.first, grid.last)
    if not near((tl.loaded + tl.stored) / #tl.stores, b / 1000) then
      fails[#fails + 1] = { string.format("global bytes per element %g, declared %g",
        (tl.loaded + tl.stored) / #tl.stores, b / 1000), tl.stores[1] }
    end
  end
  return fails
end

checks.gpu_chain = function(e, c)
  local op = tonumber(c.macros.GCHAIN_OP or 1)
  local pattern = ({ [0] = "^add%.f32", [1] = "^fma%.rn%.f32", [2] = "^fma%.rn%.f64",
    [3] = "^add%.f32", [4] = "^addc%.cc%.u32",
    [5] = "^ld%.global", [6] = "^ld%.shared" })[op]
  local loops = loops_with(e, pattern)
  if #loops == 0 then return { { "no loop of " .. pattern .. ": the chain was eliminated" } } end
  local fails = {}
  for _, l in ipairs(loops) do
    local seq = ptx.select(e, l.first, l.last, pattern)
    -- the loop counter counts chain steps (i += 16) or, once the compiler renumbers it, loop
    -- iterations of UNROLL = 16 steps each
    if l.step and #seq ~= l.step and #seq ~= l.step * 16 then
      fails[#fails + 1] = { string.format("%d chained instructions for %d steps: folded", #seq, l.step), seq[1] }
    end
    local ok, bad = ptx.chained(e, seq, l.first, l.last)
    if not ok then fails[#fails + 1] = { "the instructions do not depend on each other: not a chain", bad } end
  end
  -- the chain lies between the two clock64 reads that time it
  local clocks = {}
  for _, ins in ipairs(e.instrs) do
    if ins.op:match("^mov%.u64") and ins.srcs[1] == "%clock64" then clocks[#clocks + 1] = ins end
  end
  if #clocks < 2 then
    fails[#fails + 1] = { "the chain is not timed: fewer than two clock64 reads" }
  else
    for _, ins in ipairs(ptx.select(e, 1, #e.instrs, pattern)) do
      if ins.at < clocks[1].at or ins.at > clocks[#clocks].at then
        fails[#fails + 1] = { "a chain instruction outside the clock64 reads that time it", ins }
        break
      end
    end
  end
  return fails
end

checks.gpu_atomics = function(e)
  local fails = {}
  if #ptx.select(e, 1, #e.instrs, "^atom%.shared%.add") + #ptx.select(e, 1, #e.instrs, "^red%.shared%.add") == 0 then
    fails[#fails + 1] = { "no shared-memory atomic add (atom.shared.add)" }
  end
  if #ptx.select(e, 1, #e.instrs, "^atom%.shared%.cas") == 0 then
    fails[#fails + 1] = { "no shared-memory CAS (atom.shared.cas)" }
  end
  return fails
end

checks.gpu_hist = function(e)
  if #ptx.select(e, 1, #e.instrs, "^atom%.shared%.add") + #ptx.select(e, 1, #e.instrs, "^red%.shared%.add") == 0 then
    return { { "the histogram issues no shared-memory atomics" } }
  end
  return {}
end

checks.gpu_gemm = function(e, c)
  local prec = ({ double = "f64", float = "f32" })[c.macros.GGEMM_TYPE or "float"] or "f32"
  local loops = loops_with(e, "^fma")
  if #loops == 0 then return { { "no multiply-add loop" } } end
  local leak = no_precision_but(ptx.tally(e, loops[1].first, loops[1].last), prec)
  return leak and { { "arithmetic in another precision than " .. prec, leak ~= true and leak or nil } } or {}
end

checks.gpu_cache = function(e, c)
  local shared = c.macros.GCACHE_SHARED == "1"
  local pat = shared and "^ld%.shared%.v4" or "^ld%.global%.cg%.v4"
  local loops = loops_with(e, pat)
  if #loops == 0 then
    return { { "no loop of 16-byte " .. (shared and "shared" or "L2-cached global") .. " loads (" .. pat .. ")" } }
  end
  if shared and #ptx.select(e, loops[1].first, loops[1].last, "^st%.shared%.v4") == 0 then
    return { { "no shared store beside each load: not load/store throughput" } }
  end
  return {}
end

-- registers a launch assumes: bandwidth and compute kernels want 2048 threads on an SM
local FULL_OCCUPANCY = { gpu_intensity = true, gpu_cache = true, gpu_chain = true, gpu_copy = true, gpu_scale = true,
  gpu_add = true, gpu_triad = true, gpu_dot = true, gpu_read = true, gpu_write = true }

--[[ check{kernel=, macros=, flags=}: true and the list of failures ({what, instruction,
  entry}), or false and the error that stopped the build. ]]
function M.check(c)
  local spec = { kernel = c.kernel, macros = c.macros, flags = c.flags }
  local ok, err = pcall(function()
    local S = session.current()
    local desc, kinfo = describe.describe(S, spec)
    local text, info = asm.ptx(S, desc, kinfo)
    local entries = ptx.parse(text)
    assert(#entries >= 1, "no entry function in the PTX")
    local fails = {}
    local function run(binary)
      for _, e in ipairs(entries) do
        for _, f in ipairs((checks[c.kernel] or function() return {} end)(e, c, binary)) do
          fails[#fails + 1] = { f[1], f[2], e }
        end
      end
    end
    if asks_core[c.kernel] then build.with_core(S, desc, kinfo, run) else run(nil) end -- (it runs under the build lock)
    for name, pi in pairs(ptx.ptxas_info(info)) do
      if (pi.spill_stores or 0) + (pi.spill_loads or 0) > 0 then
        fails[#fails + 1] = { string.format("%s spills registers (%d bytes stored, %d loaded)", name,
          pi.spill_stores, pi.spill_loads) }
      end
      if pi.registers and FULL_OCCUPANCY[c.kernel] and pi.registers > 32 then
        fails[#fails + 1] = { string.format("%s uses %d registers: more than 32 per thread "
          .. "keeps 2048 threads off an SM", name, pi.registers) }
      end
    end
    return fails
  end)
  return ok, err
end

M.checks = checks
return M
