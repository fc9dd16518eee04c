#!/bin/sh
# rot build: every core each shipped CPU measurement needs in full builds here without measuring
# (quick ones are built and measured by measurements.t; the GPU ones: tests/e2e/build-gpu.t); a
# kernel that does not compile is named with its macro setting; nothing is written where
# results go.
. "$(dirname "$0")/lib.sh"

for m in $("$ROOT/rot" list --names | grep -v '^gpu-'); do
	built "$m" false
done
test -z "$(ls -A "$OUT")"
ok $? "rot build writes no table, CSV or plot into the output directory"
test -z "$(find "$CACHE/results" -type f 2>/dev/null)" && ! ls "$CACHE"/machines/*.csv >/dev/null 2>&1
ok $? "and measures nothing: no cache entry, no stored peaks"

# a user kernel that does not compile: its points fail with the compiler's words, the sweep goes on
mkdir -p "$T/study/kernels"
cat >"$T/study/kernels/broken.c" <<'EOF'
#include "kernel.h"
#include "macro/BROKEN_WIDTH.h"
static void run(void *s) { this is not C; }
EOF
cat >"$T/study/study.lua" <<'EOF'
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("k", { "broken", "triad" }) }, function(p)
  return { kernel = p.k, params = { n = 1000 }, macros = p.k == "broken" and { BROKEN_WIDTH = 4 } or nil }
end)
r:table()
EOF
rot build "$T/study/study.lua" >"$T/o" 2>"$T/e"
test $? -ne 0 && grep -q "^rot: kernel 'broken' (.*/kernels/broken.c) with macros BROKEN_WIDTH=4 and flags '-O2' does not compile:" "$T/e" &&
	grep -q "broken.c:3.*error" "$T/e"
ok $? "rot build names the kernel, its macro setting and flags, and shows the compiler's error"
contains "$T/o" "rot build: 1 core built, 1 failed" "and still builds the rest"
rot measure "$T/study/study.lua" >"$T/o" 2>"$T/e"
test $? -ne 0 && grep -q "kernel 'broken' .* does not compile" "$T/e"
ok $? "rot measure: the kernel that does not compile fails its own points"
contains "$T/o" "2 points, cache: 0 hits, 1 measured, 1 failed" "the sweep goes on, and the summary counts each point once"
done_testing
