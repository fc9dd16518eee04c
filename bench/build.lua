-- Benchmark helper: one triad point whose STREAM_UNROLL macro comes from arg[1].
local rot = require "rot"
rot.measure(rot.space { rot.axis("n", { 512 }) }, function(p)
  return { kernel = "triad", params = { n = p.n }, flags = "-O2", macros = { STREAM_UNROLL = arg[1] } }
end)
