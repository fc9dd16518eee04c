--[[ rot.results.placed: a counted point placed by what was counted (rot.results.counted). Its
  time is at least each of these terms; its bound is the largest, its limiter that term's name:
  - compute: its counted flops over the roof of its counted mix (M.compute);
  - L1: the bytes its instructions loaded and stored, over L1's ceiling;
  - each level below: its simulated traffic into that level, over the level's ceiling in the
    simulation's bytes (M.SIMULATED); DRAM: the traffic beyond the last level.
  The ceilings are the stored ones of the point's thread count (rot.results.bounds.threads). ]]
local util = require "rot.util"
local machine = require "rot.machine"
local ceilings = require "rot.machine.ceilings"
local theory = require "rot.machine.theory"
local bounds = require "rot.results.bounds"
local counted = require "rot.results.counted"

local M = {}

-- The counted classes' widths: the ISA class whose ceiling bounds adds, FMAs and the mix of
-- adds and multiplies of that width (rot.machine.isa), and the width in words.
M.WIDTHS = {
  scalar = { add = "scalar", fma = "scalar", addmul = "scalar", words = "scalar" },
  ["128"] = { add = "sse", fma = "avx128", addmul = "avx128", words = "128-bit" },
  ["256"] = { add = "avx2", fma = "avx2", addmul = "avx2", words = "256-bit" },
}
M.PRECISIONS = { fp64 = "double", fp32 = "float" }
-- A kernel counted without AVX-512 where its timed build used it (rot.count.engine.count_flags):
-- its 256-bit flops may have run 512 bits wide, and are bounded by those ceilings.
M.WIDER = { add = "avx512", fma = "avx512", addmul = "avx512", words = "512-bit" }

--[[ The bytes the simulated caches move below L1 for each byte a ceiling's kernel declares
  (STREAM's convention: each element once), by family: triad's store fills its line, then
  writes it back (32 B an element for 24 declared), read's loads fill theirs (8 for 8), write's
  fill and write back (16 for 8). At L1 the instructions' loads and stores are the declared
  bytes of all three. tests/e2e/count.t counts the three kernels and checks these. ]]
M.SIMULATED = { triad = 4 / 3, read = 1, write = 2 }

-- A level's traffic is read's below this share of written bytes, write's above M.WRITE_FROM (of
-- the instructions' bytes at L1; of the simulated traffic below it, where write-allocate fills a
-- line for each one written back: half of it written).
M.READ_BELOW = 0.05
M.WRITE_FROM = { L1 = 0.95, below = 0.45 }

-- The dominant class names the compute limiter when its share of the dominant term is above
-- this; else the limiter is "compute: mix".
M.DOMINANT_SHARE = 0.5

-- The clock a theoretical peak is taken at, in GHz: the highest any compute ceiling of c
-- recorded (its units' clock), else the one the measured ceilings imply at their theoretical
-- rates (peaks files without clocks); and how it was found.
local function clock_of(c)
  local best, how
  for _, x in pairs(c.ops or {}) do
    if x.row.clock and (not best or x.row.clock > best) then best, how = x.row.clock, "the compute ceilings' clock" end
  end
  if best then return best, how end
  local cpu = machine.cpuinfo()
  for name, x in pairs(c.ops or {}) do
    local th = theory.of({ name = name, isa = x.row.isa or name:match("^%a+_(%w+)_"), clock = 1, threads = c.threads,
      value = 0 }, cpu)
    if th and (not best or x.gflops / th.flops > best) then best = x.gflops / th.flops end
  end
  return best, best and "the clock the measured ceilings imply at their theoretical rates"
end

--[[ The ceiling of prec (double, float), ISA class cls and op (add, fma, addmul) at c's thread
  count: {gflops=, spread=, unstable=, name=}; where the peaks hold none (measured before rot
  measured it), its theoretical peak at the measured clock, said in notes; nil where there is
  neither (addmul: no theory). ]]
local function ceiling(c, prec, cls, op, notes)
  local name = prec .. "_" .. cls .. "_" .. op
  local x = c.ops and c.ops[name]
  if x then return { gflops = x.gflops, spread = x.spread, unstable = x.unstable, name = name } end
  local clock, how = clock_of(c)
  local th = clock and theory.of({ name = name, isa = cls, clock = clock, threads = c.threads,
    value = 0 }, machine.cpuinfo())
  if not th then return nil end
  notes[name] = string.format("%s: no measured ceiling (the peaks hold none), its theoretical peak "
    .. "%.3g GFLOP/s (%d %s x %d "
    .. "%s x %d a cycle at %.3g GHz, %s)", name, th.gflops, th.lanes, util.plural(th.lanes, "lane"), th.per_op,
    util.plural(th.per_op, "flop"), th.per_cycle, clock, how)
  return { gflops = th.gflops, spread = 0, name = name .. " (theory)" }
end

-- What a counted class is in words: "fp64 scalar", "fp32 256-bit", "fp64 256-bit FMA" (most
-- of its flops FMAs').
local function class_words(k, flops, fma)
  local p, w = k:match("^(fp%d+)_(%w+)$")
  return p .. " " .. M.WIDTHS[w].words .. (fma >= flops / 2 and " FMA" or "")
end

--[[ The compute term of a counted row at ceilings c: its flops by class (flopsClasses, of them
  the FMAs' and the adds' and subs': flopsFma, flopsAdd) over three rates a class's ceilings
  give, each in lane operations a second: adds alone (its add ceiling), multiplies and FMAs
  alone (its FMA ceiling, an FMA two flops: a multiply as fast as an FMA), and any mix of the
  two (its addmul ceiling: a core that adds on pipes apart from its multiplies runs both at
  once). Its time is the largest of the three sums over the classes (rot's pipe model: adds
  on their pipes, multiplies on theirs, both within what the mix reaches). Returns {time=,
  words= (the limiter: "compute: fp64 scalar", or "compute: mix" where no class takes
  more than DOMINANT_SHARE of the dominant sum), ceiling= (its ceiling's row), spread=, unstable=,
  pipes= ("adds", "multiplies and FMAs", "adds and multiplies together")}, or nil (no flops,
  or a class without ceilings; notes say which). notes: name -> line. ]]
function M.compute(r, c, notes)
  local sums = { add = { t = 0, by = {} }, mul = { t = 0, by = {} }, all = { t = 0, by = {} } }
  local any, e = false, r.countRecord
  local wider = e and e.flags and r.desc and r.desc.flags and e.flags ~= r.desc.flags -- (counted as built otherwise)
  for _, k in ipairs(counted.CLASSES) do
    local fl = (r.flopsClasses or {})[k] or 0
    if fl > 0 then
      any = true
      local p, w = k:match("^(fp%d+)_(%w+)$")
      local prec, width = M.PRECISIONS[p], M.WIDTHS[w]
      if wider and w == "256" then
        width = M.WIDER
        notes.wider = "counted without AVX-512, which its timed build used: its 256-bit flops are bounded by the "
          .. "AVX-512 ceilings, the widest its timed code may run"
      end
      local fma, add = (r.flopsFma or {})[k] or 0, (r.flopsAdd or {})[k] or 0
      local other = math.max(fl - fma - add, 0)
      local a, f = ceiling(c, prec, width.add, "add", notes), ceiling(c, prec, width.fma, "fma", notes)
      if not (a and f) then
        notes[k] = string.format("%s flops: no compute ceiling of their width (%s_%s_add, %s_%s_fma): the compute term "
          .. "leaves them out", k, prec, width.add, prec, width.fma)
      else
        local x = ceiling(c, prec, width.addmul, "addmul", notes)
        if not x then
          x = { gflops = a.gflops + f.gflops / 2, spread = math.max(a.spread or 0, f.spread or 0), name = "(none)" }
          notes.addmul = string.format("%s_%s_addmul: no add-and-multiply ceiling (the peaks hold none): adds and "
            .. "multiplies are taken to overlap fully", prec, width.addmul)
        end
        local rate_all = math.max(x.gflops, a.gflops, f.gflops / 2)
        local words = class_words(k, fl, fma):gsub("256%-bit", width.words)
        local function add_to(s, ops, rate, ceil)
          local t = ops / (rate * 1e9)
          s.t = s.t + t
          s.by[#s.by + 1] = { t = t, words = words, ceiling = ceil }
        end
        add_to(sums.add, add, a.gflops, a)
        add_to(sums.mul, fma / 2 + other, f.gflops / 2, f)
        add_to(sums.all, add + fma / 2 + other, rate_all, x)
      end
    end
  end
  if not any then return nil end
  local best, pipes = nil, nil
  for _, k in ipairs({ "add", "mul", "all" }) do
    if sums[k].t > 0 and (not best or sums[k].t > best.t) then best, pipes = sums[k], k end
  end
  if not best then return nil end
  table.sort(best.by, function(x, y) return x.t > y.t end)
  local top = best.by[1]
  local words = top.t > M.DOMINANT_SHARE * best.t and top.words or "mix"
  return { time = best.t, words = "compute: " .. words, ceiling = top.ceiling.name, spread = top.ceiling.spread,
    unstable = top.ceiling.unstable, pipes = ({ add = "adds", mul = "multiplies and FMAs",
      all = "adds and multiplies together" })[pipes] }
end

-- The family of traffic of which w of m bytes are written, at L1 (the instructions' bytes) or
-- below it (the simulated traffic).
local function family(w, m, at_l1)
  if m <= 0 then return "triad" end
  if w / m < M.READ_BELOW then return "read" end
  if w / m >= M.WRITE_FROM[at_l1 and "L1" or "below"] then return "write" end
  return "triad"
end

--[[ The ceiling of a level of a family at ceilings c: the peaks' own, else triad's (said in
  notes); in a transition that holds the row's working set (a warm one it declares) ending at
  this level, what the peaks' sweep measured there (rot.results.bounds.transition). Returns
  {gbs=, spread=, unstable=, name= (the limiter's: "L2 bw", "L1 read bw", "L3-DRAM bw"), row=},
  or nil where the peaks hold no ceiling of the level. ]]
local function level_ceiling(r, c, level, fam, notes)
  local own = fam ~= "triad" and c.streams and c.streams[fam] or {}
  local by = {}
  for _, x in ipairs(c.bandwidth or {}) do by[x.level] = x end
  local triad_by = by
  if #own > 0 then
    by = util.copy(by)
    for _, x in ipairs(own) do by[x.level] = x end
  end
  if fam ~= "triad" and not (by[level] and by[level].family == fam) then
    if triad_by[level] then
      notes[level
        .. fam] = string.format("%s traffic at %s: no %s ceiling there (the peaks hold none), triad's bounds it",
        fam, level, fam)
    end
    fam, by = "triad", triad_by
  end
  local b = by[level]
  if not b then return nil, fam end
  local out = { gbs = b.gbs, spread = b.spread, unstable = b.unstable, row = b.row, family = fam,
    name = level .. " " .. (fam ~= "triad" and (fam .. " ") or "") .. "bw" }
  local sw = c.sweep and (c.sweep[fam] or c.sweep.triad)
  local ws = r.workingSet
  if sw and ws and r.cacheMode ~= "cold" then
    local t = bounds.transition(ws, c.levels, by, sw)
    if t and t.to.name == level then
      local s = bounds.sweep_ceiling(ws, t, by, sw)
      out = { gbs = s.gbs, spread = s.spread, unstable = s.unstable, row = s.row or s.step, family = fam, step = true,
        name = s.name .. " " .. (fam ~= "triad" and (fam .. " ") or "") .. "bw" }
    end
  end
  return out, fam
end

--[[ The memory terms of a counted row at ceilings c: L1's (its loaded and stored bytes), then
  each simulated level's traffic, in the hierarchy's order: {{level=, bytes=, family=, gbs= (the
  ceiling in the simulation's bytes: its own times M.SIMULATED below L1), time=, ceiling=}};
  a level whose ceiling the peaks lack has no time (notes say so). ]]
function M.memory(r, c, notes)
  local out = {}
  if (r.bytesCounted or 0) > 0 then
    local fam = family(r.bytesStored or 0, r.bytesCounted, true)
    local ceil = level_ceiling(r, c, "L1", fam, notes)
    out[#out + 1] = { level = "L1", bytes = r.bytesCounted, ceiling = ceil, gbs = ceil and ceil.gbs,
      family = ceil and ceil.family or fam }
  end
  local names = util.sorted_keys(r.traffic or {})
  table.sort(names, function(a, b) return (a == "DRAM" and "~" or a) < (b == "DRAM" and "~" or b) end)
  for _, lv in ipairs(names) do
    local moved = r.traffic[lv]
    if moved > 0 then
      local fam = family((r.trafficWritten or {})[lv] or 0, moved, false)
      local ceil
      ceil, fam = level_ceiling(r, c, lv, fam, notes)
      out[#out + 1] = { level = lv, bytes = moved, ceiling = ceil, family = fam,
        gbs = ceil and ceil.gbs * M.SIMULATED[fam] }
    end
  end
  for _, t in ipairs(out) do
    if t.gbs and t.gbs > 0 then
      t.time = t.bytes / (t.gbs * 1e9)
    else
      notes["no " .. t.level] = string.format("%s: no measured ceiling (its %s %s bound nothing)", t.level,
        t.level == "L1" and "loads and stores," or "simulated traffic,", util.bytes(t.bytes))
    end
  end
  return out
end

-- Where a counted row's data live: its declared working set's level, as a declared bound names
-- it (rot.results.bounds.level_name; cold: DRAM); else the deepest level whose traffic is at
-- least a hundredth of the instructions' bytes (rot.results.counted.level_rows draws a point
-- there and above).
local function deepest(r, c)
  local lv = c.levels or {}
  if r.workingSet and #lv > 0 then
    return bounds.level_name(r, r.cacheMode == "cold" and lv[#lv] or ceilings.level_of(r.workingSet, lv))
  end
  local at, rank = "L1", 0
  for lv, b in pairs(r.traffic or {}) do
    local k = lv == "DRAM" and math.huge or tonumber(lv:match("^L(%d+)")) or 0
    if b > 0 and b >= 0.01 * (r.bytesCounted or 0) and k > rank then at, rank = lv, k end
  end
  return at
end

--[[ bound(r, c, epsilon): the counted bound of a counted row r at ceilings c
  (rot.machine.ceilings.for_threads): {bound= (GFLOP/s at its counted flops; nil without flops),
  limiter=, fraction= (the time bound over its time), time_bound=, dominant= ("compute" or the
  level's "L3 bandwidth"), level=, ceiling= (compute: the peaks' name of its dominant class's
  ceiling, "double_scalar_addmul"), family=, step=, unstable=, above=, code=, terms =
  {name -> s}, notes = {lines}}; nil where nothing bounds it. ]]
function M.bound(r, c, epsilon)
  if not (counted.has(r) and r.time and r.time > 0) then return nil end
  local notes, terms = {}, {}
  local comp = M.compute(r, c, notes)
  local best
  if comp then
    terms.compute = comp.time
    best = { time = comp.time, limiter = comp.words, dominant = "compute", ceiling = comp.ceiling, spread = comp.spread,
      unstable = comp.unstable, level = deepest(r, c), pipes = comp.pipes }
  end
  for _, t in ipairs(M.memory(r, c, notes)) do
    if t.time then
      terms[t.level] = t.time
      if not best or t.time > best.time then
        local ceil = t.ceiling
        best = { time = t.time, limiter = ceil.name, dominant = t.level .. " bandwidth", ceiling = ceil.name,
          spread = ceil.spread, unstable = ceil.unstable, level = r.workingSet and deepest(r, c) or t.level,
          family = t.family ~= "triad" and t.family or nil, step = ceil.step, row = ceil.row }
      end
    end
  end
  if not best or best.time <= 0 then return nil end
  local out = { time_bound = best.time, limiter = best.limiter, dominant = best.dominant, ceiling = best.ceiling,
    level = best.level, family = best.family, step = best.step, unstable = best.unstable,
      terms = terms, pipes = best.pipes }
  out.fraction = best.time / r.time
  out.bound = (r.flopsCounted or 0) > 0 and r.flopsCounted / best.time / 1e9 or nil
  out.code = best.row and (best.row.kind == nil or best.row.kind == "bandwidth") and best.row.isa or nil
  if out.unstable then out.limiter = out.limiter .. " (unstable)" end
  -- (a surveyed row's time is a share of samples: above its bound only beyond twice its error)
  local spread = r.sampleError and (1 + (r.spread or 0)) * (1 + 2 * r.sampleError) - 1 or r.spread
  -- (a split row's time is shared out by its instructions: a model, not a measurement)
  out.above = not r.surveySplit and bounds.above(out.fraction, spread, best.spread, epsilon)
  local lines = {}
  for _, k in ipairs(util.sorted_keys(notes)) do lines[#lines + 1] = notes[k] end
  out.notes = lines
  return out
end

--[[ of(r, c, epsilon): a row's bound at ceilings c: its counted one (M.bound) where it was
  counted, else the one of its declared (or measured) flops, bytes and working set
  (rot.results.bounds.of); and, beside a counted bound, that declared one (nil for a row whose
  flops and bytes are the counted ones: it declares none). ]]
function M.of(r, c, epsilon)
  local declared = bounds.of(r, c, epsilon)
  local p = M.bound(r, c, epsilon)
  if not p then return declared, nil end
  return p, r.counts ~= "counted" and declared or nil
end

-- A roof's name, for telling two apart: a limiter's level (or its transition), or "compute".
local function roof(limiter)
  local name = tostring(limiter):gsub(" %(unstable%)$", "")
  if name:match("^compute") then return "compute" end
  return (name:match("^(%S+)"))
end

-- Whether the declared and counted bounds of a row name different roofs (a memory level, or
-- compute against a level; the declared compute roof is always the machine's top one, the
-- counted a class's: not a disagreement of itself).
function M.differ(r)
  return r.limiterDeclared ~= nil and r.limiter ~= nil and roof(r.limiterDeclared) ~= roof(r.limiter)
end

-- The simulated traffic of a row in a few words: "L2 1.2 MiB, L3 0 B, DRAM 0 B".
local function traffic_words(r)
  local parts = {}
  local names = util.sorted_keys(r.traffic or {})
  table.sort(names, function(a, b) return (a == "DRAM" and "~" or a) < (b == "DRAM" and "~" or b) end)
  for _, lv in ipairs(names) do parts[#parts + 1] = lv .. " " .. util.bytes(r.traffic[lv]) end
  return table.concat(parts, ", ")
end

--[[ The lines under a table of counted rows: what a counted bound took where the peaks lack a
  ceiling (once each); for each row whose declared and counted bounds name different memory
  levels (M.differ), both and what that says: the declared working set is not where its counted
  traffic is (how a user sees a wrong declaration); where the counted bound is a level's and the
  declared one compute, that the declared bytes understate the traffic; and one line for the
  rows whose counted bound is their mix's compute roof and whose declared one a memory roof. A
  row above its declared bound and within its counted one says so: the counted bound explains
  it. ]]
function M.legend(rows, out)
  local said = {}
  local function say(l) if not said[l] then said[l] = true; out:write(l, "\n") end end
  for _, r in ipairs(rows) do
    for note in tostring(r.boundNote or ""):gmatch("[^;]+") do say("counted bound: " .. note:gsub("^ +", "")) end
  end
  local mix, limiters = {}, {}
  for _, r in ipairs(rows) do
    if M.differ(r) then
      local what = string.format("%s: the declared bound%s names %s (%.0f%%), the counted one %s "
        .. "(%.0f%%; simulated traffic "
        .. "%s)", util.coords(r.point or {}), (r.workingSet or 0) > 0 and (" (its declared working set "
        .. util.bytes(r.workingSet) .. ")") or "", r.limiterDeclared, (r.fractionDeclared or 0) * 100, r.limiter,
        (r.fraction or 0) * 100, traffic_words(r))
      local above = r.fractionDeclared and bounds.above(r.fractionDeclared, r.spread, nil, nil) and not r.above
      if roof(r.limiter) == "compute" then
        mix[#mix + 1] = util.coords(r.point or {})
        limiters[(r.limiter:gsub(" %(unstable%)$", ""))] = true
      elseif roof(r.limiterDeclared) == "compute" then
        say(what .. ": its counted traffic takes longer than its flops at the top compute ceiling; its declared bytes "
          .. "understate what it moves")
      else
        say(what .. (above
          and ": it is above the declared bound and within the counted one, which explains it: " or ": ")
          .. "the declared working set is not where its counted traffic is; the table gives the counted bound")
      end
    end
  end
  if #mix > 0 then
    local shown = table.move(mix, 1, math.min(#mix, 4), 1, {})
    say(string.format("%s: the counted bound is the compute roof of the instructions counted (%s), the declared one a "
      .. "memory roof: the declared bound takes the machine's top compute ceiling, not the mix that ran (%s%s)",
      util.count(#mix, "point"), table.concat(util.sorted_keys(limiters), ", "), table.concat(shown, "; "),
      #mix > #shown and ("; and " .. (#mix - #shown) .. " more") or ""))
  end
end

return M
