-- broken.lua: the compiled-code checks of tests/e2e/build-gpu.t on kernels broken on purpose (kernels/
-- beside this script shadow the shipped ones): a precision leak, a dropped store, a spill.
-- Each must be caught with its own message. TAP output.
package.path = os.getenv("ROT_HOME") .. "/tests/lua/?.lua;" .. os.getenv("ROT_HOME")
  .. "/tests/gpu/?.lua;" .. package.path
local t = require "tap"
local ptxcheck = require "ptxcheck"

local cases = {
  { kernel = "gpu_triad", macros = { GSTREAM_TYPE = "float" }, want = "arithmetic in another precision than f32",
    what = "an unsuffixed 2.0 in a float kernel" },
  { kernel = "gpu_copy", want = "the work was eliminated", what = "a result that is never stored" },
  { kernel = "gpu_scale", want = "spills registers", what = "64 live accumulators in 32 registers" },
}
for _, c in ipairs(cases) do
  local ok, fails = ptxcheck.check { kernel = c.kernel, macros = c.macros or {}, flags = "-O3" }
  local found
  for _, f in ipairs(ok and fails or {}) do
    if f[1]:find(c.want, 1, true) then found = f[1] end
  end
  t.ok(found ~= nil, c.what .. " (" .. c.kernel .. "): caught" .. (found and (": " .. found) or
    (ok and (": not caught (" .. #fails .. " other problems)") or (": build failed: " .. tostring(fails)))))
end
t.done()
