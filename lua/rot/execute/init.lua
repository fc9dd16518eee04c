--[[ rot.execute: the executor interface, and its implementations. An executor is a
  module { name = "...", measures_here =, builds_only =, measure = function(session, items) ->
  rows }:

  - measures_here: true where it measures points on this machine, in this process (a later
    stage may run their programs again here: the counting pass); false where they are measured
    elsewhere (a cluster's nodes) or not at all.
  - builds_only: true where it builds the points' cores and measures nothing (rot build).

  - items: the points of one rot.measure, in order: { coord = the point's coordinates,
    spec = the table the script's builder returned }.
  - rows: one row per item (the Slurm executor: one per item and node type), in the same
    order, each described and looked up (rot.execute.lookup) and then exactly one of: a hit
    (row.cached, row.entry), measured (row.measured, row.entry; row.slurm when a cluster did
    it) or failed (row.failed = why, the first line what tables show).
  - It calls session:settle(row) once for every row it returns, as soon as the row's outcome
    is known (the summary and the progress line come from that), writes results only through
    rot.execute.outcome (plausibility, atomic cache writes, the failure policy), and keeps its
    own state to itself: no executor reads or writes another's.
  - It may answer cached(session, items): whether every item would be a hit, described and
    looked up as measure does, nothing built or measured (rot.cached; without it, never).
  - Work it starts outside this process (a Slurm job) ends with measure: an error or an
    interruption (SIGINT, SIGTERM, SIGHUP raise "interrupted by ...") leaving measure first
    ends that work, from a to-be-closed value, under rot.sys.shielded (so the interruption
    does not cut the ending short) and bounded in time; then the error goes on.

  local (this machine), slurm (a cluster, -executor=slurm) and build (build_only.lua: rot build, cores built,
  nothing measured). The CLI chooses one per run: M.choose. A fourth, alternate (rot compare
  -remeasure), measures pairs of points alternately and caches nothing: its measure takes a plan
  of pairs from its caller (rot.execute.alternate), not a script's items. ]]
local M = {}

M.executors = {
  ["local"] = require "rot.execute.local",
  slurm = require "rot.execute.slurm",
  build = require "rot.execute.build_only",
}

-- The executor of a run: `build` for rot build, else the executor key's (local or slurm).
function M.choose(config, build_only)
  return M.executors[build_only and "build" or config:get("executor")]
end

return M
