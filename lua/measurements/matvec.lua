-- dense matrix-vector product: row order vs the strided "implementation horror", register blocking
local rot = require "rot"

local llc = rot.llc()
local l2 = rot.level_size("L2") or 1024 * 1024
local function order_for(bytes) return math.floor(math.sqrt(bytes / 8)) end
local sizes = { order_for(l2 // 2), order_for(llc // 4), order_for(2 * llc) }
if rot.get("quick") then sizes = { 64, 256 } end
local variants = {
  { name = "row", macros = { MATVEC_ORDER = 0, MATVEC_BLOCK = 1 } },
  { name = "row, 2-row blocks", macros = { MATVEC_ORDER = 0, MATVEC_BLOCK = 2 } },
  { name = "row, 4-row blocks", macros = { MATVEC_ORDER = 0, MATVEC_BLOCK = 4 } },
  { name = "column order (strided)", macros = { MATVEC_ORDER = 1, MATVEC_BLOCK = 1 } },
}

local results = rot.measure(rot.space { rot.axis("variant", { 1, 2, 3, 4 }), rot.axis("n", sizes) }, function(p)
  return { kernel = "matvec", params = { n = p.n }, macros = variants[p.variant].macros, flags = "-O3 -march=native" }
end)

results:table { columns = { { "variant", function(r) return variants[r.point.variant].name end }, "size",
  "time", "GB/s",
  "GFLOP/s", "intensity", "bound", "limiter", "fraction", "runs", "spread", "counts", "source" }, axes = { "n" } }
results:csv()
results:roofline { title = "y = A x: loop order and register blocking",
  series = function(r) return variants[r.point.variant].name end, label = function(r) return "n=" .. r.point.n end }
