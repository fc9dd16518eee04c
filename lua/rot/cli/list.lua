-- rot.cli.list: the measurements rot knows by name (shipped, then the user's) with their
-- descriptions, and `rot list`, which shows them.
local sys = require "rot.sys"
local util = require "rot.util"

local M = {}

function M.user_dir(cfg) return util.dirname(cfg:get("userConfigFile")) .. "/measurements" end

-- A measurement's description: the first paragraph of the comment its file opens with (its
-- leading `--` lines up to an empty one or the code, or a --[[ ]] block's first paragraph),
-- in one line.
function M.description(text)
  local block = text:match("^%-%-%[%[(.-)%]%]") or text:match("^%-%-%[%[(.*)$")
  local para = {}
  for line in ((block or text) .. "\n"):gmatch("([^\n]*)\n") do
    local c = block and line or line:match("^%s*%-%-+(.*)$")
    if not c or (c:match("^%s*$") and #para > 0) then break end
    if c:match("%S") then para[#para + 1] = c:match("^%s*(.-)%s*$") end
  end
  return table.concat(para, " ")
end

-- The folders measurements are found in by name: the shipped ones first, then the user's.
local function dirs(home, cfg) return { home .. "/lua/measurements", M.user_dir(cfg) } end

-- The path of the measurement called name (as M.all lists it: the shipped one first), or nil.
function M.find(home, cfg, name)
  if name == "" then return nil end
  for _, dir in ipairs(dirs(home, cfg)) do
    local path = dir .. "/" .. name .. ".lua"
    if sys.stat(path) then return path end
  end
  return nil
end

-- { {name=, path=, description=}, ... } shipped first (home/lua/measurements), then the user's
function M.all(home, cfg)
  local out, seen = {}, {}
  for _, dir in ipairs(dirs(home, cfg)) do
    local list = sys.listdir(dir) or {}
    table.sort(list)
    for _, f in ipairs(list) do
      local name = f:match("^(.+)%.lua$")
      if name and not seen[name] then
        seen[name] = true
        local path = dir .. "/" .. f
        out[#out + 1] = { name = name, path = path, description = M.description(sys.readfile(path) or "") }
      end
    end
  end
  return out
end

-- Words in lines of at most width characters (one longer word alone on its line).
local function wrap(text, width)
  local lines, line = {}, ""
  local function len(x) return utf8.len(x) or #x end
  for word in text:gmatch("%S+") do
    if line ~= "" and len(line) + 1 + len(word) > width then
      lines[#lines + 1], line = line, word
    else
      line = line == "" and word or (line .. " " .. word)
    end
  end
  lines[#lines + 1] = line
  return lines
end

-- rot list [--names]: each measurement with its whole description, in lines of at most 110
-- characters under its own column (--names: the bare names, for completion).
function M.run(home, cfg, pos)
  local ms = M.all(home, cfg)
  if pos[2] == "--names" then
    for _, m in ipairs(ms) do io.stdout:write(m.name, "\n") end
    return 0
  end
  local w = 4
  for _, m in ipairs(ms) do w = math.max(w, #m.name) end
  for _, m in ipairs(ms) do
    local lines = wrap(m.description, 110)
    io.stdout:write(string.format("%-" .. w .. "s  %s\n", m.name, lines[1]))
    for i = 2, #lines do io.stdout:write(string.rep(" ", w + 2), lines[i], "\n") end
  end
  io.stdout:write("\nuser measurements: ", M.user_dir(cfg), "/*.lua, or any script path\n")
  return 0
end

return M
