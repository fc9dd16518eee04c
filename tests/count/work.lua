-- work: the user kernel kernels/work.c at two sizes, counted: rot measure tests/count/work.lua
-- TIMES (its loop done TIMES times over, its declaration one pass's), for rot compare's work
-- and rate and the line on a declaration that drifted (tests/e2e/count.t).
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("n", { 1000, 100000 }) }, function(p)
  return { kernel = "work", params = { n = p.n }, macros = { WORK_TIMES = arg[1] or 1 },
    count = true, minRunTime = 0.0002 }
end)
r:table()
r:csv("work")
