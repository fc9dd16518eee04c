-- rot.models.atomics: shared-memory atomic utilization (Dong & Pai): the measured table T(n, e, c)
-- of a GPU model, the service time S = T / n by linear interpolation over non-integral
-- inputs (equations 1-3), and utilization from counters (their Tables 1 and 2).
local csv = require "rot.csv"

local M = {}

--[[ A table from rows { {n=, e=, c=, t=cycles}, ... } (n >= 1, 1 <= e <= 32, 0 <= c <= n).
  The samples need not be every integer: rot's micro-benchmark samples a grid and the
  interpolation brackets each input between the nearest samples. ]]
function M.table(rows)
  local t = { data = {}, nmax = 0, emax = 0 }
  for _, r in ipairs(rows) do
    t.data[r.n] = t.data[r.n] or {}
    t.data[r.n][r.e] = t.data[r.n][r.e] or {}
    t.data[r.n][r.e][r.c] = r.t
    t.nmax = math.max(t.nmax, r.n)
    t.emax = math.max(t.emax, r.e)
  end
  return t
end

local function lerp(a, b, f) return a + (b - a) * f end

-- The sampled keys of set around x: lo, hi and the fraction of the way from lo to hi
-- (x outside the samples is clamped to the nearest one: no extrapolation).
local function bracket(set, x)
  local lo, hi, min, max
  for k in pairs(set) do
    if k <= x and (not lo or k > lo) then lo = k end
    if k >= x and (not hi or k < hi) then hi = k end
    if not min or k < min then min = k end
    if not max or k > max then max = k end
  end
  lo, hi = lo or min, hi or max
  return lo, hi, hi > lo and (x - lo) / (hi - lo) or 0
end

-- T at a sampled n, interpolated over e and c (c clamped to 0..n).
local function t_at_n(tab, n, e, c)
  if n == 0 then return 0 end -- equation (1): no jobs, no time
  local row = tab.data[n]
  c = math.max(0, math.min(c, n))
  local e0, e1, fe = bracket(row, e)
  local function at(ee)
    local c0, c1, fc = bracket(row[ee], c)
    return lerp(row[ee][c0], row[ee][c1], fc)
  end
  return lerp(at(e0), at(e1), fe)
end

-- Equation (2): T(n, e, c) by linear interpolation; n in 0..nmax, e in 1..emax, c in 0..n.
function M.T(tab, n, e, c)
  if n < 0 or n > tab.nmax then error("n = " .. n .. " is outside the measured 0.." .. tab.nmax, 2) end
  local ns = { [0] = true }
  for k in pairs(tab.data) do ns[k] = true end
  local n0, n1, fn = bracket(ns, n)
  return lerp(t_at_n(tab, n0, e, c), t_at_n(tab, n1, e, c), fn)
end

-- Equation (3): service time per job.
function M.S(tab, n, e, c)
  return n > 0 and M.T(tab, n, e, c) / n or 0
end

--[[ Utilization from counters (Table 2). sms = { {fao=, cas=, occupancy= (achieved, 0..1),
  cycles= (kernel time on that SM)}, ... } per SM, or one entry of per-SM averages when the
  counters are aggregated (then per_sm = false and ops is per SM too); ops = atomic thread
  operations; warps_per_sm = the maximum resident warps. Returns per SM {N, n, e, c, S, B, U}. ]]
function M.utilization(tab, o)
  local total = 0
  for _, s in ipairs(o.sms) do total = total + s.fao + s.cas end
  local e = total > 0 and o.ops / total or 0
  local out = { e = e, per_sm = o.per_sm ~= false, sms = {} }
  for i, s in ipairs(o.sms) do
    local N = s.fao + s.cas
    local n = s.occupancy * o.warps_per_sm
    local c = N > 0 and n * s.cas / N or 0
    local S = M.S(tab, n, e, c)
    local B = N * S
    out.sms[i] = { N = N, n = n, e = e, c = c, S = S, B = B, U = s.cycles > 0 and B / s.cycles or nil }
  end
  return out
end

