-- the machine's ceilings: compute per precision and ISA, bandwidth per memory level in rounds; writes peaks.csv
local rot = require "rot"
local peaks = require "rot.machine.peaks"
local rounds = require "rot.machine.rounds"
local theory = require "rot.machine.theory"

local info = rot.machine.cpuinfo()
local out, stair, clocks, units = peaks.measure(rot, rot.get("quick"))
-- the machine's copy in the cache directory, which every roofline uses: ceilings that moved
-- since it was stored are marked unstable before anything is written
local moved = peaks.moved(peaks.read_csv(peaks.current_path(rot)), out)
for _, m in ipairs(moved) do m.new.unstable = true end
local note = peaks.moved_note(moved)
if note then io.stderr:write("rot: peaks: ", note, "\n") end

io.stdout:write(string.format("%-22s %-9s %7s %14s %8s %6s  %s\n", "name", "kind", "threads", "value", "spread", "rounds",
  "how"))
local swept = {} -- the sweep's rows (kind sweep) are the staircase below, not the table's
for _, r in ipairs(out) do
  if r.kind == "sweep" then
    swept[r.threads] = (swept[r.threads] or 0) + 1
  else
    local v = r.kind == "size" and rot.util.bytes(r.value) or string.format("%.2f %s", r.value, r.unit)
    local how = r.kind == "bandwidth" and string.format("%s at %d size%s", r.kernel, #r.sizes, #r.sizes == 1 and "" or "s")
      or r.kind == "compute" and (r.kernel .. " " .. r.isa) or ""
    io.stdout:write(string.format("%-22s %-9s %7d %14s %8s %6s  %s%s\n", r.name, r.kind, r.threads, v,
      r.spread and string.format("%.1f%%", r.spread * 100) or "", r.rounds or "", how, r.unstable and "  UNSTABLE" or ""))
  end
end
for _, t in ipairs(rot.util.sorted_keys(swept)) do
  io.stdout:write(string.format("sweep, %s: %d rows (kernel and size: each size's best round) in peaks.csv, kind sweep: "
    .. "they bound a working set where the sweep falls between two levels\n", require("rot.machine.bandwidth").threads(t), swept[t]))
end
local unstable = 0
for _, r in ipairs(out) do if r.unstable and r.kind ~= "sweep" then unstable = unstable + 1 end end
if unstable > 0 then
  io.stdout:write(string.format("UNSTABLE: %d ceiling%s whose best rounds still disagree by more than 5%%%s: the points "
    .. "they bound say so (limiter '... (unstable)'); %s\n", unstable, unstable == 1 and "" or "s",
    #moved > 0 and ", or that moved since they were stored" or "", rounds.again))
end
-- the read kernel measures bandwidth, not its additions' latency: L1 against two loads a cycle,
-- and against two of the halves a core loads where it splits its widest vector: AMD family 19h
-- (Zen 4) loads two 32-byte halves a cycle, a 512-bit load taking both
local vec = info.flags.avx512f and 64 or info.flags.avx2 and 32 or 16
local cpu = require("rot.sys").readfile("/proc/cpuinfo") or ""
local split = vec > 32 and cpu:match("vendor_id%s*:%s*AuthenticAMD") and cpu:match("cpu family%s*:%s*(%d+)") == "25" and 32
for _, r in ipairs(out) do
  if r.name == "read_L1" and r.threads == 1 and r.clock then
    io.stdout:write(string.format("read L1, 1 thread: %.1f GB/s = %.1f bytes a cycle at %.2f GHz: %.0f%% of two %d-byte loads a cycle%s\n",
      r.value, r.value / r.clock, r.clock, r.value / (2 * vec * r.clock) * 100, vec, split and string.format(
      "; %.0f%% of two %d-byte ones, what this core loads a cycle (AMD family 19h, Zen 4: a %d-bit load is two %d-bit halves)",
      r.value / (2 * split * r.clock) * 100, split, vec * 8, split * 8) or ""))
  end
end
if clocks and #clocks > 0 and #out > 0 then -- each compute ceiling records the higher around its best round
  local any = table.concat(clocks, ", ")
  io.stdout:write(string.format("core clock (dependent imul chain, CPU 0) before/after each compute round: %s GHz%s\n",
    any, any:find("?", 1, true) and " ('?': the reading failed, or none was taken after a round from the cache)" or ""))
end
if units and #out > 0 then io.stdout:write(units, "\n") end
-- the FMA ceilings at 1 thread against their theoretical peak at the clock their units ran at
local shares = {}
for _, r in ipairs(out) do
  if r.kind == "compute" and r.threads == 1 and r.name:match("^double_.*_fma$") then shares[#shares + 1] = theory.text(r, info) end
end
if #shares > 0 then io.stdout:write("FP64 FMA ceilings, 1 thread: ", table.concat(shares, "; "), "\n") end
-- peaks.csv here, and the machine's copy
local dir = rot.output_dir()
peaks.write_csv(dir .. "/peaks.csv", out)
peaks.store(rot, out)

-- the bandwidth staircase behind the plateaus (the best of each size over its rounds)
rot.results(stair):staircase { name = "peaks-bandwidth", title = "bandwidth vs working set (" .. info.model .. ")", step = false,
  series = function(r) return peaks.streams[r.point.stream].name .. ", " .. require("rot.machine.bandwidth").threads(r.point.threads) end }
