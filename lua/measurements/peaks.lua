-- the machine's ceilings: compute per precision and ISA, bandwidth per memory level; writes peaks.csv
local rot = require "rot"
local peaks = require "rot.peaks"
local sys = require "rot.sys"

local info = rot.machine.cpuinfo()
local out, bw = peaks.measure(rot, rot.get("quick"))

io.stdout:write(string.format("%-28s %-9s %7s %12s\n", "name", "kind", "threads", "value"))
for _, r in ipairs(out) do
  io.stdout:write(string.format("%-28s %-9s %7d %12.2f %s\n", r.name, r.kind, r.threads, r.value, r.unit))
end
-- peaks.csv here, and the machine's copy in the cache directory that every roofline uses
local dir = rot.get("outputDir")
sys.mkdir(dir)
peaks.write_csv(dir .. "/peaks.csv", out)
sys.mkdir(rot.get("cacheDir") .. "/machines")
peaks.write_csv(peaks.path(rot.get("cacheDir"), info, rot.get("quick")), out)

-- the bandwidth staircase behind the plateaus
bw:staircase { name = "peaks-bandwidth", title = "bandwidth vs working set (" .. info.model .. ")",
  series = function(r) return peaks.streams[r.point.stream].name .. ", " .. r.point.threads .. " thread(s)" end }
