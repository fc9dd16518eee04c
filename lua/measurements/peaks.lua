-- the machine's ceilings: compute per precision and ISA, bandwidth per memory level; writes peaks.csv
local rot = require "rot"
local peaks = require "rot.machine.peaks"
local sys = require "rot.sys"

local info = rot.machine.cpuinfo()
local out, bw = peaks.measure(rot, rot.get("quick"))

io.stdout:write(string.format("%-28s %-9s %7s %12s\n", "name", "kind", "threads", "value"))
for _, r in ipairs(out) do
  local v = r.kind == "size" and rot.util.bytes(r.value) or string.format("%.2f %s", r.value, r.unit)
  io.stdout:write(string.format("%-28s %-9s %7d %12s%s\n", r.name, r.kind, r.threads, v,
    r.spread and r.spread > 0 and string.format("  (samples up to +%.1f%%)", r.spread * 100) or ""))
end
-- peaks.csv here, and the machine's copy in the cache directory that every roofline uses
local dir = rot.output_dir()
peaks.write_csv(dir .. "/peaks.csv", out)
if #out > 0 then -- nothing measured (rot build): nothing stored
  sys.mkdir(rot.get("cacheDir") .. "/machines")
  peaks.write_csv(peaks.path(rot.get("cacheDir"), rot.machine.fingerprint(rot.config), rot.get("quick")), out)
end

-- the bandwidth staircase behind the plateaus
bw:staircase { name = "peaks-bandwidth", title = "bandwidth vs working set (" .. info.model .. ")",
  series = function(r) return peaks.streams[r.point.stream].name .. ", " .. r.point.threads .. " thread(s)" end }
