-- rot.machine: what rot reads about this machine: cache levels from sysfs, the CPU model,
-- its flags and clock, and the number of CPUs.
local sys = require "rot.sys"
local M = {}

local function read(path)
  local t = sys.readfile(path)
  return t and t:gsub("%s+$", "")
end

local function size_bytes(s)
  local n, u = s:match("^(%d+)([KMG]?)")
  if not n then return nil end
  return math.tointeger(tonumber(n) * ({ [""] = 1, K = 1024, M = 1024 ^ 2, G = 1024 ^ 3 })[u])
end

-- { {level=1, size=bytes, name="L1"}, ... } data and unified caches, ascending
function M.caches()
  local out = {}
  for i = 0, 15 do
    local base = "/sys/devices/system/cpu/cpu0/cache/index" .. i .. "/"
    local ty = read(base .. "type")
    if ty and ty ~= "Instruction" then
      local level = tonumber(read(base .. "level"))
      local size = size_bytes(read(base .. "size") or "")
      if level and size then out[#out + 1] = { level = level, size = size, name = "L" .. level } end
    end
  end
  table.sort(out, function(a, b) return a.level < b.level end)
  return out
end

function M.cpuinfo()
  local text = sys.readfile("/proc/cpuinfo") or ""
  local info = {
    model = text:match("model name%s*:%s*([^\n]+)") or "unknown CPU",
    mhz = tonumber(text:match("cpu MHz%s*:%s*([%d.]+)")),
    flags = {},
  }
  for f in (text:match("\nflags%s*:%s*([^\n]+)") or ""):gmatch("%S+") do info.flags[f] = true end
  local maxf = read("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
  if maxf then info.mhz = tonumber(maxf) / 1000 end
  local n = 0
  for line in text:gmatch("[^\n]+") do
    if line:match("^processor%s*:") then n = n + 1 end
  end
  info.cpus = math.max(n, 1)
  return info
end

return M
