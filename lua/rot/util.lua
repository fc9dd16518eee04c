-- rot.util: errors with hints, canonical serialization, formatting helpers.
-- Shared by every other rot module; holds no state.
local M = {}

local RotError = {}
RotError.__index = RotError
RotError.__tostring = function(e) return e.message end

-- rot's own Lua files live here; a frame elsewhere is the user's script (or its module).
local LIB = (debug.getinfo(1, "S").source:match("^@(.*/)rot/util%.lua$")) or "\0"

-- "study.lua:12": the innermost frame of the user's own code on the stack, or nil.
function M.user_frame(level)
  for l = (level or 2) + 1, 60 do
    local info = debug.getinfo(l, "Sl")
    if not info then break end
    local src = info.source
    if src:sub(1, 1) == "@" and src:sub(2, #LIB + 1) ~= LIB and info.currentline > 0 then
      return M.basename(src:sub(2)) .. ":" .. info.currentline
    end
  end
  return nil
end

-- Raises an expected error: printed as "rot: message" (+ "hint: ...") without a traceback;
-- from inside rot's library on behalf of a user's script, the script's line is added.
function M.fail(message, hint, code)
  local at = M.user_frame(2)
  if at and not tostring(message):find(at, 1, true) then message = tostring(message) .. " (" .. at .. ")" end
  error(setmetatable({ message = message, hint = hint, code = code }, RotError), 2)
end

function M.is_error(e) return getmetatable(e) == RotError end

-- Whether e is an interruption (SIGINT, SIGTERM: M.interrupted's error, its code 128 + signal).
function M.is_interruption(e) return M.is_error(e) and e.code ~= nil and e.code >= 128 end

local SIGNALS = { [1] = "SIGHUP", [2] = "SIGINT", [15] = "SIGTERM" }

-- Raised when SIGINT, SIGTERM or SIGHUP stopped the run (exit status 128 + the signal).
function M.interrupted(sig)
  M.fail("interrupted by " .. (SIGNALS[sig] or ("signal " .. tostring(sig))),
    "every point measured before is in the cache: the same command measures only the rest", 128 + sig)
end

-- Keys of one type (most tables') sort by < alone, without a Lua comparison per pair.
local function by_type(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return ta < tb end
  return a < b
end

local function sorted_keys(t)
  local keys, kind, mixed = {}, nil, false
  for k in pairs(t) do
    keys[#keys + 1] = k
    local tk = type(k)
    if tk ~= kind then mixed, kind = kind ~= nil, tk end
  end
  if mixed or (kind ~= "string" and kind ~= "number") then table.sort(keys, by_type) else table.sort(keys) end
  return keys
end
M.sorted_keys = sorted_keys

--[[ group_by(list, key_of) -> groups, order: list's items grouped by key_of(item), an item whose
  key is nil or false left out. groups[key] holds its items in list order, order the keys in the
  order first seen. key_of may return a second value, kept in the group instead of the item. ]]
function M.group_by(list, key_of)
  local groups, order = {}, {}
  for _, x in ipairs(list) do
    local k, v = key_of(x)
    if k then
      local g = groups[k]
      if not g then g = {}; groups[k] = g; order[#order + 1] = k end
      if v == nil then v = x end
      g[#g + 1] = v
    end
  end
  return groups, order
end

-- The median of a list of numbers (the mean of the middle two for an even count; the list is
-- left as it was); nil when empty.
function M.median(xs)
  local s = {}
  for i, x in ipairs(xs) do s[i] = x end
  table.sort(s)
  local n = #s
  if n == 0 then return nil end
  if n % 2 == 1 then return s[(n + 1) // 2] end
  return (s[n // 2] + s[n // 2 + 1]) / 2
end

-- A word of a command line as a shell takes it back (for a hint to copy): as it is, or quoted.
function M.shell_word(w)
  if w:match("^[%w_./=,:+%-]+$") then return w end
  return "'" .. w:gsub("'", "'\\''") .. "'"
end

-- A table's entries as { "NAME=VALUE", ... }, names sorted (macros, parameters, environment).
function M.assignments(t)
  local out = {}
  for _, k in ipairs(sorted_keys(t or {})) do out[#out + 1] = tostring(k) .. "=" .. tostring(t[k]) end
  return out
end

-- A point's coordinates as text: "n=4096 f=2.0" (the axes named first, in order, then any
-- others by name; a table value serialized).
function M.coords(point, axes)
  local parts, done = {}, {}
  local function add(k)
    local v = point[k]
    parts[#parts + 1] = tostring(k) .. "=" .. (type(v) == "table" and M.serialize(v) or tostring(v))
    done[k] = true
  end
  for _, a in ipairs(axes or {}) do
    if point and point[a] ~= nil and not done[a] then add(a) end
  end
  for _, k in ipairs(M.sorted_keys(point or {})) do
    if not done[k] then add(k) end
  end
  return table.concat(parts, " ")
end

-- Text as one token of the core's protocol (core/escape.c): bytes other than letters, digits
-- and _.-/:,+@ as %XX; the empty string as a lone %.
function M.escape_token(text)
  if text == "" then return "%" end
  return (text:gsub("[^%w_%.%-/:,+@]", function(c) return string.format("%%%02X", c:byte()) end))
end

-- The text of an escaped token (a lone %: the empty string).
function M.unescape_token(token)
  if token == "%" then return "" end
  return (tostring(token):gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

-- A point as messages name it: "point 'n=4096 f=2.0'".
function M.point_name(point) return "point '" .. M.coords(point) .. "'" end

-- The texts of tables said never to change again (M.frozen), by table.
local frozen = setmetatable({}, { __mode = "k" })

-- The canonical texts of keys made so far ("[\"name\"]="): the same few in every description.
local key_texts = {}

-- Appends the canonical text of v to out (a list of pieces; M.serialize joins them once).
local function serialize_into(v, seen, out)
  local t = type(v)
  if t == "string" then out[#out + 1] = string.format("%q", v); return end
  if t == "number" then
    if math.type(v) == "integer" then out[#out + 1] = tostring(v); return end -- (tostring: "%d")
    if v ~= v or v == math.huge or v == -math.huge then error("cannot serialize " .. tostring(v)) end
    out[#out + 1] = string.format("%.17g", v) .. (math.floor(v) == v and ".0" or "")
    return
  end
  if t == "boolean" or t == "nil" then out[#out + 1] = tostring(v); return end
  if t ~= "table" then error("cannot serialize a " .. t .. " value") end
  local known = frozen[v]
  if known then out[#out + 1] = known; return end
  if seen[v] then error("cannot serialize a table that contains itself") end
  seen[v] = true
  out[#out + 1] = "{"
  for i, k in ipairs(sorted_keys(v)) do
    if i > 1 then out[#out + 1] = "," end
    local key = type(k) == "string" and key_texts[k]
    if key then
      out[#out + 1] = key
    else
      local at = #out + 1
      out[at] = "["
      serialize_into(k, seen, out)
      out[#out + 1] = "]="
      if type(k) == "string" then key_texts[k] = table.concat(out, "", at, #out) end
    end
    serialize_into(v[k], seen, out)
  end
  out[#out + 1] = "}"
  seen[v] = nil
end

-- Canonical text of a value: same value, same text, whatever the table's insertion order.
-- Integers and floats stay distinct (1 vs 1.0), floats keep full precision.
function M.serialize(v, seen)
  local text = not seen and require("rot.text").serialize(v, frozen) -- (the same text, written in C)
  if text then return text end
  local out = {}
  serialize_into(v, seen or {}, out)
  return table.concat(out)
end

-- A shallow copy of table t (nil: an empty table): its keys and values, none of its own copied.
function M.copy(t)
  local out = {}
  for k, v in pairs(t or {}) do out[k] = v end
  return out
end

--[[ Marks table t as never changed again (a machine's fingerprint, a GPU point's machine):
  its canonical text is made once and serialize reuses it, in every description, key and id
  that holds it. Returns t. ]]
function M.frozen(t)
  frozen[t] = nil
  frozen[t] = M.serialize(t)
  return t
end

local JSON_ESCAPES = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r" }

local function json_escape(c) return JSON_ESCAPES[c] or string.format("\\u%04x", c:byte()) end

local function json_string(v)
  if not v:find('[%c"\\]') then return '"' .. v .. '"' end
  return '"' .. v:gsub('[%c"\\]', json_escape) .. '"'
end

-- Appends the JSON text of v, at indent, to out (a list of pieces; M.json joins them once);
-- keys: the texts of object keys made so far (a document repeats them in every object).
local function json_into(v, indent, out, keys)
  local t = type(v)
  if t == "string" then out[#out + 1] = json_string(v); return end
  if t == "number" then
    if math.type(v) == "integer" then out[#out + 1] = tostring(v); return end -- (tostring: "%d")
    if v ~= v or v == math.huge or v == -math.huge then out[#out + 1] = "null"; return end
    out[#out + 1] = string.format("%.17g", v)
    return
  end
  if t == "nil" then out[#out + 1] = "null"; return end
  if t == "boolean" then out[#out + 1] = v and "true" or "false"; return end
  if t ~= "table" then error("cannot write a " .. t .. " as JSON") end
  if next(v) == nil then out[#out + 1] = "[]"; return end
  local inner = indent .. "  "
  if #v > 0 then
    out[#out + 1] = "[\n"
    local sep = ",\n" .. inner
    for i, x in ipairs(v) do
      out[#out + 1] = i == 1 and inner or sep
      json_into(x, inner, out, keys)
    end
    out[#out + 1] = "\n" .. indent .. "]"
    return
  end
  local sep = ",\n" .. inner
  for i, k in ipairs(sorted_keys(v)) do
    local key = keys[k]
    if not key then
      key = json_string(tostring(k)) .. ": "
      keys[k] = key
    end
    out[#out + 1] = i == 1 and "{\n" .. inner or sep
    out[#out + 1] = key
    json_into(v[k], inner, out, keys)
  end
  out[#out + 1] = "\n" .. indent .. "}"
end

-- JSON text of a value: objects with sorted keys (the same value, the same text), arrays for
-- sequences, numbers in full precision, NaN and infinities as null.
function M.json(v, indent)
  local text = not indent and require("rot.text").json(v) -- (the same text, written in C)
  if text then return text end
  local out = {}
  json_into(v, indent or "", out, {})
  return table.concat(out)
end

-- The word for a count of n: one when n is 1, else many (one .. "s" when not given).
function M.plural(n, one, many)
  if n == 1 then return one end
  return many or one .. "s"
end

-- "1 thread", "2 threads": n and its word (M.plural).
function M.count(n, one, many)
  return n .. " " .. M.plural(n, one, many)
end

function M.bytes(n)
  if not n then return "-" end
  local units = { "B", "KiB", "MiB", "GiB", "TiB" }
  local i = 1
  while n >= 1024 and i < #units do n = n / 1024; i = i + 1 end
  if i == 1 then return string.format("%d B", n) end
  return string.format(n < 10 and "%.2f %s" or n < 100 and "%.1f %s" or "%.0f %s", n, units[i])
end

function M.seconds(s)
  if not s then return "-" end
  if s < 1e-6 then return string.format("%.1f ns", s * 1e9) end
  if s < 1e-3 then return string.format("%.2f us", s * 1e6) end
  if s < 1 then return string.format("%.2f ms", s * 1e3) end
  return string.format("%.3f s", s)
end

function M.did_you_mean(name, candidates)
  local near = require("rot.sys").nearest(name, candidates)
  return near and ("; did you mean '" .. near .. "'?") or ""
end

function M.dirname(path)
  return path:match("^(.*)/[^/]*$") or "."
end

-- An absolute path without "." and ".." components: "/a/core/../build" -> "/a/build".
function M.normpath(path)
  local out = {}
  for p in path:gmatch("[^/]+") do
    if p == ".." then out[#out] = nil elseif p ~= "." then out[#out + 1] = p end
  end
  return "/" .. table.concat(out, "/")
end

-- The relative path from directory `from` to `to` (both absolute): "../build/core".
function M.relpath(from, to)
  local a, b = {}, {}
  for p in from:gmatch("[^/]+") do a[#a + 1] = p end
  for p in to:gmatch("[^/]+") do b[#b + 1] = p end
  local i = 1
  while a[i] and b[i] and a[i] == b[i] do i = i + 1 end
  local out = {}
  for _ = i, #a do out[#out + 1] = ".." end
  for j = i, #b do out[#out + 1] = b[j] end
  return #out > 0 and table.concat(out, "/") or "."
end

-- Creates dir (and its parents) or stops with "cannot write WHAT 'dir'" and a hint naming the
-- configuration key that moves it.
function M.ensure_dir(dir, what, key)
  local sys = require "rot.sys"
  local ok, err = sys.mkdir(dir)
  local w, werr = true, nil
  if ok then w, werr = sys.writable(dir) end
  if not ok or not w then
    local why = M.reason(dir, err or werr, "permission denied")
    M.fail("cannot write " .. what .. " '" .. dir .. "': " .. why, M.write_hint(key, why))
  end
end

-- Writes an output file (a table's CSV, a JSON document, a plot) atomically (rot.sys.writefile:
-- a temp file renamed), unless it holds that text already (a rerun's: left as it is), or stops
-- with "cannot write 'path': why" and the hint that moves the output directory. Returns whether
-- it wrote.
function M.write_changed(path, text)
  local sys = require "rot.sys"
  if sys.readfile(path) == text then return false end
  local ok, err = sys.writefile(path, text)
  if not ok then M.fail("cannot write '" .. path .. "': " .. err, "set -outputDir=DIR to a writable directory") end
  return true
end

-- M.write_changed, returning path.
function M.write_output(path, text)
  M.write_changed(path, text)
  return path
end

-- Why an operation on path failed, from the system's message ("PATH: Read-only file system"):
-- the path left out (the caller names it once), the reason in lower case; dflt when none.
function M.reason(path, err, dflt)
  local why = err or dflt
  if why:sub(1, #path + 2) == path .. ": " then why = why:sub(#path + 3) end
  return (why:gsub("(%u)(%l[^:]*)$", function(c, rest) return c:lower() .. rest end))
end

-- The hint for a directory (configuration key key) that could not be written, for why.
function M.write_hint(key, why)
  local w = why:lower()
  return "set -" .. key .. "=DIR to a writable directory" .. (w:find("read%-only file system") and
    " (this one is on a read-only file system)" or w:find("no space left") and " (this one's file system is full)" or
    ", or fix its permissions")
end

-- The items of a list in a scrambled order, the same for the same seed (an integer).
function M.scramble(list, seed)
  local keyed = {}
  for i, p in ipairs(list) do
    local h = (i * 2654435761 + seed * 40503) % 4294967296
    keyed[i] = { h = (h ~ (h >> 13)) * 1103515245 % 4294967296, p = p }
  end
  table.sort(keyed, function(a, b) return a.h < b.h end)
  local out = {}
  for i, k in ipairs(keyed) do out[i] = k.p end
  return out
end

function M.basename(path)
  return path:match("([^/]*)$")
end

-- A measurement script's name from its path: its file name without ".lua" (dir/study.lua: study).
function M.script_name(path)
  return (M.basename(path):gsub("%.lua$", ""))
end

--[[ The value of a text util.serialize (or rot.history) wrote: read as a text chunk in an
  empty environment, without the string methods (("x"):rep(2^31) would allocate in one step),
  with an instruction budget, so a damaged or hostile file in a shared cache folder reaches
  nothing and runs no longer than a literal of its size takes. Returns the value, or nil and
  why. ]]
function M.deserialize(text, name)
  if type(text) ~= "string" then return nil, "nothing to read" end
  local f, err = load("return " .. text, "=" .. (name or "text"), "t", {})
  if not f then return nil, err end
  local co = coroutine.create(f)
  debug.sethook(co, function() error("too long to read: not a plain value", 0) end, "", 100 * #text + 1000)
  local strings = getmetatable("")
  local methods = strings.__index
  strings.__index = nil -- shared by every string: put back before anything else runs
  local ok, v = coroutine.resume(co)
  strings.__index = methods
  if not ok then return nil, tostring(v) end
  return v
end

-- This host's name (the kernel's), as processes on other nodes sharing a cache folder tell it
-- apart from theirs; "?" when it cannot be read.
function M.hostname()
  return ((require("rot.sys").readfile("/proc/sys/kernel/hostname") or "?"):gsub("%s+$", ""))
end

local library -- every file of rot's Lua library, hashed: once a process

--[[ rot's Lua library as it decides this run's results (beside the cached runs), hashed: each
  module the driver's searcher loaded, by path and identity (rot.search); a module never loaded
  decides nothing. Where it loaded none, every file under lua/rot by name, size and time. ]]
function M.library_stamp()
  local sys = require "rot.sys"
  local loaded = require("rot.search").loaded()
  if #loaded > 0 then return sys.sha256(table.concat(loaded, "\n")) end
  if library then return library end
  local home = debug.getinfo(1, "S").source:match("^@(.*)/util%.lua$") or "."
  local parts = {}
  local function walk(dir)
    local names = sys.listdir(dir) or {}
    table.sort(names)
    for _, n in ipairs(names) do
      local path = dir .. "/" .. n
      local kind, size, mtime = sys.stat(path)
      if kind == "dir" then walk(path)
      elseif kind == "file" and n:match("%.lua$") then
        parts[#parts + 1] = string.format("%s %d %.9f", path, size, mtime)
      end
    end
  end
  walk(home)
  library = sys.sha256(table.concat(parts, "\n"))
  return library
end

return M
