--[[ rot.describe.count: a count's description (rot.count), made from its point's as a point's is
  made from its spec. It holds what decides the count: the build or the program it runs, the
  workloads, the simulated caches, the engine and the machine. Its text and hash are
  rot.describe.key's, and the result cache keeps the count under that hash. ]]
local sys = require "rot.sys"
local util = require "rot.util"
local toolchain = require "rot.describe.toolchain"

local M = {}

M.VERSION = 2 -- of a count's description and entry

-- Whether code built with flags may use AVX-512: what the compiler defines for them says so.
local function avx512(s, flags)
  return s:remember("avx512:" .. flags, function()
    local rsp = s:run_dir() .. "/count-flags"
    assert(sys.writefile(rsp, flags .. "\n"))
    local st, out = sys.run({ toolchain.plain(s, "compiler"), "@" .. rsp, "-dM", "-E", "-x", "c", "/dev/null" },
      { capture = true })
    return st == 0 and (out or ""):find("__AVX512", 1, true) ~= nil
  end)
end

--[[ counted(s, desc) -> a kernel point's description as it is counted, and a note where that is
  not as it was timed. Valgrind decodes no AVX-512, so flags whose code may use it get
  -mno-avx512f. Stops when even that leaves AVX-512. ]]
function M.counted(s, desc)
  if not avx512(s, desc.flags) then return desc, nil end
  local flags = desc.flags .. " -mno-avx512f"
  if avx512(s, flags) then
    util.fail("flags '" .. desc.flags .. "' build AVX-512 code even with -mno-avx512f, which the counting engine "
      .. "cannot decode", "count a build without AVX-512 (flags without -mavx512*)")
  end
  local cd = util.copy(desc)
  cd.flags = flags
  return cd, "counted as built with " .. flags .. " (Valgrind decodes no AVX-512; the timed build used it)"
end

--[[ describe(desc, o) -> the count's description of a point described as desc (a kernel's:
  M.counted's). o = {engine= (rot.count.engine.identity), caches= (the tool's --rot-cache),
  line= (the line size), build= (a kernel's: the build key of its counted description, which
  hashes its sources)}. A kernel's count is of its workloads' kernels, parameters and threads
  and its cache mode; an application's of its program by content, arguments, environment,
  directory and inputs, and the threads it is told (not its sampling), its loops found. ]]
function M.describe(desc, o)
  local out = { count = M.VERSION, engine = o.engine, caches = o.caches, line = o.line, machine = desc.machine }
  if desc.app then
    out.app, out.threads, out.loops = util.copy(desc.app), desc.threads, true -- (its loops: the loop survey's)
    out.app.sample = nil -- how its timed invocations are sampled changes nothing counted
    return out
  end
  local wl = {}
  for i, w in ipairs(desc.workloads) do wl[i] = { kernel = w.kernel, params = w.params, threads = w.threads } end
  out.build, out.workloads, out.cacheMode = assert(o.build, "a kernel's count needs its build key"), wl, desc.cacheMode
  return out
end

return M
