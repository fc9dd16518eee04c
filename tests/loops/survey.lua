--[[ survey.lua: the loop survey's pieces put together for tests/e2e/loops.t, through rot run:
  rot run survey.lua loops OUT PROGRAM: the counting tool's loops (OUT: rotcount --rot-loops=yes's
    output) in PROGRAM's file, each a line "loop FILE:LINE depth=D fn=NAME flops=F entries=E
    iterations=I" (its line: its latch's, the `for`'s; fn: the innermost function there, the
    inlined one where inlined), then "sum OK|DIFF" (loops, functions and unknown code against the
    program's counts), "unknown FLOPS BYTES" and "functions N";
  rot run survey.lua traffic OUT PROGRAM CG: each innermost loop's simulated traffic against
    cachegrind's (CG: its output file) over the loop's source lines, "traffic FILE:LINE l1=N
    cg_l1=N ll=N cg_ll=N" a line (see traffic below);
  rot run survey.lua shares RECORDS: one point's records as a core wrote them, read as the
    driver reads them (rot.records: the sampled invocation's records in .samples), each
    function's share of the samples in percent, "share NAME PCT" a line, most first, then
    "unknown N" (samples in code of no file) and "object ID PATH" lines of the files named. ]]
local engine = require "rot.count.engine"
local symbols = require "rot.symbols"
local sys = require "rot.sys"
local util = require "rot.util"

local mode, path, program = ...
local st <close> = symbols.open()

local FLOPS = { "fp32_scalar", "fp32_128", "fp32_256", "fp64_scalar", "fp64_128", "fp64_256" }
local function flops(c)
  local f = 0
  for _, k in ipairs(FLOPS) do f = f + (c[k] or 0) end
  return f
end

