-- Every point of a triad CSV (rot measure triad) at -O3 -march=native from 4 MiB up, and not
-- within a factor of two of a level's effective size (the stored peaks': -peaksFile), against
-- its bound: prints "POINT ws fraction limiter" for each one checked, "SKIP ws why" for the
-- others, then "CHECKED n WITHIN m LO hi" (m of the n within lo-hi of their bound).
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
local n, within = 0, 0
for i = 2, #lines do
  local f = fields(lines[i])
  local ws, fraction, limiter = tonumber(f[col.workingSet_bytes]), tonumber(f[col.fraction_of_bound]), f[col.limiter]
  local near
  for _, l in ipairs(levels) do
    if l.effective and ws and ws >= l.effective / 2 and ws <= 2 * l.effective then near = l end
  end
  local counted = f[col.flags] == "-O3 -march=native" and ws and ws >= 4 * 1024 * 1024
  if counted and near then
    print(string.format("SKIP %d within a factor of 2 of %s's effective size (%s)", ws, near.name, rot.util.bytes(near.effective)))
  elseif counted and not fraction then
    print(string.format("POINT %d none %s", ws, limiter or "?"))
    n = n + 1
  elseif counted then
    n = n + 1
    if fraction >= lo and fraction <= hi then within = within + 1 end
    print(string.format("POINT %d %.3f %s", ws, fraction, limiter))
  end
end
print(string.format("CHECKED %d WITHIN %d %g %g", n, within, lo, hi))
