--[[ rot.plot.data: what a plot draws, taken from its rows and options: plain values only, each
  function of the options applied to every row. rot.plot draws from these alone, so they name
  everything its files depend on (rot.plot.memo). ]]
local util = require "rot.util"
local place = require "rot.plot.place"
local key = require "rot.plot.key"
local hover = require "rot.plot.hover"
local M = {}

--[[ A plot's point label function: o.label, or, where labels were asked for (o.labels other
  than "none") without one, or on a roofline (whose axes do not say it: keyed true), the
  point's working set (its coordinates when it has none). ]]
local function label_of(o, keyed)
  if o.label then return o.label end
  if o.labels == "none" or (not o.labels and not keyed) then return function() return "" end end
  return function(r)
    return r.workingSet and util.bytes(r.workingSet) or util.coords(r.point or {})
  end
end

--[[ A roofline's series (name -> rows with a point, in working-set order), their names in the
  order first seen, and the box {xlo, xhi, ylo, yhi} of their points (math.huge, 0: none); rows
  not_drawn(row) gives a reason for have none (the key says why: rot.plot.key.not_drawn). ]]
local function roofline_series(o, not_drawn)
  local series, order = util.group_by(o.rows, function(r)
    local drawn = r.gflops and r.intensity and r.gflops > 0 and r.intensity > 0 and not r.failed
      and not not_drawn(r)
    return drawn and (o.series and o.series(r) or "points")
  end)
  local box = { math.huge, 0, math.huge, 0 }
  for _, name in ipairs(order) do
    for _, r in ipairs(series[name]) do
      box = { math.min(box[1], r.intensity), math.max(box[2], r.intensity), math.min(box[3], r.gflops),
        math.max(box[4], r.gflops) }
    end
    table.sort(series[name], function(a, b) return (a.workingSet or 0) < (b.workingSet or 0) end)
  end
  return series, order, box
end

-- A marker's size (gnuplot's ps) for a share of 0..1 (o.size): its area grows with the share.
function M.share_size(share) return math.max(0.5, 3 * math.sqrt(math.max(share or 0, 0))) end

