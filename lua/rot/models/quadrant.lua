-- rot.models.quadrant: the quadrant-split view (Konstantinidis): devices as points (memory
-- bandwidth, compute throughput), a kernel as the half-line y = I x; a device above a
-- kernel's line is memory bound for it, below compute bound; its attainable point min(P, I B).
local ceilings = require "rot.machine.ceilings"
local plot = require "rot.plot"
local M = {}

--[[ A device from peaks rows (CPU peaks.csv or GPU gpu-peaks.csv): the best double-precision
  (fp64 on GPUs) compute ceiling and the DRAM (HBM) triad bandwidth, at the most threads. ]]
function M.device(name, rows)
  local threads = 0
  for _, r in ipairs(rows) do threads = math.max(threads, r.threads) end
  local d = { name = name }
  for _, r in ipairs(rows) do
    if r.threads == threads then
      if r.kind == "compute" and (r.name:match("^double_") or r.name == "fp64_fma") then
        d.gflops = math.max(d.gflops or 0, r.value)
      end
      if r.name == "triad_DRAM" or r.name == "HBM_triad" then d.gbs = r.value end
    end
  end
  if not d.gflops or not d.gbs then
    return nil, "device '" .. name .. "': no double-precision compute or DRAM/HBM bandwidth in its peaks"
  end
  return d
end

function M.device_file(name, path)
  local rows = ceilings.read_csv(path)
  if not rows then return nil, "cannot read peaks from '" .. path .. "'" end
  return M.device(name, rows)
end

-- For each device and kernel: which side of the line, and the attainable performance.
function M.classify(devices, kernels)
  local out = {}
  for _, k in ipairs(kernels) do
    for _, d in ipairs(devices) do
      local line = k.intensity * d.gbs -- the kernel's line at the device's bandwidth
      out[#out + 1] = { kernel = k.name, device = d.name, bound = d.gflops > line and "memory" or "compute",
        attainable = math.min(d.gflops, line) }
    end
  end
  return out
end

--[[ plot{name=, dir=, gnuplot=, title=, devices=, kernels=} -> SVG path: devices as points
  (bandwidth, compute), each labelled where the label fits; each kernel as the line y = I x,
  labelled along it; an arrow from each device down to its attainable point on the lines it
  is memory bound for. ]]
function M.plot(o)
  local q = plot.quote
  local xmin, xmax, ymin, ymax = math.huge, 0, math.huge, 0
  for _, d in ipairs(o.devices) do
    xmin, xmax = math.min(xmin, d.gbs), math.max(xmax, d.gbs)
    ymin, ymax = math.min(ymin, d.gflops), math.max(ymax, d.gflops)
  end
  for _, c in ipairs(M.classify(o.devices, o.kernels)) do ymin = math.min(ymin, c.attainable) end
  xmin, xmax = 10 ^ math.floor(math.log(xmin, 10) - 0.3), 10 ^ math.ceil(math.log(xmax, 10) + 0.3)
  ymin, ymax = 10 ^ math.floor(math.log(ymin, 10) - 0.3), 10 ^ math.ceil(math.log(ymax, 10) + 0.3)
  local dat = { "# devices: bandwidth[GB/s] compute[GFLOP/s] name" }
  for _, d in ipairs(o.devices) do dat[#dat + 1] = string.format("%.9g %.9g %s", d.gbs, d.gflops, q(d.name)) end
  o.title = o.title or "quadrant split: devices vs kernels (a device above a kernel's line is memory bound for it)"
  local xr, yr = { xmin, xmax }, { ymin, ymax }
  local gp = plot.loglog_header("quadrant-split plot", o, "memory bandwidth [GB/s]",
    "compute throughput [GFLOP/s]", xr, yr)
  local f = plot.frame(plot.geometry, xr, yr, true, true)
  local pl = plot.placer(f)
  local plots, n, points = {}, 0, {}
  for _, d in ipairs(o.devices) do -- labels keep off the devices; each is labelled last
    local px, py = f.px(d.gbs, d.gflops)
    pl.block(px, py, 5)
    points[#points + 1] = { x = d.gbs, y = d.gflops, text = d.name, color = "#000000" }
  end
  -- kernels of equal intensity share a line and a label
  local lines, by = {}, {}
  for _, k in ipairs(o.kernels) do
    local key = string.format("%.6g", k.intensity)
    if by[key] then by[key].name = by[key].name .. ", " .. k.name
    else by[key] = { name = k.name, intensity = k.intensity }; lines[#lines + 1] = by[key] end
  end
  for i, k in ipairs(lines) do
    local color = plot.palette[(i - 1) % #plot.palette + 1]
    local text = string.format("%s (I = %.3g flop/B)", k.name, k.intensity)
    local lab = plot.line_label(f, pl, k.intensity, text, xr, yr)
    if lab then n = n + 1; gp[#gp + 1] = plot.label_cmd(n, lab, color) end
    plots[#plots + 1] = string.format("%.9g*x with lines lw 2 lc rgb '%s' %s", k.intensity, color, lab and "notitle"
      or ("title " .. q(text)))
  end
  local a = 0
  for _, c in ipairs(M.classify(o.devices, o.kernels)) do
    if c.bound == "memory" then
      for _, d in ipairs(o.devices) do
        if d.name == c.device then
          a = a + 1
          gp[#gp + 1] = string.format("set arrow %d from %.9g,%.9g to %.9g,%.9g lc rgb '#888888'", a, d.gbs,
            d.gflops, d.gbs, c.attainable)
        end
      end
    end
  end
  local pls = plot.point_labels(f, pl, points, "auto", n)
  for _, l in ipairs(pls) do gp[#gp + 1] = l end
  plots[#plots + 1] = q(o.name .. ".dat") .. " using 1:2 with points pt 7 ps 1.5 lc rgb '#000000' title 'devices'"
  return plot.finish(o, gp, plots, dat)
end

return M
