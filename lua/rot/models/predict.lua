-- rot.models.predict: the quantitative GPU roofline prediction (Konstantinidis & Cotronis): kernel
-- parameters from counters profiled on a reference GPU, device parameters from micro-
-- benchmarks, predicted throughput and time on a target GPU; Nsight Compute CSV import.
local util = require "rot.util"
local csv = require "rot.csv"

local M = {}

-- The paper's nvprof metrics and the current (CUPTI / Nsight Compute) names rot collects.
M.metrics = {
  { symbol = "M_fma32", nvprof = "flop_count_sp_fma", name = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum" },
  { symbol = "M_fma64", nvprof = "flop_count_dp_fma", name = "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum" },
  { symbol = "M_ldst", nvprof = "inst_compute_ld_st", name = "smsp__sass_thread_inst_executed_op_memory_pred_on.sum" },
  { symbol = "M_inst", nvprof = "inst_executed", name = "smsp__inst_executed.sum" },
  { symbol = "M_fp32", nvprof = "inst_fp_32", name = "smsp__sass_thread_inst_executed_op_fp32_pred_on.sum" },
  { symbol = "M_fp64", nvprof = "inst_fp_64", name = "smsp__sass_thread_inst_executed_op_fp64_pred_on.sum" },
  { symbol = "M_int", nvprof = "inst_integer", name = "smsp__sass_thread_inst_executed_op_integer_pred_on.sum" },
  { symbol = "M_tran_r", nvprof = "dram_read_transactions", name = "dram__sectors_read.sum" },
  { symbol = "M_tran_w", nvprof = "dram_write_transactions", name = "dram__sectors_write.sum" },
}

function M.metric_names()
  local out = {}
  for i, m in ipairs(M.metrics) do out[i] = m.name end
  return out
end

--[[ Kernel parameters (formulas 2-9) from metric values (current name -> value):
  { type = "fp64"|"fp32"|"int", W_comp, W_traf, E_mix, D_ops, D_ldst, D_other } (fractions). ]]
function M.kernel(values)
  local v = {}
  for _, m in ipairs(M.metrics) do
    local x = values[m.name]
    if x == nil then return nil, "metric '" .. m.name .. "' (" .. m.nvprof .. ") is missing" end
    v[m.symbol] = x
  end
  local k = {}
  k.type = v.M_fp64 > 0 and "fp64" or v.M_fp32 > 0 and "fp32" or "int"
  local fp, fma = ({ fp64 = v.M_fp64, fp32 = v.M_fp32, int = v.M_int })[k.type], ({ fp64 = v.M_fma64,
    fp32 = v.M_fma32 })[k.type]
  k.W_comp = k.type == "int" and v.M_int or fp + fma                           -- (2)
  k.W_traf = 32 * (v.M_tran_r + v.M_tran_w)                                     -- (3)
  k.E_mix = k.type == "int" and 0.5 or (fp + fma) / (2 * fp)                    -- (4)
  local I_total = 32 * v.M_inst                                                 -- (9)
  k.D_ops = fp / I_total                                                        -- (5), (8)
  k.D_ldst = v.M_ldst / I_total                                                 -- (6)
  k.D_other = 1 - k.D_ops - k.D_ldst                                            -- (7)
  return k
end

--[[ Prediction on a device {T_SP, T_DP, T_int, T_add, T_ldst (G ops/s), B_mem (GB/s)}
  (formulas 10-19): returns { T_op, W_op, W_ldst, W_other, C_op, C_ldst, C_other, E_instr,
  T_op_adj, O_krn, O_dev, bound = "compute"|"memory", gops = predicted throughput, time = s }. ]]
function M.predict(k, d)
  local p = {}
  p.T_op = ({ fp32 = d.T_SP, fp64 = d.T_DP, int = d.T_int })[k.type]           -- (10)
  p.W_op = d.T_SP / p.T_op                                                      -- (11)
  p.W_ldst = 0.5 * d.T_SP / d.T_ldst                                            -- (12)
  p.W_other = 0.5 * d.T_SP / d.T_add                                            -- (13)
  p.C_op, p.C_ldst, p.C_other = k.D_ops * p.W_op, k.D_ldst * p.W_ldst, k.D_other * p.W_other -- (14-16)
  p.E_instr = p.C_op / (p.C_op + p.C_ldst + p.C_other)                          -- (17)
  p.T_op_adj = k.E_mix * p.E_instr * p.T_op                                     -- (18)
  p.O_krn = k.W_comp / k.W_traf
  p.O_dev = p.T_op_adj / d.B_mem
  -- (19)
  if p.O_krn > p.O_dev then p.gops, p.bound = p.T_op_adj, "compute" else p.gops,
    p.bound = p.O_krn * d.B_mem, "memory" end
  p.time = k.W_comp / (p.gops * 1e9)
  -- rot's extension: one kernel launch costs t_launch beyond its work (gpu-peaks' launch row)
  if d.t_launch then p.time_launch = d.t_launch + p.time end
  return p
