-- rot.machine: what rot knows about this machine: its topology from hwloc (rot.topology:
-- caches, cores, PUs, NUMA nodes; an XML file in HWLOC_XMLFILE simulates another machine),
-- the CPU's model, flags and clock, and the machine's identity (fingerprint) that cache
-- entries and stored peaks are kept under.
local sys = require "rot.sys"
local topology = require "rot.topology"
local M = {}

local memo = {}

-- The file this system's topology is kept in between runs (rot.topology's memo): in the
-- session's build directory; none outside a session.
local function memo_file()
  local ok, s = pcall(require("rot.session").current)
  return ok and s.builddir and s.builddir .. "/topology.memo" or nil
end

-- The topology userdata and its info table, loaded once per run.
local function topo()
  if not memo.topo then
    local t, err = topology.load(nil, memo_file())
    if not t then
      require("rot.util").fail(err, "unset HWLOC_XMLFILE, or point it to a topology written by lstopo --of xml")
    end
    memo.topo, memo.info = t, t:info()
  end
  return memo.topo, memo.info
end

-- {pus=, cores=, packages=, numa_nodes=, memory=, cpu_model=, arch=, source=, caches={...}}
function M.topology()
  local _, info = topo()
  return info
end

-- The largest working set a sweep may use: a quarter of the memory (the larger of what hwloc's
-- NUMA nodes and the kernel's MemTotal say; 4 GiB when neither is known).
function M.sweep_cap()
  local mem = M.topology().memory
  local total = tonumber((sys.readfile("/proc/meminfo") or ""):match("MemTotal:%s*(%d+) kB"))
  mem = math.max(mem, total and total * 1024 or 0)
  return mem > 0 and mem // 4 or 4096 * 1024 * 1024
end

-- { {level=1, size=bytes, name="L1"}, ... } data and unified caches as the machine reports
-- them (the size of one instance), ascending; empty when it reports none.
function M.caches()
  local out = {}
  for _, c in ipairs(M.topology().caches) do
    if c.size > 0 then out[#out + 1] = { level = c.level, size = c.size, name = c.name } end
  end
  return out
end

-- The first n CPUs (0..n-1), as rot pins threads.
function M.pins(n)
  local p = {}
  for i = 0, n - 1 do p[#p + 1] = i end
  return p
end

-- The cache the threads pinned to cpus can use together, per reported level:
-- { {name="L1", size=bytes}, ... } (two cores with private 48 KiB L1s: 96 KiB). t: a
-- rot.topology other than this machine's (tests).
function M.reported(cpus, t)
  local info
  if t then info = t:info() else t, info = topo() end
  local out = {}
  for i, c in ipairs(info.caches) do
    if c.size > 0 then out[#out + 1] = { name = c.name, size = t:capacity(i, cpus) } end
  end
  return out
end

local function read(path)
  local t = sys.readfile(path)
  return t and t:gsub("%s+$", "")
end

function M.cpuinfo()
  if memo.cpuinfo then return memo.cpuinfo end
  local text = sys.readfile("/proc/cpuinfo") or ""
  local model = M.topology().cpu_model ~= "" and M.topology().cpu_model or text:match("model name%s*:%s*([^\n]+)")
  local info = {
    -- CPUID pads some names with blanks ("... Turin-like Processor            "): not part of the name
    model = model and model:match("^%s*(.-)%s*$") or "unknown CPU",
    mhz = tonumber(text:match("cpu MHz%s*:%s*([%d.]+)")),
    vendor = text:match("vendor_id%s*:%s*(%S+)"), -- GenuineIntel, AuthenticAMD (x86 only)
    family = tonumber(text:match("cpu family%s*:%s*(%d+)")),
    flags = {},
  }
  for f in (text:match("\nflags%s*:%s*([^\n]+)") or text:match("\nFeatures%s*:%s*([^\n]+)") or ""):gmatch("%S+") do
    info.flags[f] = true
  end
  local maxf = read("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
  if maxf then info.mhz = tonumber(maxf) / 1000 end
  info.cpus = math.max(M.topology().pus, 1)
  memo.cpuinfo = info
  return info
end

-- The kernel's memory samplers that take a CPU on a clock of their own: DAMON's kdamonds that
-- are on, { {operations = "paddr", sample_ms = 500, action = "pageout"}, ... }; where their
-- settings cannot be read (root only), one {} per kdamond thread in proc; empty where there is
-- none. root, proc: copies of /sys/kernel/mm/damon/admin/kdamonds and /proc (tests).
function M.samplers(root, proc)
  root, proc = root or "/sys/kernel/mm/damon/admin/kdamonds", proc or "/proc"
  local dirs = sys.listdir(root)
  local out, unreadable = {}, dirs == nil
  for _, d in ipairs(dirs or {}) do
    local ctx = root .. "/" .. d .. "/contexts/0"
    local state = d:match("^%d+$") and (read(root .. "/" .. d .. "/state") or "unreadable")
    if state == "on" then
      local us = tonumber(read(ctx .. "/monitoring_attrs/intervals/sample_us"))
      out[#out + 1] = { operations = read(ctx .. "/operations"), action = read(ctx .. "/schemes/0/action"),
        sample_ms = us and us / 1000 }
    end
    unreadable = unreadable or state == "unreadable"
  end
  if not unreadable then return out end
  out = {} -- not readable here: count the threads instead
  for _, pid in ipairs(sys.listdir(proc) or {}) do
    if pid:match("^%d+$") and (read(proc .. "/" .. pid .. "/comm") or ""):match("^kdamond") then out[#out + 1] = {} end
  end
  return out
end

-- CPU flags that change the code a compiler generates for -march=native (x86 and Arm).
M.isa_flags = { "sse2", "ssse3", "sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "adx", "movbe",
  "popcnt", "abm", "avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl", "avx512ifma", "avx512vbmi",
  "avx512_vbmi2", "avx512_vnni", "avx512_bitalg", "avx512_vpopcntdq", "avx512_bf16", "avx512_fp16", "avx_vnni",
  "amx_tile", "amx_bf16", "amx_int8", "gfni", "vaes", "vpclmulqdq", "sha_ni", "asimd", "sve", "sve2", "sme" }

-- The machine's identity: what decides a result or a -march=native build besides the
-- description itself. Identical machines get identical fingerprints (the hostname only with
-- -machineIdentity=hostname).
function M.fingerprint(config)
  local key = config and config:get("machineIdentity") or "hardware"
  if memo.fp and memo.fp_key == key then return memo.fp end
  local info, cpu = M.topology(), M.cpuinfo()
  local isa = {}
  for _, f in ipairs(M.isa_flags) do if cpu.flags[f] then isa[#isa + 1] = f end end
  local caches = {}
  for _, c in ipairs(info.caches) do
    caches[#caches + 1] = string.format("%s%s:%d*%d", c.name, c.type == "data" and "d" or "", c.size, c.instances)
  end
  local fp = { cpu = cpu.model, arch = info.arch, isa = table.concat(isa, " "), cores = info.cores, pus = info.pus,
    packages = info.packages, numa = info.numa_nodes, caches = table.concat(caches, " ") }
  if key == "hostname" then fp.host = read("/proc/sys/kernel/hostname") or "unknown" end
  require("rot.util").frozen(fp) -- every description holds it: its text is made once
  memo.fp, memo.fp_key = fp, key
  return fp
end

-- A short name for a fingerprint, for file names and listings: "AMD_EPYC-2cpus-1a2b3c4d"; once
-- a fingerprint table (every point of a run names its machine).
local ids = setmetatable({}, { __mode = "k" })
function M.id(fp)
  fp = fp or M.fingerprint()
  if ids[fp] then return ids[fp] end
  local hash = sys.sha256(require("rot.util").serialize(fp)):sub(1, 8)
  local model = (fp.cpu or "unknown"):gsub("[^%w]+", "_"):gsub("^_+", ""):gsub("_+$", "")
  ids[fp] = model .. "-" .. tostring(fp.pus) .. "cpus-" .. hash
  return ids[fp]
end

return M
