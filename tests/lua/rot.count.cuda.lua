-- Unit tests of a CUDA program's metrics pass (rot.count.cuda) with a stand-in for the program
-- and rot's CUDA library (no device here): a shell script that writes what the library would
-- (in core/cuda/words.h's words) where the pass's environment tells it. The pass described by
-- the point's description, the metric list and the device's identity; its lines cached in the
-- result cache and read back on a rerun with nothing run; failures worded.
-- judges no time
local t = require "tap"
local rot = require "rot"
local sys = require "rot.sys"
local util = require "rot.util"
local session = require "rot.session"
local build = require "rot.build"
local describe = require "rot.describe"
local gpu = require "rot.gpu"
local cuda = require "rot.count.cuda"
local W = require("rot.protocol").cuda

local tmp = assert(os.getenv("ROT_TEST_TMP"))
local S = session.current()
rot.set("cacheDir", tmp .. "/cache")
rot.set("buildDir", tmp .. "/build")
rot.set("progress", "never")
S.scheduled = true -- (no machine-wide measuring lock: nothing is measured here)
S.executor = require("rot.execute").executors["local"]
local builds = 0
build.with_core = function(_, _, _, f) builds = builds + 1; return f(tmp .. "/build/rot-core") end

-- the stand-in: it writes the library's output for its metric list to $OUT.$$ (and its
-- arguments and environment to args), then exits with status $STATUS
local M = gpu.roofline_metrics
local body = { W.magic }
for i, m in ipairs(M) do body[#body + 1] = "metric " .. (i - 1) .. " " .. m end
local zeros = string.rep(" 1", #M)
body[#body + 1] = "kernel " .. util.escape_token("triad <<<4, 256>>>") .. " launches=2" .. zeros
body[#body + 1] = "range step launches=2" .. zeros
body[#body + 1] = "end"
local prog = tmp .. "/stream"
assert(sys.writefile(tmp .. "/out.txt", table.concat(body, "\n") .. "\n"))
assert(sys.writefile(prog, "#!/bin/sh\n"
  .. "echo \"$1|$X|$" .. W.env.metrics .. "|$CUDA_INJECTION64_PATH|$NVTX_INJECTION64_PATH\" >" .. tmp .. "/args\n"
  .. "[ -n \"$NOWRITE\" ] || cp " .. tmp .. "/out.txt \"$" .. W.env.out .. ".$$\"\n"
  .. "echo 'stream: done' >&2\nexit ${STATUS:-0}\n", tonumber("755", 8)))

local function row(env, gpuline)
  local desc = { app = { path = prog, hash = "h1", args = { "a b" }, env = env or {}, inputs = {}, dir = tmp,
    cuda = true }, threads = 1, machine = { id = "m", gpu = gpuline or "NVIDIA H200, 132 SMs, cc 9.0, chip GH100" } }
  return { point = { command = "stream" }, desc = desc, entry = { meta = {}, runs = {} }, kinfo = { app = true } }
end

local r = row({ X = "1" })
local err = t.capture("stderr", function() cuda.pass(S, { r }) end)
t.ok(r.cudaRecord and r.cudaRecord.kernels["triad <<<4, 256>>>"].launches == 2, "the pass: the library's sums read")
t.is(r.cudaRecord.ranges.step.launches, 2, "and its NVTX ranges")
t.is(sys.readfile(tmp .. "/args"), "a b|1|" .. table.concat(M, ",") .. "|" .. tmp .. "/build/librot-cuda.so|" .. tmp
  .. "/build/librot-cuda.so\n",
  "the program ran with its arguments and environment, the metrics asked for, rot's CUDA library injected")
t.ok(err:find("profiling CUDA programs once more", 1, true), "the pass says once that it runs: " .. err)

-- a rerun: from the cache, nothing run
builds = 0
local again = row({ X = "1" })
t.capture("stderr", function() cuda.pass(S, { again }) end)
t.ok(builds == 0 and again.cudaRecord and again.cudaRecord.kernels["triad <<<4, 256>>>"].launches == 2,
  "a rerun takes the pass from the result cache and runs nothing")
local function key(x) return select(2, describe.key(cuda.describe(x.desc, M, cuda.library(S)))) end
t.ok(key(row({ X = "1" }, "NVIDIA H100, 132 SMs, cc 9.0, chip GH100")) ~= key(r), "another device: another entry")
t.ok(select(2, describe.key(cuda.describe(r.desc, { "dram__bytes.sum" }, cuda.library(S)))) ~= key(r),
  "another metric list: another entry")
local sampled = row({ X = "1" })
sampled.desc.app.sample = 1000000
t.is(key(sampled), key(r), "how the timed invocations were sampled changes nothing profiled")

-- failures, worded
local function failed(env)
  local x = row(env)
  local e = t.capture("stderr", function() cuda.pass(S, { x }) end)
  return x.cudaFailed or "", e
end
local why, said = failed({ STATUS = "3" })
t.ok(why:find("exited with status 3 in the metrics pass: stream: done", 1, true), "a program that fails: " .. why)
t.ok(said:find("the metrics pass of point 'command=stream' failed", 1, true), "said on stderr: " .. said)
why = failed({ NOWRITE = "1" })
t.ok(why:find("wrote no metrics: rot's CUDA library did not start in it", 1, true), "no output: " .. why)
t.ok(select(2, cuda.judge(nil, "timeout", nil, M, "application 'x'")):find("ran past its patience", 1, true),
  "a program past its patience")
local cut = table.concat(body, "\n"):gsub("\nend$", "\n")
t.ok(select(2, cuda.judge(0, nil, cut, M, "application 'x'")):find("cut short", 1, true), "an output cut short")
local stopped = W.magic .. "\nmetric 0 dram__bytes.sum\nerror " .. util.escape_token("CUPTI: insufficient privileges")
  .. "\nend\n"
t.ok(select(2, cuda.judge(0, nil, stopped, { "dram__bytes.sum" }, "application 'x'")):find(
  "profiling failed: CUPTI: insufficient privileges", 1, true), "profiling that stopped before a launch: its why")
t.done()
