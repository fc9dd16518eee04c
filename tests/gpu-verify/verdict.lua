-- verdict.lua DIR: the verdict table of `make gpu-verify` from what it left in DIR: rot's
-- gpu-peaks.csv and gpu-pipeline-latencies.csv, the reference program's reference.csv, rot's
-- triad-counters.csv and, when ncu was there, ncu.csv (--page raw). Fails (exit 1) on any miss.
local rot = require "rot"
local csv = require "rot.csv"
local gpu = require "rot.gpu"
local ceilings = require "rot.machine.ceilings"
local predict = require "rot.models.predict"
local report = require "rot.results.format"
local sys = require "rot.sys"

local dir = arg[1] or rot.fail("usage: rot run tests/gpu-verify/verdict.lua DIR")
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."

-- "name,value,unit" lines (the reference program's and triad-counters' output)
local function values(name)
  local text = sys.readfile(dir .. "/" .. name)
  if not text then return nil end
  local v = {}
  for line in text:gmatch("[^\n]+") do
    local k, val = line:match("^([^,]+),([^,]*),")
    if k then v[k] = tonumber(val) or val end
  end
  return v
end

local ref = values("reference.csv") or {}
local counters = values("triad-counters.csv") or {}
-- ncu --csv --page raw of the reference program's triad: its one row's metrics, in bytes
local nctext = sys.readfile(dir .. "/ncu.csv")
local ncrows = nctext and predict.read_ncu_csv(nctext)
local nc = ncrows and ncrows[1] and ncrows[1].metrics
local mine = {}
for _, r in ipairs(ceilings.read_csv(dir .. "/gpu-peaks.csv") or {}) do mine[r.name] = r.value end
-- rot's completion latencies in cycles, by the CSV's own column names (a column added before
-- completion_cycles once left every latency row of an H200's table "-")
local lat = {}
for _, r in ipairs(csv.parse_named(sys.readfile(dir .. "/gpu-pipeline-latencies.csv") or "") or {}) do
  lat[r.op] = tonumber(r.completion_cycles)
end
local published = {}
for line in (sys.readfile(here .. "/published.csv") or ""):gmatch("[^\n]+") do
  local op, cyc, src = line:match("^([^,]+),([%d.]+),(.*)$")
  if op then published[op] = { cycles = tonumber(cyc), source = src } end
end

local meta = { gpuCC = ref.cc and string.format("%.1f", ref.cc), gpuSMs = ref.sms, gpuClockKHz = ref.clock_khz,
  gpuMemClockKHz = ref.mem_clock_khz, gpuBusWidth = ref.bus_width }
local theo = gpu.theoretical(meta)
local at = ref.sm_clock and gpu.theoretical_at(meta, ref.sm_clock) or {}

local rows, misses, checks = {}, 0, 0
local function num(v) return math.abs(v) >= 100 and string.format("%.0f", v) or string.format("%.3g", v) end
-- check(name, value, against, lo, hi, what): the ratio value/against must lie in [lo, hi]
local function check(name, value, against, lo, hi, what)
  local ratio = value and against and against > 0 and value / against
  local ok = ratio and ratio >= lo and (not hi or ratio <= hi)
  local target = hi and (lo > 0 and string.format("%.2f..%.2f", lo, hi) or string.format("<= %.2f", hi))
    or string.format(">= %.2f", lo)
  rows[#rows + 1] = { name, value and num(value) or "-", against and num(against) or "-",
    ratio and string.format("%.3f", ratio) or "-", target .. " " .. what, ok and "ok" or "MISS" }
  checks = checks + 1
  if not ok then misses = misses + 1 end
end
local function skip(name, why) rows[#rows + 1] = { name, "-", "-", "-", "", "skipped: " .. why } end

check("HBM triad", mine.HBM_triad, ref.triad, 0.97, nil, "of the reference")
check("HBM triad", mine.HBM_triad, theo.hbm, 0.90, nil, "of the data sheet")
for _, p in ipairs({ { "fp64_fma", "fp64", 0.95 }, { "fp32_fma", "fp32", 0.95 }, { "fp16_fma", "fp16", 0.90 } }) do
  check(p[1], mine[p[1]], ref[p[1]], 0.97, nil, "of the reference")
  check(p[1], mine[p[1]], at[p[2]], p[3], nil, "of theoretical at the measured clock")
end
check("int32_mad", mine.int32_mad, theo.int32, 0, 1.02, "of its physical limit")
check("int32_add", mine.int32_add, theo.int32_add, 0, 1.02, "of its physical limit")
check("shared_ldst", mine.shared_ldst, theo.shared, 0, 1.02, "of its physical limit")
if nc then
  check("triad L2 B/element", counters.l2_bytes_per_element, nc["lts__t_bytes.sum"] and ref.triad_elements and
    nc["lts__t_bytes.sum"] / ref.triad_elements, 0.97, 1.03, "of ncu's")
  check("triad HBM B/element", counters.hbm_bytes_per_element, nc["dram__bytes_read.sum"]
    and nc["dram__bytes_write.sum"] and
    ref.triad_elements and (nc["dram__bytes_read.sum"] + nc["dram__bytes_write.sum"]) / ref.triad_elements,
      0.97, 1.03, "of ncu's")
else
  skip("triad counters vs ncu", "ncu not found")
end
local ops = {}
for k in pairs(ref) do if k:match("^latency ") then ops[#ops + 1] = k:sub(9) end end
table.sort(ops)
for _, op in ipairs(ops) do
  check("latency " .. op .. " [cycles]", lat[op], ref["latency " .. op], 0.8, 1.25, "of the reference")
end
-- a dependent instruction cannot finish in under a clock: a shorter "latency" is a folded chain
-- (ptxas folds chains of integer adds)
local shortest, which = math.huge, nil
for op, c in pairs(lat) do if c < shortest then shortest, which = c, op end end
check("shortest latency [cycles]" .. (which and " (" .. which .. ")" or ""), which and shortest, 1, 1, nil,
  "cycle: a dependent chain")
for _, op in ipairs({ "fadd", "ffma" }) do
  if published[op] then
    check("latency " .. op .. " [cycles]", lat[op], published[op].cycles, 0.75, 1.25, "of published ("
      .. published[op].source .. ")")
  end
end

io.stdout:write(string.format("gpu-verify on %s (%s SMs, sm_%s, SM clock measured %.3f GHz)\n",
  tostring(ref.device or "?"),
  tostring(ref.sms or "?"), tostring(meta.gpuCC or "?"):gsub("%.", ""), (ref.sm_clock or 0) / 1e9))
report.records(rows, { { "check", 1 }, { "rot", 2 }, { "reference", 3 }, { "ratio", 4 }, { "target",
  5 }, { "verdict", 6 } })
if misses > 0 then rot.fail(string.format("gpu-verify: %d of %d checks missed", misses, checks)) end
io.stdout:write(string.format("gpu-verify: all %d checks passed\n", checks))
