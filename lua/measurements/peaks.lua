-- the machine's ceilings: compute per precision and ISA, bandwidth per memory level in rounds; writes peaks.csv
local rot = require "rot"
local ceilings = require "rot.machine.ceilings"
local measure = require "rot.peaks"
local bandwidth = require "rot.peaks.bandwidth"
local report = require "rot.peaks.report"
local theory = require "rot.machine.theory"
local sys = require "rot.sys"

local info = rot.machine.cpuinfo()
local out, stair, clocks, units, measured = measure.ceilings(rot, rot.get("quick"))
-- the machine's copy in the cache directory, which every roofline uses: a run that measured
-- nothing (every point from the cache) shows it and leaves it as it is, values, clocks and
-- dates; otherwise ceilings that moved since it was stored are marked unstable before anything
-- is written
local path = ceilings.current_path(rot)
local stored = measured == 0 and #out > 0 and ceilings.read_csv(path)
if stored then
  out = report.as_stored(stored, out)
  io.stderr:write("rot: peaks: every point came from the result cache: the stored peaks ('", path, "') are shown as "
    .. "they are, untouched (rot measure peaks -useCachedResults=false measures them afresh)\n")
else
  local moved = measure.moved(ceilings.read_csv(path), out)
  for _, m in ipairs(moved) do m.new.unstable, m.new.moved = true, true end
  local note = measure.moved_note(moved)
  if note then io.stderr:write("rot: peaks: ", note, "\n") end
end

io.stdout:write(string.format("%-22s %-9s %7s %14s %8s %6s  %s\n", "name", "kind", "threads", "value",
  "spread", "rounds", "how"))
local swept = {} -- the sweep's rows (kind sweep) are the staircase below, not the table's
for _, r in ipairs(out) do
  if r.kind == "sweep" then
    swept[r.threads] = (swept[r.threads] or 0) + 1
  else
    local v = r.kind == "size" and rot.util.bytes(r.value) or string.format("%.2f %s", r.value, r.unit)
    local how = r.kind == "bandwidth" and string.format("%s at %d %s", r.kernel, #r.sizes,
      rot.util.plural(#r.sizes, "size"))
      or r.kind == "compute" and (r.kernel .. " " .. r.isa) or ""
    io.stdout:write(string.format("%-22s %-9s %7d %14s %8s %6s  %s%s\n", r.name, r.kind, r.threads, v,
      r.spread and string.format("%.1f%%", r.spread * 100) or "", r.rounds or "", how, r.unstable
        and "  UNSTABLE" or ""))
  end
end
for _, t in ipairs(rot.util.sorted_keys(swept)) do
  io.stdout:write(string.format("sweep, %s: %d rows (kernel and size: each size's best round) "
    .. "in peaks.csv, kind sweep: "
    .. "they bound a working set where the sweep falls between two levels\n", rot.util.count(t, "thread"), swept[t]))
end
local unstable = report.unstable_line(out)
if unstable then io.stdout:write(unstable, "\n") end
local read = report.read_line(out, info)
if read then io.stdout:write(read, "\n") end
if clocks and #clocks > 0 and #out > 0 then -- each compute ceiling records the higher around its best round
  local any = table.concat(clocks, ", ")
  io.stdout:write(string.format("core clock (dependent imul chain, CPU 0) before/after each compute round: %s GHz%s\n",
    any, any:find("?", 1, true) and " ('?': the reading failed)" or ""))
end
if units and #out > 0 then io.stdout:write(units, "\n") end
-- the FMA ceilings at 1 thread against their theoretical peak at the clock their units ran at
local shares = {}
for _, r in ipairs(out) do
  if r.kind == "compute" and r.threads == 1 and r.name:match("^double_.*_fma$") then
    shares[#shares + 1] = theory.text(r, info)
  end
end
if #shares > 0 then io.stdout:write("FP64 FMA ceilings, 1 thread: ", table.concat(shares, "; "), "\n") end
-- peaks.csv here, and the machine's copy (the stored file itself where nothing was measured)
local dir = rot.output_dir()
if stored then
  local ok, err = sys.writefile(dir .. "/" .. rot.name() .. ".csv", sys.readfile(path))
  if not ok then rot.fail("cannot write '" .. dir .. "/peaks.csv': " .. err) end
else
  ceilings.write_csv(dir .. "/" .. rot.name() .. ".csv", out)
  measure.store(rot, out)
end

-- the bandwidth staircase behind the plateaus (the best of each size over its rounds)
rot.results(stair):staircase { name = rot.name() .. "-bandwidth", title = "bandwidth vs working set ("
  .. info.model .. ")", step = false,
  series = function(r) return bandwidth.streams[r.point.stream].name .. ", "
    .. rot.util.count(r.point.threads, "thread") end }
