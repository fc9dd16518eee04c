-- rot.build: measuring cores built for a description: the generated files (macro headers,
-- flags, kernel list; rot.gen) and make + ccache, under the build lock; what a build is made of.
local sys = require "rot.sys"
local gen = require "rot.gen"
local util = require "rot.util"
local session = require "rot.session"
local keys = require "rot.build.keys"
local toolchain = require "rot.describe.toolchain"

local M = {}

-- A description's macro settings, sorted: { "NAME=VALUE", ... }.
function M.macro_settings(desc) return util.assignments(desc.macros) end

-- "kernel 'x' (path) with macros A=1, B=2 and flags '-O3'": what a core build is made of.
function M.what(desc, kinfo)
  if kinfo.app then
    return "the core of application points and its marker recorder" .. (kinfo.cuda and " and CUDA library" or "")
  end
  local names, macros = {}, M.macro_settings(desc)
  for _, k in ipairs(kinfo.kernels) do names[#names + 1] = "kernel '" .. k.name .. "' (" .. k.path .. ")" end
  return table.concat(names, ", ") .. " with " .. (#macros > 0 and ("macros " .. table.concat(macros,
    ", ") .. " and ") or "") ..
    "flags '" .. desc.flags .. "'"
end

-- A build directory make can use: not the checkout or a folder holding it, and named from
-- core/ by a relative path make takes (no spaces or make's special characters).
local function check_dir(s)
  local dir, home = s.builddir, s.home
  if dir == home or home:sub(1, #dir + 1) == dir .. "/" then
    util.fail("build directory '" .. dir .. "' holds the checkout '" .. home .. "'",
      "set -buildDir=DIR to a folder of its own")
  end
  local bad = util.relpath(home .. "/core", dir):match("[^%w%./_+,@-]")
  if bad then
    util.fail("build directory '" .. dir .. "' has a character make cannot take in a path ('" .. bad .. "')",
      "set -buildDir=DIR to a path without spaces or make's special characters")
  end
end

-- The build lock (a to-be-closed value): two rot processes never build over each other in
-- one build directory.
function M.lock(s)
  check_dir(s)
  util.ensure_dir(s.builddir, "build directory", "buildDir")
  local lock, err = session.lock(s.builddir .. "/.lock")
  if not lock then util.fail("cannot take the build lock " .. err, "set -buildDir=DIR to a folder of your own") end
  return lock
end

-- The machine's measuring lock: one file for every checkout and user (as LIKWID's lock file).
M.MEASURING = "/tmp/rot-measuring.lock"

--[[ The measuring lock, taken before the build lock (a to-be-closed value): rot processes on
  one machine measure one at a time, whatever their checkout, build directory or user. nil for
  a Slurm task: the scheduler gave it its node (and a test's cluster of several nodes on one
  machine measures on all of them at once). ]]
function M.measuring(s)
  if s.scheduled then return nil end
  local lock, err = session.lock(M.MEASURING)
  if not lock then
    util.fail("cannot take the measuring lock " .. err,
      "rot processes on this machine measure one at a time through it: "
      .. "ask its owner (ls -l " .. M.MEASURING .. ") or root to make it a plain file readable by all, or to remove it")
  end
  return lock
end

-- The generated files of a build: macro headers, kernel flags, kernel list, path maps (no
-- absolute path of the checkout, the build or a study reaches the binary). (rot.count builds
-- its rot-count from them too.)
function M.generate(s, desc, kinfo)
  local macros = {}
  for _, m in ipairs(kinfo.macros) do macros[m] = desc.macros[m] or false end
  for _, k in ipairs(kinfo.kernels) do
    local ok, err = gen.checkpath("kernel path", k.path)
    if not ok then util.fail(err) end
  end
  local paths = { { s.home, "rot" }, { s.builddir, "build" } }
  -- make runs in the checkout's core/ and names the build directory by a relative path: mapped
  -- too, so a build directory anywhere (a Slurm node's $TMPDIR) builds the same bytes
  paths[#paths + 1] = { util.relpath(s.home .. "/core", s.builddir), "build" }
  for _, k in ipairs(kinfo.kernels) do
    local dir = util.dirname(k.path)
    if dir:sub(1, #s.home + 1) ~= s.home .. "/" then paths[#paths + 1] = { dir, "kernels" } end
  end
  local changed, err = gen.generate({ gendir = s.builddir .. "/gen", flags = desc.flags, macros = macros,
    kernels = kinfo.kernels, paths = paths })
  if not changed then util.fail(err) end
end

--[[ make in core/ with the build's output directory `o` (its generated files in o/gen) and
  the compilers a core is built with; extra: more of make's arguments (a target, a variable),
  the core when none. Returns make's status and its output. ]]
function M.make(s, o, extra)
  if not sys.locate("ccache") then util.fail("'ccache' is not installed", "sudo apt-get install ccache", 2) end
  if not sys.locate("make") then util.fail("'make' is not installed", "sudo apt-get install make", 2) end
  local coredir = s.home .. "/core"
  return sys.run({ "make", "-s", "-j2", "-C", coredir, "O=" .. util.relpath(coredir, o),
    "GEN=" .. util.relpath(coredir, o .. "/gen"), "CC=ccache " .. toolchain.plain(s, "compiler"), "CUDA="
      .. toolchain.plain(s, "cuda"),
    "NVCC=ccache " .. toolchain.nvcc(s), table.unpack(extra or {}) }, { capture = true })
end

--[[ Builds the core of a description (the lock held by the caller): returns the binary and
  its hash, or nil and the compiler's last lines with what was being built. ]]
function M.core(s, desc, kinfo)
  M.generate(s, desc, kinfo)
  local st, out = M.make(s, s.builddir, kinfo.cuda and { "cuda-app" } or nil)
  if st ~= 0 then
    local lines = {}
    for l in (out or ""):gmatch("[^\n]+") do lines[#lines + 1] = l end
    local from = math.max(1, #lines - 29)
    return nil, M.what(desc, kinfo) .. " does not compile:\n" .. (from > 1 and "...\n" or "") ..
      table.concat(lines, "\n", from)
  end
  s:add("builds")
  keys.record_deps(s, kinfo)
  local binary = s.builddir .. "/rot-core"
  -- named relative to the build directory: the same bytes built anywhere have the same hash; an
  -- application's core with the marker recorder it preloads
  local files = kinfo.app and { binary, s.builddir .. "/librot-markers.so" } or { binary }
  if kinfo.cuda then files[#files + 1] = s.builddir .. "/librot-cuda.so" end
  return binary, assert(sys.sha256files(files, { s.builddir }))
end

--[[ A copy of a built core in the run directory (rot-core-HASH), removed with it: the build
  directory holds one core, which the next build replaces. Returns its path. ]]
function M.keep(s, binary, core_hash)
  local path = s:run_dir() .. "/rot-core-" .. core_hash:sub(1, 16)
  local bytes = sys.readfile(binary)
  if not (bytes and sys.writefile(path, bytes, tonumber("755", 8))) then
    util.fail("cannot copy the measuring core to '" .. path .. "'")
  end
  return path
end

--[[ M.core under the build lock, timed, and f(binary) run while the lock is still held: the
  build directory holds one core, and another rot sharing it could re-link it between the build
  and the run. Returns f's results; a compiler error stops the caller. ]]
function M.with_core(s, desc, kinfo, f)
  local lock <close> = M.lock(s)
  local binary, err = s:timed("build", M.core, s, desc, kinfo)
  if not binary then util.fail(err) end
  return f(binary)
end

return M
