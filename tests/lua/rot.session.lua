-- Unit tests of rot.session: where cores are built.
-- judges no time
local t = require "tap"
local sys = require "rot.sys"

-- where cores are built: the key buildDir, absolute or from the working directory, else build/core
local session = require "rot.session"
local function bconf(d) return { get = function(_, k) return ({ buildDir = d })[k] end } end
t.is(session.builddir("/h", bconf("")), "/h/build/core", "no buildDir: the checkout's build/core")
t.is(session.builddir("/h", bconf("/tmp/x/../b")), "/tmp/b", "an absolute buildDir, normalised")
t.is(session.builddir("/h", bconf("b/c")), sys.realpath(".") .. "/b/c", "a relative buildDir is taken from the working directory")

t.done()
