-- Benchmark helper: the core clock now, in GHz, from a dependent imul chain on CPU 0 (measured
-- afresh: run it with -useCachedResults=false).
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("x", { 1 }) }, function()
  return { kernel = "clock", params = { n = 2000000 }, pin = { 0 }, flags = "-O2" }
end).rows[1]
if not r.time then rot.fail("the clock could not be measured: " .. tostring(r.failed)) end
print(string.format("clock_ghz %.4f", r.flops / r.time / 1e9))
