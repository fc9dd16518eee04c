-- rot.gpu.ptx: reading compiled GPU code: the instructions of each entry function in PTX (with the
-- source line each came from, from the `.loc` directives of -lineinfo), its loops, what the
-- arithmetic and memory instructions in a loop body add up to, dependence chains, and what
-- ptxas -v says (registers, spills). What tests check kernels against their declared counts with.
local M = {}

-- Operations each arithmetic instruction stands for: floating-point ones (one lane of a
-- packed f16x2 counts twice); with int, 32-bit integer multiply-adds too (address arithmetic,
-- 64-bit, never counts).
local function flops_of(op, int)
  local base = op:match("^(%a+)")
  local float = op:find("%.f16") or op:find("%.bf16") or op:find("%.f32") or op:find("%.f64")
  if not float then
    if int and op:match("^mad%.lo%.[su]32") then return 2 end
    return 0
  end
  local packed = op:find("x2", 1, true) and 2 or 1
  if base == "fma" or base == "mad" then return 2 * packed end
  if base == "add" or base == "sub" or base == "mul" then return packed end
  return 0
end
M.flops_of = flops_of

-- The floating-point precision an instruction computes in: "f64", "f32", "f16", or nil.
local function precision(op)
  if op:match("^cvt") or op:match("^mov") or op:match("^ld") or op:match("^st") or op:match("^set")
    or op:match("^selp") then
    return nil
  end
  if op:find("%.f64") then return "f64" end
  if op:find("%.f32") then return "f32" end
  if op:find("%.f16") or op:find("%.bf16") then return "f16" end
  return nil
end
M.precision = precision

-- Bytes a global memory instruction moves per thread: 8 for ld.global.f64, 16 for .v4.f32.
local function width(op)
  local bits = tonumber(op:match("%.[bfsu](%d+)$")) or 0
  local vec = tonumber(op:match("%.v(%d)%.")) or 1
  return bits // 8 * vec
end
M.width = width

--[[ parse(text) -> { {name=, instrs={ {op=, args={...}, dst=, srcs={...}, line=source line,
  file=, at=PTX line, text=}, ... }, labels={label -> instruction index}}, ... } ]]
