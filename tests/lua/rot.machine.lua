-- Unit tests of rot.machine: the guest kernel's memory samplers (DAMON), read from a copy of
-- its sysfs and /proc, and the line rot measure peaks says of them (rot.peaks.report).
-- judges no time
local t = require "tap"
local sys = require "rot.sys"

-- the guest kernel's memory samplers (DAMON), on a copy of this host's kdamonds sysfs: one on,
-- one off
local damon = (os.getenv("ROT_TEST_TMP") or os.tmpname() .. ".d") .. "/kdamonds"
local function put(rel, text)
  sys.mkdir((damon .. "/" .. rel):match("^(.*)/[^/]+$"))
  sys.writefile(damon .. "/" .. rel, text .. "\n")
end
put("nr_kdamonds", "2")
put("0/state", "on")
put("0/contexts/0/operations", "paddr")
put("0/contexts/0/monitoring_attrs/intervals/sample_us", "500000")
put("0/contexts/0/schemes/0/action", "pageout")
put("1/state", "off")
put("1/contexts/0/operations", "vaddr")
-- and a /proc with a kdamond thread among others
local proc = damon:gsub("kdamonds$", "proc")
for pid, comm in pairs({ ["1"] = "init", ["77"] = "kdamond.0", ["80"] = "kworker/0:1" }) do
  sys.mkdir(proc .. "/" .. pid)
  sys.writefile(proc .. "/" .. pid .. "/comm", comm .. "\n")
end
local machine = require "rot.machine"
local smp = machine.samplers(damon, proc)
t.ok(#smp == 1 and smp[1].operations == "paddr" and smp[1].sample_ms == 500 and smp[1].action == "pageout",
  "the kdamond that is on is read, with its operations, sample interval and scheme; the one that is off is not")
local sampler_note = require("rot.peaks.report").sampler_note
local sn = sampler_note(smp, 2)
t.ok(sn and sn:find("runs DAMON (kdamond: paddr sampling every 500 ms, scheme pageout): at 2 threads (every CPU)",
  1, true),
  "rot measure peaks names it in one line, for the ceilings on every CPU: " .. tostring(sn))
t.is(sampler_note({}, 2), nil, "and says nothing where there is none")
t.is(#machine.samplers(damon .. "/none", proc .. "/none"), 0, "no DAMON sysfs and no kdamond thread: no sampler")
-- settings only root can read (state unreadable: here, absent): the kdamond threads, counted in /proc
os.remove(damon .. "/0/state")
smp = machine.samplers(damon, proc)
t.ok(#smp == 1 and not smp[1].operations, "settings it cannot read: the kdamond thread in /proc still counts")
sn = sampler_note(smp, 4)
t.ok(sn and sn:find("runs DAMON (kdamond: running; its settings need root to read): at 4 threads", 1, true),
  "and the line says what it could not read: " .. tostring(sn))

t.done()
