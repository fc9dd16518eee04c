-- Unit tests of rot.describe: a point's description, what the cache key hashes, and the errors
-- of a description that is wrong.
-- judges no time
local t = require "tap"
local rot = require "rot"
local util = require "rot.util"

-- descriptions: what the cache key hashes
local describe = require "rot.describe"
local S = require("rot.session").current()
local d1 = describe.describe(S, { kernel = "triad", params = { n = 1024 }, flags = "-O3" })
local d2 = describe.describe(S, { flags = "-O3", params = { n = 1024 }, kernel = "triad" })
t.is(util.serialize(d1), util.serialize(d2), "same point, same description")
local d3 = describe.describe(S, { kernel = "triad", params = { n = 1024 }, flags = "-O3",
  macros = { STREAM_UNROLL = 4 } })
t.ok(util.serialize(d1) ~= util.serialize(d3), "a macro changes the description")
t.ok(d1.compiler:find("gcc") ~= nil, "the compiler and its version are part of it: " .. d1.compiler)
t.is(d1.policy.k, rot.get("bestK"), "the run policy is part of it")
t.raises(function() describe.describe(S, { kernel = "triadd" }) end, "did you mean 'triad'",
  "unknown kernel names the nearest")
t.raises(function() describe.describe(S, { kernel = "triad", macros = { NOPE = 1 } }) end,
  "no macro 'NOPE'", "unknown macro")
t.raises(function() describe.describe(S, { kernel = "triad", macros = { ["1X"] = 1 } }) end,
  "not a C identifier", "bad macro name")
t.raises(function() describe.describe(S, { kernel = "triad", macros = { STREAM_UNROLL = "2\n#error" } }) end,
  "newline", "macro value with newline")
t.raises(function() describe.describe(S, { kernel = "triad", flags = "-O2 `id`" }) end, "not an option",
  "flag that is not an option")
t.raises(function() describe.describe(S, { kernel = "triad", parms = {} }) end,
  "did you mean 'params'", "misspelled field")
t.raises(function() describe.describe(S, { kernel = "triad", params = { n = "big" } }) end, "must be a number",
  "non-numeric parameter")

t.done()
