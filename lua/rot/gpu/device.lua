-- rot.gpu.device: what the driver asks of the CUDA device through the GPU core: its identity
-- (part of a GPU point's machine), and the check of CUPTI metric names for its chip; both
-- remembered under cacheDir/machines, so a cached rerun starts no GPU process.
local sys = require "rot.sys"
local util = require "rot.util"
local machine = require "rot.machine"
local build = require "rot.build"
local toolchain = require "rot.describe.toolchain"

local M = {}

--[[ The device line ("NAME, N SMs, cc X.Y, driver V, chip C", or "none"): asked once per
  boot, CUDA_VISIBLE_DEVICES and toolkit through the GPU core's --device. kinfo: the build
  inputs of a GPU point (its kernels and macros). ]]
function M.line(s, kinfo)
  local boot = (sys.readfile("/proc/sys/kernel/random/boot_id") or "unknown"):gsub("%s+", "")
  local visible = os.getenv("CUDA_VISIBLE_DEVICES") or "all"
  local file = s:get("cacheDir") .. "/machines/gpu-" .. sys.sha256(boot .. "|" .. visible .. "|"
    .. s:get("cuda")):sub(1, 16)
  local known = sys.readfile(file)
  if known then return (known:gsub("%s+$", "")) end
  local st, out = build.with_core(s, { macros = {}, flags = "-O3 -arch=" .. s:get("gpuArch"),
    compiler = toolchain.compiler_id(s) }, kinfo, function(binary) return sys.run({ binary, "--device" },
      { capture = true }) end)
  local dev = st == 0 and out:match("^device ([^\n]+)") or "none"
  sys.mkdir(s:get("cacheDir") .. "/machines")
  sys.writefile(file, dev .. "\n")
  return dev
end

-- The machine of a GPU point: the fingerprint fp with the device added.
function M.identity(s, fp, kinfo)
  return s:remember("gpu-identity:" .. machine.id(fp), function()
    local id = util.copy(fp)
    id.gpu = M.line(s, kinfo)
    return util.frozen(id) -- every GPU point's description holds it
  end)
end

-- The metric check's answer for a chip, from the GPU core's --metrics: passes, or a failure.
local function ask(s, desc, kinfo, chip)
  local st, out = build.with_core(s, desc, kinfo, function(binary)
    local args = { binary, "--metrics", chip }
    for _, m in ipairs(desc.gpuMetrics) do args[#args + 1] = m end
    return sys.run(args, { capture = true })
  end)
  local bad = {}
  for name, near in out:gmatch("unknown (%S+) ?([^\n]*)") do
    bad[#bad + 1] = "'" .. name .. "'" .. (near ~= "" and (" (near: " .. near:gsub(" ", ", ") .. ")") or "")
  end
  if #bad > 0 then
    util.fail("unknown GPU metric" .. (#bad > 1 and "s " or " ") .. table.concat(bad, "; ") .. " for chip " .. chip)
  end
  local err = out:match("error ([^\n]*)")
  local passes = tonumber(out:match("passes (%d+)"))
  if st ~= 0 or err or not passes then
    util.fail("cannot check GPU metrics for chip " .. chip .. ": " .. (err or out))
  end
  io.stderr:write(string.format("rot: %d GPU metrics checked for %s: %d profiling %s per point\n",
    #desc.gpuMetrics, chip, passes, util.plural(passes, "pass", "passes")))
  return passes
end

-- What M.check_metrics finds, asked once per run for a chip and metric list.
local function check(s, desc, kinfo)
  if not toolchain.have_nvcc(s) then
    util.fail("cannot check GPU metrics: the CUDA toolkit is not installed ('" .. toolchain.nvcc(s) .. "' missing)",
      "set -cuda=DIR to the toolkit")
  end
  local chip = s:get("gpuChip")
  if chip == "auto" then -- the device's, from its identity (asked once per boot)
    chip = M.line(s, kinfo):match("chip (%S+)")
    if not chip then -- nothing will be profiled here either: the points are refused
      io.stderr:write("rot: warning: GPU metric names not checked: no CUDA device to name the chip ",
        "(set -gpuChip=GH100 to check them here)\n")
      return { chip = nil, passes = nil }
    end
  end
  -- a check that passed is remembered per chip, metric list and toolkit: reruns start nothing
  local file = s:get("cacheDir") .. "/machines/metrics-" ..
    sys.sha256(chip .. "|" .. s:get("cuda") .. "|" .. table.concat(desc.gpuMetrics, ",")):sub(1, 16)
  local passes = tonumber((sys.readfile(file) or ""):match("^passes (%d+)"))
  if not passes then
    passes = ask(s, desc, kinfo, chip)
    sys.mkdir(s:get("cacheDir") .. "/machines")
    sys.writefile(file, "passes " .. passes .. "\n")
  end
  return { chip = chip, passes = passes }
end

--[[ Checks a description's GPU metric names before anything is measured, with CUPTI's host
  API for the chip (-gpuChip, or the device's): unknown names stop the script naming them and
  near ones. Returns {chip=, passes=} (chip nil: not checked, no device names the chip). ]]
function M.check_metrics(s, desc, kinfo)
  local key = "metrics:" .. s:get("gpuChip") .. ":" .. table.concat(desc.gpuMetrics, ",")
  return s:remember(key, function() return check(s, desc, kinfo) end)
end

return M
