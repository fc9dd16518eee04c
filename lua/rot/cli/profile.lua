-- rot.cli.profile: `rot profile -- PROGRAM [ARG ...]`: one application point, measured as a
-- script's would be: the table, NAME.csv, NAME.json and the roofline NAME.svg/.png (NAME: the
-- program's file name), its run recorded under the program's path (rot history ./PROGRAM).
local sys = require "rot.sys"
local util = require "rot.util"

local M = {}

-- The spec of the point: the program and its arguments, -threads and -counters.
local function spec_of(prog, args, own)
  local spec = { app = prog, args = args }
  if own.threads then
    local n = math.tointeger(tonumber(own.threads))
    if not n or n < 1 then util.fail("-threads must be a positive whole number, not '" .. own.threads .. "'") end
    spec.threads = n
  end
  if own.counters then
    spec.counters = {}
    for ev in own.counters:gmatch("[^,]+") do spec.counters[#spec.counters + 1] = ev end
  end
  return spec
end

--[[ plan(pos, own) -> {path, args, script_dir, script, run}: what rot.cli's measurement runs for
  `rot profile` (pos: "profile", the program, its arguments; own: -threads, -counters). ]]
function M.plan(pos, own)
  local prog = pos[2]
  if not prog then
    util.fail("profile needs a program to run", "rot profile -- ./myprogram ARG ... (built with rot/markers.h)")
  end
  local args = { table.unpack(pos, 3) }
  local found = sys.locate(prog)
  local path = found and sys.realpath(found) or prog -- a missing one is said when it is described
  local name = util.basename(path):gsub("[^%w_.-]", "_")
  local spec = spec_of(prog, args, own or {})
  local command = table.concat({ util.basename(path), table.unpack(args) }, " ")
  local function run()
    local rot = require "rot"
    local r = rot.measure(rot.space { rot.axis("command", { command }) }, function() return spec end)
    r:table()
    r:csv(name)
    r:json(name)
    r:roofline { name = name, title = "rot profile " .. command }
  end
  return { path = path, args = args, script_dir = sys.realpath(".") or ".", script = name, run = run }
end

return M
