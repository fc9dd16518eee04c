--[[ rot.results.row: the fields of a results row as core/vocabulary.h declares them once
  (RESULT_ROW, read through rot.protocol.row): by key, with their CSV columns, JSON keys, units,
  run-record names and meanings. The CSV (rot.results.format), the JSON (rot.results), the run
  record (rot.history) and the tests take the names from here. ]]
local protocol = require "rot.protocol"

local M = {}

-- Every field {key=, type=, unit=, csv=, json=, record=, group=, side=, meaning=}, in the CSV's
-- order, and by key.
M.fields = protocol.row
M.by_key = {}
for _, f in ipairs(M.fields) do M.by_key[f.key] = f end

-- The declaration of a field, or an error naming it: a name no row declares is a bug here.
function M.field(key)
  local f = M.by_key[key]
  if not f then error("rot: row field '" .. tostring(key) .. "' is not declared (core/vocabulary.h: RESULT_ROW)", 2) end
  return f
end

-- The fields a row carries that no declaration names, sorted (a bug where any are).
function M.undeclared(r)
  local out = {}
  for k in pairs(r) do if not M.by_key[k] then out[#out + 1] = tostring(k) end end
  table.sort(out)
  return out
end

-- The run record's names of fields given by key, in that order (rot.history's COLUMNS).
function M.record_names(keys)
  local out = {}
  for i, k in ipairs(keys) do
    out[i] = M.field(k).record or error("rot: row field '" .. k .. "' has no run-record name", 2)
  end
  return out
end

-- The JSON's units of every point field that has one: JSON key -> unit.
function M.json_units(units)
  units = units or {}
  for _, f in ipairs(M.fields) do
    if f.json and f.unit then units[f.json] = f.unit end
  end
  return units
end

-- The JSON's schema of its points: JSON key -> {type=, unit=, meaning=}.
function M.json_schema()
  local out = {}
  for _, f in ipairs(M.fields) do
    if f.json then out[f.json] = { type = f.type, unit = f.unit, meaning = f.meaning } end
  end
  return out
end

return M
