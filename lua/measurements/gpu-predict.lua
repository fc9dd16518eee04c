-- quantitative roofline prediction on rot's GPU kernels: a profile for other GPUs, and the APE here
local rot = require "rot"
local predict = require "rot.models.predict"
local ceilings = require "rot.machine.ceilings"
local gpuceilings = require "rot.peaks.gpu"
local sys = require "rot.sys"

local quick = rot.get("quick")
local big = quick and (1 << 22) or (1 << 26)
local kernels = {
  { "triad", { kernel = "gpu_triad", params = { n = big } } },
  { "dot", { kernel = "gpu_dot", params = { n = big } } },
  { "intensity fp32 x4", { kernel = "gpu_intensity", params = { n = big, fpe = 4 }, macros = { GINT_TYPE = 0 } } },
  { "intensity fp32 x64", { kernel = "gpu_intensity", params = { n = big, fpe = 64 }, macros = { GINT_TYPE = 0 } } },
  { "intensity fp64 x16", { kernel = "gpu_intensity", params = { n = big, fpe = 16 }, macros = { GINT_TYPE = 1 } } },
  { "intensity int32 x16", { kernel = "gpu_intensity", params = { n = big, fpe = 16 }, macros = { GINT_TYPE = 3 } } },
  { "sgemm", { kernel = "gpu_gemm", params = { n = quick and 512 or 2048 } } },
  { "histogram", { kernel = "gpu_hist", params = { pixels = big, random = 1 } } },
}
local names = {}
for i, k in ipairs(kernels) do names[i] = k[1] end
local results = rot.measure(rot.space { rot.axis("name", names) }, function(p)
  for _, k in ipairs(kernels) do
    if k[1] == p.name then
      local spec = {}
      for key, v in pairs(k[2]) do spec[key] = v end
      spec.gpuMetrics = predict.metric_names()
      return spec
    end
  end
end)
local ok = results:ok()
local meta = require("rot.gpu").probe(ok[1], "no GPU kernel could be profiled (see the errors above)")
-- this GPU's own ceilings (gpu-peaks), measured first when none are stored; never the CPU's
gpuceilings.stored(rot, meta.gpuName)
if #ok == 0 then return end -- rot build: the cores are built, nothing is predicted
-- the profile, readable by `rot predict` on another machine
results:csv(rot.name() .. "-profile")
local profile = {}
for _, r in ipairs(ok) do profile[#profile + 1] = { kernel = r.point.name, metrics = r.gpuMetrics, time = r.time } end

-- predicted here (the measured time gives the APE) and on every GPU whose ceilings rot stored
local dir = rot.get("cacheDir") .. "/machines"
local here = gpuceilings.file(rot, meta.gpuName):match("[^/]+$")
local suffix = "%." .. gpuceilings.kind(rot):gsub("%-", "%%-") .. "%.csv$" -- quick ceilings with quick ones
local files = {}
for _, f in ipairs(sys.listdir(dir) or {}) do
  if f:match(suffix) then files[#files + 1] = f end
end
table.sort(files)
local all = {}
for _, f in ipairs(files) do
  local device, err = predict.device(ceilings.read_csv(dir .. "/" .. f) or {})
  if device then
    local recs, summary = predict.report(profile, device, f == here and profile or nil)
    for _, r in ipairs(recs) do
      r.device = f:gsub(suffix, "")
      all[#all + 1] = r
    end
    if summary.mean then io.stdout:write(f, ": ", predict.summary(summary), "\n") end
  else
    io.stderr:write("rot: warning: '", dir, "/", f, "': ", err, "\n")
  end
end
if #all == 0 then
  rot.fail("no GPU ceilings stored for any device: nothing to predict on", "rot measure gpu-peaks first (on each GPU)")
end
local columns = { { "device", "device" } }
for _, c in ipairs(predict.columns) do columns[#columns + 1] = c end
rot.records(rot.name(), columns, all)
io.stdout:write("another GPU: copy gpu-predict-profile.csv there and run\n  rot predict gpu-predict-profile.csv "
  .. "ITS-gpu-peaks.csv ITS-gpu-predict-profile.csv\n")
