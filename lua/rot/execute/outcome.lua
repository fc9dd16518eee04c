-- rot.execute.outcome: what becomes of a point once its fate is known, the same for every
-- executor: a hit is used; a plausible result is cached (merged with the runs it extends); a
-- failure is said once, with its reason and the kernel's last lines on stderr; every row is
-- settled with the session, and -onFailure=stop stops the run.
local cache = require "rot.cache"
local util = require "rot.util"
local plausible = require "rot.execute.plausible"
local STATUS = require("rot.protocol").status

local M = {}

function M.hit(s, row, entry)
  row.entry, row.cached = entry, true
  s:settle(row)
end

--[[ A failed point: row.failed = why (its first line is what tables show). o.quiet: the
  reason was already said (a compiler error, a missing toolkit); o.stderr: the kernel's last
  lines on stderr; o.partial: what an application point's invocations completed before (the
  core's result: its runs and regions, kept and shown marked, never cached). ]]
function M.fail(s, row, why, o)
  o = o or {}
  row.failed, row.partial = why, o.partial
  s:settle(row)
  if not o.quiet then
    s:quiet()
    io.stderr:write("rot: ", util.point_name(row.point), " failed: ", why, "\n")
    if o.stderr and o.stderr ~= "" then
      io.stderr:write("  its last lines on stderr:\n")
      for l in o.stderr:gmatch("[^\n]+") do io.stderr:write("  | ", l, "\n") end
    end
  end
  if s:get("onFailure") == "stop" then util.fail("stopping after a failed point (onFailure=stop)") end
end

--[[ The core's result res ({status=, error=, meta=, runs=, stderr=}) for a row measured by the
  core whose hash is core_hash, kept: a plausible result is written to the cache (a temp file
  renamed), merged with base (a cached entry whose runs it adds to; stamp(runs), when given,
  marks the new runs first: a round's), and returned; anything else fails the row (settled)
  and returns nil. The row itself is settled by M.measured. ]]
function M.record(s, row, res, core_hash, base, stamp)
  if res.status == STATUS.ok then
    local why = plausible.why_not(s, row, res)
    if why then res.status, res.error = STATUS.failed, "implausible result, not cached: " .. why end
  end
  if res.status ~= STATUS.ok then
    local partial = row.desc and row.desc.app and (#res.runs > 0 or res.regions) and res or nil
    M.fail(s, row, res.error or "failed", { stderr = res.stderr, partial = partial })
    return nil
  end
  if s.script then res.meta.script = s.script end -- which measurement wrote it (rot cache clear NAME)
  if stamp then stamp(res.runs) end
  local new = { description = row.text, coreHash = core_hash, meta = res.meta, runs = res.runs, regions = res.regions,
    samples = res.samples }
  if base then new = cache.merge(base, new) end
  M.write(s, row.path, new)
  return new
end

-- Writes a cache entry to path (a temp file renamed; a count's too), or stops saying why.
function M.write(s, path, entry)
  local ok, werr = s:timed("cache", cache.write, path, entry)
  if not ok then
    util.fail("cannot write the result cache: " .. werr, util.write_hint("cacheDir", werr))
  end
end

-- A row measured: its entry (M.record's) is its result.
function M.measured(s, row, entry)
  row.entry, row.measured = entry, true
  s:settle(row)
end

-- M.record and M.measured at once: a result that is the whole of the row's measurement.
function M.result(s, row, res, core_hash, base)
  local entry = M.record(s, row, res, core_hash, base)
  if entry then M.measured(s, row, entry) end
end

return M
