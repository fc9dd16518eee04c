-- rot.results.region_keys: every result key the rows of an application point add, declared
-- once: its row field, table title and format, CSV column, JSON key, unit and meaning. The
-- table, the CSV, the JSON and the hover text take them from here.
local util = require "rot.util"

local M = {}

local function fmt(f) return function(v) return v and string.format(f, v) or "-" end end
local function pct(v) return v and string.format("%.1f%%", v * 100) or "-" end
local function sec(v) return v and util.seconds(v) or "-" end

--[[ { key = row field, title = table column (nil: not a table column), csv = CSV column, json
  = JSON key, unit, show = function(value) -> table text, meaning }. In table order. ]]
M.KEYS = {
  { key = "region", title = "region", csv = "region", json = "region", show = tostring,
    meaning = "the marked region; \"(program)\": the whole program, from its start to its end" },
  { key = "program", csv = "program", json = "program", meaning = "the program's file name" },
  { key = "calls", title = "calls", csv = "calls", json = "calls", unit = "calls per invocation", show = fmt("%d"),
    meaning = "completed calls of the thread that made the most" },
  { key = "callsTotal", csv = "calls_total", json = "callsTotal", unit = "calls per invocation",
    meaning = "completed calls, summed over the threads" },
  { key = "markedThreads", title = "in threads", csv = "marked_threads", json = "markedThreads", show = fmt("%d"),
    meaning = "threads that entered the region (its bound is theirs); (program): the threads it ran" },
  { key = "timePerCall", title = "per call", csv = "time_per_call_s", json = "timePerCall", unit = "s", show = sec,
    meaning = "time over calls, in the fastest invocation" },
  { key = "bestCall", title = "best call", csv = "best_call_s", json = "bestCall", unit = "s", show = sec,
    meaning = "the shortest call of any invocation (STREAM's best time)" },
  { key = "bestCallGbs", csv = "best_call_bandwidth_GBs", json = "bestCallGbs", unit = "GB/s",
    meaning = "bytes a call over the best call (STREAM's best rate)" },
  { key = "share", title = "share", csv = "share_of_program", json = "share", unit = "fraction", show = pct,
    meaning = "time in the region over the program's, in the same invocation" },
  { key = "busyThreads", title = "busy", csv = "busy_threads", json = "busyThreads", show = fmt("%.2f"),
    meaning = "(program) its CPU time (user and system, all threads) over its time: threads busy on average" },
  { key = "flopsSource", csv = "flops_source", json = "flopsSource",
    meaning = "where its flops come from: declared (rot_region_work), measured (counters), none" },
  { key = "bytesSource", csv = "bytes_source", json = "bytesSource",
    meaning = "where its bytes come from: declared (rot_region_work), measured (counters), none" },
  { key = "neverClosed", csv = "never_closed", json = "neverClosed", unit = "calls",
    meaning = "calls begun and not ended when the invocation ended (left out of its time)" },
  { key = "markerShare", csv = "marker_share", json = "markerShare", unit = "fraction",
    meaning = "what a begin/end pair costs the program, over the region's time per call" },
  { key = "failedInvocation", csv = "failed_invocation", json = "failedInvocation",
    meaning = "the point failed: its regions are those the invocations before the failure and the failed one completed" },
}

M.by_key = {}
for _, k in ipairs(M.KEYS) do M.by_key[k.key] = k end

-- The table columns (results.format's {title, show(row), value(row)}) the rows of an
-- application point add, by title.
function M.columns()
  local out = {}
  for _, k in ipairs(M.KEYS) do
    if k.title then
      out[k.title] = { k.title, function(r) return k.show(r[k.key]) end, function(r) return r[k.key] end }
    end
  end
  return out
end

-- The CSV columns ({name, value(row)}), in declaration order.
function M.csv_columns()
  local out = {}
  for _, k in ipairs(M.KEYS) do out[#out + 1] = { k.csv, function(r) return r[k.key] end } end
  return out
end

-- The JSON fields of a row (into t) and their units (into units).
function M.json(r, t, units)
  for _, k in ipairs(M.KEYS) do
    t[k.json] = r[k.key]
    if units and k.unit then units[k.json] = k.unit end
  end
  return t
end

return M
