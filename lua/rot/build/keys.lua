-- rot.build.keys: build keys (the hash of everything that decides a core binary), the files
-- each kernel's last build read, and the core-hash store (build key -> binary hash), so a
-- cached rerun knows its core's hash without building (the thesis's MeasurementHashRepository).
local sys = require "rot.sys"
local session = require "rot.session"
local util = require "rot.util"

local M = {}

-- Where the files a kernel's last build read are recorded (from the compiler's .d file).
-- (s.deps_dir moves them: a re-measurement's builds in a temporary tree keep theirs apart.)
local function deps_file(s, kpath) return (s.deps_dir or (s:get("cacheDir") .. "/deps")) .. "/"
  .. sys.sha256(kpath):sub(1, 16) end

-- The folder a study's kernels/ folder is in (a kernel outside the checkout).
local function study_of(kpath) return util.dirname(util.dirname(kpath)) end

--[[ A recorded file's name, relative to the root it lies under: "@home/core/kernel.h" (the
  checkout), "@study/kernels/util.h" (the kernel's study), else absolute. A moved checkout or
  study resolves them to its new place (issue: a moved checkout re-measured user kernels). ]]
local function tag(s, kpath, path)
  for _, r in ipairs({ { "@home", s.home }, { "@study", study_of(kpath) } }) do
    if path:sub(1, #r[2] + 1) == r[2] .. "/" then return r[1] .. path:sub(#r[2] + 1) end
  end
  return path
end

local function untag(s, kpath, name)
  local root, rest = name:match("^(@%a+)(/.*)$")
  if root == "@home" then return s.home .. rest end
  if root == "@study" then return study_of(kpath) .. rest end
  return name
end

-- The object and dependency file names of a kernel in the build directory.
function M.object(s, k) return s.builddir .. "/kernels/" .. k.name .. "-" .. sys.sha256(k.key or k.path):sub(1, 12) end

--[[ After a build: every file the compiler read for each kernel (-MMD's dependency file: its
  own source, headers beside it or anywhere else, .cuh), without the generated ones. The next
  build key hashes them, so a header that changes rebuilds and re-measures. ]]
function M.record_deps(s, kinfo)
  local coredir = s.home .. "/core"
  for _, k in ipairs(kinfo.kernels) do
    local d = sys.readfile(M.object(s, k) .. ".d")
    if d then
      local rule = d:match("^(.-[^\\])\n") or d -- the first rule: the object and what it read
      rule = rule:gsub("\\\n", " ")
      local files, seen, first = {}, {}, true
      for tok in rule:gsub("\\ ", "\0"):gmatch("%S+") do
        tok = tok:gsub("%z", " ")
        if first then first = false -- the target
        else
          local path = util.normpath(tok:sub(1, 1) == "/" and tok or (coredir .. "/" .. tok))
          local inside = util.relpath(s.builddir .. "/gen", path):sub(1, 2) ~= ".." -- generated
          if not inside and not seen[path] then seen[path] = true; files[#files + 1] = tag(s, k.path, path) end
        end
      end
      table.sort(files)
      sys.mkdir(s.deps_dir or (s:get("cacheDir") .. "/deps"))
      sys.writefile(deps_file(s, k.path), table.concat(files, "\n") .. "\n")
    end
  end
end

-- The files a kernel's build key hashes: what its last build read, else its folder's sources.
local function kernel_files(s, k)
  local files = {}
  for f in (sys.readfile(deps_file(s, k.path)) or ""):gmatch("[^\n]+") do files[#files + 1] = untag(s, k.path, f) end
  if #files == 0 then -- never built: its folder
    local kdir = util.dirname(k.path)
    for _, f in ipairs(assert(sys.listdir(kdir))) do
      if f:match("%.[ch]$") or f:match("%.cuh?$") then files[#files + 1] = kdir .. "/" .. f end
    end
    table.sort(files)
  end
  return files
end

--[[ The source files of a kernel as a run record names them (rot.history): { {name=, tag=,
  path=}, ... } for the files its build key hashes, each name relative to the study
  ("kernels/scale.c") or the checkout ("core/kernel.h"), as the recorded dependencies name
  them, else absolute; tag says which root ("@study/kernels/scale.c", "@home/core/kernel.h"). ]]
function M.sources(s, k)
  local out = {}
  for _, path in ipairs(kernel_files(s, k)) do
    local t = tag(s, k.path, path)
    out[#out + 1] = { name = (t:gsub("^@%a+/", "")), tag = t, path = path }
  end
  return out
end

-- The path a tagged name stands for, for a kernel at kpath ("@home/core/kernel.h" -> the
-- checkout's; "@study/kernels/x.h" -> its study's; an absolute name is itself).
M.untag = untag

--[[ The build key of a description: the core's sources, each kernel's files, macros, flags,
  compiler and machine. Names are hashed relative to the checkout or the kernel's folder: a
  moved checkout or study keeps its keys. ]]
function M.key(s, desc, kinfo)
  local core_src = s:remember("coresrc", function()
    local files = {}
    -- the core, and the marker recorder it preloads into an application (and the header of the markers)
    for _, dir in ipairs({ s.home .. "/core", s.home .. "/core/markers", s.home .. "/core/include/rot" }) do
      for _, f in ipairs(assert(sys.listdir(dir))) do
        if f:match("%.[ch]$") or f == "Makefile" then files[#files + 1] = dir .. "/" .. f end
      end
    end
    table.sort(files)
    return assert(sys.sha256files(files, { s.home }, false, s.builddir .. "/coresrc.memo"))
  end)
  local ksrc = {}
  for i, k in ipairs(kinfo.kernels) do
    local kdir = util.dirname(k.path)
    ksrc[i] = k.name .. "@" .. s:remember("ksrc:" .. k.path, function()
      return assert(sys.sha256files(kernel_files(s, k), { s.home, kdir, util.dirname(kdir) }, true,
        deps_file(s, k.path) .. ".memo"))
    end)
  end
  return sys.sha256(util.serialize({ core = core_src, kernels = ksrc,
    macros = desc.macros, flags = desc.flags, compiler = desc.compiler, machine = desc.machine }))
end

-- The core-hash store: build key -> hash of the core binary it produced.
local function store_path(s) return s:get("cacheDir") .. "/cores" end

local function read_store(s)
  local r = {}
  for k, h in (sys.readfile(store_path(s)) or ""):gmatch("(%x+) (%x+)\n") do r[k] = h end
  return r
end

-- The store as this run first read it (and as it stored since).
function M.known(s)
  return s:remember("repo", function() return read_store(s) end)
end

--[[ Forgets what this run read of the store and of the kernels' recorded files, so the next
  known() and key() read them again: after other processes (Slurm workers, a concurrent rot)
  built and stored cores this run did not. ]]
function M.forget(s)
  s:forget(function(k) return k == "repo" or k:match("^ksrc:") ~= nil end)
end

--[[ Records key -> hash. The file is read again under a lock (cacheDir/cores.lock) just
  before it is rewritten, so what concurrent processes (several Slurm workers at once) stored
  meanwhile is kept; where the file system refuses locks it is read again unlocked. ]]
function M.store(s, key, hash)
  if not hash then return end
  if M.known(s)[key] == hash then return end
  local lock <close> = session.lock(store_path(s) .. ".lock")
  local r = read_store(s)
  r[key] = hash
  s:forget("repo")
  s:remember("repo", function() return r end)
  local lines = {}
  for k, h in pairs(r) do lines[#lines + 1] = k .. " " .. h .. "\n" end
  table.sort(lines)
  local ok, err = sys.writefile(store_path(s), table.concat(lines))
  if not ok then util.fail("cannot write the core-hash repository: " .. err) end
end

-- After a build: the key the next run computes (the files it read are known now) maps to the
-- same binary, so that run needs no build.
function M.rekey(s, desc, kinfo, core_hash)
  for _, k in ipairs(kinfo.kernels) do s:forget("ksrc:" .. k.path) end
  M.store(s, M.key(s, desc, kinfo), core_hash)
end

return M
