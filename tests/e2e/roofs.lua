-- Every size of a triad CSV (rot measure triad) from 4 MiB up, and not within a factor of two
-- of a level's effective size (the stored peaks': -peaksFile), against its bound: prints
-- "POINT ws best limiter FLAGS FRACTION ..." for each size checked (best: its series' highest
-- fraction of the bound), "SKIP ws why" for the others, then "CHECKED n WITHIN m LO hi" (m of
-- the n sizes where the best series reaches lo and none lies above hi).
--   rot run tests/e2e/roofs.lua TRIAD.csv [LO HI] -peaksFile=PEAKS.csv
local rot = require "rot"
local sys = require "rot.sys"

local lo, hi = tonumber(arg[2] or "0.70"), tonumber(arg[3] or "1.15")
local levels = rot.levels(1)
local lines = {}
for l in assert(sys.readfile(arg[1]), "no CSV '" .. tostring(arg[1]) .. "'"):gmatch("[^\n]+") do lines[#lines + 1] = l end
local function fields(line) -- the shipped CSVs quote no field that holds a comma here
  local out = {}
  for x in (line .. ","):gmatch("([^,]*),") do out[#out + 1] = x end
  return out
end
local col = {}
for i, name in ipairs(fields(lines[1])) do col[name] = i end
-- per size: each series' fraction; a size passes when no series lies above hi and the best
-- reaches lo (a roof is the faster code's: the vectors' in the caches, -O2's from DRAM on some
-- machines, rot.machine.codes)
local sizes, order = {}, {}
for i = 2, #lines do
  local f = fields(lines[i])
  local ws, fraction, limiter = tonumber(f[col.workingSet_bytes]), tonumber(f[col.fraction_of_bound]), f[col.limiter]
  local near
  for _, l in ipairs(levels) do
    if l.effective and ws and ws >= l.effective / 2 and ws <= 2 * l.effective then near = l end
  end
  if ws and ws >= 4 * 1024 * 1024 then
    if near then
      if sizes[ws] == nil then print(string.format("SKIP %d within a factor of 2 of %s's effective size (%s)", ws, near.name, rot.util.bytes(near.effective))) end
      sizes[ws] = sizes[ws] or false
    else
      if sizes[ws] == nil then sizes[ws], order[#order + 1] = {}, ws end
      table.insert(sizes[ws], { flags = f[col.flags], fraction = fraction, limiter = limiter or "?" })
    end
  end
end
table.sort(order)
local n, within = 0, 0
for _, ws in ipairs(order) do
  local best, above, each = nil, false, {}
  for _, x in ipairs(sizes[ws]) do
    if x.fraction then
      best = math.max(best or 0, x.fraction)
      above = above or x.fraction > hi
    end
    each[#each + 1] = string.format("%s %s", x.flags:gsub(" ", "_"), x.fraction and string.format("%.3f", x.fraction) or "none")
  end
  n = n + 1
  if best and best >= lo and not above then within = within + 1 end
  print(string.format("POINT %d %.3f %s %s", ws, best or 0, sizes[ws][1].limiter, table.concat(each, " ")))
end
print(string.format("CHECKED %d WITHIN %d %g %g", n, within, lo, hi))
