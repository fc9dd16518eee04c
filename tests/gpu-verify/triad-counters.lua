-- triad-counters.lua DIR: rot's own profile of the GPU triad (2^27 doubles, as the reference
-- program's), bytes per element at L2 and HBM, written to DIR/triad-counters.csv for
-- verdict.lua to compare with ncu's counts of the reference program's triad.
local rot = require "rot"
local sys = require "rot.sys"
local n = 1 << 27
local L2, HBM = "lts__t_bytes.sum", "dram__bytes.sum"
local r = rot.measure(rot.space { rot.axis("n", { n }) }, function()
  return { kernel = "gpu_triad", params = { n = n }, gpuMetrics = { L2, HBM } }
end).rows[1]
if not (r.gpuMetrics and r.gpuMetrics[L2]) then rot.fail("the GPU triad was not profiled (see the error above)") end
local ok, err = sys.writefile(arg[1] .. "/triad-counters.csv", string.format(
  "name,value,unit\nl2_bytes_per_element,%.4f,B\nhbm_bytes_per_element,%.4f,B\n",
    r.gpuMetrics[L2] / n, r.gpuMetrics[HBM] / n))
if not ok then rot.fail("cannot write '" .. arg[1] .. "/triad-counters.csv': " .. err) end
