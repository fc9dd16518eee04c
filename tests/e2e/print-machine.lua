-- Prints what rot.machine knows (tests/e2e/machines.t).
local m = require("rot").machine
local t = m.topology()
print(string.format("pus %d cores %d numa %d", t.pus, t.cores, t.numa_nodes))
for _, c in ipairs(m.caches()) do print(c.name .. " " .. c.size) end
print("id " .. m.id(m.fingerprint()))
print("peaks " .. require("rot.machine.ceilings").path("", m.fingerprint(), false):sub(2))
print(string.format("model %q", m.cpuinfo().model))
