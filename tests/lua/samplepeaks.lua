-- samplepeaks: one machine's stored ceilings that Lua tests draw on (rot.machine.ceilings',
-- rot.results.bounds'): peaks.csv rows written and read back through rot.machine.ceilings.
local sys = require "rot.sys"
local ceilings = require "rot.machine.ceilings"

local M = {}

M.rows = {
  { name = "double_avx512_fma", kind = "compute", threads = 1, value = 65.5, unit = "GFLOP/s" },
  { name = "double_scalar_add", kind = "compute", threads = 1, value = 4.25, unit = "GFLOP/s" },
  { name = "float_avx512_fma", kind = "compute", threads = 1, value = 131, unit = "GFLOP/s" },
  { name = "double_avx512_fma", kind = "compute", threads = 2, value = 130, unit = "GFLOP/s" },
  { name = "triad_L1", kind = "bandwidth", threads = 1, value = 200.5, unit = "GB/s" },
  { name = "read_L1", kind = "bandwidth", threads = 1, value = 150, unit = "GB/s" },
  { name = "triad_DRAM", kind = "bandwidth", threads = 1, value = 12, unit = "GB/s" },
}

-- M.rows written to a peaks.csv and read back (the file removed).
function M.read_back()
  local path = (os.getenv("TMPDIR") or "/tmp") .. "/rot-unit-peaks-" .. sys.pid() .. ".csv"
  ceilings.write_csv(path, M.rows)
  local rows = ceilings.read_csv(path)
  sys.remove(path)
  return rows
end

return M
