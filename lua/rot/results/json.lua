-- rot.results.json: a results object's JSON document, shaped like the Empirical Roofline
-- Toolkit's roofline.json, with rot's own points, levels and ceilings under "rot".
local session = require "rot.session"
local machine = require "rot.machine"
local format = require "rot.results.format"
local row = require "rot.results.row"
local protocol = require "rot.protocol"

local M = {}

-- The JSON's values of the fields that are not a row's field as it stands (by key).
local JSON_VALUE = {
  kernel = function(r) return r.desc and r.desc.workloads and r.desc.workloads[1].kernel end,
  flags = function(r) return r.desc and r.desc.flags end,
  nodeType = function(r) return r.nodeType ~= "" and r.nodeType or nil end,
  boundUnstable = function(r) return r.boundUnstable == true end,
  source = function(r) return format.origin(r) end,
  counters = function(r) return r.region and r.counters or nil end, -- an application's regions'
}

-- The row fields with a JSON key (rot.results.row), each {json=, key=, value=}.
local JSON_FIELDS = {}
for _, f in ipairs(row.fields) do
  if f.json then JSON_FIELDS[#JSON_FIELDS + 1] = { json = f.json, key = f.key, value = JSON_VALUE[f.key] } end
end

-- A row of the JSON document's points: every row field with a JSON key.
local function json_point(r)
  local p = {}
  for _, f in ipairs(JSON_FIELDS) do
    if f.value then p[f.json] = f.value(r) else p[f.json] = r[f.key] end
  end
  return p
end

-- The JSON document's description of its own fields: their units (the points' from
-- rot.results.row, the levels' and ceilings' here), and each point field's schema.
local UNITS = row.json_units({ value = "the ceiling's unit", effective = "B", reported = "B", triadGBs = "GB/s",
  clock_GHz = "GHz" })

-- The ceilings of a results object as the JSON's "ceilings": every stored field of each.
local function json_ceilings(c)
  local out = {}
  local streams = c.streams or { triad = c.bandwidth }
  for _, list in ipairs({ c.compute or {}, streams.triad or {}, streams.read or {}, streams.write or {} }) do
    for _, x in ipairs(list) do
      local r = x.row or {}
      out[#out + 1] = { name = r.name or x.name or x.label, kind = r.kind, threads = r.threads,
        value = r.value or x.gbs or x.gflops,
        unit = r.unit, spread = r.spread or x.spread, unstable = r.unstable == true,
          rounds = r.rounds, median = r.median,
        kernel = r.kernel, isa = r.isa, pinning = type(r.pinning) == "table" and r.pinning or nil,
        sizes = r.sizes, clock_GHz = r.clock, date = r.date }
    end
  end
  return out
end

--[[ The document of a results object (its rows bounded): the points, the ceilings and the machine
  in one document shaped like the Empirical Roofline Toolkit's roofline.json ("empirical":
  {"gbytes": {"data": [[level, GB/s], ...]}, "gflops": {"data": [[name, GFLOP/s], ...]},
  "metadata"}, "spec"), so tools that read ERT's ceilings read rot's; rot's own points, levels
  and ceilings (with their spreads and how each was obtained) are under "rot", with its version
  and units. ]]
function M.document(self)
  local c = self.peaks or { compute = {}, bandwidth = {}, levels = {} }
  local gbytes, gflops, points, levels = {}, {}, {}, {}
  for _, b in ipairs(c.bandwidth or {}) do gbytes[#gbytes + 1] = { b.level, b.gbs } end
  for _, x in ipairs(c.compute or {}) do gflops[#gflops + 1] = { x.name or x.label, x.gflops } end
  for _, r in ipairs(self.rows) do points[#points + 1] = json_point(r) end
  for _, l in ipairs(c.levels or {}) do
    levels[#levels + 1] = { name = l.name, effective = l.effective, reported = l.reported, triadGBs = l.gbs,
      spread = l.spread, unstable = l.unstable == true }
  end
  local fp = machine.fingerprint(session.current().config)
  local doc = {
    empirical = {
      gbytes = { data = gbytes, metadata = { THREADS = c.threads, KERNEL = "triad", SOURCE = "rot measure peaks" } },
      gflops = { data = gflops, metadata = { THREADS = c.threads, SOURCE = "rot measure peaks" } },
      metadata = { ROT_MACHINE = machine.id(fp), CPU = fp.cpu, PUS = fp.pus, OPENMP_THREADS = c.threads },
    },
    spec = { gbytes = { data = {} }, gflops = { data = {} } },
    rot = { version = protocol.json_version, units = UNITS, schema = row.json_schema(), points = points, levels =
    levels,
      machine = fp, axes = self.axes, ceilings = json_ceilings(c) },
  }
  return doc
end

return M
