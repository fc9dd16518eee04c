-- the GPU's shared-memory atomic service times T(n, e, c), stored per GPU model (Dong & Pai)
local rot = require "rot"
local atomics = require "rot.models.atomics"
local sys = require "rot.sys"

local quick = rot.get("quick")
local function point(n, e, c)
  return { kernel = "gpu_atomics", params = { n = n, e = e, c = c }, cacheMode = "warm" }
end

-- one point first: the SM's resident-warp limit bounds n
local first = rot.measure(rot.space { rot.axis("n", { 1 }) }, function() return point(1, 32, 0) end).rows[1]
local meta = require("rot.gpu").probe(first, "the T(n, e, c) table needs a GPU (see the error above)")
local nmax = meta.gpuMaxWarpsPerSM or 64

-- a grid, not every integer: the model interpolates linearly between the samples
local ns, es = {}, quick and { 1, 32 } or { 1, 2, 4, 8, 16, 24, 32 }
for _, n in ipairs(quick and { 1, 8, 32 } or { 1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64 }) do
  if n <= nmax then ns[#ns + 1] = n end
end
if not quick and ns[#ns] < nmax then ns[#ns + 1] = nmax end
local cases = {}
for _, n in ipairs(ns) do
  for _, e in ipairs(es) do
    local seen = {}
    for _, f in ipairs(quick and { 0, 1 } or { 0, 0.25, 0.5, 0.75, 1 }) do
      local c = math.floor(f * n + 0.5)
      if not seen[c] then
        seen[c] = true
        cases[#cases + 1] = { n = n, e = e, c = c }
      end
    end
  end
end
local idx = {}
for i = 1, #cases do idx[i] = i end
local results = rot.measure(rot.space { rot.axis("case", idx) }, function(p)
  local c = cases[p.case]
  return point(c.n, c.e, c.c)
end)

local rows = {}
for i, r in ipairs(results.rows) do
  local cy = r.report and r.report.cycles
  if cy then
    local c = cases[i]
    rows[#rows + 1] = { n = c.n, e = c.e, c = c.c, t = cy, S = cy / c.n, sms = r.report.sms }
  end
end
if #rows == 0 then rot.fail("no T(n, e, c) sample could be measured (see the errors above)") end
io.stdout:write(string.format("# %s, %d SMs, up to %d warps per SM; T in SM cycles, best launch, median over SMs\n",
  tostring(meta.gpuName), meta.gpuSMs or 0, nmax))
rot.records(rot.name(), { { "n", "n", "%d" }, { "e", "e", "%d" }, { "c", "c", "%d" }, { "T_cycles", "t", "%.0f" },
  { "S_cycles", "S", "%.2f" }, { "SMs", "sms", "%d" } }, rows)
-- the table the utilization model reads, stored per GPU model
local text = atomics.csv(rows)
local stored = require("rot.gpu").machine_file(rot.get("cacheDir"), meta.gpuName, "atomics")
assert(sys.writefile(stored, text))
io.stdout:write("T(n, e, c) stored in ", stored, "\n")
rot.xy(rows, { title = "shared-memory atomics: service time per job (e = 32)", logx = false,
  x = function(r) return r.e == 32 and r.c or nil end, y = function(r) return r.S end,
  xlabel = "CAS warp-instructions among n", ylabel = "S = T / n [cycles]",
  series = function(r) return "n = " .. r.n end })
