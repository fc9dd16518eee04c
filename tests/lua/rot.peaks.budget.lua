-- Unit tests of rot.peaks.budget: the peaks' timer (the time each point took when it was
-- measured) and a batch's guessed time.
-- judges no time
local t = require "tap"

local MiB = 1024 * 1024

-- extra rounds only within the peaks' time budget, on the peaks' timer: the time each point
-- took when it was measured (its entry's pointSeconds), now or before it was cached
local budget = require "rot.peaks.budget"
local tm = budget.timer()
tm.count({ { cached = true, entry = { meta = { pointSeconds = 30 } } },
  { entry = { meta = { pointSeconds = "12.5" } } },
  { error = "failed" } })
t.is(tm.now(), 42.5, "the peaks' timer: a point from the cache that took 30 s and one measured now in 12.5 s (a failed "
  .. "one counts nothing)")
tm.count({ { cached = true, entry = { meta = {}, runs = { { ns = 1e9 }, { ns = 2e9 }, { ns = 3e9 } } } } })
t.ok(math.abs(tm.now() - 42.5 - 8.005) < 1e-9, "a point cached before pointSeconds was recorded counts its runs, its "
  .. "warm-up and a point's least start (8.005 s for runs of 1, 2 and 3 s), not nothing: " .. tm.now() - 42.5)

-- a batch's guessed time counts faulting its arrays in, as fast as the last large batch did:
-- a round at 4 GiB took 29 s on this VM where the old guess said 6
local big = { samples = { [1] = { {}, {}, {} } } }
budget.learn(big, { { stream = 3, threads = 1, ws = 4096 * MiB }, { stream = 3, threads = 1, ws = 4096 * MiB },
  { stream = 1, threads = 1, ws = 4096 * MiB } }, 20.015, 4)
budget.learn(big, { { stream = 3, threads = 1, ws = 4096 } }, 0.02, 0.001)
local g = budget.guess(big, { { stream = 3, threads = 1, ws = 4096 * MiB }, { stream = 3, threads = 1, ws = 4096 } })
t.ok(math.abs(g - (8 + 2 * 0.019)) < 1e-4, string.format(
  "a batch at 4 GiB guessed with the seconds its arrays take to fault in (8 s at 2 s a GiB), small points "
    .. "at their own cost: %.3f s", g))

t.done()
