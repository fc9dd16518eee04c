-- rot.execute.build_only: the executor of `rot build`: every core the points need is built (once
-- per build key in the run, cached points too), nothing is measured; one "built" line per core
-- (kernels, macros, flags) or the compiler's message. Rows not cached come back unmeasured,
-- marked planned (built, not run), so a script goes on to every point it would measure; a row
-- whose kernel refuses its parameters (its check, asked through rot-core --check) fails.
local lookup = require "rot.execute.lookup"
local build = require "rot.build"
local keys = require "rot.build.keys"
local util = require "rot.util"
local sys = require "rot.sys"
local outcome = require "rot.execute.outcome"
local batch = require "rot.execute.batch"

local M = { name = "build", measures_here = false, builds_only = true }

-- The specs (KERNEL NAME=VALUE ...) of a row's workloads, appended to argv for rot-core --check.
local function specs(desc, argv)
  for _, w in ipairs(desc.workloads) do
    if #argv > 2 then argv[#argv + 1] = "--" end
    argv[#argv + 1] = w.kernel
    for _, k in ipairs(util.sorted_keys(w.params)) do argv[#argv + 1] = k .. "=" .. batch.num(w.params[k]) end
  end
end

-- Whether the kernels of rows (not cached, one build key, its core just built, the build lock
-- held) accept their parameters: refused[row] = the first refusal ("triad: n must be ..."),
-- asked of the core in calls of 200 rows at most. A kernel or parameter name the core lacks is
-- an error in the point's description: it stops the run, as rot measure does. A core that
-- cannot answer (a kernel built for another CPU, a check that crashes or hangs) leaves its rows
-- unchecked, with a note.
local function refusals(s, binary, rows, refused)
  for first = 1, #rows, 200 do
    local argv, owner = { binary, "--check" }, {}
    for i = first, math.min(first + 199, #rows) do
      specs(rows[i].desc, argv)
      for _ = 1, #rows[i].desc.workloads do owner[#owner + 1] = rows[i] end
    end
    local st, out = sys.run(argv, { capture = true, timeout = 60 })
    local i, found = 0, {}
    for line in (out or ""):gmatch("[^\n]+") do
      local why, invalid = line:match("^refused (.*)"), line:match("^invalid (.*)")
      if invalid then
        s:description_error(true)
        util.fail(invalid)
      end
      if line == "ok" or why then i = i + 1 end
      if why and owner[i] and not found[owner[i]] then found[owner[i]] = why end
    end
    if st ~= 0 or i ~= #owner then
      io.stderr:write("rot: note: the core of kernel '", rows[1].desc.workloads[1].kernel,
        "' could not check its points' ",
        "parameters (exit status ", tostring(st), "): they are planned unchecked\n")
      return
    end
    for row, why in pairs(found) do refused[row] = why end
  end
end

--[[ Builds the core of a build key under the build lock and asks that core about the key's
  rows to check (rot-core --check; refused[row] = why). Once per key in the run a "built" line
  (kernels, macros, flags) or the compiler's message is said and counted; a copy of the core in
  the run directory (rot.build.keep) answers a later call with rows to check, unbuilt (the
  build directory may hold another core by then). Returns the compiler's message, or nil. ]]
local function build_key(s, row, check, refused)
  local built = s:remember("built", function() return {} end) -- build key -> {err=, binary=}, this run's
  local known = built[row.key]
  if known then
    if known.binary and #check > 0 then refusals(s, known.binary, check, refused) end
    return known.err
  end
  util.ensure_dir(s:get("cacheDir"), "cache directory", "cacheDir")
  local lock <close> = build.lock(s)
  local binary, err = s:timed("build", build.core, s, row.desc, row.kinfo)
  if binary then
    keys.store(s, row.key, err)
    local names = {}
    for _, k in ipairs(row.kinfo.kernels) do names[#names + 1] = k.name end
    local macros = build.macro_settings(row.desc)
    if row.kinfo.app then -- an application's core: no kernel, the marker recorder beside it
      io.stdout:write("built the core of application points, with the marker recorder (librot-markers.so)\n")
    else
      io.stdout:write("built ", table.concat(names, "+"), " macros ", #macros > 0 and table.concat(macros, ",") or "-",
        " flags ", row.desc.flags, "\n")
    end
  else
    io.stderr:write("rot: ", err, "\n")
    s:add("build_failures")
  end
  local copy = binary and not row.kinfo.app and build.keep(s, binary, err) or nil
  built[row.key] = { err = not binary and err or nil, binary = copy }
  if binary and #check > 0 then refusals(s, binary, check, refused) end
  return not binary and err or nil
end

function M.measure(s, items)
  local rows = lookup.lookup(s, items)
  local groups, order = util.group_by(rows, function(row) return row.key end)
  local refused, errs = {}, {}
  for _, key in ipairs(order) do
    local check = {}
    for _, row in ipairs(groups[key]) do
      -- the machine's ceilings' points (measured aside) are rot's own: not asked
      if not row.cached and s.aside_depth == 0 and not row.kinfo.app then check[#check + 1] = row end
    end
    errs[key] = build_key(s, groups[key][1], check, refused)
  end
  for _, row in ipairs(rows) do
    local err = errs[row.key]
    if refused[row] then
      s:add("refused")
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
