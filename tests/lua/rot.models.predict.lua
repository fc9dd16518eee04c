-- Unit tests of rot.models.predict: quantitative roofline prediction on hand-worked numbers,
-- the launch term and the per-kernel account, Nsight Compute units, a rot CSV as a profile.
-- judges no time
local t = require "tap"
local sys = require "rot.sys"
local report = require "rot.results.format"

-- quantitative roofline prediction on hand-worked numbers (formulas 2-19)
local dir0 = os.getenv("TMPDIR") or "/tmp"
local predict = require "rot.models.predict"
local prof = assert(predict.read_ncu_csv(assert(sys.readfile(os.getenv("ROT_HOME") .. "/tests/fixtures/ncu-raw.csv"))))
t.is(#prof, 1, "ncu raw CSV: one kernel row (header, units and notes skipped)")
t.is(prof[1].kernel, "saxpy(int, float, float*, float*)", "the kernel name, commas and all")
t.is(prof[1].metrics["dram__sectors_read.sum"], 1e8, "numbers with thousands separators")
local kp = assert(predict.kernel(prof[1].metrics))
t.is(kp.type, "fp32", "K_type: fp32 (no fp64 instructions)")
t.is(kp.W_comp, 1.6e9, "W_comp = M_fp32 + M_fma32")
t.is(kp.W_traf, 4.8e9, "W_traf = 32 x (read + write sectors)")
t.ok(math.abs(kp.E_mix - 0.8) < 1e-12, "E_mix = (M_fp32 + M_fma32) / (2 M_fp32) = 80%")
t.ok(math.abs(kp.D_ops - 0.3125) < 1e-12 and math.abs(kp.D_ldst - 0.125) < 1e-12
  and math.abs(kp.D_other - 0.5625) < 1e-12,
  "densities over I_total = 32 x M_inst: 31.25%, 12.5%, 56.25%")
local dev = { T_SP = 20000, T_DP = 10000, T_int = 10000, T_add = 15000, T_ldst = 5000, B_mem = 1000 }
local pr = predict.predict(kp, dev)
t.ok(pr.W_ldst == 2 and math.abs(pr.W_other - 2 / 3) < 1e-12, "weights: W_ldst = T_SP/2 / T_ldst = 2, W_other = 2/3")
t.ok(math.abs(pr.E_instr - 1 / 3) < 1e-12, "E_instr = C_op / (C_op + C_ldst + C_other) = 1/3")
t.ok(math.abs(pr.T_op_adj - 16000 / 3) < 1e-9, "T'_op = E_mix x E_instr x T_SP = 5333 GFLOP/s")
t.is(pr.bound, "memory", "O_krn = 1/3 < O_dev = 5.33: memory bound")
t.ok(math.abs(pr.gops - 1000 / 3) < 1e-9 and math.abs(pr.time - 4.8e-3) < 1e-12, "predicted 333 GFLOP/s, 4.8 ms")
t.ok(math.abs(predict.ape(4.8e-3, 6e-3) - 20) < 1e-9, "absolute percentage error")
t.is(predict.kernel({}), nil, "missing metrics give no parameters")
t.is(pr.time_launch, nil, "a device file without a launch row: the paper's model only")
-- the launch term and the per-kernel account (which term misses)
local devl = {}
for k, v in pairs(dev) do devl[k] = v end
devl.t_launch = 2e-3 -- hand-worked: a 4.8 ms kernel with a 2 ms launch cost, measured 7 ms
local pl = predict.predict(kp, devl)
t.ok(math.abs(pl.time_launch - 6.8e-3) < 1e-12 and pl.time == pr.time,
  "with the launch term: t_launch + W/P = 6.8 ms; the paper's time unchanged")
t.ok(predict.account(kp, pl, devl, 7e-3):match("^launch: 2e%+03 us of the 7e%+03 us measured is the launch cost"),
  "account: a launch cost of a quarter or more of the time is named: " .. predict.account(kp, pl, devl, 7e-3))
t.ok(predict.account(kp, pr, dev, 14.4e-3):match("^memory term: its DRAM traffic moved at 33%% of B_mem %(latency"),
  "account: 3x slower than memory bound: the DRAM traffic moved at a third of B_mem: " .. predict.account(kp,
    pr, dev, 14.4e-3))
t.ok(predict.account(kp, pr, dev, 2.4e-3):match("^memory term: its DRAM traffic moved at 200%% of B_mem %(the triad"),
  "account: faster than the memory bound says the triad's B_mem underrates it")
t.is(predict.account(kp, pr, dev, 5e-3), "memory-bound prediction within 25%", "account: within 25% nothing is blamed")
local kc = { type = "fp32", W_comp = 1e9, W_traf = 1e6, E_mix = 1, D_ops = 1, D_ldst = 0, D_other = 0 }
local pc = predict.predict(kc, dev) -- compute bound at T_op_adj = 20000 GFLOP/s: 50 us
t.ok(pc.bound == "compute" and predict.account(kc, pc, dev,
  200e-6):match("^compute term: 25%% of T_op_adj = E_mix 1%.00 x E_instr 1%.00"),
  "account: 4x slower than compute bound: 25% of T_op_adj, with its factors")
local recs, sum = predict.report({ { kernel = "k", metrics = prof[1].metrics } }, devl,
  { { kernel = "k", time = 7e-3 } })
t.ok(math.abs(recs[1].ape - 31.428571) < 1e-4 and math.abs(recs[1].ape_launch - 2.857143) < 1e-4 and
  math.abs(sum.mean_launch - recs[1].ape_launch) < 1e-12, "report: both APEs (31.4% and 2.9%) and their means")
t.ok(predict.summary(sum):match("mean APE 31%.43%% over 1 kernel .*; with the launch term 2%.86%%"),
  "summary line names both")

-- Nsight Compute units are scaled to base units; a rot CSV of GPU points reads back as a profile
t.ok(predict.unit_scale("usecond") == 1e-6 and predict.unit_scale("Mbyte") == 1e6 and predict.unit_scale("sector") == 1
  and predict.unit_scale("%") == 1, "ncu units: usecond, Mbyte scaled; sector and % as they are")
local gpath = dir0 .. "/rot-unit-gpu-" .. os.time() .. ".csv"
report.csv({ { point = { n = 4096 }, desc = { workloads = { { kernel = "gpu_triad" } } }, time = 2e-3,
  gpuMetrics = { ["dram__sectors_read.sum"] = 1e6, ["smsp__inst_executed.sum"] = 5e5 },
  entry = { meta = { gpuName = "NVIDIA H100", gpuSMs = 132, gpuMaxWarpsPerSM = 64 } } } }, gpath, { "n" })
local back_rows = assert(predict.read_profile(assert(sys.readfile(gpath))))
t.ok(#back_rows == 1 and back_rows[1].kernel == "gpu_triad n=4096" and back_rows[1].time == 2e-3,
  "rot CSV profile: the kernel named with its axes, its time")
t.ok(back_rows[1].metrics["dram__sectors_read.sum"] == 1e6 and back_rows[1].sms == 132
  and back_rows[1].warps_per_sm == 64,
  "rot CSV profile: every gpu: column, the SM count and warps per SM")
sys.remove(gpath)

t.done()
