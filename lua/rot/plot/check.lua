-- rot.plot.check: the labels a gnuplot script draws, recomputed from the script alone (rot's
-- scripts carry their geometry), and which of them overlap: how tests hold the placer to its word.
local place = require "rot.plot.place"

local M = {}

--[[ check(gp_text, read) -> boxes, overlaps, crossings: every label a gnuplot script draws (its
  `set label`s, and `with labels` from its data files, read(name) giving a file's text), as
  boxes on the canvas, the pairs that overlap, {{a.text, b.text}, ...}, and the labels a
  ceiling line runs through (M.crossings). Scripts rot writes carry
  their geometry; others get gnuplot's usual plot area (an estimate). ]]
function M.check(gp, read)
  local g = { width = 640, height = 480, left = 0.1, right = 0.95, bottom = 0.12, top = 0.9, small = 10 }
  local logx, logy = false, false
  local geo = gp:match("# rot geometry ([^\n]+)")
  if geo then
    local w, h, l, r, b, t, s, lx, ly = geo:match("^(%S+) (%S+) (%S+) (%S+) (%S+) (%S+) (%S+) (%S+) (%S+)")
    g = { width = tonumber(w), height = tonumber(h), left = tonumber(l), right = tonumber(r), bottom = tonumber(b),
      top = tonumber(t), small = tonumber(s) }
    logx, logy = lx == "logx", ly == "logy"
  else
    local w, h = gp:match("set terminal %a+ size (%d+),(%d+)")
    if w then g.width, g.height = tonumber(w), tonumber(h) end
    local ls = gp:match("set logscale (%a+)")
    logx, logy = ls and ls:find("x") ~= nil, ls and ls:find("y") ~= nil
    g.small = tonumber(gp:match('font "Helvetica,(%d+)"')) or 10
  end
  local x1, x2 = gp:match("set xrange %[([^:]+):([^%]]+)%]")
  local y1, y2 = gp:match("set yrange %[([^:]+):([^%]]+)%]")
  if not x1 or not y1 then return {}, {}, {} end
  local f = place.frame(g, { tonumber(x1), tonumber(x2) }, { tonumber(y1), tonumber(y2) }, logx, logy)
  local boxes = {}
  for line in gp:gmatch("[^\n]+") do
    local text, rest = line:match('^set label %d+ "(.-)" at (.*)$')
    if text then
      local lab = { text = text:gsub('\\(.)', "%1"), font = tonumber(rest:match("font ',(%d+)'")) or g.small,
        align = rest:match(" (right) ") or rest:match(" (center) ") or "left", angle = tonumber(rest:match("rotate by (%S+)")) or 0 }
      local gx, gy = rest:match("^(%S+),graph (%S+)")
      if gx then
        lab.px = f.px(tonumber(gx), tonumber(y1)); lab.py = 0; lab.gy = tonumber(gy)
      else
        local x, y = rest:match("^(%S+),(%S+)")
        lab.x, lab.y = tonumber(x), tonumber(y)
      end
      local dx, dy = rest:match("offset (%S+),(%S+)")
      lab.dx, lab.dy = tonumber(dx) or 0, tonumber(dy) or 0
      boxes[#boxes + 1] = place.box(f, lab)
    end
  end
  -- data-file labels: "FILE" index I using 1:2:3 with labels [left|right] offset DX,DY font ',F'
  for file, idx, rest in gp:gmatch('"([^"]+)" index (%d+) using 1:2:3 with labels([^,\n]*)') do
    local text = read and read(file)
    if text then
      local blocks, cur = {}, {}
      for l in (text .. "\n\n\n"):gmatch("([^\n]*)\n") do
        if l:match("^%d") or l:match("^%-") then cur[#cur + 1] = l
        elseif l == "" and #cur > 0 then blocks[#blocks + 1] = cur; cur = {} end
      end
      local dx, dy = rest:match("offset (%S+),(%S+)")
      local font = tonumber(rest:match("font ',(%d+)'")) or g.small
      for _, l in ipairs(blocks[tonumber(idx) + 1] or {}) do
        local x, y, lab = l:match('^(%S+) (%S+) "(.*)"$')
        if lab and lab ~= "" then
          boxes[#boxes + 1] = place.box(f, { x = tonumber(x), y = tonumber(y), text = lab, font = font,
            align = rest:match("right") and "right" or "left", dx = tonumber(dx) or 0, dy = tonumber(dy) or 0 })
        end
      end
    end
  end
  local overlaps = {}
  for i = 1, #boxes do
    for j = i + 1, #boxes do
      if place.overlap(boxes[i], boxes[j]) then overlaps[#overlaps + 1] = { boxes[i].text, boxes[j].text } end
    end
  end
  return boxes, overlaps, M.crossings(gp, f, boxes, { tonumber(x1), tonumber(x2) }, { tonumber(y1), tonumber(y2) })
end

--[[ The labels a ceiling line runs through: the script's compute ceilings ("Y with lines") and
  bandwidth roofs ("(K*x < P ? K*x : 1/0) with lines", "K*x with lines"), drawn as the placer
  blocks them. Returns the texts of the boxes any of them crosses. ]]
function M.crossings(gp, f, boxes, xr, yr)
  local compute, bandwidth, peak = {}, {}, nil
  local num = "([%d.eE+-]+)"
  for y in gp:gmatch("[\n ]" .. num .. " with lines") do compute[#compute + 1] = { gflops = tonumber(y) } end
  for k, p in gp:gmatch("%(" .. num .. "%*x < " .. num .. " %?") do
    bandwidth[#bandwidth + 1] = { gbs = tonumber(k) }
    peak = tonumber(p)
  end
  for k in gp:gmatch("[\n ]" .. num .. "%*x with lines") do bandwidth[#bandwidth + 1] = { gbs = tonumber(k) } end
  local marks = place.placer(f)
  place.block_ceilings(f, marks, compute, bandwidth, peak, xr, yr)
  local out = {}
  for _, b in ipairs(boxes) do
    for _, m in ipairs(marks.boxes) do
      if place.overlap(b, m, 0) then out[#out + 1] = b.text; break end
    end
  end
  return out
end

return M