-- The points of each series for place.add_series (with o.size, each its own marker size), the
-- series whose points are not joined (apart: upright, or a level's), and the note on how their
-- counts were obtained (" (declared counts)") that their titles carry.
local function roofline_lists(o, series, order)
  local counts, lists, apart, label, ids, n = {}, {}, {}, label_of(o, true), {}, 0
  local function id(r) -- a row's number: its levels' points share their row's (place.hidden)
    if not ids[r] then n = n + 1; ids[r] = n end
    return ids[r]
  end
  for _, name in ipairs(order) do
    lists[name], apart[name] = {}, (place.upright(series[name]) or series[name][1].countLevel ~= nil) or nil
    for _, r in ipairs(series[name]) do
      counts[r.counts or "declared"] = true
      lists[name][#lists[name] + 1] = { x = r.intensity, y = r.gflops, label = label(r),
        ps = o.size and M.share_size(o.size(r)) or nil, once = o.label_once,
        of = id(r.countBase or r), level = r.countLevel }
    end
  end
  local how = {}
  for c in pairs(counts) do how[#how + 1] = c end
  table.sort(how)
  return lists, apart, #how > 0 and (" (" .. table.concat(how, "/") .. " counts)") or ""
end

-- The marks of a roofline's points (rot.plot's marks), by name: where y(row) gives a value.
local function mark_lists(series, order, ys)
  local out, i = {}, 0
  for name in pairs(ys) do out[name] = {} end
  for _, s in ipairs(order) do
    for _, r in ipairs(series[s]) do
      i = i + 1
      for name, y in pairs(ys) do
        local v = y(r)
        if v and v > 0 then table.insert(out[name], { i = i, x = r.intensity, y = v, on = v == r.gflops }) end
      end
    end
  end
  return out
end

-- What rot.plot.roofline{...} draws (its options there).
function M.roofline(o)
  local why = o.not_drawn or key.flopless -- rows not drawn, and how the key names them
  local named = o.not_drawn and o.label or function(r) return o.series and o.series(r) or "points" end
  local series, order, box = roofline_series(o, why)
  local lists, apart, counts_note = roofline_lists(o, series, order)
  local not_drawn = {}
  key.not_drawn(not_drawn, o.rows, why, named)
  return { name = o.name, dir = o.dir, title = o.title, gnuplot = o.gnuplot, pdf = o.pdf, labels = o.labels,
    sized = o.size ~= nil, order = order, box = box, lists = lists, apart = apart, counts_note = counts_note,
    compute = o.compute, bandwidth = o.bandwidth, notes = o.notes, own_roofs = o.own_roofs, bound_title = o.bound_title,
    marks = mark_lists(series, order, { above = function(r) return r.above and r.gflops end,
      unsettled = function(r) return r.roundsAgree == false and r.gflops end,
      stepbounds = o.bound_mark or function(r) return r.stepBound and r.bound end }),
    unsettled = key.unsettled(o.rows), not_drawn = not_drawn, empty = #order == 0 and not key.ran(o.rows),
    hover = hover.items(o.rows, function(r) return r.intensity, r.gflops end, true, true) }
end

-- An xy plot's x or y: a function of a row, or the name of a numeric row field ("gbs", "time",
-- ...), which some row must have (else an error names the ones they have).
local function xy_field(o, name, which)
  if type(name) == "function" then return name end
  if type(name) ~= "string" then
    util.fail("xy plot '" .. o.name .. "': " .. which .. " must be a field name or a function(row)")
  end
  local have, fields = false, {}
  for _, r in ipairs(o.rows) do
    if type(r[name]) == "number" then have = true end
    for k, v in pairs(r) do if type(v) == "number" and type(k) == "string" then fields[k] = true end end
  end
  if not have and #o.rows > 0 then
    local names = {}
    for k in pairs(fields) do names[#names + 1] = k end
    table.sort(names)
    util.fail("xy plot '" .. o.name .. "': no row has the quantity '" .. name .. "'" .. util.did_you_mean(name, names),
      "quantities the rows have: " .. table.concat(names, ", "))
  end
  return function(r) return r[name] end
end

--[[ An xy plot's series (name -> {{x=, y=, label=}, ...} in x order), their names in the order
  first seen, and the box {xlo, xhi, ylo, yhi} of their points and the vlines; an error when
  measured rows give no value at all. ]]
local function xy_series(o, fx, fy)
  local label, got = label_of(o), 0
  local series, order = util.group_by(o.rows, function(r)
    local x, y = fx(r), fy(r)
    if x and y then got = got + 1 end
    if x and y and (not o.logx or x > 0) and (not o.logy or y > 0) then
      return o.series and o.series(r) or "points", { x = x, y = y, label = label(r) }
    end
  end)
  local box = { math.huge, -math.huge, math.huge, -math.huge }
  for _, name in ipairs(order) do
    for _, p in ipairs(series[name]) do
      box = { math.min(box[1], p.x), math.max(box[2], p.x), math.min(box[3], p.y), math.max(box[4], p.y) }
    end
  end
  for _, v in ipairs(o.vlines or {}) do
    if not o.logx or v.x > 0 then box[1], box[2] = math.min(box[1], v.x), math.max(box[2], v.x) end
  end
  for _, c in ipairs(o.curves or {}) do
    for _, p in ipairs(c.points) do
      box = { math.min(box[1], p.x), math.max(box[2], p.x), math.min(box[3], p.y), math.max(box[4], p.y) }
    end
  end
  if got == 0 and #o.rows > 0 then
    local measured = 0
    for _, r in ipairs(o.rows) do if r.entry then measured = measured + 1 end end
    if measured > 0 then
      util.fail("xy plot '" .. o.name .. "': x and y give a value for none of the " .. #o.rows .. " rows",
        "check the quantities x and y read (rows have e.g. gbs, gflops, time, intensity, workingSet)")
    end
  end
  for _, name in ipairs(order) do table.sort(series[name], function(a, b) return a.x < b.x end) end
  return series, order, box
end

-- What rot.plot.xy{...} draws (its options there).
function M.xy(o)
  local fx, fy = xy_field(o, o.x, "x"), xy_field(o, o.y, "y")
  local series, order, box = xy_series(o, fx, fy)
  return { name = o.name, dir = o.dir, title = o.title, gnuplot = o.gnuplot, pdf = o.pdf, labels = o.labels,
    xlabel = o.xlabel, ylabel = o.ylabel, logx = o.logx, logy = o.logy, xbytes = o.xbytes, vlines = o.vlines,
    curves = o.curves, series = series, order = order, box = box, empty = #order == 0 and #o.rows > 0,
    hover = hover.items(o.rows, function(r) return fx(r), fy(r) end, o.logx, o.logy) }
end

return M
