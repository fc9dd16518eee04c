--[[ rot.plot.hover: points you can hover. Every point of a roofline, staircase, xy or compare
  plot carries its description as hover text (kernel, parameters, macros, flags, time, GB/s,
  GFLOP/s, % of bound, spread, limiter, cache or measured): one more plot element, gnuplot's
  `with labels hypertext` over a datablock, its points transparent (nothing changes in the PNG
  or PDF), and the SVG terminal's `mouse standalone`, which embeds the script the SVG needs, so
  the file works offline and alone. Plots whose rows describe nothing (a model's records) get
  none of it. ]]
local util = require "rot.util"

local M = {}

-- One line of hover text, safe in gnuplot's data string, the SVG attribute and the script
-- that reads it: no quotes, backquotes (a command, to gnuplot), backslashes or control characters.
local function clean(s)
  return (tostring(s):gsub("[\"'`\\%c]", function(c) return (c == '"' or c == "'" or c == "`") and "" or " " end))
end

-- "name=value ..." of a table, keys sorted.
local function pairs_text(t) return table.concat(util.assignments(t), " ") end

-- The kernel lines of a description: kernels with their parameters, macros, flags (an
-- application's: its program with its arguments).
local function desc_lines(d, lines)
  if d.app then
    lines[#lines + 1] = "program " .. util.basename(d.app.path) .. (#d.app.args > 0 and (" "
      .. table.concat(d.app.args, " ")) or "")
  end
  for _, w in ipairs(d.workloads or {}) do
    local p = pairs_text(w.params)
    lines[#lines + 1] = "kernel " .. tostring(w.kernel) .. (p ~= "" and (" " .. p) or "") ..
      ((w.threads or 1) > 1 and (", " .. w.threads .. " threads") or "")
  end
  if d.macros and next(d.macros) then lines[#lines + 1] = "macros " .. pairs_text(d.macros) end
  if d.flags then lines[#lines + 1] = "flags " .. d.flags end
end

--[[ The measurement lines of a summary x (a results row, or a run record's point): time and
  rates, the bound, the spread and where the result came from. ]]
function M.summary_lines(x, lines)
  if x.time then
    lines[#lines + 1] = string.format("time %s, %s GB/s, %s GFLOP/s", util.seconds(x.time),
      x.gbs and string.format("%.4g", x.gbs) or "-", x.gflops and string.format("%.4g", x.gflops) or "-")
  end
  if x.fraction then
    lines[#lines + 1] = string.format("%.0f%% of bound%s%s", x.fraction * 100, x.limiter and (" ("
      .. x.limiter .. ")") or "",
      x.above and ", above it" or "")
  end
  if x.spread then
    lines[#lines + 1] = string.format("spread %.2f%%, %s runs%s", x.spread * 100, tostring(x.runs or "?"),
      x.rounds and x.rounds > 1 and string.format(" in %d rounds%s", x.rounds,
        x.roundsAgree == false and string.format(", which disagree (x%.2f)", x.roundsRatio or 0) or "") or "")
  end
  if x.besideNeighbour then
    lines[#lines + 1] = "its best round ran beside a busy neighbour" ..
      (x.neighbourCpus and string.format(": %.2f CPUs busy outside rot", x.neighbourCpus) or "") ..
      (x.queueWait and string.format(", its threads waited %.0f%% of their time for a CPU", x.queueWait * 100) or "")
  end
  return lines
end

--[[ The hover text of a results row (nil for a row that describes no measured point): lines
  joined by a literal \n, which the SVG's script breaks. ]]
function M.text(r)
  if type(r) ~= "table" or type(r.desc) ~= "table" then return nil end
  local lines = {}
  desc_lines(r.desc, lines)
  if r.survey then -- the loop survey's: where it is, its share of the samples, its trips
    lines[#lines + 1] = r.region
    if r.sourceFile then
      lines[#lines + 1] = "source " .. r.sourceFile .. (r.sourceLine and (":" .. r.sourceLine) or "")
    end
    lines[#lines + 1] = string.format("%s of the time (%d samples)%s", string.format("%.1f%%", (r.share or 0) * 100),
      r.samples or 0, r.loopIterations and string.format(", %d iterations in %d entries", r.loopIterations,
        r.loopEntries or 0) or "")
  elseif r.region then
    lines[#lines + 1] = string.format("region %s: %s calls, %s a call, %s of the time, %s", r.region,
      tostring(r.calls or "-"),
      r.timePerCall and util.seconds(r.timePerCall) or "-", r.share and string.format("%.1f%%", r.share * 100) or "-",
      r.counts or "")
  end
  M.summary_lines(r, lines)
  local m = r.nodeType and r.nodeType ~= "" and r.nodeType or nil
  -- (taken from the cache or not, the same text: a rerun from the cache draws the same plot)
  lines[#lines + 1] = (r.failed and "failed" or "measured") .. (m and (" on " .. m) or "")
  return M.join(lines)
end

-- Lines as one hover text.
function M.join(lines)
  local out = {}
  for i, l in ipairs(lines) do out[i] = clean(l) end
  return table.concat(out, "\\n")
end

--[[ items(rows, xy, logx, logy) -> {{x=, y=, text=}}: the hover items of rows, at xy(row) (nil
  for a row not drawn; log axes skip values <= 0). ]]
function M.items(rows, xy, logx, logy)
  local out = {}
  for _, r in ipairs(rows or {}) do
    local x, y = xy(r)
    local text = x and y and M.text(r)
    if text and (not logx or x > 0) and (not logy or y > 0) then out[#out + 1] = { x = x, y = y, text = text } end
  end
  return out
end

--[[ Adds the hover items to a script: their datablock to gp (the lines before `plot`), one
  element to plots (drawn last, so it is on top for the mouse). Returns whether it added any. ]]
function M.add(gp, plots, items)
  if #items == 0 then return false end
  gp[#gp + 1] = "$hover << EOD"
  for _, it in ipairs(items) do gp[#gp + 1] = string.format('%.9g %.9g "%s"', it.x, it.y, it.text) end
  gp[#gp + 1] = "EOD"
  plots[#plots + 1] = "$hover using 1:2:3 with labels hypertext point pt 7 ps 1.6 lc rgb '#FF000000' notitle"
  return true
end

-- The SVG terminal's option for a plot with hover text (its script embedded), else "".
function M.terminal(plots)
  for _, p in ipairs(plots) do
    if p:find("with labels hypertext", 1, true) then return " mouse standalone" end
  end
  return ""
end

return M