end

--[[ Which term of the model misses a measured time m, in words: the launch cost when it is a
  large part of m, else the bound's term and how much of its rate the kernel reached (the
  paper: a model rate is an upper bound; what holds a kernel below it is outside the model). ]]
function M.account(k, p, d, m)
  local ape = M.ape(p.time, m)
  if ape <= 25 then return string.format("%s-bound prediction within 25%%", p.bound) end
  if d.t_launch and d.t_launch >= 0.25 * m then
    return string.format("launch: %.2g us of the %.2g us measured is the launch cost, not in the paper's model",
      d.t_launch * 1e6, m * 1e6)
  end
  if p.bound == "memory" then
    local pct = k.W_traf / m / 1e9 / d.B_mem * 100
    if m > p.time then
      return string.format("memory term: its DRAM traffic moved at %.0f%% of B_mem (latency, atomics or too little "
        .. "parallelism hold it below)", pct)
    end
    return string.format("memory term: its DRAM traffic moved at %.0f%% of B_mem (the triad's B_mem "
      .. "underrates this access mix)", pct)
  end
  local pct = k.W_comp / m / 1e9 / p.T_op_adj * 100
  if m > p.time then
    return string.format("compute term: %.0f%% of T_op_adj = E_mix %.2f x E_instr %.2f x T_op (dependences, "
      .. "occupancy or divergence hold it below)",
      pct, k.E_mix, p.E_instr)
  end
  return string.format("compute term: %.0f%% of T_op_adj (E_instr %.2f overrates what the other instructions cost)",
    pct, p.E_instr)
end

-- Absolute percentage error of a prediction.
function M.ape(predicted, measured) return math.abs(predicted - measured) / measured * 100 end

-- Device parameters from a gpu-peaks.csv (rows of rot.machine.ceilings.read_csv).
function M.device(rows)
  local d, by = {}, {}
  for _, r in ipairs(rows) do by[r.name] = r.value end
  d.T_SP, d.T_DP, d.T_int, d.T_add = by.fp32_fma, by.fp64_fma, by.int32_mad, by.int32_add
  d.T_ldst = by.shared_ldst and by.shared_ldst / 4 -- GB/s of 4-byte words -> G loads/stores per s
  d.B_mem = by.HBM_triad
  for _, k in ipairs({ "T_SP", "T_DP", "T_int", "T_add", "T_ldst", "B_mem" }) do
    if not d[k] then return nil, "the device file has no value for " .. k end
  end
  d.t_launch = by.launch and by.launch * 1e-6 -- optional: a file may lack it
  return d
end

-- Multiplier of an Nsight Compute unit to rot's base units (bytes, seconds, counts): ncu
-- scales units by default (Mbyte, usecond) unless run with --print-units base.
local PREFIX = { n = 1e-9, u = 1e-6, m = 1e-3, K = 1e3, M = 1e6, G = 1e9, T = 1e12 }
local BASES = { byte = true, second = true, inst = true, cycle = true, sector = true, warp = true,
  thread = true, request = true, hz = true, flop = true }
function M.unit_scale(unit)
  local p, base = (unit or ""):match("^([numKMGT])(%a+)")
  if p and BASES[base:lower()] then return PREFIX[p] end
  return 1
end

