--[[ rot.execute.alternate: the executor of `rot compare -remeasure`: pairs of points measured
  again on this machine, alternately (A B, B A, ... per group and round: the machine's drift
  falls on both alike), each a fresh measurement that is never cached. Its caller plans what is
  measured (rot.compare.remeasure): this builds each side's cores once, in the run directory
  (never over the user's build), and measures the rounds. ]]
local session = require "rot.session"
local build = require "rot.build"
local batch = require "rot.execute.batch"
local plausible = require "rot.execute.plausible"

local M = { name = "alternate" }

--[[ Each side's builds ({desc=, name=} by build), put back by sources(side, b, dir) and built
  once, in a build directory of their own (s.builddir is the user's; these are the run
  directory's, removed with it). Returns cores[side][b] = {binary=, program=} or {why=}. ]]
local function build_all(s, builds, sources)
  local cores, dir = { A = {}, B = {} }, s:run_dir()
  for _, side in ipairs({ "A", "B" }) do
    for b, want in pairs(builds[side]) do
      local at = dir .. "/" .. side .. b
      local kinfo, home, prog = sources(side, b, at .. "/src")
      if not kinfo then
        cores[side][b] = { why = home }
      else
        local bs = session.new { home = home, config = s.config, builddir = at .. "/build" }
        bs.deps_dir = at .. "/deps"
        local lock <close> = build.lock(bs)
        local binary, err = s:timed("build", build.core, bs, want.desc, kinfo)
        cores[side][b] = binary and { binary = binary, program = prog } or
          { why = want.name .. " does not compile now: " .. tostring(err):match("^[^\n]*") }
      end
    end
  end
  return cores
end

--[[ One fresh measurement of a point by a core: what times(res, desc) makes of its result, or
  nil and why it failed. Nothing is cached. A kernel point's result has `runs` runs, an
  application's one invocation. ]]
local function measure_once(s, binary, desc, child, times)
  local app = desc.app ~= nil
  local item, out = { desc = desc, need = app and 1 or s:get("runs"), exact = app, child = child }, {}
  batch.run(s, binary, { item }, function(_, res)
    if not res then out.why = "not measured"; return end
    if res.status == "ok" and not app then
      local why = plausible.why_not(s, { kinfo = { gpu = false } }, res)
      if why then res.status, res.error = "failed", "implausible: " .. why end
    end
    if res.status ~= "ok" then out.why = tostring(res.error or "failed"):match("^[^\n]*"); return end
    out.times = times(res, desc)
  end)
  return out.times, out.why
end

-- One round of a group: both sides measured in the given order, each side's {times=, why=}.
local function measure_round(s, g, order, times)
  local round = { order = order }
  for _, side in ipairs(order) do
    local pl = g[side]
    local t, why = measure_once(s, g.cores[side].binary, pl.desc, pl.child, times)
    round[side] = { times = t, why = why }
    s:settle({ point = g.point, measured = t ~= nil, failed = why })
  end
  return round
end

--[[ measure(s, plan, rounds) -> one result a group: {why=} (a side's core was not built:
  nothing measured), or {rounds = {{A = {times=, why=}, B = ..., order = {"B", "A"}}, ...}}.
  plan = {
    builds = {A = {[b] = {desc=, name=}}, B = ...}: the builds each side's groups want (name:
      the build as a failure names it);
    sources = function(side, b, dir) -> kinfo, home, program | nil, why: a build's sources
      put back in dir (rot.build's inputs, the checkout to build in, an application's program);
    groups = {{A = {desc=, child=, build=}, B = ..., point=}, ...}: what each group measures
      (one invocation a side and round), and the point its progress names;
    times = function(res, desc) -> {[row key] = seconds}: the times of a measurement's result. } ]]
function M.measure(s, plan, rounds)
  local measuring <close> = build.measuring(s)
  local clean <close> = setmetatable({}, { __close = function() s:cleanup() end })
  local cores = build_all(s, plan.builds, plan.sources)
  local out, live = {}, {}
  for i, g in ipairs(plan.groups) do
    local ca, cb = cores.A[g.A.build], cores.B[g.B.build]
    out[i] = { why = ca.why or cb.why }
    if ca.binary and cb.binary then
      g.cores, out[i].rounds = { A = ca, B = cb }, {}
      for _, side in ipairs({ "A", "B" }) do -- an application runs the program put back for its side
        if g[side].desc.app then g[side].desc.app.path = g.cores[side].program end
      end
      live[#live + 1] = { g = g, out = out[i] }
    end
  end
  s:begin(rounds * #live * 2)
  for r = 1, rounds do
    s:set_step(string.format("measuring again, round %d/%d", r, rounds))
    for i, x in ipairs(live) do
      x.out.rounds[r] = measure_round(s, x.g, (r + i) % 2 == 0 and { "A", "B" } or { "B", "A" }, plan.times)
    end
  end
  s:set_step(nil)
  s:done()
  return out
end

return M
