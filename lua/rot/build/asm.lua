-- rot.build.asm: a kernel compiled as a point's core would compile it, to read: annotated
-- assembly with the source interleaved (objdump -S), or a .cu kernel's PTX and ptxas -v.
local sys = require "rot.sys"
local gen = require "rot.gen"
local util = require "rot.util"
local build = require "rot.build"
local toolchain = require "rot.describe.toolchain"

local M = {}

-- Where a kernel compiled to read goes: asm/ in the build directory (its lock held).
local function dir(s) return s.builddir .. "/asm" end

-- The generated files of a point (macro headers, flags) in their own directory.
local function generated(s, desc, kinfo)
  local gendir = dir(s) .. "/gen"
  util.ensure_dir(gendir, "build directory", "buildDir")
  local macros = {}
  for _, m in ipairs(kinfo.macros) do macros[m] = desc.macros[m] or false end
  local changed, err = gen.generate({ gendir = gendir, flags = desc.flags, macros = macros, kernels = kinfo.kernels })
  if not changed then util.fail(err) end
  return gendir
end

-- M.ptx, the build lock held by the caller.
local function ptx_of(s, desc, kinfo)
  local gendir = generated(s, desc, kinfo)
  local k = kinfo.kernels[1]
  local out = dir(s) .. "/" .. k.name .. ".ptx"
  local st, msg = sys.run({ toolchain.nvcc(s), "-std=c++20", "-lineinfo", "-I" .. s.home .. "/core", "-I" .. gendir,
    "-I" .. s.home .. "/kernels/cpu", -- core/Makefile's KERNEL_INCLUDES
    "--options-file", gendir .. "/kernel.flags", "-ptx", k.path, "-o", out }, { capture = true })
  if st ~= 0 then
    util.fail(build.what(desc, kinfo) .. " does not compile to PTX:\n" .. (msg or ""):gsub("%s+$", ""))
  end
  local ptx = assert(sys.readfile(out))
  local arch = desc.flags:match("%-arch=(%S+)") or desc.flags:match("%-arch (%S+)") or s:get("gpuArch")
  local info
  st, info = sys.run({ s:get("cuda") .. "/bin/ptxas", "-v", "-arch=" .. arch, out, "-o", out
    .. ".cubin" }, { capture = true })
  if st ~= 0 then util.fail("ptxas failed on " .. build.what(desc, kinfo) .. ":\n" .. (info or "")) end
  return ptx, info
end

--[[ A GPU kernel's PTX (with line info: `.loc` directives name source lines), compiled as a
  point's core would compile it, and what ptxas -v says of it for the same architecture
  (registers, spills, shared memory). desc, kinfo from rot.describe. ]]
function M.ptx(s, desc, kinfo)
  local lock <close> = build.lock(s)
  return ptx_of(s, desc, kinfo)
end

-- Annotated assembly of a described kernel (same flags, generated macro headers and compiler
-- as its point), or for a .cu kernel its PTX under what ptxas -v says.
function M.asm(s, desc, kinfo)
  local lock <close> = build.lock(s)
  if kinfo.gpu then
    local ptx, info = ptx_of(s, desc, kinfo)
    return "# ptxas -v:\n" .. info:gsub("[^\n]+", "# %0") .. "\n" .. ptx
  end
  generated(s, desc, kinfo)
  local k = kinfo.kernels[1]
  -- core/Makefile's own rule (include path, macro headers, flags); no path mapped away, so
  -- objdump finds the source (and DWARF 4, whose file names every objdump reads)
  local st, out = build.make(s, dir(s), { "KERNEL_DWARF=-gdwarf-4", "kernel-objects" })
  if st ~= 0 then
    util.fail("compiling kernel '" .. k.name .. "' (" .. k.path .. ") with flags '" .. desc.flags .. "' failed:\n" ..
      (out or ""):gsub("%s+$", ""))
  end
  local obj = s.home .. "/core/" .. assert(sys.readfile(dir(s) .. "/kernel-objects")):match("[^\n]+")
  obj = sys.realpath(obj) or obj
  if not sys.locate("objdump") then util.fail("'objdump' is not installed", "sudo apt-get install binutils", 2) end
  st, out = sys.run({ "objdump", "-d", "-S", "-l", "--no-show-raw-insn", "-w", obj }, { capture = true })
  if st ~= 0 then util.fail("objdump failed on '" .. obj .. "':\n" .. out) end
  return out
end

return M
