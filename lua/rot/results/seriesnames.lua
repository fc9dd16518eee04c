-- rot.results.seriesnames: a plot's series named after a memory level ("data in DRAM", "L2",
-- "beyond L2") checked against the levels its points' data live in (rot.results.bounds).
local util = require "rot.util"

local M = {}

-- Words that say a series is past the level named after them.
local BEYOND = { beyond = true, past = true, above = true, outside = true, over = true }

--[[ A level's place in the hierarchy: the index of its name in names (L1, L2, ..., DRAM), and
  half a step past its cache for the step from the last cache to DRAM ("L3-DRAM"); nil for a
  name that is none of them. ]]
local function rank(level, names)
  local cache = level:match("^(L%d+%+*)%-DRAM$")
  for i, n in ipairs(names) do
    if n == (cache or level) then return cache and i + 0.5 or i end
  end
  return nil
end

--[[ The levels a series name names, as words in any case ("dram", "beyond_L2" too): {{name=,
  rank=, beyond=}}, the step to DRAM ("L3-DRAM") read as one. names: the machine's levels. ]]
function M.named(series, names)
  local out, s = {}, series:lower()
  local rest = s:gsub("%f[%w](l%d+)%-dram%f[%W]", function(c)
    local r = rank(c:upper() .. "-DRAM", names)
    if r then out[#out + 1] = { name = c:upper() .. "-DRAM", rank = r } end
    return r and "" or nil
  end)
  for i, n in ipairs(names) do
    for pos in rest:gmatch("()%f[%w]" .. n:lower() .. "%f[%W]") do
      local word = rest:sub(1, pos - 1):match("(%a+)[%s_]*$")
      out[#out + 1] = { name = n, rank = i, beyond = word and BEYOND[word] or false }
    end
  end
  return out
end

-- Whether a series name has a word any machine's level could be named by (L1, L2, ..., DRAM):
-- where none does, no level needs to be known to check it (M.misnamed).
function M.might_name(series)
  local s = series:lower()
  return s:find("%f[%w]l%d+%f[%W]") ~= nil or s:find("%f[%w]dram%f[%W]") ~= nil
end

--[[ The series of rows (series(row) -> name) named after a level some of their points' data do
  not live in: {{series=, said=, wrong = {level -> the first working set there}, levels = {in
  order}}}. level_of(row) gives a row's level name (nil: unknown, not judged, nor asked its
  series); names: the machine's levels, L1 first, DRAM last. ]]
function M.misnamed(rows, series, level_of, names)
  local out, by = {}, {}
  for _, r in ipairs(rows) do
    local lvl = level_of(r)
    local s = lvl and series(r)
    local named = s and M.named(s, names)
    if named and #named > 0 then
      local ok, pr = false, rank(lvl, names)
      for _, n in ipairs(named) do
        if pr and ((n.beyond and pr > n.rank) or (not n.beyond and pr == n.rank)) then ok = true end
      end
      if not ok then
        local m = by[s]
        if not m then
          local said = {}
          for _, n in ipairs(named) do said[#said + 1] = (n.beyond and "beyond " or "") .. n.name end
          m = { series = s, said = table.concat(said, ", "), wrong = {}, levels = {} }
          by[s], out[#out + 1] = m, m
        end
        if not m.wrong[lvl] then
          m.wrong[lvl] = r.workingSet
          m.levels[#m.levels + 1] = lvl
        end
      end
    end
  end
  return out
end

-- The warning for one misnamed series of plot `name` (M.misnamed's).
function M.warning(name, m)
  local where = {}
  for _, l in ipairs(m.levels) do
    where[#where + 1] = l .. (m.wrong[l] and (" (" .. util.bytes(m.wrong[l]) .. ")") or "")
  end
  return string.format("rot: warning: plot '%s': series '%s' is named after %s, but points of "
    .. "it have their data in %s: "
    .. "name it after the level its points are in (a row's level, the table's limiter)\n", name, m.series, m.said,
    table.concat(where, ", "))
end

return M
