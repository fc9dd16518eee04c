-- Unit tests of rot.models.atomics: T(n, e, c) interpolation, utilization on hand-made values
-- and from metric values.
-- judges no time
local t = require "tap"

-- shared-memory atomics: T(n, e, c) interpolation and utilization on hand-made values
local atomics = require "rot.models.atomics"
local rows = {}
for n = 1, 4 do
  for _, e in ipairs({ 1, 32 }) do
    for c = 0, n do rows[#rows + 1] = { n = n, e = e, c = c, t = 10 * n + (e == 32 and 100 or 0) + 5 * c } end
  end
end
local tab = atomics.table(rows)
t.is(atomics.T(tab, 2, 1, 0), 20.0, "a sampled point is returned as measured")
t.is(atomics.T(tab, 0, 1, 0), 0, "n = 0: no time (equation 1)")
t.ok(math.abs(atomics.T(tab, 2.5, 1, 0) - 25) < 1e-12, "interpolated in n: T(2.5, 1, 0) = 25")
t.ok(math.abs(atomics.T(tab, 2, 16.5, 0) - (20 + 50)) < 1e-12,
  "interpolated in e between the sampled e=1 and e=32: halfway")
t.ok(math.abs(atomics.T(tab, 3, 1, 1.5) - (30 + 7.5)) < 1e-12, "interpolated in c")
t.ok(math.abs(atomics.S(tab, 2.5, 1, 0) - 10) < 1e-12, "S = T / n (equation 3)")
t.raises(function() atomics.T(tab, 5, 1, 0) end, "outside the measured",
  "n beyond the table is an error, not an extrapolation")
local u = atomics.utilization(tab, { warps_per_sm = 4, ops = 1600, sms = {
  { fao = 30, cas = 10, occupancy = 0.5, cycles = 500 }, { fao = 10, cas = 0, occupancy = 0.25, cycles = 100 } } })
t.ok(math.abs(u.e - 32) < 1e-12, "e = operations / jobs = 1600 / 50")
local s1 = u.sms[1]
t.ok(s1.N == 40 and s1.n == 2 and math.abs(s1.c - 0.5) < 1e-12,
  "SM 1: N = 40 jobs, n = 0.5 x 4 warps, c = n x CAS share")
t.ok(math.abs(s1.S - (20 + 100 + 2.5) / 2) < 1e-12, "S(2, 32, 0.5) from the table")
t.ok(math.abs(s1.B - 40 * s1.S) < 1e-9 and math.abs(s1.U - s1.B / 500) < 1e-12, "B = N x S, U = B / T")
t.ok(math.abs(u.sms[2].U - 10 * (10 + 100) / 100) < 1e-12, "SM 2: one warp, e = 32, no CAS: U = 10 x 110 / 100")
-- a sampled grid, as rot's micro-benchmark measures it: n in {4, 8}, c in {0, n/2, n}
local grid = {}
for _, n in ipairs({ 4, 8 }) do
  for _, c in ipairs({ 0, n // 2, n }) do grid[#grid + 1] = { n = n, e = 32, c = c, t = 100 * n + 10 * c } end
end
local gt = atomics.table(grid)
t.ok(math.abs(atomics.T(gt, 6, 32, 0) - 600) < 1e-12, "sparse n: T(6) halfway between the samples at 4 and 8")
t.ok(math.abs(atomics.T(gt, 2, 32, 0) - 200) < 1e-12, "below the smallest sampled n: between T(0) = 0 and T(4)")
t.ok(math.abs(atomics.T(gt, 8, 32, 2) - 820) < 1e-12, "sparse c: T(8, 32, 2) halfway between c = 0 and c = 4")
t.ok(math.abs(atomics.T(gt, 8, 1, 0) - 800) < 1e-12, "e below the sampled e is clamped, never extrapolated")
local back = assert(atomics.read_csv(atomics.csv(grid)))
t.ok(#back == #grid and back[4].n == 8 and back[4].c == 0 and back[4].t == 800, "the T(n, e, c) table survives its CSV")
t.ok(select(2, atomics.read_csv("x,y\n1,2\n")):find("not a T"), "a file that is no T(n, e, c) table is refused")
-- from metric values (aggregated, as CUPTI and Nsight Compute give them): 2 SMs, 64 warps each
local o = assert(atomics.from_metrics({ [atomics.metrics.bytes] = 4 * 6400, [atomics.metrics.fao] = 150,
  [atomics.metrics.cas] = 50, [atomics.metrics.occupancy] = 6.25, [atomics.metrics.cycles] = 1000,
  device__attribute_multiprocessor_count = 2, device__attribute_max_warps_per_multiprocessor = 64 }))
t.ok(o.per_sm == false and o.ops == 3200 and o.sms[1].fao == 75 and o.sms[1].cas == 25 and o.sms[1].occupancy == 0.0625,
  "metrics: per-SM averages, O from 4-byte atomic bytes, occupancy from percent")
local ua = atomics.utilization(gt, o)
t.ok(math.abs(ua.e - 32) < 1e-12 and ua.sms[1].n == 4 and not ua.per_sm,
  "e = O / N = 32, n = 6.25% of 64 warps; marked aggregated")
t.ok(math.abs(ua.sms[1].c - 1) < 1e-12 and math.abs(ua.sms[1].U - 100 * (400 + 10 * 1) / 4 / 1000) < 1e-12,
  "c = n x CAS share = 1; U = N x T(4, 32, 1) / 4 / cycles")
o.sms[1].occupancy = 0.25
t.raises(function() atomics.utilization(gt, o) end, "outside the measured",
  "n = 16 beyond a table measured to 8: an error")
t.ok(select(2, atomics.from_metrics({})):find("missing"), "missing metrics are named")

t.done()
