-- Benchmark helper: rot's triad (the triad script's points: both builds) at a working set whose
-- three arrays are each a power of two (768 MiB: 256 MiB each), against the STREAM-convention
-- triad (bench/triad.c, the same build, separately allocated arrays, on huge pages as rot's
-- pool's, holding rot's measuring lock as rot does) at the same size,
-- alternating, ROUNDS rounds (the order reversed every other one). Arrays of such a size placed
-- back to back streamed at half speed in rot's pool. Prints "ROUND r FLAGS rot GB/s program GB/s".
--   rot run bench/arrays.lua WIDE NARROW [ROUNDS]   (WIDE, NARROW: triad.c's two builds)
local rot = require "rot"
local sys = require "rot.sys"
local session = require "rot.session"
local build = require "rot.build"

local programs = { ["-O3 -march=native"] = arg[1], ["-O2 -fno-tree-vectorize"] = arg[2] }
local rounds = tonumber(arg[3] or "3")
local n = 32 * 1024 * 1024 -- elements an array: 256 MiB of doubles
local base = os.time() * 100 -- rounds never measured before
for r = 1, rounds do
  for _, flags in ipairs(r % 2 == 1 and { "-O3 -march=native", "-O2 -fno-tree-vectorize" }
    or { "-O2 -fno-tree-vectorize", "-O3 -march=native" }) do
    local function ours()
      local rows = rot.measure(rot.space { rot.axis("flags", { flags }) }, function(p)
        return { kernel = "triad", params = { n = n }, flags = p.flags,
          macros = { STREAM_UNROLL = 2 }, round = base + r }
      end).rows
      return rows[1] and rows[1].gbs
    end
    local function theirs()
      if not programs[flags] or programs[flags] == "" then return nil end
      local lock <close> = session.lock(build.MEASURING)
      local st, out = sys.run({ programs[flags], tostring(3 * n * 8 // 1024), "10" }, { capture = true,
        timeout = 120 })
      return st == 0 and tonumber((out or ""):match("best_gbs ([%d.]+)")) or nil
    end
    local a, b
    if r % 2 == 1 then a = ours(); b = theirs() else b = theirs(); a = ours() end
    print(string.format("ROUND %d %s %s %s", r, flags:gsub(" ", "_"), a and string.format("%.2f", a) or "-",
      b and string.format("%.2f", b) or "-"))
  end
end
