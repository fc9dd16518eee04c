-- rot.machine.isa: the ISA classes the compute ceilings and the vector units' clocks are measured
-- in (vector lanes per precision, build flags, the CPU flag each needs, operations and chains
-- measured) and the operations peakflops takes.
local M = {}

--[[ ISA classes: vector lanes per precision, flags, the CPU flag they need, operations measured.
  avx128 is 128-bit FMA (VEX on xmm): the counted mix's 128-bit FMAs need its ceiling, SSE has
  none. addmul: chains of adds and chains of multiplies side by side, one of each in turn: where
  a core adds on pipes apart from its multiplies, the two overlap (rot.results.placed).
  addmul_chains: half of them multiply, and those alone must hide the multiply's latency where
  the adds take a pipe the multiplies share: with 12, a core whose adds are faster than its
  multiplies runs addmul below a real mix of adds and multiplies. 14 fill 16 registers with the
  two constants. ]]
M.classes = {
  { name = "scalar", lanes = { double = 1, float = 1 }, flags = "-O2 -mfma", needs = "fma",
    ops = { "fma", "add", "addmul" }, chains = 12, addmul_chains = 14 },
  { name = "sse", lanes = { double = 2, float = 4 }, flags = "-O2 -msse4.2 -mno-avx", needs = "sse2",
    ops = { "add" }, chains = 12 },
  { name = "avx128", lanes = { double = 2, float = 4 },
    flags = "-O2 -mavx2 -mfma -mprefer-vector-width=128", needs = "fma",
    ops = { "fma", "addmul" }, chains = 12, addmul_chains = 14 },
  { name = "avx2", lanes = { double = 4, float = 8 }, flags = "-O2 -mavx2 -mfma", needs = "avx2",
    ops = { "fma", "add", "addmul" }, chains = 12, addmul_chains = 14 },
  { name = "avx512", lanes = { double = 8, float = 16 }, flags = "-O2 -mavx512f -mfma", needs = "avx512f",
    ops = { "fma", "add", "addmul" }, chains = 24, addmul_chains = 24 },
}
M.opcode = { fma = 0, add = 1, mul = 2, addmul = 4 }

-- The chains class cls runs op on.
function M.chains(cls, op) return op == "addmul" and cls.addmul_chains or cls.chains end

-- The flops of one operation a lane (an FMA two; addmul's add and multiply one each).
function M.per_op(op) return op == "fma" and 2 or 1 end

--[[ The code each stream is built as: the widest vectors -march=native allows at every size,
  and narrow code too (-O2 -fno-tree-vectorize, what the triad script's first series is built
  with: 8-byte loads and stores, read's sums 16-byte vectors) from the last cache's reported
  size up. Narrow accesses can stream from DRAM faster than the widest vectors on some CPUs,
  while in the caches the vectors are faster: a ceiling is the faster code's, as the Empirical
  Roofline Toolkit's is its fastest variant's, so that no point of either code lies above it. ]]
M.codes = { { name = "the widest vectors", flags = "-O3 -march=native" },
  { name = "8- and 16-byte accesses", flags = "-O2 -fno-tree-vectorize" } }

-- The classes whose width can lower the vector units' clock below the scalar one (Intel's licence
-- clocks): their compute ceilings are timed beside a dependent FMA chain of their own width.
M.licensed = { avx2 = true, avx512 = true }

return M
