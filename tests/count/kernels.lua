-- kernels: every shipped CPU kernel counted (tests/e2e/count.t), the settings of
-- tests/e2e/kernels.t: one line a case, "CASE KERNEL COUNTED-FLOPS DECLARED-FLOPS COUNTED-BYTES
-- DECLARED-BYTES SETTINGS" (its macros and flags, "-" for none), then the table.
local rot = require "rot"
local cases = {
  { "sum" }, { "fill" }, { "copy" }, { "scale" }, { "add" }, { "triad" }, { "daxpy" },
  { "triad", { STREAM_TYPE = "float" } }, { "copy", { STREAM_NT = 1 }, "-O2 -march=native", 1003 },
  { "triad", nil, "-O3 -march=native" }, { "peakflops", { PEAK_LANES = 4, PEAK_CHAINS = 8 }, nil, 100 },
  { "peakflops", { PEAK_OP = 1 }, nil, 100 }, { "peakflops", { PEAK_OP = 3 }, nil, 100 },
  { "chase", { CHASE_CHAINS = 4 } }, { "regadd" }, { "clock" }, { "intensity", { INTENSITY_TYPE = "float" } },
  { "matvec", { MATVEC_BLOCK = 4 }, nil, 50 }, { "matvec", { MATVEC_ORDER = 1 }, nil, 50 }, { "stencil", nil, nil, 50 },
  { "dgemm", nil, nil, 20 }, { "dgemm", { DGEMM_BLOCK = 8 }, nil, 20 },
}
local ids = {}
for i = 1, #cases do ids[i] = i end
local r = rot.measure(rot.space { rot.axis("case", ids) }, function(p)
  local c = cases[p.case]
  return { kernel = c[1], params = { n = c[4] or 1000 }, macros = c[2], flags = c[3], count = true, minRunTime = 0 }
end)
for _, row in ipairs(r.rows) do
  local c = cases[row.point.case]
  local settings = rot.util.assignments(c[2] or {})
  if c[3] then settings[#settings + 1] = c[3]:gsub(" ", ",") end
  print(string.format("%d %s %.17g %.17g %.17g %.17g %s", row.point.case, c[1], row.flopsCounted or -1,
    row.flopsDeclared or -1,
    row.bytesCounted or -1, row.bytesDeclared or -1, #settings > 0 and table.concat(settings, ",") or "-"))
end
r:table()