function M.parse(text)
  local entries, cur, files = {}, nil, {}
  local file, line = nil, nil
  local at = 0
  for raw in text:gmatch("([^\n]*)\n?") do
    at = at + 1
    -- (inline asm from headers such as cuda_fp16.h comes wrapped in braces: unwrap it)
    local l = raw:gsub("//.*$", ""):gsub("^%s+", ""):gsub("%s+$", ""):gsub("^{%s*", ""):gsub("%s*}$", "")
    local fno, path = l:match("^%.file%s+(%d+)%s+\"([^\"]+)\"")
    if fno then files[tonumber(fno)] = path end
    local name = l:match("^%.visible%s+%.entry%s+([%w_$]+)") or l:match("^%.entry%s+([%w_$]+)")
    if name then
      cur = { name = name, instrs = {}, labels = {} }
      entries[#entries + 1] = cur
    elseif cur then
      local f, ln = l:match("^%.loc%s+(%d+)%s+(%d+)")
      if f then
        file, line = tonumber(f), tonumber(ln)
      elseif l:match("^%$[%w_]+:$") then
        cur.labels[l:sub(1, -2)] = #cur.instrs + 1
      elseif l ~= "" and not l:match("^[%.{}]") and not l:match("^%)") then
        local pred, op, rest = l:match("^(@!?%%[%w_]+)%s+([%w.]+)%s*(.-);?$")
        if not pred then op, rest = l:match("^([%w.]+)%s*(.-);?$") end
        if op then
          local args = {}
          for a in (rest .. ","):gmatch("%s*([^,]+),") do args[#args + 1] = a:gsub("%s+$", "") end
          local ins = { op = op, args = args, pred = pred, line = line, file = file, at = at, text = l }
          if op:match("^st%.") or op:match("^bra") or op:match("^red%.") or op == "ret" then
            ins.srcs = args
          else
            ins.dst, ins.srcs = args[1], { table.unpack(args, 2) }
          end
          cur.instrs[#cur.instrs + 1] = ins
        end
      end
    end
  end
  for _, e in ipairs(entries) do e.files = files end
  return entries
end

-- "kernels/gpu/gpu_intensity.cu:52" for an instruction.
function M.where(entry, ins)
  local f = ins and ins.file and entry.files[ins.file]
  if not f then return "PTX line " .. tostring(ins and ins.at) end
  return (f:match("([^/]+/[^/]+/[^/]+)$") or f) .. ":" .. tostring(ins.line)
end

--[[ Loops: every backward branch closes a loop from its label to the branch. Returns
  { {first=, last=, label=, innermost=bool, step=, counter=}, ... }; step is the constant the
  loop's counter moves by each trip (from the add feeding the branch's compare), nil if unknown. ]]
function M.loops(entry)
  local out = {}
  for i, ins in ipairs(entry.instrs) do
    if ins.op:match("^bra") then
      local target = entry.labels[ins.args[#ins.args]]
      if target and target <= i then out[#out + 1] = { first = target, last = i, label = ins.args[#ins.args] } end
    end
  end
  for _, a in ipairs(out) do
    a.innermost = true
    for _, b in ipairs(out) do
      if b ~= a and b.first >= a.first and b.last <= a.last and (b.first > a.first or b.last < a.last) then
        a.innermost = false
      end
    end
    -- the counter: the register the compare before the branch reads, moved by a constant
    local cmp = entry.instrs[a.last - 1]
    if cmp and cmp.op:match("^setp") then
      for j = a.first, a.last do
        local ins = entry.instrs[j]
        if ins.op:match("^add%.[su]%d+$") and ins.dst and (ins.dst == cmp.srcs[1] or ins.dst == cmp.srcs[2])
          and ins.srcs[1] == ins.dst then
          local c = tonumber(ins.srcs[2])
          if c then a.step, a.counter = math.abs(c), ins.dst end
        end
      end
    end
  end
  return out
end

--[[ What a range of instructions adds up to: flops (per M.flops_of), global bytes loaded and
  stored (per M.width), instructions by precision, and lists of the memory, atomic and
  arithmetic instructions. ]]
function M.tally(entry, first, last, int)
  local t = { flops = 0, loaded = 0, stored = 0, precision = {}, loads = {}, stores = {}, atomics = {}, arith = {} }
  for j = first, last do
    local ins = entry.instrs[j]
    local op = ins.op
    if op:match("^ld%.global") then
      t.loaded = t.loaded + width(op); t.loads[#t.loads + 1] = ins
    elseif op:match("^st%.global") then
      t.stored = t.stored + width(op); t.stores[#t.stores + 1] = ins
    elseif op:match("^atom%.") or op:match("^red%.") then
      t.atomics[#t.atomics + 1] = ins
    else
      local f = flops_of(op, int)
      t.flops = t.flops + f
      local p = precision(op)
      if p then
        t.precision[p] = (t.precision[p] or 0) + 1
        t.arith[#t.arith + 1] = ins
      end
    end
  end
  return t
end

-- The instructions whose op matches pattern, in order, between first and last.
function M.select(entry, first, last, pattern)
  local out = {}
  for j = first, last do
    if entry.instrs[j].op:match(pattern) then out[#out + 1] = entry.instrs[j] end
  end
  return out
end

--[[ Whether a sequence of instructions (in program order, within first..last) is one
  dependence chain: each reads a value computed from what the one before wrote, directly or
  through the instructions between them (a load's address, sin and cos feeding an add).
  Returns true, or false and the first instruction that does not depend on its predecessor. ]]
function M.chained(entry, seq, first, last)
  local function reads(ins, set)
    for _, s in ipairs(ins.srcs or {}) do
      for r in s:gmatch("%%[%w_]+") do if set[r] then return true end end
    end
    return false
  end
  local pos = {}
  for j = first, last do pos[entry.instrs[j]] = j end
  for i = 2, #seq do
    local tainted = { [seq[i - 1].dst or ""] = true }
    for j = pos[seq[i - 1]] + 1, pos[seq[i]] - 1 do
      local ins = entry.instrs[j]
      if ins.dst and reads(ins, tainted) then tainted[ins.dst] = true end
    end
    if not reads(seq[i], tainted) then return false, seq[i] end
  end
  return true
end

-- ptxas -v: registers, spill bytes and stack frame of each entry.
function M.ptxas_info(text)
  local out, cur = {}, nil
  for line in text:gmatch("[^\n]+") do
    local name = line:match("Compiling entry function '([^']+)'") or line:match("Function properties for ([%w_$]+)")
    if name then
      out[name] = out[name] or {}
      cur = out[name]
    end
    if cur then
      local st, ld = line:match("(%d+) bytes spill stores, (%d+) bytes spill loads")
      if st then cur.spill_stores, cur.spill_loads = tonumber(st), tonumber(ld) end
      local sf = line:match("(%d+) bytes stack frame")
      if sf then cur.stack = tonumber(sf) end
      local regs = line:match("Used (%d+) registers")
      if regs then cur.registers = tonumber(regs) end
      local smem = line:match("(%d+) bytes smem")
      if smem then cur.smem = tonumber(smem) end
    end
  end
  return out
end

return M
