--[[ rot.compare.remeasure: `rot compare -remeasure` planned: which of both runs' points can be
  measured again on this machine, by what description, grouped by what measures them; each
  side's sources put back from what its record kept (rot.history.sources) in a temporary tree
  of the run directory, never over the user's files. rot.execute.alternate measures the groups
  alternately; this keeps each pair's rounds, which rot.compare.rule judges. ]]
local sys = require "rot.sys"
local util = require "rot.util"
local session = require "rot.session"
local gen = require "rot.gen"
local machine = require "rot.machine"
local keys = require "rot.build.keys"
local toolchain = require "rot.describe.toolchain"
local kernels = require "rot.describe.kernels"
local alternate = require "rot.execute.alternate"
local quantities = require "rot.results.quantities"
local regions = require "rot.results.regions"
local sources = require "rot.history.sources"
local record = require "rot.history.record"

local M = {}

-- Copies the files under src into dst (folders too; dot files left out).
local function copy_tree(src, dst)
  assert(sys.mkdir(dst))
  for _, f in ipairs(sys.listdir(src) or {}) do
    local kind = sys.stat(src .. "/" .. f)
    if kind == "dir" then copy_tree(src .. "/" .. f, dst .. "/" .. f)
    elseif kind == "file" then assert(sys.writefile(dst .. "/" .. f, assert(sys.readfile(src .. "/" .. f)))) end
  end
end

local function sha_of(path)
  local text = sys.readfile(path)
  return text and sys.sha256(text)
end

--[[ The text of a recorded file: from the source store, else the file where it was when it is
  unchanged (a record whose store entry is gone). nil and why when neither holds it. ]]
local function content(cache_dir, sha, where, name, run)
  local text = sources.get(cache_dir, sha)
  if text then return text end
  local now = sys.readfile(where)
  if now and sys.sha256(now) == sha then return now end
  return nil, "run " .. run .. "'s " .. name .. " is not in the source store and " .. (now
    and "has changed since" or "is gone")
end

--[[ Which recorded files need a copy of rot's checkout: a file of the checkout outside core/
  (a shipped kernel, kernels/cpu/args.h) that changed since. A changed file of core/ is rot's
  own (kernel.h): both sides are built against the current core, and notes says so. An
  absolute file that changed cannot be put back where the build reads it: nil and why. ]]
local function plan(s, tree, run, notes)
  local needs_home = false
  for _, k in ipairs(tree.kernels) do
    for tagged, sha in pairs(k.files) do
      local rest = tagged:match("^@home/(.*)$")
      if rest and sha_of(s.home .. "/" .. rest) ~= sha then
        if rest:match("^core/") then
          notes[#notes + 1] = rest .. " changed since run " .. run .. ": its cores are rebuilt against the current one"
        else
          needs_home = true
        end
      elseif not rest and not tagged:match("^@study/") and sha_of(tagged) ~= sha then
        return nil, "run " .. run .. "'s " .. tagged .. " (outside the study and rot's checkout) has changed since"
      end
    end
  end
  return needs_home
end

--[[ An application's program put back as dir/prog/NAME (mode 755), from the source store, else
  where it was when it is unchanged. Returns the kinfo of the application core, the checkout
  to build it in and the program's path, or nil and why. ]]
local function program(s, dir, rec, prog)
  local text, err = content(s:get("cacheDir"), prog.sha, prog.path, "program '" .. prog.name .. "'", rec.id)
  if not text and (prog.size or 0) > sources.MAX_PROGRAM then
    err = string.format("run %s's program '%s' (%.0f MiB) was not kept (programs over %d MiB are not) and has changed "
      .. "since", rec.id, prog.name, prog.size / 2 ^ 20, sources.MAX_PROGRAM >> 20)
  end
  if not text then return nil, err end
  local path = dir .. "/prog/" .. prog.name
  assert(sys.mkdir(dir .. "/prog"))
  assert(sys.writefile(path, text, tonumber("755", 8)))
  return { kernels = {}, macros = {}, gpu = false, app = true }, s.home, path
end

--[[ A build's sources put back in dir: each kernel's study files under dir/kI, rot's checkout
  files that changed under dir/home (a copy of the current core/ beside them); an
  application's program (program). Returns the kinfo to build ({kernels=, macros=, gpu=false}),
  the checkout to build in and (an application) its program's path; or nil and why. ]]
local function materialize(s, dir, rec, b, notes)
  local tree = rec.trees and b.tree and rec.trees[b.tree]
  if not tree then return nil, "run " .. rec.id .. " was recorded without its sources (by an older rot)" end
  if tree.program then return program(s, dir, rec, tree.program) end
  local needs_home, why = plan(s, tree, rec.id, notes)
  if needs_home == nil then return nil, why end
  local home = needs_home and (dir .. "/home") or s.home
  if needs_home then copy_tree(s.home .. "/core", home .. "/core") end
  local cache_dir = s:get("cacheDir")
  local kinfo, macro_set = { kernels = {}, macros = {}, gpu = false }, {}
  local ks = session.new { home = home, config = s.config }
  for i, k in ipairs(tree.kernels) do
    local root = dir .. "/k" .. i
    local function place(tagged)
      local rest = tagged:match("^@study/(.*)$")
      if rest then return root .. "/" .. rest end
      rest = tagged:match("^@home/(.*)$")
      if rest and needs_home and not rest:match("^core/") then return home .. "/" .. rest end
      return nil
    end
    for tagged, sha in pairs(k.files) do
      local dest = place(tagged)
      if dest then
        local text, err = content(cache_dir, sha, keys.untag(s, k.path, tagged), tagged:gsub("^@%a+/", ""), rec.id)
        if not text then return nil, err end
        assert(sys.mkdir(util.dirname(dest)))
        assert(sys.writefile(dest, text))
      end
    end
    local path = k.file and place(k.file) or (k.file and keys.untag(s, k.path, k.file)) or k.path
    local used, err = gen.macros(path)
    if not used then
      return nil, "cannot read the macros of run " .. rec.id .. "'s kernel '" .. k.name .. "': " .. tostring(err)
    end
    for _, m in ipairs(used) do macro_set[m] = true end
    kinfo.kernels[i] = { name = k.name, path = path, key = kernels.key(ks, path) }
  end
  kinfo.macros = util.sorted_keys(macro_set)
  return kinfo, home
end

-- The counts of the applications measured again (a description -> its cached count, for the
-- survey's loops in their samples).
local counted = setmetatable({}, { __mode = "k" })

-- The count of an application measured again, its loops in the copy of its program that ran
-- (rot.execute.alternate runs the source store's): nil where none is cached.
local function count_of(desc)
  local c = counted[desc]
  if not (c and c.record and c.record.loops) or c.path == desc.app.path then return c and c.record end
  local rec, loops = util.copy(c.record), util.copy(c.record.loops)
  loops.objects = {}
  for id, path in pairs(c.record.loops.objects) do loops.objects[id] = path == c.path and desc.app.path or path end
  rec.loops = loops
  return rec
end

-- A region's name as a round's times key it: a survey loop's without its depth (rot.history
-- pairs loops so: two builds may nest one otherwise).
local function unnested(region) return (tostring(region):gsub(" %(depth %d+ of %d+%)$", "")) end

--[[ Why a recorded point has no description to be measured again by, or nil: a GPU point, a
  record written by an older rot (an application's: before rot kept programs). ]]
function M.unmeasurable(rec, p)
  if p.how and rec.hows and rec.hows[p.how] then return nil end
  if p.point and p.point.region then
    return "run " .. rec.id .. " was recorded without a copy of its program (by an older rot): measure both builds "
      .. "of it again with rot profile or its script, then compare those runs"
  end
  return rec.hows and "a GPU point is not measured again here" or
    ("run " .. rec.id .. " was recorded without its points' descriptions (by an older rot)")
end

--[[ An application's description made ready to run again: the environment it ran with (its
  spec's and the inherited variables that matter) given to it; nil and why when an input file
  it read has changed since (a program measured again reads its inputs where they are). ]]
local function app_ready(s, rec, desc)
  for path, h in pairs(desc.app.inputs or {}) do
    if s:remember("remeasure-input:" .. path, function() return sha_of(path) or false end) ~= h then
      return nil, "run " .. rec.id .. "'s input '" .. path .. "' " .. (sys.stat(path)
        and "has changed since" or "is gone")
    end
  end
  for k, v in pairs(desc.app.inherited or {}) do
    if desc.app.env[k] == nil then desc.app.env[k] = v end
  end
  return desc
end

--[[ The description a recorded point is measured again by: its record's (hows, params) on
  this machine; nil and why for a point that has none (M.unmeasurable). ]]
local function desc_of(s, rec, p)
  local why = M.unmeasurable(rec, p)
  if why then return nil, why end
  local text = rec.hows[p.how]
  local desc, err = util.deserialize(text, "how")
  local params = record.params(tostring(p.params))
  if not (desc and params) then
    return nil, "run " .. rec.id .. "'s record is damaged: " .. tostring(err or ("parameters '"
      .. tostring(p.params) .. "'"))
  end
  for i, w in ipairs(desc.workloads or {}) do w.params = params[i] or {} end
  local child = desc.child
  desc.child = nil
  desc.machine = machine.fingerprint(s.config)
  if desc.app then
    -- (before its environment is merged, as it was counted)
    counted[desc] = { record = require("rot.count").cached(s, desc), path = desc.app.path }
    local ready, why = app_ready(s, rec, desc)
    if not ready then return nil, why end
  end
  return desc, child
end

--[[ What a fresh measurement of a point timed (rot.execute.alternate's times): a kernel point's
  times[""], the fastest run (as a result's); an application's times[region] for its program's
  row (regions.PROGRAM) and each region it entered. ]]
local function times_of(res, desc)
  local row = { desc = desc, point = {}, entry = { meta = res.meta, runs = res.runs, regions = res.regions,
    samples = res.samples }, countRecord = count_of(desc) }
  local times = {}
  if desc.app ~= nil then
    for _, r in ipairs(regions.rows(row, desc.policy.k, desc.policy.epsilon)) do times[unnested(r.region)] = r.time end
  else
    times[""] = quantities.derive(row, desc.policy.k, desc.ignoreDisturbed, desc.policy.epsilon).time
  end
  return times
end

--[[ Why the points of a comparison cannot be measured again at all here, or nil: runs on two
  machines, or on another machine than this one. ]]
function M.refusal(s, A, B, with_machines)
  if with_machines then
    return "the runs are on two machines: they cannot be measured again side by side on one"
  end
  local here = machine.id(machine.fingerprint(s.config))
  for _, side in ipairs({ A, B }) do
    for _, m in ipairs(side.record.machines or { side.record.machine }) do
      if m ~= here then
        return "run " .. side.record.id .. " was measured on " .. m .. ", not on this machine (" .. here .. ")"
      end
    end
  end
  return nil
end

-- What a side of a pair is measured by: its record's how, parameters and build, and its
-- coordinates but an application's region (its program and regions share one invocation).
local function measured_by(rec, x)
  return table.concat({ rec.id, tostring(x.how), tostring(x.params), tostring(x.build),
    regions.point_key(x.point) }, "|")
end

-- The row of a measurement a pair takes its time from: an application's region (or its
-- program's row), a kernel point's own ("").
local function row_key(g, p) return g.plan.A.desc.app and unnested(p.a.point.region) or "" end

-- A pair's plan ({A=, B=} = {desc=, child=, build=} each), the builds it wants added to want;
-- nil and why where a side has no description to be measured again by.
local function plan_pair(s, sides, p, want, notes, compiler)
  local d = {}
  for _, side in ipairs({ "A", "B" }) do
    local x = side == "A" and p.a or p.b
    local desc, child = desc_of(s, sides[side].record, x)
    if not desc then return nil, child end
    if desc.compiler ~= compiler and not notes.compiler then
      notes.compiler = true
      notes[#notes + 1] = "run " .. sides[side].record.id .. " was built with " .. tostring(desc.compiler) ..
        ", rebuilt with " .. compiler
    end
    d[side] = { desc = desc, child = child, build = x.build }
    local name = "run " .. sides[side].record.id .. "'s build"
    want[side][x.build] = want[side][x.build] or { desc = desc, name = name }
  end
  return d
end

--[[ The pairs to measure again, grouped by what measures them (a kernel point alone; an
  application's program and regions together: one invocation times them all), each group
  planned once (plan_pair). Sets p.not_remeasured where a side has no description. ]]
local function plan_groups(s, sides, matched, want, notes)
  local compiler = toolchain.compiler_id(s)
  local groups, by = {}, {}
  for _, p in ipairs(matched) do
    if p.ratio then
      local key = measured_by(sides.A.record, p.a) .. "\0" .. measured_by(sides.B.record, p.b)
      if not by[key] then
        local plan, why = plan_pair(s, sides, p, want, notes, compiler)
        by[key] = { plan = plan, why = why, pairs = {} }
        if plan then groups[#groups + 1] = by[key] end
      end
      p.not_remeasured = by[key].why
      table.insert(by[key].pairs, p)
    end
  end
  return groups
end

-- One round of a group into its pairs: each pair's first failure (in the order the sides were
-- measured), each side's time and the round's ratio.
local function record_round(g, r, round)
  for _, side in ipairs(round.order) do
    local t, why = round[side].times or {}, round[side].why
    for _, p in ipairs(g.pairs) do
      local region = row_key(g, p)
      local w = why or (not t[region] and ("region '" .. region .. "' completed no call"))
      if w and not p.remeasured.failed then p.remeasured.failed = side .. " in round " .. r .. ": " .. w end
    end
  end
  for _, p in ipairs(g.pairs) do
    local region, m = row_key(g, p), p.remeasured
    local ta, tb = (round.A.times or {})[region], (round.B.times or {})[region]
    m.ta[r], m.tb[r] = ta or false, tb or false
    if ta and tb then m.ratios[#m.ratios + 1] = tb / ta end
  end
end

--[[ run(s, A, B, pairs, rounds) -> notes: measures the pairs both runs timed again, `rounds`
  times (rot.execute.alternate), and sets on each pair p.remeasured = {ta = {...}, tb = {...},
  ratios = {...} (tB/tA of the rounds where both sides were timed), failed = why (the first
  failure), rounds =}, or p.not_remeasured = why. notes: lines for the user (a core header
  rebuilt against the current one, a compiler that changed). ]]
function M.run(s, A, B, matched, rounds)
  local sides, want, notes = { A = A, B = B }, { A = {}, B = {} }, {}
  local groups = plan_groups(s, sides, matched, want, notes)
  if #groups == 0 then return notes end
  local plan = { builds = want, groups = {}, times = times_of, sources = function(side, b, dir)
    local rec = sides[side].record
    return materialize(s, dir, rec, rec.builds[b], notes)
  end }
  for i, g in ipairs(groups) do plan.groups[i] = { A = g.plan.A, B = g.plan.B, point = g.pairs[1].point } end
  for i, result in ipairs(alternate.measure(s, plan, rounds)) do
    local g = groups[i]
    for _, p in ipairs(g.pairs) do
      if result.why then p.not_remeasured = result.why else p.remeasured = { ta = {}, tb = {},
        ratios = {}, rounds = rounds } end
    end
    for r, round in ipairs(result.rounds or {}) do record_round(g, r, round) end
  end
  return notes
end

return M
