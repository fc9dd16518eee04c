--[[ Every size of a triad CSV (rot measure triad) from 4 MiB up, and not within a factor of two
  of a level's effective size (the stored peaks': -peaksFile), against the roof rot bounds it
  with. A size passes when its faster series lies at LO-HI of its bound and no series above
  HI, as the CSV says (against ceilings measured minutes before); a size that does not is
  judged again as a ratio against a reference measured alternately in the same run (a guest's
  DRAM bandwidth moves 2x in minutes): the peaks' own triad where the roof was measured (a
  level's ceiling: the size of its row nearest the point's; in a transition, the sweep's: the
  swept sizes around the point, interpolated as the bound is), in every code the peaks measure
  there (rot.peaks.widths.measured_at).
  - ARITH bad n: rows whose fraction_of_bound is not bandwidth_GBs / bound_GBs;
  - SAME hits n of m: the triad script's points, described again here, found in the run's
    cache (-cacheDir: the script's own), so the points measured again are the script's;
  - ROUND ws r ref SIZE*WEIGHT+... GB/s own GB/s FLAGS RATIO ...: in each of ROUNDS rounds, for
    each size judged again (in turn, the order reversed every other round), one batch: the
    reference, the peaks' triad at ws itself (own), and the script's points (the order
    reversed every other round), each series over the reference;
  - POINT ws best limiter FLAGS FRACTION ... [again FLAGS MEDIAN ... above FLAGS MEDIAN ...]:
    the CSV's fractions, best the faster series', and where judged again each series' median
    ratio over the reference (it must reach LO) and over the faster of the reference and the
    peaks' triad at ws (none may pass HI: a point that beats a roof measured at other sizes
    but not the peaks' own kernel at its working set is bounded by the levels the peaks
    found, not by a wrong roof);
  - CHECKED n WITHIN m LO HI: m of the n sizes that pass.
  rot run tests/e2e/roofs.lua TRIAD.csv [LO HI ROUNDS] -peaksFile=PEAKS.csv -cacheDir=CACHE ]]
local rot = require "rot"
local sys = require "rot.sys"
local util = require "rot.util"
local csv = require "rot.csv"
local bandwidth = require "rot.peaks.bandwidth"
local codes = require "rot.peaks.widths"
local sweep = require "rot.machine.sweep"

local lo, hi, nrounds = tonumber(arg[2] or "0.70"), tonumber(arg[3] or "1.15"), tonumber(arg[4] or "3")
local levels = rot.levels(1)
local records = assert(csv.parse_named(assert(sys.readfile(arg[1]), "no CSV '" .. tostring(arg[1]) .. "'")))

