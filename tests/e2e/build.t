#!/bin/sh
# rot build: every core each shipped CPU measurement needs in full builds here without measuring
# (quick ones are built and measured by measurements.t; the GPU ones: tests/e2e/build-gpu.t); a
# kernel that does not compile is named with its macro setting; nothing is written where
# results go.
# judges no time
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

# what rot build checks is the points' description: a mistake in one fails; a script that
# stops on an unmeasured value (nil) after describing its points is a note, not a failure
# (sizes no test here measured: in the cache, a point has values)
cat >"$T/study/unknown.lua" <<'EOF'
local rot = require "rot"
rot.measure(rot.space { rot.axis("n", { 1000 }) }, function(p) return { kernel = "triadd", params = { n = p.n } } end)
EOF
rot build "$T/study/unknown.lua" >"$T/o" 2>"$T/e"
test $? -eq 1 && grep -q "^rot: unknown kernel 'triadd'" "$T/e" && ! grep -q "stopped before its end" "$T/e"
ok $? "rot build fails on an unknown kernel (exit 1), as rot measure does"
cat >"$T/study/typo.lua" <<'EOF'
local rot = require "rot"
rot.measure(rot.space { rot.axis("n", { 1000 }) }, function(p) return { kernel = "triad", params = { n = p.size * 3 } } end)
EOF
rot build "$T/study/typo.lua" >"$T/o" 2>"$T/e"
test $? -eq 1 && grep -q "typo.lua:2: attempt to perform arithmetic on a nil value (field 'size')" "$T/e"
ok $? "and on a Lua error in the function that describes the points"
printf 'local rot = require "rot"\nlocal x = = 1\n' >"$T/study/syntax.lua"
rot build "$T/study/syntax.lua" >"$T/o" 2>"$T/e"
test $? -eq 1 && grep -q "syntax.lua:2: unexpected symbol near '='" "$T/e" && ! grep -q "stopped before its end" "$T/e"
ok $? "and on a script that does not load (a syntax error)"
printf 'local rot = require "rot"\nrot.measure({ rot.axis("n", { 1 }) }, function(p) return { kernel = "triad" } end)\n' >"$T/study/plain.lua"
rot build "$T/study/plain.lua" >"$T/o" 2>"$T/e"
test $? -eq 1 && grep -q "plain.lua:2: measure: first argument must be a rot.space" "$T/e"
ok $? "and on a wrong argument to rot.measure"
cat >"$T/study/param.lua" <<'EOF'
local rot = require "rot"
rot.measure(rot.space { rot.axis("n", { 1000 }) }, function(p) return { kernel = "triad", params = { m = p.n } } end)
EOF
rot build "$T/study/param.lua" >"$T/o" 2>"$T/e"
test $? -eq 1 && grep -q "^rot: kernel 'triad' has no parameter 'm' (it has: n)" "$T/e" && ! grep -q "stopped before its end" "$T/e"
ok $? "and on a parameter the kernel does not have (exit 1), as rot measure does"
# a value the kernel's init would refuse (its check): that point fails, the others are planned
cat >"$T/study/range.lua" <<'EOF'
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("n", { 1200, -5, 1000.5 }) }, function(p)
  return { kernel = "triad", params = { n = p.n } }
end)
r:table()
EOF
rot build "$T/study/range.lua" >"$T/o" 2>"$T/e"
test $? -eq 1 && grep -q "^rot: point 'n=-5' failed: triad: n must be a whole number from 1 to [0-9]* elements, not -5$" "$T/e" &&
	grep -q "^rot: point 'n=1000.5' failed: triad: n must be a whole number from 1 to [0-9]* elements, not 1000.5$" "$T/e"
ok $? "rot build fails the points whose values the kernel refuses (a negative size, a fraction), each with the kernel's words"
grep -q '^1200 .* planned$' "$T/o" && grep -q '^-5 .* FAILED$' "$T/o" && grep -q '^1000.5 .* FAILED$' "$T/o"
ok $? "its table: the good point planned, the two others FAILED"
contains "$T/o" "^rot build: 1 core built, 0 failed; 3 points described, 2 with parameters their kernel refuses; time:" \
	"and the summary counts them"
