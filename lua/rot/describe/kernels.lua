-- rot.describe.kernels: where kernels are found: a kernels/ folder beside the script first,
-- then the shipped ones (ROT_HOME/kernels and one level below); a .c or .cu file per kernel.
local sys = require "rot.sys"
local util = require "rot.util"

local M = {}

-- The folders searched, in order.
function M.dirs(s)
  local dirs = {}
  local shipped = s.home .. "/kernels"
  local beside = s.script_dir and s.script_dir .. "/kernels"
  if beside and (sys.realpath(beside) or beside) ~= (sys.realpath(shipped) or shipped) then dirs[#dirs + 1] = beside end
  dirs[#dirs + 1] = shipped
  return dirs
end

-- { path = {name -> file}, names = {sorted}, shadowed = {name -> the file a first one hides} }
function M.all(s)
  return s:remember("kernels", function()
    local found, names, shadowed = {}, {}, {}
    local function scan(dir, depth)
      local list = sys.listdir(dir)
      if not list then return end
      table.sort(list)
      for _, f in ipairs(list) do
        local path = dir .. "/" .. f
        local name = f:match("^([%w_]+)%.c$") or f:match("^([%w_]+)%.cu$")
        if name and not found[name] then
          found[name] = path
          names[#names + 1] = name
        elseif name then
          shadowed[name] = shadowed[name] or path -- a later folder's kernel of the same name
        elseif depth > 0 and sys.stat(path) == "dir" then
          scan(path, depth - 1)
        end
      end
    end
    for _, d in ipairs(M.dirs(s)) do scan(d, 1) end
    table.sort(names)
    return { path = found, names = names, shadowed = shadowed }
  end)
end

-- Where kernel files are, for a hint: each folder searched that holds kernels itself (or does
-- not exist: the folder beside a script, for its own), then the folders in it that do (the
-- shipped kernels/cpu and kernels/gpu).
local function where(s)
  local k, out = M.all(s), {}
  local holds = {}
  for _, p in pairs(k.path) do holds[util.dirname(p)] = true end
  for _, d in ipairs(M.dirs(s)) do
    if holds[d] or not sys.stat(d) then out[#out + 1] = d end
    local subs = {}
    for _, f in ipairs(sys.listdir(d) or {}) do
      if holds[d .. "/" .. f] then subs[#subs + 1] = d .. "/" .. f end
    end
    table.sort(subs)
    table.move(subs, 1, #subs, #out + 1, out)
  end
  return #out > 1 and (table.concat(out, ", ", 1, #out - 1) .. " or " .. out[#out]) or (out[1] or "")
end

--[[ The kernel files named name (.c, .cu) in the kernels/ folders of the studies in the working
  directory and one level below (study/kernels/NAME.c): kernels no script here finds by name
  (`rot asm NAME` names them in its hint). ]]
function M.in_studies(name)
  local out = {}
  local function look(dir)
    for _, ext in ipairs({ ".c", ".cu" }) do
      local f = dir .. "/kernels/" .. name .. ext
      if sys.stat(f) == "file" then out[#out + 1] = f end
    end
  end
  local function dirs(dir)
    local list, out_ = sys.listdir(dir) or {}, {}
    for _, d in ipairs(list) do
      local path = dir == "." and d or (dir .. "/" .. d)
      if d:sub(1, 1) ~= "." and d ~= "kernels" and sys.stat(path) == "dir" then out_[#out_ + 1] = path end
    end
    table.sort(out_)
    return out_
  end
  for _, d in ipairs(dirs(".")) do
    look(d)
    for _, e in ipairs(dirs(d)) do look(e) end
  end
  return out
end

-- The file of kernel `name`; an unknown name stops with the nearest ones. A kernel that
-- shadows a shipped one of the same name is noted once.
function M.path(s, name)
  local k = M.all(s)
  local p = k.path[name]
  if not p then
    util.fail("unknown kernel '" .. name .. "'" .. util.did_you_mean(name, k.names),
      "kernels are .c (CPU) and .cu (GPU) files in " .. where(s))
  end
  if k.shadowed[name] and s:once("shadow:" .. name) then
    io.stderr:write("rot: note: kernel '", name, "' is ", p, ", which shadows ", k.shadowed[name], "\n")
  end
  return p
end

-- The name a kernel's object and dependency record are kept under: its path from the
-- checkout, or from its study (so a moved checkout or study keeps it).
function M.key(s, path)
  local home = s.home .. "/"
  if path:sub(1, #home) == home then return path:sub(#home + 1) end
  return util.relpath(util.dirname(util.dirname(path)), path)
end

return M
