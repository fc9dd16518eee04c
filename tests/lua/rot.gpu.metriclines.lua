-- Unit tests of rot.gpu.metriclines on lines built here in the words core/cuda/words.h declares
-- (none captured from a device): regions summed over a process's lines and over processes,
-- rates averaged over launches, losses counted, a cut or foreign output refused with why.
-- judges no time
local t = require "tap"
local util = require "rot.util"
local lines = require "rot.gpu.metriclines"
local W = require("rot.protocol").cuda

local M3 = { "dram__bytes.sum", "lts__t_bytes.sum", "sm__cycles_elapsed.avg.per_second" }

-- One process's output: its metrics, then the lines given, then end.
local function section(body, metrics)
  local out = { W.magic }
  for i, m in ipairs(metrics or M3) do out[#out + 1] = "metric " .. (i - 1) .. " " .. m end
  for _, l in ipairs(body) do out[#out + 1] = l end
  out[#out + 1] = "end"
  return table.concat(out, "\n") .. "\n"
end
local triad = "triad<double> <<<32768, 1024>>>"
local k = "kernel " .. util.escape_token(triad)

local p = assert(lines.parse(section({ "chip GH100", "passes 12", k .. " launches=3 300 600 3e9",
  "range step launches=3 300 600 3e9", "range solve launches=1 100 200 1e9", "unprofiled 2" }), M3))
t.is(p.chip, "GH100", "the chip")
t.is(p.passes, 12, "the passes a launch was replayed for")
t.is(p.kernelsOrder[1], triad, "a kernel region by its name and launch shape, unescaped")
t.is(lines.value(p.kernels[triad], "dram__bytes.sum"), 300, "a count: summed over the region's launches")
t.is(lines.value(p.kernels[triad], "sm__cycles_elapsed.avg.per_second"), 1e9,
  "a rate: the mean over its launches (3e9 over 3)")
t.is(p.ranges.solve.launches, 1, "an NVTX range's launches")
t.is(p.unprofiled, 2, "launches not profiled are counted")

-- two processes: their regions sum
local two = section({ k .. " launches=1 10 20 1e9" }) .. section({ k .. " launches=2 30 40 2e9",
  "unattributed 4", "mismatch 1 other " .. util.escape_token(triad), "error " .. util.escape_token("CUPTI: no") })
local q = assert(lines.parse(two))
t.is(q.processes, 2, "two processes' outputs")
t.is(q.kernels[triad].launches, 3, "a region's launches summed over the processes")
t.is(lines.values(q.kernels[triad])["lts__t_bytes.sum"], 60, "and its values (20+40)")
t.is(q.unattributed, 4, "unattributed ranges counted")
t.is(q.mismatch and q.mismatch.range, "other", "the first range named unlike its kernel")
t.is(q.errors[1], "CUPTI: no", "why profiling stopped, unescaped")

-- refused, with why
local none, why = lines.parse((section({ k .. " launches=1 1 2 3" }):gsub("end\n$", "")))
t.ok(not none and why:find("cut short", 1, true), "a process that died before its last line: refused (" ..
  tostring(why) .. ")")
none, why = lines.parse("hello\n")
t.ok(not none and why:find(W.magic, 1, true), "another program's output: refused")
none, why = lines.parse(section({ k .. " launches=1 1 2" }))
t.ok(not none and why:find("bad kernel line", 1, true), "a line with a value missing: refused")
none, why = lines.parse(section({ k .. " launches=1 1 2 3" }, { "a.sum", "b.sum", "c.sum" }), M3)
t.ok(not none and why:find("not the ones asked for", 1, true), "other metrics than asked for: refused")
t.ok(not lines.parse(""), "nothing written: refused")
t.is(lines.parse(section({ k .. " launches=1 1 2 3", "future 1 2" })).kernels[triad].launches, 1,
  "a word this rot does not know is skipped")
t.done()
