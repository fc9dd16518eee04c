-- rot.execute.build: the executor of `rot build`: every core the points need is built (once
-- per build key in the run, cached points too), nothing is measured; one "built" line per core
-- (kernels, macros, flags) or the compiler's message. Rows not cached come back unmeasured,
-- marked planned (built, not run), so a script goes on to every point it would measure; a row
-- whose kernel refuses its parameters (its check, asked through rot-core --declared) fails.
local lookup = require "rot.execute.lookup"
local build = require "rot.build"
local keys = require "rot.build.keys"
local util = require "rot.util"
local sys = require "rot.sys"
local outcome = require "rot.execute.outcome"

local M = { name = "build" }

-- Builds the core of a row's build key, once; its binary's path, or nil and the compiler's
-- message.
local function built(s, row)
  s.built = s.built or {}
  local known = s.built[row.key]
  if known then return known.binary, known.err end
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
  s.built[row.key] = { binary = binary, err = not binary and err or nil }
  s.current = binary and row.key
  return s.built[row.key].binary, s.built[row.key].err
end

-- The binary of a row's build key as it is now: the build directory holds the last core built,
-- so a key built before another one is built again (from ccache: a link, nothing compiled; not
-- counted again).
local function current(s, row)
  local binary, err = built(s, row)
  if binary and s.current ~= row.key then
    local lock <close> = build.lock(s)
    local builds = s.count.builds
    binary, err = s:timed("build", build.core, s, row.desc, row.kinfo)
    s.count.builds, s.current = builds, binary and row.key
  end
  return binary, err
end

-- The specs (KERNEL NAME=VALUE ...) of a row's workloads, appended to argv for rot-core --check.
local function specs(desc, argv)
  for _, w in ipairs(desc.workloads) do
    if #argv > 2 then argv[#argv + 1] = "--" end
    argv[#argv + 1] = w.kernel
    for _, k in ipairs(util.sorted_keys(w.params)) do argv[#argv + 1] = k .. "=" .. string.format("%.17g", w.params[k]) end
  end
end

-- Whether the kernels of rows (not cached, one build key, its core current) accept their
-- parameters: refused[row] = the first refusal ("triad: n must be ..."), asked of the core in
-- calls of 200 rows at most. A kernel or parameter name the core lacks is an error in the
-- point's description: it stops the run, as rot measure does.
local function refusals(s, binary, rows, refused)
  for first = 1, #rows, 200 do
    local argv, owner = { binary, "--check" }, {}
    for i = first, math.min(first + 199, #rows) do
      specs(rows[i].desc, argv)
      for _ = 1, #rows[i].desc.workloads do owner[#owner + 1] = rows[i] end
    end
    local st, out = sys.run(argv, { capture = true })
    local i = 0
    for line in (out or ""):gmatch("[^\n]+") do
      local why, invalid = line:match("^refused (.*)"), line:match("^invalid (.*)")
      if invalid then
        s.error_describing = true
        util.fail(invalid)
      end
      if line == "ok" or why then i = i + 1 end
      if why and owner[i] and not refused[owner[i]] then refused[owner[i]] = why end
    end
    if st ~= 0 or i ~= #owner then util.fail("the core did not check the points' parameters: " .. (out or ""):match("[^\n]*")) end
  end
end

function M.measure(s, items)
  local rows = lookup.lookup(s, items)
  local pending, order, refused = {}, {}, {}
  -- the machine's ceilings' points (measured aside) are rot's own: not asked, which would
  -- rebuild their cores over and over
  for _, row in ipairs(rows) do
    if built(s, row) and not row.cached and s.aside_depth == 0 then
      if not pending[row.key] then pending[row.key], order[#order + 1] = {}, row.key end
      table.insert(pending[row.key], row)
    end
  end
  for _, key in ipairs(order) do
    local binary = current(s, pending[key][1])
    if binary then refusals(s, binary, pending[key], refused) end
  end
  for _, row in ipairs(rows) do
    local _, err = built(s, row)
    if refused[row] then
      s.count.refused = s.count.refused + 1
      outcome.fail(s, row, refused[row])
    else
      if not row.cached then
        row.failed = err and err:match("^[^\n]*") or "not measured (rot build)"
        row.planned = not err
      end
      s:settle(row)
    end
  end
  return rows
end

return M
