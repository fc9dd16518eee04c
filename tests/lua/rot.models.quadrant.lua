-- Unit tests of rot.models.quadrant: a device above a kernel's line is memory bound for it.
-- judges no time
local t = require "tap"
local ceilings = require "rot.machine.ceilings"
local peaks = require "rot.peaks"

-- quadrant split: a device above a kernel's line is memory bound for it
local quadrant = require "rot.models.quadrant"
local cpu = assert(quadrant.device("cpu", ceilings.read_csv(os.getenv("ROT_HOME") .. "/tests/fixtures/peaks.csv")))
t.ok(cpu.gbs > 0 and cpu.gflops > 0, "a device from peaks.csv: DRAM triad bandwidth and the best double ceiling")
local gpu_dev = assert(quadrant.device("h100", { { name = "fp64_fma", kind = "compute", threads = 132, value = 60000 },
  { name = "HBM_triad", kind = "bandwidth", threads = 132, value = 3000 } }))
local cls = quadrant.classify({ gpu_dev }, { { name = "triad", intensity = 1 / 12 },
  { name = "dgemm", intensity = 100 } })
t.is(cls[1].bound, "memory", "triad (I = 1/12) on a 60 TFLOP/s, 3 TB/s GPU: memory bound (line at 250 GFLOP/s)")
t.ok(math.abs(cls[1].attainable - 250) < 1e-9, "attainable = I x B = 250 GFLOP/s")
t.is(cls[2].bound, "compute", "dgemm (I = 100): compute bound")
t.is(cls[2].attainable, 60000, "attainable = the compute ceiling")

t.done()
