-- Unit tests of rot.results.format: CSV quoting, a model's records, the marks a table explains
-- under it, a bound in GB/s.
-- judges no time
local t = require "tap"
local sys = require "rot.sys"
local report = require "rot.results.format"

-- CSV quoting
local dir = os.getenv("TMPDIR") or "/tmp"
local path = report.csv({ { point = { name = 'a,"b"' }, desc = { workloads = { { kernel = "k" } }, flags = "-O2" } } },
  dir .. "/rot-unit-" .. os.time() .. ".csv", { "name" })
local text = sys.readfile(path)
t.ok(text:find('"a,""b"""', 1, true) ~= nil, "CSV quotes commas and quotes")
sys.remove(path)

-- a model's records: an aligned table and a CSV with full numbers, missing values as "-" and ""
local recs = { { name = "a", x = 1 / 3 }, { name = "longer", x = nil } }
local cols = { { "kernel", "name" }, { "x", "x", "%.2f" }, { "twice", function(r) return r.x and 2 * r.x end } }
local tmp = dir .. "/rot-unit-rec-" .. os.time()
local f = assert(io.open(tmp, "w"))
report.records(recs, cols, f)
f:close()
t.is(sys.readfile(tmp), "kernel     x   twice\na       0.33  0.6667\nlonger     -       -\n",
  "records: aligned, formatted, '-' when missing")
report.records_csv(recs, cols, tmp)
t.is(sys.readfile(tmp), "kernel,x,twice\na,0.3333333333333333,0.6666666666666666\nlonger,,\n",
  "records CSV: numbers in full (the shortest text that reads back the same), empty when missing")
sys.remove(tmp)

-- a table's marks are explained under it only where it shows the column that carries them
local function printed(columns)
  local buf = {}
  local out = { write = function(_, ...) for _, x in ipairs({ ... }) do buf[#buf + 1] = x end end }
  report.table({ { point = { n = 1 }, time = 1e-3, spread = 0.09, converged = false, fraction = 1.3, above = true,
    limiter = "L2 bw (unstable)", boundUnstable = true } }, columns, { "n" }, out)
  return table.concat(buf)
end
local all, few = printed(nil), printed({ "time" })
t.ok(all:find("! best-k did not converge", 1, true) and all:find("\n%^ above its bound") and all:find("\n%(unstable%)"),
  "the default table: the lines for '!', '^' and '(unstable)'")
t.ok(not few:find("!", 1, true) and not few:find("^", 1, true) and not few:find("unstable", 1, true),
  "a table of the time alone: none of them (" .. few:gsub("\n", " | ") .. ")")

-- a kernel without flops (stream's copy) has its bound in GB/s, said with its unit, beside its
-- % of it (its bound column said '-' next to 'of bound 77%'); a bandwidth table's bound GB/s
local copy = { point = { n = 1 }, time = 86.4e-9, bytes = 16384, flops = 0, gbs = 189.6, gflops = 0,
  timeBound = 16384 / 245.5e9,
  fraction = 0.772, limiter = "L1 bw" }
local function cells(columns)
  local buf = {}
  report.table({ copy }, columns, nil, { write = function(_, ...) for _,
    x in ipairs({ ... }) do buf[#buf + 1] = x end end })
  return table.concat(buf)
end
t.ok(cells({ "bound", "limiter", "fraction" }):find("246 GB/s%s+L1 bw%s+77%%"),
  "a copy row: bound 246 GB/s, of bound 77%: "
  .. cells({ "bound", "fraction" }):gsub("\n", " | "))
t.ok(cells({ "GB/s", "bound GB/s" }):find("189.60%s+245.5"), "the bound GB/s column: the bandwidth its bound allows")

t.done()
