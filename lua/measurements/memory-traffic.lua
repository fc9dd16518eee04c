-- the thesis's traffic validation: expected vs measured bytes (where counters allow) and time
local rot = require "rot"
local sys = require "rot.sys"

local llc = rot.llc()
local sizes = rot.geometric(65536, 4 * llc, 4)
if rot.get("quick") then sizes = { 65536, 1048576 } end
local kernels = { read = { "sum", 1 }, write = { "fill", 1 }, triad = { "triad", 3 } }

-- measured traffic: last-level cache misses times the line size, where a core PMU exists
local has_pmu = false
for _, d in ipairs(sys.listdir("/sys/bus/event_source/devices") or {}) do
  has_pmu = has_pmu or d:match("^cpu") ~= nil
end
local counters, counts
if has_pmu then
  counters = { "perf::LLC-LOAD-MISSES", "perf::LLC-STORE-MISSES" }
  counts = { bytes = { ["perf::LLC-LOAD-MISSES"] = 64, ["perf::LLC-STORE-MISSES"] = 64 } }
else
  io.stderr:write("rot: memory-traffic: this machine exposes no core PMU: bytes are the declared ones only\n")
end

local function space() return rot.space { rot.axis("kernel", { "read", "write", "triad" }), rot.axis("ws", sizes) } end
local function point(p, with_counters)
  local k = kernels[p.kernel]
  return { kernel = k[1], params = { n = p.ws // (8 * k[2]) }, flags = "-O3 -march=native", cacheMode = "cold",
    counters = with_counters and counters or nil, counts = with_counters and counts or nil }
end
local ok, results = pcall(rot.measure, space(), function(p) return point(p, counters ~= nil) end)
if not ok then
  if counters then
    io.stderr:write("rot: memory-traffic: the counters failed (", tostring(results.message or results),
      "); measuring with declared bytes only\n")
    results = rot.measure(space(), function(p) return point(p, false) end)
  else
    error(results, 0)
  end
end

results:table { axes = { "kernel" } }
results:csv()
results:xy { name = rot.name() .. "-time", title = "time of the memory kernels (cold caches)", logx = true, logy = true,
  x = function(r) return r.bytesDeclared end, y = function(r) return r.time end,
  xlabel = "expected transferred bytes", ylabel = "time [s]", series = function(r) return r.point.kernel end }
if counters then
  results:xy { name = rot.name() .. "-bytes", title = "expected vs measured transferred bytes",
    logx = true, logy = true,
    x = function(r) return r.bytesDeclared end, y = function(r) return r.bytes end,
    xlabel = "expected bytes", ylabel = "measured bytes (LLC misses x 64)",
      series = function(r) return r.point.kernel end }
  results:xy { name = rot.name() .. "-error", title = "error of the expected bytes", logx = true,
    x = function(r) return r.bytesDeclared end, y = function(r) return r.bytesRatio and (r.bytesRatio - 1) * 100 end,
    xlabel = "expected bytes", ylabel = "measured / expected - 1 [%]", series = function(r) return r.point.kernel end }
end
