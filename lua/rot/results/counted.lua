--[[ rot.results.counted: what the counting pass (rot.count) counted, as a row's fields: flops by
  class and in all, the bytes instructions loaded and stored, the simulated caches' traffic per
  level; each source of flops and bytes side by side (declared, counted, measured by the PMU)
  and, once the row is bounded, the one line that says where two disagree beyond a stated
  tolerance. A row with no declaration takes the counted flops and bytes (source "counted").
  Every field is declared in core/vocabulary.h (RESULT_ROW, side counted). ]]
local util = require "rot.util"
local quantities = require "rot.results.quantities"
local protocol = require "rot.protocol"

local M = {}

-- Beyond these, two sources disagree (the table's line says so): counted flops are exact, a
-- declaration may round (a reduction's last additions); bytes are conventions of their own.
M.TOLERANCE = { flops = 0.01, bytes = 0.10, pmu = 0.05 }

-- The flop classes of the counting tool (core/count/counts.h), by precision and width.
M.CLASSES = protocol.count.classes

-- The count of a row: its point's entry and, in it, the counts of this row (a kernel's
-- invocation; an application's program or one of its regions), or nil.
local function counts_of(r)
  local e = r.countRecord or (r.appPoint and r.appPoint.countRecord)
  if not e then return nil end
  if r.survey then return e, r.surveyCounts end -- (the loop survey's: its loops' or function's)
  if not r.region then return e, e.counts end
  if r.region == "(program)" then return e, e.counts.program end
  return e, e.counts.regions and e.counts.regions[r.region]
end

-- The simulated traffic per level, named by the level below each boundary ("L2": between L1
-- and L2; "DRAM": beyond the last level): {moved=, written=} tables.
local function traffic(e, c)
  local moved, written, n = {}, {}, #(e.levels or {})
  for i = 1, n do
    local name = i == n and "DRAM" or ("L" .. (i + 1))
    moved[name] = (c["fill" .. i] or 0) + (c["evict" .. i] or 0)
    written[name] = c["evict" .. i] or 0
  end
  if n == 0 then return nil, nil end
  return moved, written
end

--[[ The counted values of a row without work of its own (no declaration, no PMU count) become
  its flops and bytes, source "counted": its point on the roofline is the cache-aware one (the
  bytes its instructions move). An application's (program) row declares none: it takes its
  counts too, a point of its own (the whole run's). ]]
local function adopt(r)
  if r.flopsPmu or r.bytesPmu then return end
  if r.region and r.region ~= "(program)" and (r.flopsSource ~= "none" or r.bytesSource ~= "none") then return end
  if not r.region and ((r.flopsDeclared or 0) > 0 or (r.bytesDeclared or 0) > 0) then return end
  r.flops, r.bytes = r.flopsCounted, r.bytesCounted
  if r.region then r.flopsSource, r.bytesSource = "counted", "counted" end
  r.counts = "counted"
  quantities.rates(r)
end

--[[ apply(r): the row's counted fields from its count (r.countRecord, or its application
  point's): flopsCounted, flopsClasses (of each class, flopsFma the FMAs' and flopsAdd the adds'
  and subs'), bytesLoaded, bytesStored, bytesCounted, traffic, trafficWritten, countNote,
  countCaches, the PMU's flopsPmu and bytesPmu where its counts measure them, the
  counted/declared ratios; countFailed where counting failed. ]]
function M.apply(r)
  r.countFailed = r.countFailed or (r.appPoint and r.appPoint.countFailed) or nil
  local e, c = counts_of(r)
  if not c then return r end
  r.flopsClasses, r.flopsFma, r.flopsAdd, r.flopsCounted = {}, {}, {}, 0
  for _, k in ipairs(M.CLASSES) do
    if (c[k] or 0) > 0 then
      r.flopsClasses[k] = c[k]
      -- (nil: counted by a tool without them)
      r.flopsFma[k], r.flopsAdd[k] = c[protocol.count.fma[k]], c[protocol.count.add[k]]
    end
    r.flopsCounted = r.flopsCounted + (c[k] or 0)
  end
  r.bytesLoaded, r.bytesStored = c.loaded or 0, c.stored or 0
  r.bytesCounted = r.bytesLoaded + r.bytesStored
  r.traffic, r.trafficWritten = traffic(e, c)
  r.countNote, r.countCaches = e.note, e.caches
  r.flopsPmu = quantities.counted(r.desc, r.counters or {}, "flops")
  r.bytesPmu = quantities.counted(r.desc, r.counters or {}, "bytes")
  adopt(r)
  if (r.flopsDeclared or 0) > 0 then r.flopsCountedRatio = r.flopsCounted / r.flopsDeclared end
  if (r.bytesDeclared or 0) > 0 then r.bytesCountedRatio = r.bytesCounted / r.bytesDeclared end
  return r
end

-- Whether a row was counted.
function M.has(r) return r.flopsCounted ~= nil end

-- The simulated traffic at the level a bound uses ("L1": the instructions' bytes; a transition
-- "L3-DRAM": its slower side), with that level's name, or nil.
function M.at_level(r)
  local lv = r.level and (r.level:match("%-(%w+)$") or r.level)
  if not lv or not r.traffic then return nil end
  if lv == "L1" then return r.bytesCounted, "L1" end
  return r.traffic[lv], lv
end

local function off(ratio, tol) return ratio and math.abs(ratio - 1) > tol end
local function x(v) return string.format("%.2fx", v) end

-- The flops' disagreements: counted against declared and against the PMU.
local function flops_parts(r, parts)
  local t = M.TOLERANCE
  if (r.flopsDeclared or 0) > 0 and off(r.flopsCountedRatio, t.flops) then
    parts[#parts + 1] = string.format("flops counted %.4g, %s declared %.4g", r.flopsCounted, x(r.flopsCountedRatio),
      r.flopsDeclared)
  elseif (r.flopsDeclared or 0) == 0 and (r.bytesDeclared or 0) > 0 and r.flopsCounted > 0 then
    parts[#parts + 1] = string.format("flops counted %.4g, none declared", r.flopsCounted)
  end
  if r.flopsPmu and r.flopsPmu > 0 and off(r.flopsCounted / r.flopsPmu, t.pmu) then
    parts[#parts + 1] = string.format("flops counted %.4g, %s the PMU's %.4g", r.flopsCounted,
      x(r.flopsCounted / r.flopsPmu), r.flopsPmu)
  end
end

-- The bytes' disagreements: declared (STREAM's convention) against the instructions' loads
-- and stores and against the simulated traffic where the bound lies; the PMU's against DRAM's.
local function bytes_parts(r, parts)
  local t, d = M.TOLERANCE, r.bytesDeclared or 0
  if d > 0 and off(r.bytesCountedRatio, t.bytes) then
    parts[#parts + 1] = string.format("loads and stores %s, %s declared %s (STREAM's convention: each element once)",
      util.bytes(r.bytesCounted), x(r.bytesCountedRatio), util.bytes(d))
  end
  local sim, lv = M.at_level(r)
  if d > 0 and sim and lv ~= "L1" and off(sim / d, t.bytes) then
    local wa = r.bytesWritten and r.bytesWritten > 0 and not off(sim / (d + r.bytesWritten), t.bytes)
    parts[#parts + 1] = string.format("simulated %s traffic %s, %s declared%s", lv, util.bytes(sim), x(sim / d),
      wa and " (declared + written: the write-allocate stream)" or "")
  end
  local dram = r.traffic and r.traffic.DRAM
  if r.bytesPmu and r.bytesPmu > 0 and dram and off(dram / r.bytesPmu, t.bytes) then
    parts[#parts + 1] = string.format("simulated DRAM traffic %s, %s the PMU's %s", util.bytes(dram),
      x(dram / r.bytesPmu), util.bytes(r.bytesPmu))
  end
end

--[[ judge(rows): each counted row's disagree: where its sources disagree beyond the
  tolerances, in words (nil where they agree). After bounds (the level a bound uses). ]]
function M.judge(rows)
  for _, r in ipairs(rows) do
    if M.has(r) then
      local parts = {}
      flops_parts(r, parts)
      bytes_parts(r, parts)
      r.disagree = #parts > 0 and table.concat(parts, "; ") or nil
    end
  end
end


-- Bytes in a few characters, binary multiples said so: "512B", "23.4KiB", "1.50MiB", "2.00GiB",
-- "1000MiB" (never "1e+03MiB").
local function short(b)
  if not b then return "-" end
  for _, u in ipairs({ { 2 ^ 30, "GiB" }, { 2 ^ 20, "MiB" }, { 2 ^ 10, "KiB" } }) do
    if b >= u[1] then return string.format(b / u[1] >= 999.5 and "%.0f%s" or "%.3g%s", b / u[1], u[2]) end
  end
  return string.format("%dB", b)
end

-- Flops in a few characters, decimal multiples: "512 flop", "80.0 Mflop".
local function flops(f)
  for _, u in ipairs({ { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } }) do
    if f >= u[1] then return string.format("%.3g %sflop", f / u[1], u[2]) end
  end
  return string.format("%.3g flop", f)
end

-- The table's columns of counted rows: counted/declared (or the counts, undeclared) and the
-- simulated traffic per level.
M.columns = {
  counted = { "counted", function(r)
    if not M.has(r) then return r.countFailed and "FAILED" or "-" end
    if r.flopsCountedRatio or r.bytesCountedRatio then
      return string.format("flops %s bytes %s", r.flopsCountedRatio and string.format("%.3f",
        r.flopsCountedRatio) or "-",
        r.bytesCountedRatio and string.format("%.3f", r.bytesCountedRatio) or "-")
    end
    return string.format("%s %s", flops(r.flopsCounted), short(r.bytesCounted))
  end, function(r) return r.flopsCountedRatio end },
  traffic = { "simulated traffic", function(r)
    if not r.traffic then return "-" end
    local parts = {}
    for _, lv in ipairs(util.sorted_keys(r.traffic)) do
      if lv ~= "DRAM" then parts[#parts + 1] = lv .. " " .. short(r.traffic[lv]) end
    end
    parts[#parts + 1] = "DRAM " .. short(r.traffic.DRAM)
    return table.concat(parts, " ")
  end, function(r) return r.traffic and r.traffic.DRAM end },
}

-- Whether any row was counted (or its count failed): the tables get the columns above.
function M.any(rows)
  for _, r in ipairs(rows) do if M.has(r) or r.countFailed then return true end end
  return false
end

--[[ The lines under a table of counted rows: how the counts were made (the engine, the caches
  simulated, notes on the builds), then one line per row whose sources disagree beyond the
  tolerances; rows without work of their own that could be counted, with the hint. ]]
function M.legend(rows, out)
  local said = {}
  local function say(l) if not said[l] then said[l] = true; out:write(l, "\n") end end
  for _, r in ipairs(rows) do
    if M.has(r) then
      say("counted: under Valgrind with rot's tool, one invocation (a program: one run), an FMA two flops; bytes: what "
        .. "the instructions loaded and stored; simulated traffic: " .. tostring(r.countCaches)
        .. ", LRU, write-back, write-allocate, no prefetching")
    end
  end
  for _, r in ipairs(rows) do if r.countNote then say(r.countNote) end end
  local header = false
  for _, r in ipairs(rows) do
    if r.disagree then
      if not header then
        header = true
        say(string.format("sources that disagree (counted flops beyond %g%% of another source, bytes beyond %g%%, "
          .. "counted against the PMU beyond %g%%):", M.TOLERANCE.flops * 100,
            M.TOLERANCE.bytes * 100, M.TOLERANCE.pmu * 100))
      end
      say("  " .. util.coords(r.point or {}) .. ": " .. r.disagree)
    end
  end
end

-- Names in quotes, all of them up to four ("'a', 'b' and 'c'"), else how many.
local function names(list, what)
  if #list > 4 then return #list .. " " .. what .. "s" end
  local q = {}
  for i, n in ipairs(list) do q[i] = "'" .. n .. "'" end
  local last = table.remove(q)
  return what .. (#q > 0 and "s " or " ") .. (#q > 0 and (table.concat(q, ", ") .. " and ") or "") .. last
end

--[[ The hint for rows with no work declared or counted (regions, or kernels that declare none):
  every one named (or how many), and how to count them; where their count was asked for and
  failed (an AVX-512 build the engine cannot decode), why, never "count it". ]]
function M.hint(rows, out)
  local regions, kernels, failed = {}, {}, nil
  for _, r in ipairs(rows) do
    if r.region and r.region ~= "(program)" and not r.survey and r.counts == "none" and not M.has(r) and r.time then
      regions[#regions + 1] = r.region
      failed = failed or r.countFailed
    end
    if not r.region and r.entry and r.flopsDeclared == 0 and r.bytesDeclared == 0 and not M.has(r) then
      kernels[#kernels + 1] = util.point_name(r.point or {})
      failed = failed or r.countFailed
    end
  end
  local n = #regions + #kernels
  if n == 0 then return end
  local who = #regions > 0 and names(regions, "region") or names(kernels, "point")
  if #regions > 0 and #kernels > 0 then who = who .. " and " .. names(kernels, "point") end
  local verb = n == 1 and "declares" or "declare"
  if failed then
    out:write(who, " ", verb, " no work, and counting failed (",
      tostring(failed):match("^[^\n]*"), "): nothing places ",
      n == 1 and "it" or "them", " on the roofline\n")
  elseif #regions > 0 then
    out:write(who, " ", verb, " no work (rot_region_work): count ", n == 1 and "it" or "them",
      " with rot profile -count -- ",
      "PROGRAM (a script's point: count = true): the counted flops and bytes then place ", n == 1 and "it" or "them",
      " on the roofline\n")
  else
    out:write(who, " ", verb, " no work (its kernel's flops and bytes are 0): count ", n == 1 and "it" or "them",
      " (count = true in its spec, or -count=true): the counted flops and bytes then place ", n == 1 and "it" or "them",
      " on the roofline\n")
  end
end

--[[ The integrated roofline's points (Intel Advisor's): for each counted row, one point per
  memory level at its counted flops over the bytes of that level (L1: what its instructions
  loaded and stored; below: the simulated traffic into each level), at its counted
  performance; each a copy of its row with countLevel set and countBase its row, ringed where
  the row is above its counted bound at the level that bounds it (compute: L1). A level that
  moves less than a hundredth of the instructions' bytes (its data live above it) gets none, and
  nil when no row has simulated traffic. ]]
-- Whether a row has a point per level (M.level_rows): counted traffic and flops, and a time.
local function has_levels(r)
  return r.traffic ~= nil and (r.flopsCounted or 0) > 0 and (r.time or 0) > 0 and not r.failed
end

function M.level_rows(rows)
  local out = {}
  for _, r in ipairs(rows) do
    if has_levels(r) then
      local levels = { { "L1", r.bytesCounted } }
      local names = util.sorted_keys(r.traffic)
      table.sort(names, function(a, b) return (a == "DRAM" and "~" or a) < (b == "DRAM" and "~" or b) end)
      for _, lv in ipairs(names) do levels[#levels + 1] = { lv, r.traffic[lv] } end
      for _, l in ipairs(levels) do
        if l[2] > 0 and l[2] >= 0.01 * r.bytesCounted then
          local p = util.copy(r)
          p.intensity, p.gflops = r.flopsCounted / l[2], r.flopsCounted / r.time / 1e9
          p.countLevel, p.countBase, p.counts = l[1], r, "counted"
          -- ringed where above: the point of its bound's level (compute: L1's; a counted bound's only)
          local at = r.boundSource == "counted" and (tostring(r.dominant):match("^(%S+) bandwidth$") or "L1")
          p.above, p.stepBound, p.bound = r.above and at == l[1] or nil, nil, nil
          out[#out + 1] = p
        end
      end
    end
  end
  return #out > 0 and out or nil
end

-- Whether a row's own point is its L1 point (rot.results.counted.level_rows): a row that took its
-- counts, or one whose declared work lands within 1 % of its counted L1 point (the same place).
function M.is_l1_point(r)
  if not has_levels(r) then return false end
  if r.counts == "counted" then return true end
  if (r.bytesCounted or 0) <= 0 then return false end
  local x, y = r.flopsCounted / r.bytesCounted, r.flopsCounted / r.time / 1e9
  return r.intensity ~= nil and r.gflops ~= nil and math.abs(r.intensity - x) <= 0.01 * x
    and math.abs(r.gflops - y) <= 0.01 * y
end

-- The series of a roofline's point: its row's (series(row), or none); a level's point is one
-- of that level's series, whatever its row's ("L2 traffic (simulated)": a colour a level, as
-- Advisor's integrated roofline has it, and a key that stays short), never joined by a line.
function M.level_series(series)
  return function(r)
    if not r.countLevel then return series and series(r) or "points" end
    return r.countLevel == "L1" and "L1: loads and stores (counted)" or (r.countLevel .. " traffic (simulated)")
  end
end

return M