-- The records of CSV text (rot.csv); quoted_only: of its lines that begin with a quote (ncu's
-- own notes, ==PROF== ..., are unquoted lines among them).
local function records_of(text, quoted_only)
  if quoted_only then
    local kept = {}
    for l in text:gmatch("[^\r\n]+") do if l:sub(1, 1) == '"' then kept[#kept + 1] = l end end
    text = table.concat(kept, "\n")
  end
  return csv.parse(text) or error("unterminated quote in CSV")
end

local function number(s) return tonumber(((s or ""):gsub(",", ""))) end

--[[ Reads `ncu --csv --page raw` output: a header of metric names, a row of units, one row
  per profiled kernel. Returns { {kernel=, metrics={name=value}, time=s}, ... }; numbers may
  carry thousands separators, values are scaled to base units. ]]
function M.read_ncu_csv(text)
  local lines = records_of(text, true)
  if #lines < 3 then return nil, "not an ncu --csv --page raw export (too few rows)" end
  local head, units = lines[1], lines[2]
  local kcol
  for i, h in ipairs(head) do if h == "Kernel Name" then kcol = i end end
  if not kcol then return nil, "not an ncu --csv --page raw export (no 'Kernel Name' column)" end
  local out = {}
  for li = 3, #lines do
    local f = lines[li]
    local row = { kernel = f[kcol], metrics = {} }
    for i, h in ipairs(head) do
      local num = number(f[i])
      if num and h:find("__") then row.metrics[h] = num * M.unit_scale(units[i]) end
    end
    local t = row.metrics["gpu__time_duration.sum"]
    row.time = t
    out[#out + 1] = row
  end
  return out
end

--[[ Reads a rot results CSV of GPU points (columns gpu:METRIC, time_s, kernel, and the
  axes before workingSet_bytes). Returns the rows of read_ncu_csv, the kernel named by its
  kernel and axis values, with sms and warps_per_sm of the device. ]]
function M.read_rot_csv(text)
  local lines = records_of(text)
  if #lines < 2 then return nil, "the rot CSV has no data rows" end
  local head = lines[1]
  local col, axes = {}, {}
  for i, h in ipairs(head) do
    col[h] = i
    if not col.workingSet_bytes then axes[#axes + 1] = i end
  end
  if not col.time_s or not col.kernel then return nil, "not a rot results CSV (no time_s and kernel columns)" end
  local out = {}
  for li = 2, #lines do
    local f = lines[li]
    local name = { f[col.kernel] }
    for _, i in ipairs(axes) do name[#name + 1] = head[i] .. "=" .. f[i] end
    local row = { kernel = table.concat(name, " "), metrics = {}, time = number(f[col.time_s]),
      sms = col.gpu_sms and number(f[col.gpu_sms]), warps_per_sm = col.gpu_max_warps_per_sm
        and number(f[col.gpu_max_warps_per_sm]) }
    for i, h in ipairs(head) do
      local m = h:match("^gpu:(.+)$")
      if m and number(f[i]) then row.metrics[m] = number(f[i]) end
    end
    if f[col.source] ~= "failed" then out[#out + 1] = row end
  end
  return out
end

-- A profile file of either kind.
function M.read_profile(text)
  if text:find('"Kernel Name"', 1, true) then return M.read_ncu_csv(text) end
  return M.read_rot_csv(text)
end

--[[ Predictions for profiled kernels on a device; measured (optional) rows of the same
  kernels on that device give the APE. Returns records { kernel, type, O_krn, O_dev, bound,
  gops, time, time_launch, measured, ape, ape_launch, account }, and a summary { mean, count,
  mean_launch } (mean APE of the paper's model and of the model with the launch term, when the
  device has one). ]]
function M.report(profile, device, measured)
  local times = {}
  for _, r in ipairs(measured or {}) do
    if r.time then times[r.kernel] = times[r.kernel] or {}; table.insert(times[r.kernel], r.time) end
  end
  local used, recs, sum, sum_launch, n = {}, {}, 0, 0, 0
  for _, r in ipairs(profile) do
    local k, err = M.kernel(r.metrics)
    local rec = { kernel = r.kernel, error = err }
    if k then
      local p = M.predict(k, device)
      rec.type, rec.O_krn, rec.O_dev, rec.bound, rec.gops, rec.time = k.type, p.O_krn, p.O_dev, p.bound, p.gops, p.time
      rec.time_launch = p.time_launch
      used[r.kernel] = (used[r.kernel] or 0) + 1 -- the i-th profile of a name matches its i-th measurement
      local m = times[r.kernel] and times[r.kernel][used[r.kernel]]
      if m then
        rec.measured, rec.ape, rec.account = m, M.ape(p.time, m), M.account(k, p, device, m)
        rec.ape_launch = p.time_launch and M.ape(p.time_launch, m)
        sum, sum_launch, n = sum + rec.ape, sum_launch + (rec.ape_launch or 0), n + 1
      end
    end
    recs[#recs + 1] = rec
  end
  return recs, { mean = n > 0 and sum / n or nil, count = n,
    mean_launch = n > 0 and device.t_launch and sum_launch / n or nil }
end

-- The report's columns for rot.records: the paper's prediction, the launch-term one, the account.
M.columns = {
  { "kernel", "kernel" }, { "type", "type" }, { "O_krn", "O_krn", "%.3g" }, { "O_dev", "O_dev", "%.3g" },
  { "bound", "bound" }, { "predicted_GOPs", "gops", "%.4g" }, { "predicted_s", "time", "%.4g" },
  { "measured_s", "measured", "%.4g" }, { "APE_pct", "ape", "%.1f" },
  { "with_launch_s", "time_launch", "%.4g" }, { "APE_launch_pct", "ape_launch", "%.1f" },
  { "account", "account" }, { "error", "error" } }

-- The summary line of a report: mean APE, with the launch term when there is one.
function M.summary(s)
  if not s.mean then return nil end
  local line = string.format("mean APE %.2f%% over %d %s (Konstantinidis & Cotronis report 27.66%%)",
    s.mean, s.count, util.plural(s.count, "kernel"))
  if s.mean_launch then line = line .. string.format("; with the launch term %.2f%%", s.mean_launch) end
  return line
end

return M
