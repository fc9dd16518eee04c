-- rot.machine.governor: the governor key: this cpufreq governor set on every CPU, once per
-- run, before anything is measured; an error with a hint where it cannot be.
local sys = require "rot.sys"
local util = require "rot.util"

local M = {}

function M.apply(s)
  local g = s:get("governor")
  if g == "" or not s:once("governor") then return end
  local n = 0
  for _, c in ipairs(sys.listdir("/sys/devices/system/cpu") or {}) do
    local path = "/sys/devices/system/cpu/" .. c .. "/cpufreq/scaling_governor"
    if c:match("^cpu%d+$") and sys.stat(path) then
      local f, err = io.open(path, "w")
      local ok = f and f:write(g) and f:close()
      if not ok then
        util.fail("cannot set the cpufreq governor '" .. g .. "' on " .. c .. ": " .. tostring(err or "write refused"),
          "run as root, or leave -governor unset; available: " ..
          tostring(sys.readfile("/sys/devices/system/cpu/" .. c .. "/cpufreq/scaling_available_governors")))
      end
      n = n + 1
    end
  end
  if n == 0 then
    util.fail("cannot set the cpufreq governor '" .. g
      .. "': this machine exposes no cpufreq (no /sys/devices/system/cpu/cpu*/cpufreq)",
      "leave -governor unset here; the measured frequency is recorded as unknown")
  end
end

return M
