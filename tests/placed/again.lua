--[[ again: tests/placed/loops.c's compute-bound regions (chain, fma, lulesh) judged again
  (tests/e2e/measurements.t): a shared guest's CPU can run a compute ceiling's rounds slower
  than a point minutes later, so a point above its bound is held, as a ratio, against its
  ceiling measured alternately with it. The program is profiled once with -count (its counts
  from the count cache) for each region's time bound and the ceiling of its compute term
  (rot.results.placed: the peaks' name of its dominant class's). Then in ROUNDS rounds, the
  order reversed every other round, one batch: those ceilings' points (rot.peaks.compute.spec,
  each its median run, as `rot measure peaks` takes it) and the program. A round's fraction of
  a region is its time bound scaled by its ceiling's stored value over that round's, over its
  time in that round. One line a region:
    AGAIN REGION CEILING STORED-GFLOPS ROUND-GFLOPS,... FRACTIONS,... MEDIAN
  rot run tests/placed/again.lua PROGRAM L2-BYTES LLC-BYTES [ROUNDS] -peaksFile=PEAKS -cacheDir=CACHE ]]
local rot = require "rot"
local isa = require "rot.machine.isa"
local compute = require "rot.peaks.compute"
local rounds = require "rot.peaks.settle"

local prog, l2, llc, n = arg[1], arg[2], arg[3], tonumber(arg[4] or "3")
local names = { "chain", "fma", "lulesh" }
local function app(round)
  return { app = prog, args = { l2, llc, table.unpack(names) }, threads = 1, count = true, round = round }
end

-- each region's time bound and its compute ceiling, from one counted profile
local first = rot.measure(rot.space { rot.axis("i", { 1 }) }, function() return app(nil) end):bounds()
local stored, todo, marked = first:ceilings(nil, 1).ops, {}, {}
for _, name in ipairs(names) do marked[name] = true end
for _, r in ipairs(first.rows) do -- (the marked regions': a surveyed loop's time is a share of samples)
  if marked[r.region] and r.dominant == "compute" and r.ceiling and stored[r.ceiling] then
    todo[#todo + 1] = { region = r.region, ceiling = r.ceiling, bound = r.timeBound, now = {}, fractions = {} }
  end
end

-- the ceiling points, each once
local class = {}
for _, c in ipairs(isa.classes) do class[c.name] = c end
local ceilings, seen = {}, {}
for _, x in ipairs(todo) do
  local prec, cls, op = x.ceiling:match("^(%a+)_(%w+)_(%a+)$")
  if not seen[x.ceiling] and class[cls] then
    seen[x.ceiling] = true
    ceilings[#ceilings + 1] = { name = x.ceiling, c = { isa = class[cls], prec = prec, op = op, threads = 1 } }
  end
end

for round = 1, n do
  local specs, what = {}, {}
  for _, c in ipairs(ceilings) do specs[#specs + 1], what[#what + 1] = compute.spec(c.c, round), c.name end
  specs[#specs + 1], what[#what + 1] = app(round), false
  if round % 2 == 0 then
    local rs, rw = {}, {}
    for i = #specs, 1, -1 do rs[#rs + 1], rw[#rw + 1] = specs[i], what[i] end
    specs, what = rs, rw
  end
  local ids = {}
  for i = 1, #specs do ids[i] = i end
  local res = rot.measure(rot.space { rot.axis("i", ids) }, function(p) return specs[p.i] end)
  local value, time = {}, {}
  for _, r in ipairs(res.rows) do
    local name = what[r.point.i]
    if name then
      local t = rounds.median_time(r)
      value[name] = t and r.flops / t / 1e9
    elseif r.region then
      time[r.region] = r.time
    end
  end
  for _, x in ipairs(todo) do
    local v, t = value[x.ceiling], time[x.region]
    if v and t and t > 0 then
      x.now[#x.now + 1] = string.format("%.4g", v)
      x.fractions[#x.fractions + 1] = x.bound * stored[x.ceiling].gflops / v / t
    end
  end
end

for _, x in ipairs(todo) do
  local f = x.fractions
  table.sort(f)
  local median = #f > 0 and (#f % 2 == 1 and f[(#f + 1) // 2] or (f[#f // 2] + f[#f // 2 + 1]) / 2) or nil
  local shown = {}
  for i, v in ipairs(f) do shown[i] = string.format("%.3f", v) end
  print(string.format("AGAIN %s %s %.4g %s %s %s", x.region, x.ceiling, stored[x.ceiling].gflops,
    #x.now > 0 and table.concat(x.now, ",") or "-", #shown > 0 and table.concat(shown, ",") or "-",
    median and string.format("%.3f", median) or "-"))
end