-- Table 1 in current metric names (the CUPTI Profiling API and Nsight Compute aggregate over
-- SMs: rot uses per-SM averages and says so). O comes from the bytes of 4-byte atomics.
M.metrics = {
  bytes = "smsp__sass_data_bytes_mem_shared_op_atom.sum",
  fao = "smsp__inst_executed_op_shared_atom_dot_alu.sum",
  cas = "smsp__inst_executed_op_shared_atom_dot_cas.sum",
  occupancy = "sm__warps_active.avg.pct_of_peak_sustained_active",
  cycles = "sm__cycles_active.avg",
}

function M.metric_names()
  local out = {}
  for _, k in ipairs({ "bytes", "fao", "cas", "occupancy", "cycles" }) do out[#out + 1] = M.metrics[k] end
  return out
end

--[[ The utilization inputs from one kernel's metric values (name -> value) on a device with
  sms SMs and warps_per_sm resident warps at most (Nsight Compute exports carry both as
  device__attribute_multiprocessor_count and device__attribute_max_warps_per_multiprocessor).
  Returns the o of M.utilization (aggregated: one SM of averages), or nil and a message. ]]
function M.from_metrics(v, sms, warps_per_sm)
  sms = sms or v["device__attribute_multiprocessor_count"]
  warps_per_sm = warps_per_sm or v["device__attribute_max_warps_per_multiprocessor"]
  for _, name in pairs(M.metrics) do
    if v[name] == nil then return nil, "metric '" .. name .. "' is missing" end
  end
  if not sms or not warps_per_sm then return nil, "the SM count and the warps per SM are unknown" end
  return { per_sm = false, warps_per_sm = warps_per_sm, ops = v[M.metrics.bytes] / 4 / sms,
    sms = { { fao = v[M.metrics.fao] / sms, cas = v[M.metrics.cas] / sms, occupancy = v[M.metrics.occupancy] / 100,
      cycles = v[M.metrics.cycles] } } }
end

--[[ Utilization of profiled kernels (rows of rot.models.predict.read_profile) from a T(n, e, c)
  table; sms and warps_per_sm default to the profile's own (ncu device attributes, rot's
  gpu_sms columns). Returns records { kernel, N, e, n, c, S, B, cycles, U, error }. ]]
function M.report(profile, tab, sms, warps_per_sm)
  local recs = {}
  for _, r in ipairs(profile) do
    local rec = { kernel = r.kernel }
    local o, err = M.from_metrics(r.metrics, sms or r.sms, warps_per_sm or r.warps_per_sm)
    if o and o.sms[1].fao + o.sms[1].cas == 0 then
      rec.N, rec.U, rec.error = 0, 0, "no shared-memory atomics"
    elseif o then
      local ok, u = pcall(M.utilization, tab, o)
      if ok then
        local s = u.sms[1]
        rec.N, rec.e, rec.n, rec.c, rec.S, rec.B, rec.cycles, rec.U = s.N, s.e, s.n, s.c, s.S, s.B, o.sms[1].cycles, s.U
      else
        rec.error = tostring(u):gsub("^.-:%d+: ", "")
      end
    else
      rec.error = err
    end
    recs[#recs + 1] = rec
  end
  return recs
end

-- The table as CSV text (n,e,c,cycles) and back.
local HEADER = { "n", "e", "c", "cycles" }

function M.csv(rows)
  local records = {}
  for i, r in ipairs(rows) do records[i] = { math.tointeger(r.n), math.tointeger(r.e), math.tointeger(r.c), r.t } end
  return csv.text(HEADER, records)
end

function M.read_csv(text)
  local recs = csv.parse(text)
  if not recs or #recs == 0 or csv.line(recs[1]) ~= csv.line(HEADER) then
    return nil, "not a T(n, e, c) table (header " .. csv.line(HEADER) .. ")"
  end
  local rows = {}
  for k = 2, #recs do
    local f = recs[k]
    local n, e, c, t = math.tointeger(tonumber(f[1])), math.tointeger(tonumber(f[2])), math.tointeger(tonumber(f[3])),
      tonumber(f[4])
    if #f ~= 4 or not (n and e and c and t) or n < 0 or e < 0 or c < 0 then
      return nil, "bad T(n, e, c) row '" .. csv.line(f) .. "'"
    end
    rows[#rows + 1] = { n = n, e = e, c = c, t = t }
  end
  if #rows == 0 then return nil, "the T(n, e, c) table is empty" end
  return rows
end

return M
