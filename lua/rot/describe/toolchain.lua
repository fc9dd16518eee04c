-- rot.describe.toolchain: the compilers a core is built with: the C compiler's identity (part of
-- every description, so a compiler update re-measures) and the CUDA toolkit's nvcc.
local sys = require "rot.sys"
local util = require "rot.util"

local M = {}

-- Where the identity of a compiler binary is remembered: by its real path, size and time, so a
-- new compiler (an upgrade) is asked again and the same one never (three programs started).
local function remembered(s, cc)
  local exe = sys.locate(cc)
  local real = exe and (sys.realpath(exe) or exe)
  local kind, size, mtime = sys.stat(real or "")
  if kind ~= "file" then return nil end
  return s:get("cacheDir") .. "/machines/compiler-" .. sys.sha256(real .. "|" .. size .. "|" .. mtime):sub(1, 16)
end

-- "gcc 12.2.0 x86_64-linux-gnu", "clang 14.0.6 x86_64-pc-linux-gnu": the compiler key's
-- family, version and target. GCC and clang (its -dumpversion) both work.
function M.compiler_id(s)
  return s:remember("compiler", function()
    local cc = M.plain(s, "compiler")
    local file = remembered(s, cc)
    local known = file and sys.readfile(file)
    if known and known:match("^%S") then return (known:gsub("%s+$", "")) end
    local id = M.ask_compiler(cc)
    if file then
      sys.mkdir(s:get("cacheDir") .. "/machines")
      sys.writefile(file, id .. "\n")
    end
    return id
  end)
end

-- The identity as the compiler tells it (three runs of it).
function M.ask_compiler(cc)
  local st, ver = sys.run({ cc, "-dumpfullversion" }, { capture = true })
  if st ~= 0 or not (ver or ""):match("^%d") then -- clang: no -dumpfullversion
    st, ver = sys.run({ cc, "-dumpversion" }, { capture = true })
  end
  if not st or st ~= 0 or not (ver or ""):match("^%d") then
    util.fail("compiler '" .. cc .. "' cannot be run (or says no version)",
      "set -compiler=gcc or -compiler=clang, or: sudo apt-get install gcc", 2)
  end
  local _, vendor = sys.run({ cc, "--version" }, { capture = true })
  local family = (vendor or ""):find("clang") and "clang" or ((vendor or ""):find("Free Software") and "gcc") or cc
  local _, mach = sys.run({ cc, "-dumpmachine" }, { capture = true })
  return family .. " " .. ver:gsub("%s+$", "") .. " " .. (mach or ""):gsub("%s+$", "") ..
    (family ~= cc and (" (" .. cc .. ")") or "")
end

-- The CUDA toolkit's nvcc (-cuda), and whether it is installed.
--[[ The value of a key that names a program or folder make and the compilers are given
  (compiler, cuda): letters, digits and /._+- only, so make expands nothing in it and no shell
  of a recipe reads anything into it; it fails otherwise. ]]
function M.plain(s, key)
  local v = s:get(key)
  if not v:match("^[%w/._+-]+$") then
    util.fail(key .. " '" .. v .. "' is not a plain program name or path (letters, digits and /._+- only)",
      "set -" .. key .. "= to a path without spaces or special characters")
  end
  return v
end

function M.nvcc(s) return M.plain(s, "cuda") .. "/bin/nvcc" end
function M.have_nvcc(s) return sys.stat(M.nvcc(s)) == "file" end

return M
