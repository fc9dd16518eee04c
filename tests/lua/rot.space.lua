-- Unit tests of rot.space: parameter spaces (every combination, the last axis fastest), axes
-- and geometric sizes.
-- judges no time
local t = require "tap"
local rot = require "rot"

-- parameter space: every combination, first axis outermost
local s = rot.space { rot.axis("a", { 1, 2 }), rot.axis("b", { "x", "y", "z" }) }
t.is(s:size(), 6, "space size is the product of axis lengths")
local seen = {}
for p in s:points() do seen[#seen + 1] = p.a .. p.b end
t.is(table.concat(seen, ","), "1x,1y,1z,2x,2y,2z", "points iterate all combinations, last axis fastest")
local s2 = rot.space { { "n", { 10 } } }
local count = 0
for p in s2:points() do count = count + 1; t.is(p.n, 10, "shorthand axis {name, values}") end
t.is(count, 1, "single-point space")
t.raises(function() rot.space { rot.axis("a", { 1 }), rot.axis("a", { 2 }) } end, "given twice",
  "duplicate axis refused")
t.raises(function() rot.axis("a", {}) end, "non%-empty", "empty axis refused")
t.is(table.concat(rot.geometric(256, 4096, 2), ","), "256,512,1024,2048,4096", "geometric sizes")

t.done()
