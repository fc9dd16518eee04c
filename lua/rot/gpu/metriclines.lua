--[[ rot.gpu.metriclines: what rot's CUDA library says in its metrics pass (core/cuda/sums.c, in
  the words core/cuda/words.h declares: rot.protocol.cuda), read into sums per region: each
  kernel region's and NVTX range's launches and metric values, and what was lost. The output of
  several processes (one section each, its magic first) sums into one. ]]
local util = require "rot.util"
local WORDS = require("rot.protocol").cuda

local M = {}
local W = WORDS.records

-- averaged(name): whether a metric is a rate or ratio (.per_second, .pct, .ratio): a region's
-- value is its mean over the launches, not a sum, and scaling by launches leaves it as it is.
function M.averaged(name)
  return name:match("%.per_second$") ~= nil or name:match("%.pct$") ~= nil or name:match("%.ratio$") ~= nil
end

-- The values of a kernel or range line after its name: launches and one number a metric.
local function region_line(rest, n)
  local launches, values = rest:match("^launches=(%d+)(.*)$")
  if not launches then return nil end
  local v = {}
  for x in values:gmatch("%S+") do v[#v + 1] = tonumber(x) end
  if #v ~= n then return nil end
  return tonumber(launches), v
end

-- Adds a region line's launches and values to sums[name] (by metric name).
local function add(sums, order, name, launches, v, metrics)
  local r = sums[name]
  if not r then
    r = { launches = 0, sums = {} }
    sums[name], order[#order + 1] = r, name
  end
  r.launches = r.launches + launches
  for i, m in ipairs(metrics) do r.sums[m] = (r.sums[m] or 0) + v[i] end
end

-- One line of a section into out (sec: the section's metrics so far); nil and why for a bad one.
local function line(out, sec, l)
  local word, rest = l:match("^(%S+) ?(.*)$")
  if word == W.metric then
    local i, name = rest:match("^(%d+) (%S+)$")
    if not i or tonumber(i) ~= #sec.metrics then return nil, "metric line out of order: " .. l end
    sec.metrics[#sec.metrics + 1] = name
  elseif word == W.chip then
    out.chip = util.unescape_token(rest)
  elseif word == W.passes then
    out.passes = math.max(out.passes or 0, tonumber(rest) or 0)
  elseif word == W.kernel or word == W.range then
    local name, values = rest:match("^(%S+) (.*)$")
    local launches, v = region_line(values or "", #sec.metrics)
    if not launches then return nil, "bad " .. word .. " line: " .. l end
    local into = word == W.kernel and "kernels" or "ranges"
    add(out[into], out[into .. "Order"], util.unescape_token(name), launches, v, sec.metrics)
  elseif word == W.unprofiled or word == W.unattributed then
    out[word] = out[word] + (tonumber(rest) or 0)
  elseif word == W.mismatch then
    local n, range, kernel = rest:match("^(%d+) (%S+) (%S+)$")
    out.mismatched = out.mismatched + (tonumber(n) or 0)
    if range and not out.mismatch then
      out.mismatch = { range = util.unescape_token(range), kernel = util.unescape_token(kernel) }
    end
  elseif word == W.error then
    out.errors[#out.errors + 1] = util.unescape_token(rest)
  elseif word == W["end"] then
    sec.whole = true
  end -- (a word this rot does not know is skipped)
  return true
end

-- A section's metrics against the ones asked for (nil: any), and the first section's.
local function same_metrics(out, sec, asked)
  local want = asked or out.metrics
  if not want then return true end
  return table.concat(sec.metrics, ",") == table.concat(want, ",")
end

--[[ parse(text [, metrics]) -> {metrics=, chip=, passes=, kernels = {[name] = {launches=,
  sums = {metric -> value}}}, kernelsOrder=, ranges=, rangesOrder=, unprofiled=, unattributed=,
  mismatched=, mismatch = {range=, kernel=}, errors = {...}, processes=}, or nil and why: no
  section, a section cut short (no end line: the process died before it wrote its last), its
  metrics not those asked for, a line that does not parse. ]]
function M.parse(text, metrics)
  local out = { kernels = {}, kernelsOrder = {}, ranges = {}, rangesOrder = {}, unprofiled = 0, unattributed = 0,
    mismatched = 0, errors = {}, processes = 0 }
  local sec
  for l in (text or ""):gmatch("[^\n]+") do
    if l == WORDS.magic then
      if sec and not sec.whole then return nil, "a process's metrics were cut short (no end line)" end
      sec, out.processes = { metrics = {} }, out.processes + 1
    elseif not sec then
      return nil, "not the CUDA library's metrics (no '" .. WORDS.magic .. "' line first)"
    else
      if l:match("^" .. W.kernel .. " ") or l:match("^" .. W.range .. " ") then
        if not same_metrics(out, sec, metrics) then
          return nil, "its metrics (" .. table.concat(sec.metrics, ",") .. ") are not the ones asked for"
        end
        out.metrics = out.metrics or sec.metrics
      end
      local ok, why = line(out, sec, l)
      if not ok then return nil, why end
    end
  end
  if not sec then return nil, "no metrics written" end
  if not sec.whole then return nil, "a process's metrics were cut short (no end line)" end
  out.metrics = out.metrics or sec.metrics
  return out
end

--[[ value(region, metric) -> a region's value of a metric over its launches: the sum, or the
  mean for a rate or ratio (.per_second, .pct, .ratio). ]]
function M.value(region, metric)
  local s = region.sums[metric]
  if s == nil then return nil end
  if M.averaged(metric) then return region.launches > 0 and s / region.launches or nil end
  return s
end

-- values(region) -> every metric's value (M.value), by name.
function M.values(region)
  local out = {}
  for m in pairs(region.sums) do out[m] = M.value(region, m) end
  return out
end

return M
