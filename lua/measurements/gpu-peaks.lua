-- the GPU's ceilings, measured: fp64/fp32/fp16/int32 multiply-add, integer add, shared memory, L2, HBM,
-- and the cost of one more kernel launch (rot.peaks.gpu does the measuring)
local rot = require "rot"
local gpuceilings = require "rot.peaks.gpu"
local ceilings = require "rot.machine.ceilings"
local sys = require "rot.sys"

local out, shown, impossible, name = gpuceilings.measure(rot)
if #out == 0 then rot.fail("no GPU ceiling could be measured (see the errors above)") end
for _, l in ipairs(shown) do io.stdout:write(l, "\n") end
gpuceilings.warn_impossible(impossible)
local dir = rot.get("outputDir")
sys.mkdir(dir)
ceilings.write_csv(dir .. "/" .. rot.name() .. ".csv", out)
gpuceilings.store(rot, out, name)