local function loops()
  local text = assert(sys.readfile(path), "no output " .. path)
  local l = assert(engine.loops(text), "no loops in " .. path)
  local p = engine.parse(text).program
  for _, x in ipairs(l.loops) do
    local file = l.objects[x.obj]
    if file == program then
      local w = assert(st:lookup(file, x.latches[1]))
      local fn = w.inlined[1] and w.inlined[1].func or w.func or w.name
      io.write(string.format("loop %s:%s depth=%d fn=%s flops=%d entries=%d iterations=%d\n",
        w.file and util.basename(w.file) or w.object, w.line or string.format("0x%x", x.latches[1]), x.depth, fn,
        flops(x), x.entries, x.iterations))
    end
  end
  local diff = {}
  for k, v in pairs(p) do
    if k ~= "threads" then
      local s = (l.unknown or {})[k] or 0
      for _, x in ipairs(l.loops) do s = s + x[k] end
      for _, x in ipairs(l.functions) do s = s + x[k] end
      if s ~= v then diff[#diff + 1] = k .. ":" .. s .. "/" .. v end
    end
  end
  io.write("sum ", #diff == 0 and "OK" or ("DIFF " .. table.concat(diff, " ")), "\n")
  io.write(string.format("unknown %d %d\n", l.unknown and flops(l.unknown) or 0, l.unknown and l.unknown.loaded or 0))
  io.write("functions ", #l.functions, "\n")
end

-- Each region's part of the loops: "part REGION FILE:LINE flops=F iterations=I" a loop that ran in
-- it (in PROGRAM's file), then "region NAME OK|DIFF": its parts (loops, functions, unknown code)
-- against its counts.
local function parts()
  local text = assert(sys.readfile(path), "no output " .. path)
  local l = assert(engine.loops(text), "no loops in " .. path)
  local sums = {}
  local function add(region, c)
    sums[region] = sums[region] or {}
    for k, v in pairs(c) do
      if type(v) == "number" then sums[region][k] = (sums[region][k] or 0) + v end
    end
  end
  for _, x in ipairs(l.loops) do
    for _, q in ipairs(x.parts or {}) do
      add(q.region, q)
      if l.objects[x.obj] == program then
        local w = assert(st:lookup(l.objects[x.obj], x.latches[1]))
        io.write(string.format("part %s %s:%s flops=%d iterations=%d\n", q.region, util.basename(w.file or "?"),
          w.line or "?", flops(q), q.iterations))
      end
    end
  end
  for _, f in ipairs(l.functions) do for _, q in ipairs(f.parts or {}) do add(q.region, q) end end
  for _, q in ipairs(l.unknown and l.unknown.parts or {}) do add(q.region, q) end
  local p = engine.parse(text)
  for _, name in ipairs(p.order) do
    local diff = {}
    for k, v in pairs(p.regions[name]) do
      if type(v) == "number" and not ({ calls = 1, threads = 1, whole_process = 1 })[k] and
        ((sums[name] or {})[k] or 0) ~= v then
        diff[#diff + 1] = k .. ":" .. ((sums[name] or {})[k] or 0) .. "/" .. v
      end
    end
    io.write("region ", name, " ", #diff == 0 and "OK" or ("DIFF " .. table.concat(diff, " ")), "\n")
  end
end

--[[ Each innermost loop's simulated traffic in PROGRAM's file against cachegrind's (CG: its
  cachegrind.out file, --cache-sim=yes with the same D1 and LL): "traffic FILE:LINE l1=LINES
  cg_l1=MISSES ll=LINES cg_ll=MISSES" a loop with data traffic, where l1 and ll are the lines
  rot's tool filled into its first and second level (fill1 and fill2 over the line size) and
  cg_l1 and cg_ll cachegrind's data misses there (D1mr + D1mw, DLmr + DLmw) summed over the
  source lines of the loop's range (every byte of it looked up). ]]
local function traffic(cg)
  local text = assert(sys.readfile(path), "no output " .. path)
  local l = assert(engine.loops(text), "no loops in " .. path)
  local line_size = engine.parse(text).line
  local by_line, file, ev = {}, nil, nil -- "FILE:LINE" -> {d1=, ll=} of cachegrind's
  for row in assert(sys.readfile(cg), "no cachegrind output " .. cg):gmatch("[^\n]+") do
    if row:match("^events:") then
      ev = {}
      for name in row:gsub("^events:%s*", ""):gmatch("%S+") do ev[#ev + 1] = name end
    elseif row:match("^fl=") then
      file = util.basename(row:sub(4))
    elseif row:match("^%d") and file and ev then
      local v, i = {}, 0
      for x in row:gmatch("%d+") do
        v[ev[i] or "line"], i = tonumber(x), i + 1
      end
      local k = file .. ":" .. v.line
      local c = by_line[k] or { d1 = 0, ll = 0 }
      c.d1, c.ll = c.d1 + (v.D1mr or 0) + (v.D1mw or 0), c.ll + (v.DLmr or 0) + (v.DLmw or 0)
      by_line[k] = c
    end
  end
  local parent = {}
  for _, x in ipairs(l.loops) do parent[x.parent] = true end
  for _, x in ipairs(l.loops) do
    if l.objects[x.obj] == program and not parent[x.id] and (x.fill1 or 0) > 0 then
      local lines, d1, ll = {}, 0, 0
      for off = x.head, x["end"] - 1 do
        local w = st:lookup(program, off)
        if w and w.file and w.line then lines[util.basename(w.file) .. ":" .. w.line] = true end
      end
      for k in pairs(lines) do
        d1, ll = d1 + (by_line[k] or { d1 = 0 }).d1, ll + (by_line[k] or { ll = 0 }).ll
      end
      local w = assert(st:lookup(program, x.latches[1]))
      io.write(string.format("traffic %s:%s l1=%d cg_l1=%d ll=%d cg_ll=%d\n", util.basename(w.file or "?"),
        w.line or "?", x.fill1 // line_size, d1, (x.fill2 or 0) // line_size, ll))
    end
  end
end

local function shares()
  local text = assert(sys.readfile(path), "no records " .. path)
  local body = text:gsub("^begin [^\n]*\n", ""):gsub("end %S+\n$", "")
  local res = assert(require("rot.records").parse(body))
  local objects, by, total, unknown = {}, {}, 0, 0
  for _, r in ipairs(res.samples or {}) do
    if r.record == "object" then
      objects[r.id] = util.unescape_token(tostring(r.path))
    elseif r.record == "sample" then
      local name = r.obj == 0 and "[unknown]" or r.obj == 1 and "[kernel]"
      if not name then
        local w = st:lookup(objects[r.obj], tonumber(r.off))
        name = w and (w.func and (w.shared and w.name or w.func) or w.name) or "?"
      end
      by[name] = (by[name] or 0) + r.n
      total = total + r.n
      if r.obj == 0 then unknown = unknown + r.n end
    end
  end
  local names = util.sorted_keys(by)
  table.sort(names, function(a, b) return by[a] > by[b] end)
  for _, k in ipairs(names) do io.write(string.format("share %s %.2f\n", k, 100 * by[k] / total)) end
  io.write("unknown ", unknown, "\n")
  for id, f in pairs(objects) do io.write("object ", id, " ", f, "\n") end
end

if mode == "loops" then loops() elseif mode == "parts" then parts() elseif mode == "shares" then shares()
elseif mode == "traffic" then traffic(select(4, ...)) else error("mode: loops, parts, traffic or shares") end
