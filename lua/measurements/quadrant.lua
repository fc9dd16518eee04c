-- quadrant-split plot: this machine (and any peaks files given as arguments) against rot's kernels
local rot = require "rot"
local quadrant = require "rot.models.quadrant"
local measure = require "rot.peaks"

local devices = {}
local here = assert(quadrant.device(rot.machine.cpuinfo().model, (measure.get(rot))))
devices[1] = here
for _, path in ipairs(arg) do -- more machines: their peaks.csv or gpu-peaks.csv
  local d, err = quadrant.device_file(path:match("([^/]+)%.csv$") or path, path)
  if not d then rot.fail(err) end
  devices[#devices + 1] = d
end
-- kernels by their declared intensity (flops per byte)
local kernels = {
  { name = "triad", intensity = 2 / 24 }, { name = "matvec", intensity = 2 / 8 },
  { name = "stencil", intensity = 4 / 16 }, { name = "dgemm n=512 (compulsory)", intensity = 2 * 512 / 32 },
}
local csv = require "rot.csv"
local records = {}
io.stdout:write(string.format("%-28s %-40s %-8s %12s\n", "kernel", "device", "bound", "attainable"))
for _, c in ipairs(quadrant.classify(devices, kernels)) do
  io.stdout:write(string.format("%-28s %-40s %-8s %10.1f GFLOP/s\n", c.kernel, c.device:sub(1, 40),
    c.bound, c.attainable))
  for _, d in ipairs(devices) do
    if d.name == c.device then
      for _, k in ipairs(kernels) do
        if k.name == c.kernel then
          records[#records + 1] = { c.kernel, k.intensity, c.device, d.gbs, d.gflops, c.bound, c.attainable }
        end
      end
    end
  end
end
require("rot.util").write_output(rot.output_dir() .. "/" .. rot.name() .. ".csv", csv.text({ "kernel", "intensity",
  "device", "bandwidth_GBs",
  "compute_GFLOPs", "bound", "attainable_GFLOPs" }, records))
quadrant.plot { name = rot.name(), dir = rot.output_dir(), gnuplot = rot.get("gnuplot"), pdf = rot.get("pdf"),
  devices = devices, kernels = kernels }