# several workloads a point: the refusal of its second is its own, not the next point's
cat >"$T/study/multi.lua" <<'EOF'
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("m", { 1100, -7, 1300 }) }, function(p)
  return { workloads = { { kernel = "triad", params = { n = 1000 } }, { kernel = "triad", params = { n = p.m } } } }
end)
r:table()
EOF
rot build "$T/study/multi.lua" >"$T/o" 2>"$T/e"
test $? -eq 1 && grep -q "^rot: point 'm=-7' failed: triad: n must be a whole number from 1 to [0-9]* elements, not -7$" "$T/e" &&
	test "$(grep -c 'failed:' "$T/e")" -eq 1 && grep -q '^1100 .* planned$' "$T/o" && grep -q '^-7 .* FAILED$' "$T/o" &&
	grep -q '^1300 .* planned$' "$T/o"
ok $? "a point of two workloads fails on its second's value; the points around it stay planned"
# a check that crashes (a kernel built for another CPU would, with SIGILL): the build goes on,
# its points planned unchecked, and a note says so
cat >"$T/study/kernels/crashy.c" <<'EOF'
#include "kernel.h"
#include <signal.h>
#include <stdlib.h>
static const struct rot_param params[] = {{"n", 1, "unused"}, {NULL, 0, NULL}};
static void *init(const struct rot_args *a) { return malloc(1); }
static void run(void *s) {}
static void dispose(void *s) { free(s); }
static double zero(const struct rot_args *a) { return 0; }
static int check(const struct rot_args *a) { raise(SIGSEGV); return 0; }
static const struct rot_kernel crashy = {.name = "crashy", .params = params, .init = init, .run = run,
	.dispose = dispose, .flops = zero, .bytes = zero, .check = check};
ROT_KERNEL(crashy)
EOF
cat >"$T/study/crashy.lua" <<'EOF'
local rot = require "rot"
rot.measure(rot.space { rot.axis("n", { 2, 3 }) }, function(p) return { kernel = "crashy", params = { n = p.n } } end):table()
EOF
rot build "$T/study/crashy.lua" >"$T/o" 2>"$T/e"
test $? -eq 0 && grep -q "^rot: note: the core of kernel 'crashy' could not check its points' parameters (exit status [0-9]*): they are planned unchecked" "$T/e" &&
	test "$(grep -c ' planned$' "$T/o")" -eq 2
ok $? "a check that crashes: a note, the points planned unchecked, exit 0"
cat >"$T/study/uses.lua" <<'EOF'
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("n", { 3000, 5000 }) }, function(p) return { kernel = "triad", params = { n = p.n } } end)
r:table()
print(r.rows[1].gbs * 2)
EOF
rot build "$T/study/uses.lua" >"$T/o" 2>"$T/e"
test $? -eq 0 && grep -q "^rot: note: the script stopped before its end .*uses.lua:4: attempt to perform arithmetic" "$T/e"
ok $? "a script that stops on a value only a measurement gives: a note, exit 0"
test "$(grep -c ' planned$' "$T/o")" -eq 2 && ! grep -q FAILED "$T/o"
ok $? "its table shows the points as planned (built, not run), not FAILED"
contains "$T/o" "^rot build: 1 core built, 0 failed; 2 points described; time:" "the summary counts the script's points"
# with no stored peaks, the table's ceilings are looked up as points of their own (the peaks cores
# are built as well): counted apart
"$ROOT/rot" -cacheDir="$CACHE" -outputDir="$OUT" build "$T/study/uses.lua" >"$T/o" 2>"$T/e"
contains "$T/o" "^rot build: [0-9]* cores built, 0 failed; 2 points described; the machine's ceilings: [0-9]* points; time:" \
	"and the ceilings' points apart from them"
test "$(grep -c "^rot: building the cores of this machine's peaks too" "$T/e")" -eq 1 && ! grep -q "measuring this machine's peaks\|^rot: peaks:" "$T/e"
ok $? "said once, with no claim that they are measured and no note on ceilings nothing measured"
done_testing
