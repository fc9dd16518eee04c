-- stream-check: a STREAM-like program (arg[1]: streamlike, or STREAM patched with
-- bench/stream-markers.patch) on 1 and all CPUs, arg[2] elements an array; for each loop,
-- rot's bandwidth of its region against the program's own printed rate in the same invocation
-- (the one whose output rot kept: its fastest). One "check" line each: best call against
-- "Best Rate MB/s", time per call against "Avg time".
local rot = require "rot"
local prog, n = assert(arg[1], "stream-check PROGRAM N"), assert(arg[2], "stream-check PROGRAM N")
local all = rot.machine.cpuinfo().cpus
local threads = all > 1 and { 1, all } or { 1 }
local r = rot.measure(rot.space { rot.axis("threads", threads) }, function(p)
  return { app = prog, args = { n }, threads = p.threads }
end)
r:table()
r:csv("stream-check")
r:roofline { name = "stream-check", series = function(row) return row.point.threads .. " threads" end }

-- the program's printed rates: name -> {best = MB/s, avg = s}
local function printed(text)
  local out = {}
  for name, best, avg in (text or ""):gmatch("\n(%a+):%s+([%d.]+)%s+([%d.]+)") do
    out[name] = { best = tonumber(best), avg = tonumber(avg) }
  end
  return out
end

for _, row in ipairs(r.rows) do
  if row.region == "(program)" and row.entry then
    local e, m = row.entry, row.entry.meta
    local rates, empty = printed("\n" .. (row.stdout or "")), m.markerEmptyNs or 0
    for _, rec in ipairs(e.regions or {}) do
      local name = rot.util.unescape_token(rec.name)
      local p = rates[name]
      if rec.run == m.stdoutRun and p and rec.calls > 0 then
        local best = rec.bytes / rec.calls / ((rec.minNs - empty) * 1e-9) / 1e6
        local mean = (rec.ns - rec.calls * empty) / rec.calls * 1e-9
        print(string.format("check threads=%d region=%s rot_best_MBs=%.1f program_best_MBs=%.1f best_ratio=%.4f "
          .. "rot_mean_s=%.6f program_avg_s=%.6f mean_ratio=%.4f", row.point.threads, name, best, p.best, best / p.best,
          mean, p.avg, mean / p.avg))
      end
    end
  end
end
