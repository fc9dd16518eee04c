-- rot.cli.cache: the result cache as a user sees it: its size and entries per machine (the
-- counting pass's among them), and clearing all of it, one measurement's entries or one
-- machine's.
local sys = require "rot.sys"
local util = require "rot.util"
local cache = require "rot.cache"
local machine = require "rot.machine"

local M = {}

local function walk(dir, f)
  for _, name in ipairs(sys.listdir(dir) or {}) do
    local p = dir .. "/" .. name
    local kind = sys.stat(p)
    if kind == "dir" then walk(p, f) end
    f(p, kind)
  end
end

-- The machine fingerprint in a cache entry's description (nil when it has none, or the entry
-- cannot be read: older entries, damaged ones), and whether it is a count's (rot.count).
local function fingerprint_of(e)
  local d = e and util.deserialize(e.description, "description")
  if type(d) ~= "table" then return nil, false end
  return type(d.machine) == "table" and d.machine or nil, d.count ~= nil
end

-- rot cache [clear [NAME]]: pos are the command's words (pos[1] == "cache").
function M.run(cfg, pos)
  local dir = cfg:get("cacheDir")
  if pos[2] == "clear" and pos[3] then -- one measurement's entries, or one machine's
    local what = pos[3]
    local n, names, seen = 0, {}, {}
    walk(dir .. "/results", function(p, kind)
      if kind ~= "file" then return end
      local e = cache.read(p)
      local fp = fingerprint_of(e)
      local id = fp and machine.id(fp)
      for _, x in pairs({ e and e.meta.script or false, id or false }) do -- either may be missing
        if x and not seen[x] then seen[x] = true; names[#names + 1] = x end
      end
      if e and (e.meta.script == what or id == what) then
        sys.remove(p)
        n = n + 1
      end
    end)
    if n == 0 then
      util.fail("no cache entries of '" .. what .. "' in '" .. dir .. "'" .. util.did_you_mean(what, names),
        "entries are named by the measurement that wrote them, or by a machine id `rot cache` lists")
    end
    io.stdout:write(string.format("rot: removed %d cache %s of '%s' from '%s'\n", n, util.plural(n,
      "entry", "entries"), what, dir))
    return 0
  elseif pos[2] == "clear" then
    local n = 0
    walk(dir .. "/results", function(p, kind)
      if kind == "file" then n = n + 1 end
      sys.remove(p)
    end)
    sys.remove(dir .. "/cores")
    sys.removetree(dir .. "/counts") -- counts an older rot kept apart, read no more
    io.stdout:write(string.format("rot: removed %d cache entries from '%s'\n", n, dir))
    return 0
  elseif pos[2] then
    util.fail("unknown cache command '" .. pos[2] .. "'", "rot cache, rot cache clear, or rot cache clear NAME")
  end
  -- entries per machine: the fingerprint in each entry's description
  local n, bytes, per, order, counts = 0, 0, {}, {}, 0
  walk(dir .. "/results", function(p, kind)
    if kind == "file" then
      local _, size = sys.stat(p)
      n, bytes = n + 1, bytes + size
      local fp, counted = fingerprint_of(cache.read(p))
      counts = counts + (counted and 1 or 0)
      local key = fp and machine.id(fp) or "(unreadable or from before machine identities)"
      if not per[key] then
        per[key] = { n = 0, bytes = 0, fp = fp }
        order[#order + 1] = key
      end
      per[key].n, per[key].bytes = per[key].n + 1, per[key].bytes + size
    end
  end)
  io.stdout:write(string.format("cache directory: %s\nentries: %d%s\nsize: %s\n", dir, n,
    counts > 0 and string.format(" (%d of them the counting pass's)", counts) or "", util.bytes(bytes)))
  table.sort(order)
  local here = machine.id(machine.fingerprint(cfg))
  for _, key in ipairs(order) do
    local m = per[key]
    local what = type(m.fp) == "table" and string.format("%s, %s PUs%s%s", tostring(m.fp.cpu), tostring(m.fp.pus),
      m.fp.gpu and (", GPU " .. tostring(m.fp.gpu)) or "", m.fp.host and (", host " .. m.fp.host) or "") or ""
    io.stdout:write(string.format("machine %s%s: %d entries, %s%s\n", key, key == here and " (this one)" or "",
      m.n, util.bytes(m.bytes), what ~= "" and (" (" .. what .. ")") or ""))
  end
  return 0
end

return M
