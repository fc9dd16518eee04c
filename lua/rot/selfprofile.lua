--[[ rot.selfprofile: where rot's own time goes, for its developers: with ROT_PROFILE=FILE set, a
  sampling profiler (a hook every 1000 Lua instructions) charges the CPU time rot's process took
  since the last sample ended (the hook's own time left out) to each function on the stack, a C
  function's (a file it hashes) to the Lua function that called it, and writes "ms_inclusive
  ms_self function" lines to FILE at the end, slowest first. CPU time, not wall time: on a
  shared machine a preemption lands on no function, and a wait (for a process, a lock) counts
  nothing. Slows the run down, Lua code more than C: shares, not times; measures rot, never a
  kernel. ]]
local sys = require "rot.sys"

local M = {}

local incl, self_, last = {}, {}, nil

local function sample()
  local dt = os.clock() - last
  local seen = {}
  for level = 2, 200 do
    local info = debug.getinfo(level, "Sn")
    if not info then break end
    local name = info.short_src:gsub("^.*/lua/", "") .. ":" .. (info.linedefined or 0) .. " " .. (info.name or "?")
    if level == 2 then self_[name] = (self_[name] or 0) + dt end
    if not seen[name] then
      seen[name] = true
      incl[name] = (incl[name] or 0) + dt
    end
  end
  last = os.clock()
end

-- Starts sampling when ROT_PROFILE names a file; returns the function that writes it (or nil).
function M.start()
  local file = os.getenv("ROT_PROFILE")
  if not file or file == "" then return nil end
  if file:match("^%d+$") or file:lower() == "yes" or file:lower() == "true" then
    require("rot.util").fail("ROT_PROFILE='" .. file .. "' names no file to write the profile to",
      "set ROT_PROFILE=/tmp/rot-profile.txt: the profile's lines are written there")
  end
  last = os.clock()
  debug.sethook(sample, "", 1000)
  return function()
    debug.sethook()
    local names = {}
    for name in pairs(incl) do names[#names + 1] = name end
    table.sort(names, function(a, b) return incl[a] > incl[b] end)
    local lines = {}
    for _, name in ipairs(names) do
      lines[#lines + 1] = string.format("%9.2f %9.2f %s", incl[name] * 1e3, (self_[name] or 0) * 1e3, name)
    end
    sys.writefile(file, "ms_inclusive ms_self function\n" .. table.concat(lines, "\n") .. "\n")
  end
end

return M
