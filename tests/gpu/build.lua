-- GPU tests that need no device: every kernels/gpu/*.cu built into one core, each kernel's
-- declared counts against hand-computed values for small launches, and CUPTI metric checks
-- for GH100 through the host API. TAP output.
package.path = os.getenv("ROT_HOME") .. "/tests/lua/?.lua;" .. package.path
local t = require "tap"
local rot = require "rot"
local describe = require "rot.describe"
local build = require "rot.build"
local S = require("rot.session").current()
local sys = require "rot.sys"

local home = os.getenv("ROT_HOME")
local names = {}
for _, f in ipairs(sys.listdir(home .. "/kernels/gpu")) do
  local n = f:match("^(gpu_[%w_]+)%.cu$")
  if n then names[#names + 1] = n end
end
table.sort(names)
t.ok(#names >= 12, "found " .. #names .. " GPU kernels")
local wl = {}
for i, n in ipairs(names) do wl[i] = { kernel = n } end
-- everything that runs the core runs under the build lock (another test's build would re-link
-- the build directory's core)
local desc, kinfo = describe.describe(S, { workloads = wl })
local ok, err = pcall(build.with_core, S, desc, kinfo, function(binary)
  t.ok(sys.stat(binary) == "file", "every GPU kernel compiles (nvcc) and links into the core: " .. binary)

  local function declared(kernel, ...)
    local st, out = sys.run({ binary, "--declared", kernel, ... }, { capture = true })
    return st == 0 and tonumber(out:match("flops (%S+)")), tonumber(out:match("bytes (%S+)"))
  end
  local function expect(kernel, args, flops, bytes)
    local f, b = declared(kernel, table.unpack(args))
    t.ok(f == flops and b == bytes, string.format("%s %s: declares %s flops and %s bytes (got %s, %s)", kernel,
      table.concat(args, " "), flops, bytes, tostring(f), tostring(b)))
  end
  -- streams, double: bytes = arrays touched x 8 x n, flops as BabelStream counts them
  expect("gpu_copy", { "n=1000" }, 0, 16000)
  expect("gpu_scale", { "n=1000" }, 1000, 16000)
  expect("gpu_add", { "n=1000" }, 1000, 24000)
  expect("gpu_triad", { "n=1000" }, 2000, 24000)
  expect("gpu_dot", { "n=1000" }, 2000, 16000)
  expect("gpu_read", { "n=1000" }, 1000, 8000)
  expect("gpu_write", { "n=1000" }, 0, 8000)
  -- intensity (fp32 by default): 2 flops per multiply-add, one 4-byte load and store per element
  expect("gpu_intensity", { "n=1024", "fpe=16" }, 2 * 16 * 1024, 8 * 1024)
  -- chains: one instruction per thread and step
  expect("gpu_chain", { "n=100", "blocks=2", "threads=64" }, 100 * 2 * 64, 0)
  -- histogram: one shared atomic per channel and pixel, the image read once
  expect("gpu_hist", { "pixels=1024" }, 4096, 4096)
  -- tiled GEMM (float by default): 2 n^3 flops, 4 n^2 elements of compulsory traffic
  expect("gpu_gemm", { "n=64" }, 2 * 64 ^ 3, 4 * 64 * 64 * 4)
  -- atomics micro-benchmark: no flops and no traffic; its result is the reported T(n, e, c)
  expect("gpu_atomics", { "n=4", "e=32", "c=1" }, 0, 0)
  -- cache bandwidth: ws bytes read `rounds` times, 4 float adds per 16-byte element
  expect("gpu_cache", { "ws=4096", "rounds=3" }, 4 * 256 * 3, 4096 * 3)

  -- CUPTI metric names for GH100, with the host API (no device needed)
  local gpu = require "rot.gpu"
  local args = { binary, "--metrics", "GH100" }
  for _, m in ipairs(gpu.roofline_metrics) do args[#args + 1] = m end
  local st, out = sys.run(args, { capture = true })
  t.is(st, 0, "the hierarchical-roofline metrics are all valid for GH100")
  local passes = tonumber(out:match("passes (%d+)"))
  t.ok(passes and passes >= 1, "the host API reports the passes they need: " .. tostring(passes))
  -- the models' metrics: quantitative prediction (Konstantinidis) and atomic utilization (Dong & Pai)
  for _, model in ipairs({ { "prediction", require("rot.models.predict").metric_names() }, { "atomic utilization",
    require("rot.models.atomics").metric_names() } }) do
    args = { binary, "--metrics", "GH100", table.unpack(model[2]) }
    st, out = sys.run(args, { capture = true })
    t.ok(st == 0 and select(2, out:gsub("\nok ", "")) + (out:match("^ok ") and 1 or 0) == #model[2],
      "the " .. model[1] .. " model's " .. #model[2] .. " metrics are valid for GH100" .. (st == 0 and "" or ": "
        .. out:gsub("\n", " | ")))
  end
  st, out = sys.run({ binary, "--metrics", "GH100", "dram__bytes.sum", "dram__bytez.sum" }, { capture = true })
  t.ok(st ~= 0 and out:find("ok dram__bytes.sum", 1, true) ~= nil, "a valid name is accepted beside an invalid one")
  t.ok(out:find("unknown dram__bytez.sum dram__bytes.sum", 1, true) ~= nil,
    "an unknown name gets the nearest valid ones: " .. out:gsub("\n", " | "))
  st, out = sys.run({ binary, "--metrics", "NOCHIP", "dram__bytes.sum" }, { capture = true })
  t.ok(st ~= 0 and out:find("error CUPTI host initialization for chip 'NOCHIP'", 1, true) ~= nil,
    "an unknown chip is an error naming it")
end)
if not ok then
  t.ok(false, "every GPU kernel compiles (nvcc) and links into the core, and its checks run: "
    .. tostring(type(err) == "table" and err.message or err))
end
t.done()
