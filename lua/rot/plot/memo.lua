--[[ rot.plot.memo: a rerun that would draw a plot the same leaves its files as they are, and
  skips drawing it. A stamp in the memo directory holds the digest of what they were drawn from. ]]
local sys = require "rot.sys"
local util = require "rot.util"
local M = {}

-- The files of a plot, besides its script (their state is in the stamp).
local FILES = { ".gp", ".dat", ".svg", ".png", ".pdf" }

local sources -- the digest of rot's plot modules and rot.util, once a process

--[[ The digest of the code that draws: each Lua file of rot.plot, and rot.util, which they
  call. A user who edits plot code sees the change on the next run. Each file's hash is kept in
  store's code.memo while its size, times and inode stay. ]]
local function code(store)
  if sources then return sources end
  local here = debug.getinfo(1, "S").source:match("^@(.*)/memo%.lua$") or "."
  local files = {}
  for _, n in ipairs(sys.listdir(here) or {}) do
    if n:match("%.lua$") then files[#files + 1] = here .. "/" .. n end
  end
  table.sort(files)
  files[#files + 1] = here .. "/../util.lua"
  sources = sys.sha256files(files, { here }, true, store .. "/code.memo")
  return sources
end

-- The gnuplot that draws, as its file is now ("path size mtime inode"): a new gnuplot draws again.
local function program(cmd)
  local path = sys.locate(cmd or "gnuplot")
  if not path then return "-" end
  local _, size, mtime, inode = sys.stat(path)
  return string.format("%s %s %s %s", path, tostring(size), tostring(mtime), tostring(inode))
end

-- Each of the plot's files: "name size mtime inode", or "name -" where there is none.
local function state(dir, name)
  local out = {}
  for _, ext in ipairs(FILES) do
    local kind, size, mtime, inode = sys.stat(dir .. "/" .. name .. ext)
    out[#out + 1] = kind and string.format("%s%s %d %.9f %d", name, ext, size, mtime, inode) or (name .. ext .. " -")
  end
  return table.concat(out, "\n")
end

--[[ draw(store, data, fn, fixed) -> fn(data)'s value: the plot data.name in data.dir, drawn by
  fn from data and fixed (plain values: all its drawing reads), the path of its SVG or nil.
  Unless store (a directory) holds the stamp of the same data, drawn by the same code, and the
  files are as that drawing left them: then nothing is drawn. Data that has no canonical text
  (an infinite range) is drawn every time. ]]
function M.draw(store, data, fn, fixed)
  local ok, text = pcall(util.serialize, { data, fixed })
  local dir = store and ok and sys.realpath(data.dir)
  if not dir then return fn(data) end
  local digest = sys.sha256(code(store) .. "\n" .. program(data.gnuplot) .. "\n" .. text)
  local path, svg = store .. "/" .. sys.sha256(dir .. "/" .. data.name), data.dir .. "/" .. data.name .. ".svg"
  local stamp, now = sys.readfile(path), state(dir, data.name)
  for _, drew in ipairs({ "svg", "-" }) do -- (its SVG, or none: a plot of nothing)
    if stamp == string.format("%s %s\n%s\n", digest, drew, now) then return drew == "svg" and svg or nil end
  end
  local result = fn(data)
  if sys.mkdir(store) then
    sys.writefile(path, string.format("%s %s\n%s\n", digest, result and "svg" or "-", state(dir, data.name)))
  end
  return result
end

return M
