-- rot.execute.build: the executor of `rot build`: every core the points need is built (once
-- per build key in the run, cached points too), nothing is measured; one "built" line per core
-- (kernels, macros, flags) or the compiler's message. Rows not cached come back unmeasured,
-- marked planned (built, not run), so a script goes on to every point it would measure.
local lookup = require "rot.execute.lookup"
local build = require "rot.build"
local keys = require "rot.build.keys"
local util = require "rot.util"

local M = { name = "build" }

-- Builds the core of a row's build key, once; true, or the compiler's message.
local function built(s, row)
  s.built = s.built or {}
  if s.built[row.key] ~= nil then return s.built[row.key] end
  util.ensure_dir(s:get("cacheDir"), "cache directory", "cacheDir")
  local lock <close> = build.lock(s)
  local binary, err = s:timed("build", build.core, s, row.desc, row.kinfo)
  if binary then
    keys.store(s, row.key, err)
    local names = {}
    for _, k in ipairs(row.kinfo.kernels) do names[#names + 1] = k.name end
    local macros = build.macro_settings(row.desc)
    io.stdout:write("built ", table.concat(names, "+"), " macros ", #macros > 0 and table.concat(macros, ",") or "-",
      " flags ", row.desc.flags, "\n")
  else
    io.stderr:write("rot: ", err, "\n")
    s.count.build_failures = s.count.build_failures + 1
  end
  s.built[row.key] = binary and true or err
  return s.built[row.key]
end

function M.measure(s, items)
  local rows = lookup.lookup(s, items)
  for _, row in ipairs(rows) do
    local done = built(s, row)
    if not row.cached then
      row.failed = done == true and "not measured (rot build)" or done:match("^[^\n]*")
      row.planned = done == true
    end
    s:settle(row)
  end
  return rows
end

return M
