-- rot.space: parameter spaces as in the thesis: axes with values, and the points
-- (coordinates) over all their combinations, first axis outermost.
local util = require "rot.util"
local M = {}

local Axis = {}
Axis.__index = Axis

function M.axis(name, values)
  if type(name) ~= "string" or name == "" then error("axis name must be a non-empty string", 2) end
  if type(values) ~= "table" or #values == 0 then
    error("axis '" .. name .. "' needs a non-empty list of values", 2)
  end
  return setmetatable({ name = name, values = values }, Axis)
end

local Space = {}
Space.__index = Space

-- space{ axis(...), axis(...) } or space{ {"name", {values}}, ... }
function M.new(axes)
  local s = setmetatable({ axes = {} }, Space)
  for i, a in ipairs(axes or {}) do
    if getmetatable(a) ~= Axis then
      if type(a) ~= "table" then error("space: entry " .. i .. " is not an axis", 2) end
      a = M.axis(a[1], a[2])
    end
    s:add(a)
  end
  return s
end

function Space:add(axis)
  for _, a in ipairs(self.axes) do
    if a.name == axis.name then error("space: axis '" .. axis.name .. "' given twice", 2) end
  end
  self.axes[#self.axes + 1] = axis
  return self
end

function Space:size()
  local n = #self.axes > 0 and 1 or 0
  for _, a in ipairs(self.axes) do n = n * #a.values end
  return n
end

-- Iterator over coordinates: tables {axisname = value, ...}; the last axis varies fastest.
function Space:points()
  local axes, n = self.axes, self:size()
  local i = 0
  return function()
    if i >= n then return nil end
    local rest, c = i, {}
    for j = #axes, 1, -1 do
      local vals = axes[j].values
      c[axes[j].name] = vals[rest % #vals + 1]
      rest = rest // #vals
    end
    i = i + 1
    return c
  end
end

-- Geometric sequence from..to (inclusive where it lands), as integers when both are.
function M.geometric(from, to, factor)
  factor = factor or 2
  assert(factor > 1 and from > 0 and to >= from, "geometric(from, to, factor>1)")
  local out, v = {}, from
  while v <= to * (1 + 1e-9) do
    out[#out + 1] = (math.type(from) == "integer" and math.type(to) == "integer")
        and math.floor(v + 0.5) or v
    v = v * factor
  end
  return out
end

M.Space = Space
return M
