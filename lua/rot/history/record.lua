--[[ rot.history.record: the run record of one `rot measure`, built from the rows its session
  settled (rot.session keeps them, an interrupted run's too) when the script has ended: what
  ran (script, arguments, command-line keys, machine, executor, git commit), how it ended, the
  builds (kernels, flags, macros, a hash per source file) and every point's coordinates,
  description hash, outcome and summary (time, rates, intensity, spread, runs, bound, limiter,
  fraction of bound, counters, counted flops and bytes). The summary is kept in the record itself, so a result the
  cache later replaces can still be compared. docs/compare-history.md. ]]
local sys = require "rot.sys"
local util = require "rot.util"
local history = require "rot.history"
local sources = require "rot.history.sources"
local digest = require "rot.history.digest"
local keys = require "rot.build.keys"
local machine = require "rot.machine"
local ceilings = require "rot.machine.ceilings"
local bounds = require "rot.results.bounds"
local quantities = require "rot.results.quantities"
local rounds = require "rot.execute.rounds"
local regions = require "rot.results.regions"
local counted = require "rot.results.counted"
local placed = require "rot.results.placed"
local fields = require "rot.results.row"

local M = {}

-- A row field's name in a record's point (core/vocabulary.h: RESULT_ROW's record column).
local function rec(key) return fields.field(key).record end

-- The stored peaks a record's bounds use, never measured for a record: nil when there are none.
local function stored_peaks(s) return ceilings.read_csv(ceilings.file(s)) end

-- The ceilings at a thread count from stored peak rows (ceilings.for_threads), computed once per count.
local function ceilings_at(rows, memo, threads)
  local t = ceilings.nearest_threads(rows, threads or 1)
  if not memo[t] then memo[t] = ceilings.for_threads(rows, t) end
  return memo[t]
end

--[[ A point's bound, limiter and fraction, the way rot.results computes them: a CPU point
  against the stored peaks (when there are any), a GPU point as its script bounded it. ]]
local function bound_of(row, prows, memo, eps)
  if prows and not bounds.gpu(row) then
    local c = ceilings_at(prows, memo, bounds.threads(row))
    local b = placed.of(row, c, eps) -- (a counted row's from its counts, as rot.results bounds it)
    if b then return b.bound, b.limiter, b.fraction, b.above end
    return nil
  end
  return row.bound, row.limiter, row.fraction, row.above
end

-- A source file's SHA-256 (memoized per run; "missing" when it cannot be read).
local function file_sha(s, path)
  return s:remember("history-sha:" .. path, function()
    local text = sys.readfile(path)
    return text and sys.sha256(text) or "missing"
  end)
end

--[[ The source tree of a build as re-measuring needs it (rot.compare.remeasure): per kernel its
  name, its file (tagged: "@study/kernels/scale.c", and where it was) and every file its build
  key hashes, tagged, with its SHA-256 (the content is kept in the source store,
  rot.history.sources). Kept once per record under its own hash (trees[id]); store[sha] = the
  path to copy into the store. ]]
local function tree_of(s, desc, kinfo, trees, store)
  local tree = { kernels = {} }
  if desc.app then -- an application: its program, kept by content when it is not too large
    local kind, size = sys.stat(desc.app.path)
    if kind ~= "file" then size = nil end -- gone since it ran: nothing to keep
    tree.program = { sha = desc.app.hash, name = util.basename(desc.app.path), path = desc.app.path, size = size }
    if size and size <= sources.MAX_PROGRAM then store[desc.app.hash] = desc.app.path end
  end
  for i, k in ipairs(kinfo.kernels) do
    local files, own = {}, nil
    for _, f in ipairs(s:remember("history-src:" .. k.path, function() return keys.sources(s, k) end)) do
      local sha = file_sha(s, f.path)
      files[f.tag] = sha
      if sha ~= "missing" then store[sha] = f.path end
      if f.path == k.path then own = f.tag end
    end
    tree.kernels[i] = { name = k.name, file = own, path = k.path, files = files }
  end
  local id = sys.sha256(util.serialize(tree)):sub(1, 12)
  trees[id] = tree
  return id
end

--[[ The environment that matters of an application's description (its spec's, and rot's own
  variables that can change how it runs: rot.describe.app), as NAME=value; OMP_NUM_THREADS left
  out where it is the point's threads (said as those). ]]
local function env_of(desc)
  local out = {}
  for _, t in ipairs({ desc.app.env or {}, desc.app.inherited or {} }) do
    for k, v in pairs(t) do
      if not (k == "OMP_NUM_THREADS" and desc.threads and v == tostring(desc.threads)) then out[k] = v end
    end
  end
  return next(out) and out or nil
end

--[[ The keys of a point's description that a record keeps apart from described (M.described),
  because `rot history` says their change in its own words: key (a path: "app.env") -> those
  words. Every other key is kept, and a change of its value named (rot.history.changes). ]]
M.SAID = { machine = "machine", flags = "flags", macros = "macros", threads = "threads",
  ["workloads.threads"] = "threads",
    ["workloads.kernel"] = "its source files (kernels/NAME.c changed, added, no longer read)",
  ["workloads.params"] = "the point's own coordinates (another point)", ["app.path"] = "its program's file",
  ["app.hash"] = "its program's file (NAME changed)", ["app.args"] = "the point's own coordinates (its command)",
  ["app.env"] = "environment", ["app.inherited"] = "environment", ["app.inputs"] = "its input files (NAME changed)" }

-- The tables of a description whose keys are keys of it in turn (described walks into them);
-- any other table is a value (counters, counts, rules, pin, ...).
local NESTED = { policy = true, measurers = true, app = true, workloads = true }

-- A description value as text: a list of plain values joined by ",", "(none)" when empty, any
-- other table canonical (util.serialize), a plain value as it prints.
local function value_text(v)
  if type(v) ~= "table" then return tostring(v) end
  if next(v) == nil then return "(none)" end
  local plain = #v > 0
  for k, x in pairs(v) do plain = plain and math.type(k) == "integer" and type(x) ~= "table" end
  if plain then
    local parts = {}
    for i, x in ipairs(v) do parts[i] = tostring(x) end
    return table.concat(parts, ",")
  end
  return util.serialize(v)
end

--[[ described(desc) -> {path = text}: every key of a point's description that can change its
  result (its nested tables' keys as "policy.k", "measurers.counters"; a list of workloads'
  values joined by ";"), but those M.SAID names, with its value as text: what `rot history`
  compares from one run to the next. ]]
function M.described(desc)
  local out = {}
  local function walk(t, prefix)
    if #t > 0 then -- a list of workloads: each key's values, in order
      local keys = {}
      for _, w in ipairs(t) do for k in pairs(w) do keys[k] = true end end
      for _, k in ipairs(util.sorted_keys(keys)) do
        local path = prefix .. "." .. k
        if not M.SAID[path] then
          local vals = {}
          for i, w in ipairs(t) do vals[i] = value_text(w[k]) end
          out[path] = table.concat(vals, ";")
        end
      end
      return
    end
    for k, v in pairs(t) do
      local path = prefix == "" and k or (prefix .. "." .. k)
      if not M.SAID[path] then
        if type(v) == "table" and prefix == "" and NESTED[k] then walk(v, path) else out[path] = value_text(v) end
      end
    end
  end
  walk(desc, "")
  return out
end

--[[ The build a row was made by, as an index into builds (kernels, flags, macros, key: its build
  key's first digits, core: the first digits of the hash of the core binary that measured its
  result, src: the hash of its kernels' source files, each of which sources[src] lists with its
  own hash, tree: its source tree for re-measuring, trees[tree], described: the rest of its
  description, M.described). ]]
local function build_of(s, row, r)
  local desc, kinfo = row.desc, row.kinfo
  if not (desc and kinfo) then return nil end
  local files, names = {}, {}
  local env
  if desc.app then -- an application: its program and inputs by content, named by file; its environment
    names[1] = "app:" .. util.basename(desc.app.path)
    files[util.basename(desc.app.path)] = desc.app.hash:sub(1, 12)
    for path, h in pairs(desc.app.inputs) do files[util.basename(path)] = h:sub(1, 12) end
    env = env_of(desc)
  end
  for _, k in ipairs(kinfo.kernels) do
    names[#names + 1] = k.name
    for _, f in ipairs(s:remember("history-src:" .. k.path, function() return keys.sources(s, k) end)) do
      files[f.name] = file_sha(s, f.path):sub(1, 12)
    end
  end
  local src = sys.sha256(util.serialize(files)):sub(1, 12)
  r.sources[src] = files
  local core = row.entry and row.entry.coreHash
  local b = { kernels = table.concat(names, "+"), flags = desc.flags, macros = desc.macros, env = env, src = src,
    key = row.key and row.key:sub(1, 16), core = type(core) == "string" and core:sub(1, 16) or nil,
    tree = tree_of(s, desc, kinfo, r.trees, r.store), described = M.described(desc) }
  local key = util.serialize(b)
  if not r.index[key] then
    r.builds[#r.builds + 1] = b
    r.index[key] = #r.builds
  end
  return r.index[key]
end

--[[ How a CPU point is measured again (rot.compare.remeasure): its description without the
  machine (this one's, when it is measured again) and its parameters, and the spec's
  pointChild, kept once per record as canonical text (hows[i], full precision), and the
  point's parameters (NAME=VALUE at full precision, workloads apart by ';'). An application's
  rows (its program's, its regions') share their point's: one invocation times them all. nil
  for a GPU point. ]]
local function how_of(row, r)
  local d = row.desc
  if not (d and d.device == "cpu" and (d.workloads or d.app)) then return nil end
  local h, params = { child = row.spec and row.spec.pointChild }, {}
  for k, v in pairs(d) do
    if k ~= "machine" and k ~= "round" and k ~= "workloads" then h[k] = v end
  end
  h.workloads = d.workloads and {} or nil
  for i, w in ipairs(d.workloads or {}) do
    h.workloads[i] = { kernel = w.kernel, threads = w.threads, pin = w.pin }
    local kv = {}
    for _, k in ipairs(util.sorted_keys(w.params)) do kv[#kv + 1] = k .. "=" .. string.format("%.17g", w.params[k]) end
    params[i] = table.concat(kv, ",")
  end
  local text = util.serialize(h)
  if not r.how_index[text] then
    r.hows[#r.hows + 1] = text
    r.how_index[text] = #r.hows
  end
  return r.how_index[text], table.concat(params, ";")
end

--[[ A point's parameters from its record (how_of's text: "n=1000,m=2;n=4", one workload's
  NAME=VALUE pairs after another): one table per workload, or nil for text that is none. ]]
function M.params(text)
  local out = {}
  for w in (text .. ";"):gmatch("([^;]*);") do
    local t = {}
    for k, v in w:gmatch("([%w_]+)=([^,]+)") do
      t[k] = tonumber(v)
      if not t[k] then return nil end
    end
    out[#out + 1] = t
  end
  return out
end

-- The summary of one row: outcome, coordinates, description hash and the quantities.
local function point_of(row, here)
  local p = { point = row.point, desc = row.hash and row.hash:sub(1, 12), threads = row.threads }
  p.status = row.failed and "failed" or row.cached and "hit" or row.measured and "measured" or "failed"
  if row.failed then p.why = tostring(row.failed):match("^[^\n]*") end
  if row.machine and row.machine ~= here then p.machine = row.machine end
  if row.nodeType and row.nodeType ~= "" then p.nodeType = row.nodeType end
  if row.entry and row.time then
    for _, k in ipairs({ "time", "gbs", "gflops", "intensity", "spread", "runs", "workingSet", "rounds" }) do
      p[rec(k)] = row[k]
    end
    if row.converged == false then p[rec("converged")] = false end
    if row.roundsAgree == false then p[rec("roundsAgree")] = false end
    if row.counters and next(row.counters) then p[rec("counters")] = row.counters end
    -- counted work (rot.count): what rot compare splits a change of time into, work and rate
    for _, k in ipairs({ "flopsCounted", "bytesCounted" }) do p[rec(k)] = row[k] end
  end
  -- a survey row's (rot.results.survey): what it is and where, which rot compare matches loops by
  for _, k in ipairs({ "survey", "sourceFile", "sourceLine", "func", "loopDepth" }) do p[rec(k)] = row[k] end
  return p
end

--[[ The state of the git work tree dir is in: {commit=, dirty=}, dirty when a tracked file under
  dir changed (as git describe --dirty has it, limited to dir: a study inside a large repository
  costs no scan of the rest), or nil outside a work tree, without git, or after an interruption
  (no command runs then). ]]
function M.git(dir)
  if sys.interrupted() or not sys.locate("git") then return nil end
  local st, out = sys.run({ "git", "--no-optional-locks", "-C", dir, "status", "--porcelain=v2", "--branch",
    "--untracked-files=no", "--", "." }, { capture = true })
  if st ~= 0 or not out then return nil end
  local dirty = false
  for line in out:gmatch("[^\n]+") do dirty = dirty or line:sub(1, 1) ~= "#" end
  return { commit = out:match("# branch%.oid (%x+)") or "(none yet)", dirty = dirty }
end

-- The folder whose work tree state a record notes: a study's folder; the checkout for a
-- shipped measurement (its kernels are there too).
local function study_dir(s, path)
  if path:sub(1, #s.home + 1) == s.home .. "/" then return s.home end
  return util.dirname(path)
end

-- The configuration keys given on the command line: name -> value.
local function command_line_keys(cfg)
  local out = {}
  for _, k in ipairs(cfg:keys()) do if k.origin == "command line" then out[k.name] = k.value end end
  return out
end

-- The ceilings a compare plot draws: the roofline's (ceilings.shown), as labels and values with
-- their spreads and unstable marks.
local function ceilings_shown(c, rows)
  local compute, bandwidth = ceilings.shown(c, bounds.families(rows))
  local out = { compute = {}, bandwidth = {}, threads = c.threads }
  for _, x in ipairs(compute) do
    out.compute[#out.compute + 1] = { label = x.label, gflops = x.gflops, spread = x.spread,
      unstable = x.unstable or nil }
  end
  for _, b in ipairs(bandwidth) do
    out.bandwidth[#out.bandwidth + 1] = { label = b.label, gbs = b.gbs, family = b.family, spread = b.spread,
      unstable = b.unstable or nil }
  end
  return out
end

-- How the script ended: "complete", "interrupted by SIGINT", or "stopped: why".
local function status_of(ok, err)
  if ok then return "complete" end
  local msg = (util.is_error(err) and err.message or tostring(err)):match("^[^\n]*")
  if util.is_interruption(err) then return msg end
  return "stopped: " .. msg
end

--[[ build(s, o) -> record, store: o = {path = the script, args = its arguments, ok =, err = (how
  run_script ended)}. The rows are the session's; quantities are derived for any that an
  interruption left underived. store: sha -> path of each source file the record's trees name
  (what rot.history.sources keeps). ]]
function M.build(s, o)
  local here = machine.id(machine.fingerprint(s.config))
  -- a run of GPU points only reads no CPU peaks
  local prows, memo, eps = bounds.any_cpu(s.rows) and stored_peaks(s) or nil, {}, s:get("bestEpsilon")
  local r = { builds = {}, index = {}, sources = {}, trees = {}, store = {}, hows = {}, how_index = {} }
  local points, seen = {}, {}
  local counts, machines, threads, drawn = { points = 0, measured = 0, hits = 0, failed = 0 }, {}, 1, nil
  for _, row in ipairs(s.rows) do
    local app = regions.is_app(row)
    if row.entry and not row.time and not app then
      quantities.derive(row, s:get("bestK"), s:get("ignoreDisturbed"), s:get("bestEpsilon"), rounds.policy(s))
    end
    -- an application point is recorded as its program's and its regions' rows (each compared,
    -- each measured again by one how: the point's)
    for _, x in ipairs(app and regions.rows(row, s:get("bestK"), eps) or { row }) do
      counted.apply(x)
      local p = point_of(x, here)
      p.build = build_of(s, x, r)
      p.how, p.params = how_of(x, r)
      local bound, limiter, fraction, above = bound_of(x, prows, memo, eps)
      p[rec("bound")], p[rec("limiter")], p[rec("fraction")], p[rec("above")] = bound, limiter, fraction, above or nil
      points[#points + 1] = p
      -- the compare plot's ceilings: those the points it draws are bounded by (rot.results' own)
      if x.intensity and not bounds.gpu(x) then drawn = math.max(drawn or 1, bounds.threads(x)) end
    end
    counts.points = counts.points + 1
    local st = points[#points].status
    local c = st == "hit" and "hits" or st
    counts[c] = counts[c] + 1
    local m = row.machine or here
    if not seen[m] then seen[m] = true; machines[#machines + 1] = m end
    threads = math.max(threads, row.threads or 1)
  end
  table.sort(machines)
  local now = os.time()
  local text = sys.readfile(o.path)
  return {
    time = now, date = os.date("%Y-%m-%d %H:%M:%S", now), name = s.script, script = o.path,
    scriptHash = text and sys.sha256(text):sub(1, 12), args = o.args or {}, keys = command_line_keys(s.config),
    machine = here, machines = #machines > 0 and machines or { here }, executor = s.executor and s.executor.name,
    status = status_of(o.ok, o.err), git = M.git(study_dir(s, o.path)), bestEpsilon = eps, bestK = s:get("bestK"),
    counts = counts, axes = s.axes, builds = r.builds, sources = r.sources, trees = r.trees, hows = r.hows,
    points = points, ceilings = prows and ceilings_shown(ceilings_at(prows, memo, drawn or threads), s.rows) or nil,
  }, r.store
end

--[[ Copies the files a record's trees name into the source store (each read again: one whose
  content changed since it was hashed is left out, and re-measuring says it is missing). A file
  that cannot be stored is a warning, and the others are still stored (a program that fills the
  disk leaves the kernels' sources room). ]]
local function store_sources(cache_dir, store)
  for sha, path in pairs(store) do
    local text = not sources.has(cache_dir, sha) and sys.readfile(path)
    if text and sys.sha256(text) == sha then
      local ok, err = sources.put(cache_dir, sha, text)
      if not ok then
        io.stderr:write("rot: warning: '", path, "' was not kept in the source store: ", tostring(err), "\n")
      end
    end
  end
end

--[[ Writes rec under the source store's lock: its sources stored, the record written, and the
  stored files only the records pruned meanwhile named removed. Returns history.write's values. ]]
local function write(s, rec, store, keep, path)
  local cache_dir = s:get("cacheDir")
  local lock <close>, err = sources.lock(cache_dir)
  if not lock then return nil, err end
  local gone = {}
  local id, a, b = history.write(history.dir(cache_dir, s.home, path), rec, keep, function(text)
    for sha in pairs(sources.named(text)) do gone[sha] = true end
  end)
  if id then store_sources(cache_dir, store) end
  if next(gone) then sources.prune(cache_dir, gone) end
  return id, a, b
end

--[[ save(s, o): builds the record of this invocation and writes it (rot.history.write), unless
  it settled no point, historyRuns is 0, or it repeats the newest record (a rerun from the
  cache with the same results: known from the newest record's digest without building this
  one, when it has one). A record that cannot be written is a warning: the measurement
  itself stands. Returns the record (or nil) and, when Ctrl-C stopped the writing, that
  interruption (the caller exits as interrupted). ]]
function M.save(s, o)
  local keep = s:get("historyRuns")
  if #s.rows == 0 or keep == 0 then return nil end
  local d = digest.of(s, o, ceilings.file(s))
  if digest.repeats(s, o, d) then return nil end
  local ok, rec, store = pcall(M.build, s, o)
  local id, err, same
  if ok then
    local wok, a, b, c = pcall(write, s, rec, store, keep, o.path)
    if wok then id, err, same = a, b, c else err = a end
  else
    err = rec
  end
  if id or same then digest.keep(s, o, d) end
  if same then return nil end
  if not id then
    io.stderr:write("rot: warning: the run record was not written: ", tostring(util.is_error(err)
      and err.message or err), "\n")
    return nil, util.is_error(err) and (err.code or 0) >= 128 and err or nil
  end
  return rec
end

return M
