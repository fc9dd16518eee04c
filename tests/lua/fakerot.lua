-- fakerot: a stand-in for the rot library in tests of the peaks' rounds: settings in vals, a
-- space of one axis (its values), measure(idx, describe) the test's own; and a point's size.
local M = {}

-- The nominal working set of a bandwidth point described as the peaks describe it (n elements
-- of 8 bytes in each of its kernel's arrays, rounded down to the sweep's power of two).
function M.ws(d)
  local arrays = d.kernel == "triad" and 3 or 1
  local ws = 4096
  while ws * 2 <= d.params.n * 8 * arrays + 64 do ws = ws * 2 end
  return ws
end

-- fakerot(measure, vals, cached): the stand-in; cached(idx, describe) says whether the points
-- would all come from the cache (rot.cached; by default never)
return setmetatable(M, { __call = function(_, measure, vals, cached)
  local f = { vals = vals or { progress = "never" }, measure = measure }
  function f.cached(idx, describe) return cached ~= nil and cached(idx, describe) or false end
  function f.get(k) return f.vals[k] end
  function f.set(k, v) f.vals[k] = v end
  function f.axis(_, v) return v end
  function f.space(axes) return axes[1] end
  return f
end })
