-- case study (Dong & Pai): shared-atomic utilization and speedup of the channel-reordered histogram
local rot = require "rot"
local atomics = require "rot.models.atomics"
local sys = require "rot.sys"

local quick = rot.get("quick")
local sizes = quick and { 1 << 10, 1 << 16, 1 << 20 } or rot.geometric(32, 1 << 22, 4)
local blocks = quick and { 256 } or { 32, 64, 256, 512, 1024 }
local images = { "solid", "uniform" }
local variants = { "histogram", "histogram2" } -- channels in order, reordered by thread id

local results = rot.measure(rot.space { rot.axis("pixels", sizes), rot.axis("image", images),
  rot.axis("block", blocks), rot.axis("variant", variants) }, function(p)
  return { kernel = "gpu_hist", params = { pixels = p.pixels, random = p.image == "uniform" and 1 or 0 },
    macros = { GHIST_BLOCK = p.block, GHIST_REORDER = p.variant == "histogram2" and 1 or 0 },
    gpuMetrics = atomics.metric_names() }
end)

local ok = results:ok()
if #ok == 0 then rot.fail("no histogram point could be measured (see the errors above)") end
local meta = ok[1].entry.meta
local stored = require("rot.gpu").machine_file(rot.get("cacheDir"), meta.gpuName, "atomics")
local text = sys.readfile(stored)
local tab
if text then tab = atomics.table(assert(atomics.read_csv(text))) end

local function key(p, variant) return table.concat({ p.pixels, p.image, p.block, variant }, "/") end
local by, rows = {}, {}
for _, r in ipairs(ok) do
  local p = r.point
  local row = { pixels = p.pixels, image = p.image, block = p.block, variant = p.variant, time = r.time }
  if tab and r.gpuMetrics then -- Dong & Pai's model, as `rot utilization` computes it
    local u = atomics.report({ { metrics = r.gpuMetrics, sms = meta.gpuSMs,
      warps_per_sm = meta.gpuMaxWarpsPerSM } }, tab)[1]
    row.e, row.n, row.c, row.U = u.e, u.n, u.c, u.U
  end
  by[key(p, p.variant)] = row
  rows[#rows + 1] = row
end
for _, row in ipairs(rows) do -- speedup of the reordered kernel over the ordered one
  if row.variant == "histogram2" then
    local base = by[key(row, "histogram")]
    if base and base.time and row.time then row.speedup = base.time / row.time end
  end
end
io.stdout:write(string.format("# %s; utilization from per-SM averages (CUPTI aggregates over SMs)%s\n",
  tostring(meta.gpuName), tab and ""
    or "\n# no T(n, e, c) table for this GPU: run `rot measure gpu-atomics` first for utilization"))
rot.records(rot.name(), { { "pixels", "pixels", "%d" }, { "image", "image" }, { "block", "block", "%d" },
  { "kernel", "variant" }, { "time_us", function(r) return r.time and r.time * 1e6 end, "%.2f" },
  { "e", "e", "%.1f" }, { "n_hat", "n", "%.1f" }, { "c", "c", "%.2f" },
  { "utilization_pct", function(r) return r.U and r.U * 100 end, "%.0f" }, { "speedup", "speedup", "%.2f" } }, rows)
rot.xy(rows, { title = "shared-memory atomic utilization", logx = true,
  x = function(r) return r.pixels end, y = function(r) return r.U and r.U * 100 end,
  xlabel = "image size [pixels]", ylabel = "estimated utilization [%]",
  series = function(r) return r.variant .. " " .. r.image .. " " .. r.block end })
