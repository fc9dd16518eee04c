--[[ rot.history: every `rot measure` remembered. One run record per invocation that is no
  mere repeat of the newest (M.repeats; built by rot.history.record) is kept in
  cacheDir/history/NAME-HASH/ID-MACHINES.run: a Lua table literal, written to a temp file and
  renamed under a lock, read back as a text chunk in an empty environment with an instruction
  budget. IDs count up per measurement; the last historyRuns records of each measurement and
  machine are kept. `rot history` and `rot compare` read them. ]]
local sys = require "rot.sys"
local util = require "rot.util"
local session = require "rot.session"
local row = require "rot.results.row"

local M = {}

M.VERSION = 1

--[[ The folder of one measurement's records: NAME-HASH, HASH naming the script's path (a
  shipped script's relative to the checkout, so a moved checkout keeps its history; a study's
  absolute: two studies that are both called study.lua keep apart). ]]
function M.dir(cache_dir, home, script_path)
  local name = util.script_name(script_path)
  local where = script_path
  if where:sub(1, #home + 1) == home .. "/" then where = "@home" .. where:sub(#home + 1) end
  return cache_dir .. "/history/" .. name:gsub("[^%w_.-]", "_") .. "-" .. sys.sha256(where):sub(1, 8)
end

-- A short key for the set of machines a record's points ran on (records are pruned per key).
function M.machine_key(machines)
  return sys.sha256(table.concat(machines, "+")):sub(1, 8)
end

local IDENT = "^[%a_][%w_]*$"
local KEYWORDS = { ["and"] = 1, ["or"] = 1, ["not"] = 1, ["end"] = 1, ["nil"] = 1, ["true"] = 1, ["false"] = 1,
  ["if"] = 1, ["then"] = 1, ["else"] = 1, ["for"] = 1, ["in"] = 1, ["do"] = 1, ["function"] = 1, ["local"] = 1,
  ["return"] = 1, ["while"] = 1, ["repeat"] = 1, ["until"] = 1, ["break"] = 1, ["goto"] = 1, ["elseif"] = 1 }

-- Whether t is a sequence 1..n (written without keys).
local function is_array(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n > 0 and n == #t
end

--[[ The text of a record: a Lua table literal, keys sorted, floats to 7 significant digits
  (far below any spread), sequences without their keys, one line per point: small (a 300-point
  run is about 60 KiB) and readable. NaN and infinities are left out. ]]
function M.encode(v, depth)
  depth = depth or 0
  local t = type(v)
  if t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then return "nil" end
    return math.type(v) == "integer" and string.format("%d", v) or string.format("%.7g", v)
  end
  if t == "string" then return (string.format("%q", v):gsub("\\\n", "\\n")) end
  if t == "boolean" then return tostring(v) end
  if t ~= "table" then return "nil" end
  local parts = {}
  if is_array(v) then
    for i = 1, #v do parts[i] = M.encode(v[i], depth + 1) end
  else
    for _, k in ipairs(util.sorted_keys(v)) do
      local key = (type(k) == "string" and k:match(IDENT) and not KEYWORDS[k]) and k or ("[" .. M.encode(k) .. "]")
      parts[#parts + 1] = key .. "=" .. M.encode(v[k], depth + 1)
    end
  end
  if #parts == 0 then return "{}" end
  local sep = depth <= 1 and ",\n" or ","
  return "{" .. (depth <= 1 and "\n" or "") .. table.concat(parts, sep) .. (depth <= 1 and "\n" or "") .. "}"
end

--[[ A point's summary is kept as one sequence in the order of M.COLUMNS (point.v; false for
  a value it lacks), so the field names are not repeated 300 times: pack before writing,
  unpack after reading (the rest of rot sees named fields). ]]
M.COLUMNS = row.record_names({ "time", "gbs", "gflops", "intensity", "spread", "runs", "workingSet", "bound", "limiter",
  "fraction", "rounds" })

local function pack(p)
  local q, v = {}, {}
  for k, x in pairs(p) do q[k] = x end
  for i, c in ipairs(M.COLUMNS) do
    local x = p[c]
    v[i] = (x == nil or x ~= x or x == math.huge or x == -math.huge) and false or x -- no hole in the sequence
    q[c] = nil
  end
  if p.time ~= nil then q.v = v end
  return q
end

local function unpack_point(p, columns)
  if type(p) ~= "table" then return nil end
  for i, c in ipairs(columns) do
    if type(p.v) == "table" and p.v[i] ~= false then p[c] = p.v[i] end
  end
  p.v = nil
  return p
end

--[[ A record from its text, or nil and why. The text is a table literal read as a text chunk in
  an empty environment, with an instruction budget: a record can reach nothing and run no
  longer than a literal of its size takes. ]]
function M.decode(text, name)
  if type(text) ~= "string" or not text:match("^%s*%-%-[^\n]*\n%s*{") then return nil, "not a run record" end
  local r, err = util.deserialize((text:gsub("^%s*%-%-[^\n]*\n", "")), name or "record")
  if err or type(r) ~= "table" or type(r.id) ~= "number" or type(r.points) ~= "table" then
    return nil, err or "not a run record"
  end
  if r.version ~= M.VERSION then return nil, "a record of another version (" .. tostring(r.version) .. ")" end
  local columns = type(r.columns) == "table" and r.columns or M.COLUMNS
  for i, p in ipairs(r.points) do
    r.points[i] = unpack_point(p, columns)
    if not r.points[i] then return nil, "point " .. i .. " is not a table" end
  end
  return r
end

-- The record files of a folder: { {id=, key=, file=}, ... }, oldest first.
function M.files(dir)
  local out = {}
  for _, f in ipairs(sys.listdir(dir) or {}) do
    local id, key = f:match("^(%d+)%-(%x+)%.run$")
    if id then out[#out + 1] = { id = tonumber(id), key = key, file = dir .. "/" .. f } end
  end
  table.sort(out, function(a, b) return a.id < b.id end)
  return out
end

--[[ The records of a folder, newest first; one that cannot be read is skipped with one warning
  naming it (it is kept: bad input loses nothing). ]]
function M.list(dir)
  local out = {}
  local files = M.files(dir)
  for i = #files, 1, -1 do
    local f = files[i]
    local r, err = M.decode(sys.readfile(f.file) or "", f.file)
    if r then
      r.file = f.file
      out[#out + 1] = r
    else
      io.stderr:write("rot: warning: skipping run record '", f.file, "': ", tostring(err):match("^[^\n]*"), "\n")
    end
  end
  return out
end

--[[ Removes the oldest records of each machine key beyond keep (the newest keep of each stay).
  files: M.files(dir); on_remove(text), when given, is called with each one's text first.
  Returns how many were removed. ]]
function M.prune(files, keep, on_remove)
  local per, n = {}, 0
  for i = #files, 1, -1 do
    local f = files[i]
    per[f.key] = (per[f.key] or 0) + 1
    if per[f.key] > keep then
      if on_remove then on_remove(sys.readfile(f.file) or "") end
      sys.remove(f.file)
      n = n + 1
    end
  end
  return n
end

--[[ Whether record only repeats the newest record on its machines (key) among files (M.files
  of the folder): it measured nothing, nothing failed, it ran to its end, and every point has
  the time, run count and bound that record has. A rerun from the cache (the plot code changed, say) is not a run of
  its own: it
  would push measured runs out of the history and tell `rot compare` nothing. ]]
function M.repeats(files, key, record)
  local c = record.counts
  if not (c and c.measured == 0 and c.failed == 0 and record.status == "complete") then return false end
  local last = M.newest(files, key) -- an interrupted or failed newest record is no run to repeat
  return last ~= nil and last.status == "complete" and M.results(last, true) == M.results(record, true)
end

--[[ Writes a record into dir under the folder's lock, unless it repeats the newest one on its
  machines (M.repeats): its id is one more than the highest there, its file written atomically
  (rot.sys.writefile: a temp file renamed); then the folder is pruned to keep records per
  measurement and machine (on_prune(text) called with each removed record's text). Returns the
  id and the path; nil, nil, "repeat" for a repeat; or nil and why. ]]
function M.write(dir, record, keep, on_prune)
  local ok, err = sys.mkdir(dir)
  if not ok then return nil, err end
  local lock <close>, lerr = session.lock(dir .. "/.lock")
  if not lock then return nil, lerr end
  local key = M.machine_key(record.machines or { record.machine or "?" })
  local files = M.files(dir)
  if M.repeats(files, key, record) then return nil, nil, "repeat" end
  record.id = (#files > 0 and files[#files].id or 0) + 1
  record.version, record.columns = M.VERSION, M.COLUMNS
  local points = record.points
  record.points = {}
  for i, p in ipairs(points) do record.points[i] = pack(p) end
  local path = string.format("%s/%d-%s.run", dir, record.id, key)
  local wrote, werr = sys.writefile(path, "-- rot run record (rot history, rot compare)\n" .. M.encode(record) .. "\n")
  record.points = points
  if not wrote then return nil, werr end
  files[#files + 1] = { id = record.id, key = key, file = path }
  M.prune(files, keep, on_prune)
  return record.id, path
end

-- The machine a record's point ran on (a Slurm node type when it has one).
function M.machine_of(r, p) return p.nodeType or p.machine or r.machine end

--[[ The coordinates a point is matched by across runs: its own; a loop of the survey
  (rot.results.survey) by its source line and function alone, not its depth (another build of
  the program may nest it otherwise: a loop the compiler unrolled away). ]]
function M.matched(p)
  local pt = type(p.point) == "table" and p.point or {}
  if p.survey == "loop" and type(pt.region) == "string" then
    pt = util.copy(pt)
    pt.region = pt.region:gsub(" %(depth %d+ of %d+%)$", "")
  end
  return pt
end

--[[ The points of a record by match key: coordinates (canonical text), the machine when
  with_machine, and an occurrence number for a key seen again (a script that measures the same
  coordinates twice). keep(p) filters. Returns {key = point}, keys in order. ]]
function M.keyed(r, with_machine, keep)
  local out, order, seen = {}, {}, {}
  for _, p in ipairs(r.points) do
    if not keep or keep(p) then
      local k = util.serialize(M.matched(p))
      if with_machine then k = k .. " @" .. tostring(M.machine_of(r, p)) end
      seen[k] = (seen[k] or 0) + 1
      if seen[k] > 1 then k = k .. " #" .. seen[k] end
      out[k] = p
      order[#order + 1] = k
    end
  end
  return out, order
end

--[[ A record's results as one text, numbers as a record keeps them: equal for two runs whose
  every point has the same outcome, time and run count (a rerun that only hit the cache), and
  with with_bound the same bound (under the same ceilings), and the same counted flops and bytes
  (rot.count) where it has them, whether or not either was read back from its file. ]]
function M.results(r, with_bound)
  local k, order = M.keyed(r, true)
  local parts = {}
  for _, key in ipairs(order) do
    local p = k[key]
    local cf, cb = p[row.field("flopsCounted").record], p[row.field("bytesCounted").record]
    parts[#parts + 1] = key .. "=" .. (p.status == "failed" and "failed" or M.encode(p.time)) .. "/"
      .. M.encode(p.runs) .. (with_bound and "/" .. M.encode(p.bound) or "")
      .. ((cf or cb) and ("/counted " .. M.encode(cf) .. "/" .. M.encode(cb)) or "") -- a count added is news
  end
  return table.concat(parts, ";")
end

--[[ The newest record among files (M.files of a folder) on the machines of key
  (history.machine_key), read back; nil when there is none or it cannot be read. ]]
function M.newest(files, key)
  for i = #files, 1, -1 do
    if files[i].key == key then return M.decode(sys.readfile(files[i].file) or "", files[i].file) end
  end
  return nil
end

-- The record with this id (a number or its text) among records, or nil.
function M.find(records, id)
  local n = tonumber(id)
  for _, r in ipairs(records) do if r.id == n then return r end end
  return nil
end

return M