-- the sizes checked, each with its rows ({flags=, n=, fraction=, limiter=}); the arithmetic
local sizes, order, bad = {}, {}, 0
for _, f in ipairs(records) do
  local ws, fraction = tonumber(f.workingSet_bytes), tonumber(f.fraction_of_bound)
  local gbs, bound = tonumber(f.bandwidth_GBs), tonumber(f.bound_GBs)
  if fraction and not (gbs and bound and math.abs(fraction - gbs / bound) <= 1e-6 * fraction) then bad = bad + 1 end
  local near
  for _, l in ipairs(levels) do
    if l.effective and ws and ws >= l.effective / 2 and ws <= 2 * l.effective then near = l end
  end
  if ws and ws >= 4 * 1024 * 1024 then
    if near then
      if sizes[ws] == nil then
        print(string.format("SKIP %d within a factor of 2 of %s's effective size (%s)", ws, near.name,
          rot.util.bytes(near.effective)))
      end
      sizes[ws] = sizes[ws] or false
    else
      if sizes[ws] == nil then sizes[ws], order[#order + 1] = {}, ws end
      table.insert(sizes[ws], { flags = f.flags, n = tonumber(f.n), fraction = fraction, limiter = f.limiter or "?" })
    end
  end
end
table.sort(order)
print("ARITH bad " .. bad)

-- The triad script's point (lua/measurements/triad.lua builds it so), in a round of its own
-- when given; the peaks' triad at the same working set in one code.
local function point(x, round)
  return { kernel = "triad", params = { n = x.n }, flags = x.flags, macros = { STREAM_UNROLL = 2 }, round = round }
end
local TRIAD
for i, s in ipairs(bandwidth.streams) do if s.name == "triad" then TRIAD = i end end
local llc = bandwidth.llc_reported(1)

local specs = {}
for _, ws in ipairs(order) do for _, x in ipairs(sizes[ws]) do specs[#specs + 1] = point(x) end end
local function indices(k)
  local t = {}
  for i = 1, k do t[i] = i end
  return t
end
local res = rot.measure(rot.space { rot.axis("i", indices(#specs)) }, function(p) return specs[p.i] end)
local hits = 0
for _, row in ipairs(res.rows) do if row.cached then hits = hits + 1 end end
print(string.format("SAME hits %d of %d", hits, #specs))

-- A size's verdict from {flags = fraction or ratio} against LO (low) and HI (high, default the
-- same): the best of low, and whether it passes.
local function judge(low, xs, high)
  local best, above = nil, false
  for _, x in ipairs(xs) do
    local v, w = low[x.flags], (high or low)[x.flags]
    if v then best = math.max(best or 0, v) end
    above = above or (w ~= nil and w > hi)
  end
  return best, best ~= nil and best >= lo and not above
end

-- Where the roof of a size was measured, {{ws=, weight=}, ...}: a level's ceiling at its row's
-- size nearest the point's (in log); in a transition, or without a row, the peaks' sweep at the
-- sizes around it (its bound is their best rounds interpolated linearly, weighted by log size:
-- the reference is the sum of their values times these weights).
local rows = assert(require("rot.machine.ceilings").read_csv(rot.get("peaksFile")), "no peaks file")
local function nearest(ws, list)
  local best
  for _, x in ipairs(list) do
    if not best or math.abs(math.log(x / ws)) < math.abs(math.log(best / ws)) then best = x end
  end
  return best
end
local swept = (sweep.stored(rows, 1) or {}).triad
local function roof_sizes(ws, limiter)
  local level = limiter:match("^(%S+) bw")
  for _, r in ipairs(rows) do
    if r.threads == 1 and r.name == "triad_" .. tostring(level) and r.sizes and not level:find("-", 1, true) then
      return { { ws = nearest(ws, r.sizes), weight = 1 } }
    end
  end
  local at = swept and sweep.bandwidth_at(swept, ws) -- the sizes it lies between, as the bound takes them
  if not at then return { { ws = ws, weight = 1 } } end
  if at.lo == at.hi then return { { ws = at.lo, weight = 1 } } end
  local f = math.log(ws / at.lo) / math.log(at.hi / at.lo)
  return { { ws = at.lo, weight = 1 - f }, { ws = at.hi, weight = f } }
end

local stored, again = {}, {}
for _, ws in ipairs(order) do
  stored[ws] = {}
  for _, x in ipairs(sizes[ws]) do stored[ws][x.flags] = x.fraction end
  local _, pass = judge(stored[ws], sizes[ws])
  if not pass then again[#again + 1] = ws end
end

-- One round at a size judged again: one batch of the reference (the peaks' triad where the roof
-- was measured, each size in every code the peaks measure there, the faster code's), the peaks'
-- triad at ws itself, and the script's points (the order reversed every other round); the
-- points' ratios over the reference (low) and over the faster of it and the triad at ws (high).
local base = os.time() * 100 -- rounds never measured before: no cache hit
local ratios = {} -- ratios[ws].low[flags], .high[flags] = {per round}
local function round(ws, r)
  local at = roof_sizes(ws, sizes[ws][1].limiter)
  local where, swept = { table.unpack(at) }, false
  for _, x in ipairs(at) do swept = swept or x.ws == ws end
  if not swept then where[#where + 1] = { ws = ws, weight = 0 } end
  local batch, kinds = {}, {}
  for j, x in ipairs(where) do
    for _, code in ipairs(codes.measured_at(x.ws, llc)) do
      batch[#batch + 1] = bandwidth.spec { stream = TRIAD, threads = 1, ws = x.ws, code = code, round = base + r }
      kinds[#batch] = j
    end
  end
  for _, x in ipairs(sizes[ws]) do batch[#batch + 1], kinds[#batch + 1] = point(x, base + r), x.flags end
  if r % 2 == 0 then
    for i = 1, #batch // 2 do
      local j = #batch + 1 - i
      batch[i], batch[j], kinds[i], kinds[j] = batch[j], batch[i], kinds[j], kinds[i]
    end
  end
  local rows = rot.measure(rot.space { rot.axis("i", indices(#batch)) }, function(p) return batch[p.i] end).rows
  local by, got, ref = {}, {}, 0
  for i, row in ipairs(rows) do
    if type(kinds[i]) == "number" then by[kinds[i]] = math.max(by[kinds[i]] or 0, row.gbs
      or 0) else got[kinds[i]] = row.gbs end
  end
  for j, x in ipairs(at) do ref = ref + x.weight * (by[j] or 0) end -- as rot.machine.sweep.bandwidth_at interpolates
  local own = math.max(ref, not swept and by[#where] or 0)
  ratios[ws] = ratios[ws] or { low = {}, high = {} }
  local low, high, each = ratios[ws].low, ratios[ws].high, {}
  for _, x in ipairs(sizes[ws]) do
    local g = got[x.flags]
    low[x.flags], high[x.flags] = low[x.flags] or {}, high[x.flags] or {}
    if g and ref > 0 then
      table.insert(low[x.flags], g / ref)
      table.insert(high[x.flags], g / own)
    end
    each[#each + 1] = string.format("%s %s", x.flags:gsub(" ", "_"), (g and ref > 0)
      and string.format("%.3f", g / ref) or "none")
  end
  local said = {}
  for _, x in ipairs(at) do said[#said + 1] = string.format("%d*%.2f", x.ws, x.weight) end
  print(string.format("ROUND %d %d ref %s %.2f own %.2f %s", ws, r, table.concat(said, "+"), ref, own,
    table.concat(each, " ")))
end
for r = 1, #again > 0 and nrounds or 0 do
  for k = 1, #again do round(again[r % 2 == 1 and k or #again + 1 - k], r) end
end

local function show(by, xs)
  local each = {}
  for _, x in ipairs(xs) do
    each[#each + 1] = string.format("%s %s", x.flags:gsub(" ", "_"), by[x.flags]
      and string.format("%.3f", by[x.flags]) or "none")
  end
  return table.concat(each, " ")
end
local n, within = 0, 0
for _, ws in ipairs(order) do
  local best, pass = judge(stored[ws], sizes[ws])
  local said = show(stored[ws], sizes[ws])
  if ratios[ws] then
    local median = { low = {}, high = {} }
    for side, by in pairs(ratios[ws]) do
      for flags, v in pairs(by) do median[side][flags] = #v > 0 and util.median(v) or nil end
    end
    best, pass = judge(median.low, sizes[ws], median.high)
    said = said .. " again " .. show(median.low, sizes[ws]) .. " above " .. show(median.high, sizes[ws])
  end
  n = n + 1
  if pass then within = within + 1 end
  print(string.format("POINT %d %.3f %s %s", ws, best or 0, sizes[ws][1].limiter, said))
end
print(string.format("CHECKED %d WITHIN %d %g %g", n, within, lo, hi))
