--[=[ rot.cli.history: `rot history NAME|PATH.lua` (every recorded run, newest first, with what
  changed from the run before) and `rot compare NAME|PATH.lua [A [B]] [-remeasure[=N]]
  [-minEffect=F] [-machine=ID,ID] [-failOn=slower|any]` (two runs side by side: table,
  summary, CSV, JSON, the compare roofline, and the CI gate). docs/compare-history.md. ]=]
local util = require "rot.util"
local session = require "rot.session"
local history = require "rot.history"
local changes = require "rot.history.changes"
local compare = require "rot.compare"
local rule = require "rot.compare.rule"
local output = require "rot.compare.output"

local M = {}

-- The records of a measurement (newest first) and their folder; resolve(cfg, what) finds the
-- script as `rot measure` does.
local function records_of(cfg, what, resolve)
  local path = resolve(cfg, what)
  local dir = history.dir(cfg:get("cacheDir"), session.current().home, path)
  local name = util.script_name(path)
  return history.list(dir), dir, name, path
end

-- Left-aligned columns, two spaces apart.
local function aligned(rows)
  local w = {}
  for _, r in ipairs(rows) do
    for j, v in ipairs(r) do w[j] = math.max(w[j] or 0, utf8.len(v) or #v) end
  end
  for _, r in ipairs(rows) do
    local parts = {}
    for j, v in ipairs(r) do
      parts[j] = j < #r and (v .. string.rep(" ", w[j] - (utf8.len(v) or #v))) or v
    end
    io.stdout:write(table.concat(parts, "  "), "\n")
  end
end

-- One run's line: id, when, points, machine, what changed from the run before (older).
local function history_line(r, older)
  local c = r.counts or {}
  local what
  if older then
    local ch = changes.changes(older, r)
    what = #ch > 0 and table.concat(ch, ", ") or "nothing changed"
  else
    what = "first run recorded"
  end
  if r.status and r.status ~= "complete" then what = "(" .. r.status .. ") " .. what end
  if r.git and r.git.dirty then what = what .. " [work tree dirty]" end
  return { tostring(r.id), tostring(r.date), string.format("%d (%d measured, %d hits, %d failed)", c.points or 0,
    c.measured or 0, c.hits or 0, c.failed or 0), table.concat(r.machines or { r.machine }, "+"), what }
end

-- rot history NAME|PATH.lua
function M.history(cfg, pos, resolve)
  if not pos[2] then util.fail("history needs a measurement name or script", "rot history triad") end
  if pos[3] then util.fail("history takes one measurement, not '" .. pos[3] .. "'", "rot history " .. pos[2]) end
  local records, dir, name, path = records_of(cfg, pos[2], resolve)
  if #records == 0 then
    io.stdout:write("rot: no runs of '", name, "' (", path, ") recorded yet in ", dir,
      "\n(each `rot measure ", name, "` records one; historyRuns keeps the last ", tostring(cfg:get("historyRuns")),
      " per machine)\n")
    return 0
  end
  io.stdout:write(string.format("rot history %s (%s): %d %s, newest first\n", name, path, #records,
    util.plural(#records, "run")))
  local rows = { { "id", "when", "points", "machine", "what changed from the run before" } }
  for i, r in ipairs(records) do rows[#rows + 1] = history_line(r, records[i + 1]) end
  aligned(rows)
  return 0
end

--[[ compare's own options: -failOn=slower|any, -machine=ID,ID, -remeasure[=N], -minEffect=F
  (parsed here, not configuration keys). Returns fail_on (or nil), machines ({a, b} or nil),
  rounds (or nil), min_effect. ]]
local function options(o)
  local fail_on = o.failOn
  if fail_on and fail_on ~= "slower" and fail_on ~= "any" then
    util.fail("bad value '" .. fail_on .. "' for -failOn: slower or any",
      "-failOn=slower fails when a point got slower by the rule that judged it; -failOn=any when any point changed")
  end
  local machines
  if o.machine then
    local a, b = o.machine:match("^([^,]+),([^,]+)$")
    if not a then
      util.fail("bad value '" .. o.machine .. "' for -machine: two machine ids, ID,ID",
        "`rot cache` lists machine ids; a Slurm node type's name works too")
    end
    machines = { a, b }
  end
  local rounds
  if o.remeasure then
    rounds = o.remeasure == "" and rule.ROUNDS or tonumber(o.remeasure)
    if math.type(rounds) ~= "integer" or rounds < 1 or rounds > 1000 then
      util.fail("bad value '" .. o.remeasure .. "' for -remeasure: a number of rounds from 1 to 1000",
        "-remeasure alone measures " .. rule.ROUNDS .. " rounds: their 99% interval still sees a 10% change with five "
          .. "rounds spoiled")
    end
  end
  local min_effect = rule.MIN_EFFECT
  if o.minEffect then
    min_effect = tonumber(o.minEffect)
    if not min_effect or min_effect < 0 or min_effect >= 1 then
      util.fail("bad value '" .. o.minEffect .. "' for -minEffect: a fraction from 0 to below 1",
        "-minEffect=0.02: a change of less than 2% is the same, even when it is significant")
    end
  end
  return fail_on, machines, rounds, min_effect
end

-- Every point of a record knows its machine (records leave it out where it is the run's).
local function fill_machines(r)
  for _, p in ipairs(r.points) do p.machine = p.machine or r.machine end
end

-- The configuration keys given on this command line (-cacheDir=..., the keys the runs are
-- found and measured again with), as options to copy into a hint.
local function given_keys(cfg)
  local out = {}
  for _, k in ipairs(cfg:keys()) do
    if k.origin == "command line" then out[#out + 1] = util.shell_word("-" .. k.name .. "=" .. tostring(k.value)) end
  end
  table.sort(out)
  return #out > 0 and (" " .. table.concat(out, " ")) or ""
end

-- The command that measures the two runs again (for a summary line's hint); none where no
-- inconclusive pair could be (runs on two machines, GPU points only).
local function remeasure_hint(cfg, typed, A, B, machines, matched)
  if machines then return nil end
  local unmeasurable = require("rot.compare.remeasure").unmeasurable
  for _, p in ipairs(matched) do
    if p.inconclusive and p.a and p.b and not unmeasurable(A.record, p.a) and not unmeasurable(B.record, p.b) then
      return "rot" .. given_keys(cfg) .. " compare " .. typed .. " " .. A.record.id .. " "
        .. B.record.id .. " -remeasure"
    end
  end
  return nil
end

-- The command that compares two runs that share points, where A and B timed none in common
-- (their threads differ: rot.compare.sharing_pair); false when no two runs share a point.
local function pair_hint(cfg, typed, records, A, B)
  local x, y = compare.sharing_pair(records, A.record, B.record)
  if not x then return false end
  return "rot" .. given_keys(cfg) .. " compare " .. typed .. " " .. x.id .. " " .. y.id
end

--[[ -remeasure: the points both runs timed measured again and judged from their rounds (what
  cannot be is said on stderr, once per reason, and keeps its verdict from the records).
  Returns the rounds, or nil when nothing could be measured again. ]]
local function remeasured(s, A, B, matched, rounds, min_effect, machines)
  local why = require("rot.compare.remeasure").refusal(s, A, B, machines ~= nil)
  if why then
    io.stderr:write("rot: compare: cannot measure again: ", why, "; the verdicts are judged from the records\n")
    return nil
  end
  local notes = require("rot.compare.remeasure").run(s, A, B, matched, rounds)
  for _, n in ipairs(notes) do io.stderr:write("rot: compare: note: ", n, "\n") end
  compare.rejudge(matched, min_effect)
  local said, any = {}, false
  for _, p in ipairs(matched) do
    any = any or p.remeasured ~= nil
    if p.not_remeasured and not said[p.not_remeasured] then
      said[p.not_remeasured] = true
      io.stderr:write("rot: compare: not measured again: ", p.not_remeasured, "; judged from the records\n")
    end
  end
  return any and rounds or nil
end

-- rot compare NAME|PATH.lua [A [B]] [-remeasure[=N]] [-minEffect=F] [-machine=ID,ID] [-failOn=slower|any]
function M.compare(cfg, pos, copts, resolve)
  if not pos[2] then
    util.fail("compare needs a measurement name or script", "rot compare triad, rot compare triad 3 5")
  end
  if pos[5] then util.fail("compare takes at most two run ids, not '" .. pos[5] .. "'", "rot help compare") end
  local fail_on, machines, rounds, min_effect = options(copts or {})
  if machines and pos[3] then
    util.fail("compare takes run ids or -machine=ID,ID, not both", "rot compare " .. pos[2] .. " -machine=ID,ID")
  end
  for i = 3, 4 do
    if pos[i] and not pos[i]:match("^%d+$") then
      util.fail("bad run id '" .. pos[i] .. "'", "run ids are the numbers `rot history " .. pos[2] .. "` prints")
    end
  end
  local records, _, name = records_of(cfg, pos[2], resolve)
  for _, r in ipairs(records) do fill_machines(r) end
  local A, B, with_machine = compare.choose(name, records, pos[3], pos[4], machines, pos[2])
  if A.note then io.stderr:write("rot: compare: ", A.note, "\n") end
  local matched = compare.match(A, B, with_machine, { est = rule.history(records, history.machine_of),
    min_effect = min_effect })
  local threads = compare.thread_note(matched)
  if threads then io.stderr:write("rot: compare: note: ", threads, "\n") end
  local s = session.current()
  if rounds then rounds = remeasured(s, A, B, matched, rounds, min_effect, machines) end
  local summary = compare.summary(matched)
  local axes, varying = output.axes(A, B), output.varying(matched)
  local apps = false
  for _, p in ipairs(matched) do apps = apps or ((p.a or p.b).point or {}).region ~= nil end
  local o = { min_effect = min_effect, rounds = rounds, default_band = rule.DEFAULT_BAND, apps = apps,
    eps = math.max(A.record.bestEpsilon or 0, B.record.bestEpsilon or 0),
    hint = not rounds and remeasure_hint(cfg, pos[2], A, B, machines, matched) or nil,
    pair = not summary.speedup and not machines and pair_hint(cfg, pos[2], records, A, B) or nil }
  output.print(name, A, B, matched, summary, axes, machines ~= nil, o)
  local dir = s:outdir()
  output.write(dir, name, A, B, matched, summary, axes, machines ~= nil, o)
  local svg = require("rot.compare.plot").plot { name = name .. "-compare", dir = dir, gnuplot = cfg:get("gnuplot"),
    pdf = cfg:get("pdf"), title = name .. ": " .. A.label .. " -> " .. B.label .. " (arrows from A to B)", A = A, B = B,
    pairs = matched, ceilings = B.record.ceilings or A.record.ceilings,
    coords = function(p) return output.coords(p, axes) end, label_coords = function(p)
      return output.coords_of(p, axes, varying)
    end }
  io.stdout:write("rot compare: wrote ", name, "-compare.csv, ", name, "-compare.json",
    svg and (", " .. name .. "-compare.svg and .png") or "", " in ", dir, "\n")
  if not fail_on then return 0 end
  local bad = compare.offending(matched, fail_on)
  output.gate(bad, axes, fail_on)
  output.undecided(matched, fail_on, o.hint)
  return #bad > 0 and 1 or 0
end

return M
