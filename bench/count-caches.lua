-- count-caches: the cache hierarchy rot's counting pass simulates on this machine, as its
-- tool's option (SIZE:WAYS,...): what bench/count.sh hands the engine.
local caches = require "rot.count.caches"
local levels, line = caches.levels(require("rot.session").current())
print(caches.option(levels, line))
