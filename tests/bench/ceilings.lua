-- Benchmark: rot's DRAM triad bandwidth and L1 FP64 FMA peak, and the core clock they ran at.
-- Prints "key value" lines for bench.sh.
local rot = require "rot"
local peaks = require "rot.machine.peaks"
local info = rot.machine.cpuinfo()
local llc = rot.llc()
local threads = peaks.thread_counts()
local pins = rot.machine.pins

-- DRAM: far beyond the last level (a thrash-resistant L3 still serves a share of a working set
-- a few times its size), as STREAM's 2.4 GB arrays are
local mem = rot.machine.topology().memory
local ws = math.max(16 * llc, 512 * 1024 * 1024)
if mem > 0 then ws = math.min(ws, mem // 4) end
print(string.format("dram_ws %d", ws))
local bw = rot.measure(rot.space { rot.axis("threads", threads) }, function(p)
  return { kernel = "triad", params = { n = ws // 24 }, threads = p.threads, pin = pins(p.threads), flags = "-O3 -march=native" }
end)
for _, r in ipairs(bw.rows) do print(string.format("triad_dram_%d %.3f", r.point.threads, r.gbs)) end
for _, t in ipairs(threads) do -- the DRAM plateau of the stored peaks
  for _, l in ipairs(rot.levels(t)) do
    if l.name == "DRAM" and l.gbs then print(string.format("peaks_dram_%d %.3f", t, l.gbs)) end
  end
end

local avx512 = info.flags.avx512f
local fl = rot.measure(rot.space { rot.axis("x", { 1 }) }, function()
  return { kernel = "peakflops", params = { n = 200000 }, threads = 1, pin = { 0 },
    flags = (avx512 and "-O2 -mavx512f -mfma" or "-O2 -mavx2 -mfma") .. " -fno-tree-vectorize -fno-tree-slp-vectorize",
    macros = { PEAK_TYPE = "double", PEAK_LANES = avx512 and 8 or 4, PEAK_OP = 0, PEAK_CHAINS = avx512 and 24 or 12 } }
end)
print(string.format("fma_peak_1 %.3f", fl.rows[1].gflops))
print(string.format("fma_lanes %d", avx512 and 8 or 4))

local clk = rot.measure(rot.space { rot.axis("x", { 1 }) }, function()
  return { kernel = "clock", params = { n = 1000000 }, pin = { 0 }, flags = "-O2" }
end)
print(string.format("clock_ghz %.4f", clk.rows[1].flops / clk.rows[1].time / 1e9))
