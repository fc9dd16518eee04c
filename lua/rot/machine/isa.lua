-- rot.machine.isa: the ISA classes the compute ceilings and the vector units' clocks are measured
-- in (vector lanes per precision, build flags, the CPU flag each needs, operations and chains
-- measured) and the operations peakflops takes.
local M = {}

-- ISA classes: vector lanes per precision, flags, the CPU flag they need, operations measured.
M.classes = {
  { name = "scalar", lanes = { double = 1, float = 1 }, flags = "-O2 -mfma", needs = "fma", ops = { "fma", "add" }, chains = 12 },
  { name = "sse", lanes = { double = 2, float = 4 }, flags = "-O2 -msse4.2 -mno-avx", needs = "sse2", ops = { "add" }, chains = 12 },
  { name = "avx2", lanes = { double = 4, float = 8 }, flags = "-O2 -mavx2 -mfma", needs = "avx2", ops = { "fma", "add" }, chains = 12 },
  { name = "avx512", lanes = { double = 8, float = 16 }, flags = "-O2 -mavx512f -mfma", needs = "avx512f", ops = { "fma", "add" }, chains = 24 },
}
M.opcode = { fma = 0, add = 1, mul = 2 }

return M
