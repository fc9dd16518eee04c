#!/bin/sh
# A cache that is never wrong and a driver that never gives up the user's data, tried as a new
# user would: a header beside the study that changes, a checkout that moves, bad values, a
# plot of a quantity that is not there, a kernel named like a shipped one, a script's own error,
# four rot started together, two runs of one sweep, paths with a space and an accent, clang.
# judges no time
. "$(dirname "$0")/lib.sh"
S="$T/study"
mkdir -p "$S/kernels/sub"
now() { date +%s.%N; }

# a kernel that includes a header beside the script (outside kernels/) and one in a subfolder
cat >"$S/work.h" <<'EOF'
#define WORK 1000
EOF
cat >"$S/kernels/sub/twice.h" <<'EOF'
#define TWICE(x) (2 * (x))
EOF
cat >"$S/kernels/spin.c" <<'EOF'
/* spin: WORK (from ../work.h) dependent steps per invocation */
#include "kernel.h"
#include "../work.h"
#include "sub/twice.h"
#include <stdlib.h>
static const struct rot_param params[] = {{"n", 1, "unused"}, {NULL, 0, NULL}};
static void *init(const struct rot_args *a) { return malloc(8); }
static void run(void *s)
{
	volatile double x = 1;
	for (long i = 0; i < TWICE(WORK); i++)
		x = x * 0.999 + 1e-9;
}
static void dispose(void *s) { free(s); }
static double one(const struct rot_args *a) { return TWICE(WORK); }
static const struct rot_kernel spin = {.name = "spin", .params = params, .init = init, .run = run,
	.dispose = dispose, .flops = one, .bytes = one};
ROT_KERNEL(spin)
EOF
cat >"$S/spin.lua" <<'EOF'
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("n", { 1 }) }, function() return { kernel = "spin" } end)
r:csv("spin", { bounds = false })
EOF
time_of() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "time_s") c = i } NR == 2 { print $c }' "$OUT/spin.csv"; }
rot measure "$S/spin.lua" >"$T/o" 2>"$T/e"
t1=$(time_of)
contains "$T/o" "0 hits, 1 measured" "a kernel including a header beside the study is measured"
rot measure "$S/spin.lua" >"$T/o" 2>"$T/e"
contains "$T/o" "1 hits, 0 measured" "and cached"
echo '#define WORK 100000' >"$S/work.h"
rot measure "$S/spin.lua" >"$T/o" 2>"$T/e"
t2=$(time_of)
contains "$T/o" "0 hits, 1 measured" "the header outside kernels/ changes the work 100x: the rerun measures again"
awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(b > 20 * a) }'
ok $? "and the time follows the work ($t1 s -> $t2 s), not the cache"
echo '#define TWICE(x) (3 * (x))' >"$S/kernels/sub/twice.h"
rot measure "$S/spin.lua" >"$T/o" 2>"$T/e"
contains "$T/o" "0 hits, 1 measured" "a header in a subfolder of kernels/ changes: measured again"

# a result no machine can produce is not cached: a kernel that declares a petabyte per call
stored=$("$ROOT/rot" run "$ROOT/tests/e2e/print-machine.lua" | sed -n 's/^peaks //p')
mkdir -p "$CACHE/machines"
cp "$ROOT/tests/fixtures/peaks.csv" "$CACHE/$stored"
sed -e 's/static double one(const struct rot_args \*a) { return TWICE(WORK); }/static double one(const struct rot_args *a) { return 1e15; }/' \
	-e 's/spin/liar/g' "$S/kernels/spin.c" >"$S/kernels/liar.c"
sed 's/spin/liar/g' "$S/spin.lua" >"$S/liar.lua"
rot measure "$S/liar.lua" >"$T/o" 2>"$T/e"
grep -q "failed: implausible result, not cached: .* GB/s is more than ten times this machine's fastest measured bandwidth" "$T/e"
ok $? "a result ten times beyond the machine's fastest ceiling is refused, with why"
! grep -rlq '"liar"' "$CACHE/results" 2>/dev/null
ok $? "and not cached"
rm "$S/kernels/liar.c" "$CACHE/$stored"

# rot cache clear NAME: only that measurement's entries
rot measure triad -quick=true >"$T/o" 2>&1
n0=$(find "$CACHE/results" -type f | wc -l)
rot cache clear spin >"$T/o" 2>&1
contains "$T/o" "removed 1 cache entry of 'spin'" "rot cache clear spin removes spin's entry"
test "$(find "$CACHE/results" -type f | wc -l)" -eq $((n0 - 1)) && test $n0 -eq 7
ok $? "and only that: triad's 6 stay"
rot cache clear triadd >"$T/o" 2>"$T/e"
test $? -ne 0 && grep -q "^rot: no cache entries of 'triadd' in '$CACHE'; did you mean 'triad'" "$T/e" && test "$(find "$CACHE/results" -type f | wc -l)" -eq 6
ok $? "a name with no entries is an error naming the nearest, and removes nothing"

# a moved (copied) checkout: the same keys and binaries, no measurement again
mkdir -p "$T/moved"
(cd "$ROOT" && git ls-files -z | xargs -0 cp --parents -t "$T/moved" 2>/dev/null; cp -r lua driver core Makefile rot tests kernels config "$T/moved/")
"$T/moved/rot" measure triad -quick=true -cacheDir="$CACHE" -outputDir="$OUT" -peaksFile="$ROOT/tests/fixtures/peaks.csv" >"$T/o" 2>&1
contains "$T/o" "cache: 6 hits, 0 measured" "a copy of the checkout elsewhere serves every point from the cache"
contains "$T/o" "build 0.00 s" "without building"
# ... and a user kernel beside a study keeps its hits when the checkout that measured it moves
"$T/moved/rot" measure "$S/spin.lua" -cacheDir="$CACHE" -outputDir="$OUT" >"$T/o" 2>&1
contains "$T/o" "cache: 0 hits, 1 measured" "the copy measures the study's user kernel"
mv "$T/moved" "$T/moved2"
"$T/moved2/rot" measure "$S/spin.lua" -cacheDir="$CACHE" -outputDir="$OUT" >"$T/o" 2>&1
contains "$T/o" "cache: 1 hits, 0 measured" "after mv of that checkout, the user kernel's point is a hit"

# every numeric key has a range, checked wherever the value comes from
for kv in bestK=0 bestEpsilon=nan timeout=0 timeout=-1 timeout=nan timeout=1e20 runs=0 maxRuns=0 minRunTime=-1 slurmNodes=0; do
	k=${kv%%=*}
	v=${kv#*=}
	rot measure triad -quick=true "-$kv" >"$T/o" 2>"$T/e"
	test $? -ne 0 && grep -q "^rot: bad value '$v' for '$k' (command line): " "$T/e"
	ok $? "-$kv is refused, naming the key, the value and why ($(head -n 1 "$T/e" | sed 's/.*: //'))"
done
printf 'bestK=0\n' >"$T/userconf"
rot measure triad -quick=true -userConfigFile="$T/userconf" >"$T/o" 2>"$T/e"
grep -q "^rot: bad value '0' for 'bestK' ($T/userconf:1): out of range: allowed 1 to 1000" "$T/e"
ok $? "in a configuration file too, with its line"
grep -q '^hint: `rot config` lists every key' "$T/e"
ok $? "and a hint line says where the keys and their ranges are listed"
printf 'fooBar=1\n' >"$T/userconf"
rot measure triad -quick=true -userConfigFile="$T/userconf" >"$T/o" 2>"$T/e"
grep -q "^rot: unknown configuration key 'fooBar' ($T/userconf:1)" "$T/e" && grep -q '^hint: `rot config` lists every key' "$T/e"
ok $? "an unknown key in a configuration file: its line, and the same hint"
cat >"$S/setk.lua" <<'EOF'
local rot = require "rot"
rot.set("bestK", 0)
EOF
rot measure "$S/setk.lua" >"$T/o" 2>"$T/e"
grep -q "^rot: bad value '0' for 'bestK' (script): out of range: allowed 1 to 1000 (setk.lua:2)" "$T/e"
ok $? "and from a script, with its line"

# an xy plot of a quantity the results do not have
cat >"$S/xy.lua" <<'EOF'
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("n", { 1 }) }, function() return { kernel = "spin" } end)
r:xy { name = "xy", x = "workingSet", y = "gflopz" }
EOF
rot measure "$S/xy.lua" >"$T/o" 2>"$T/e"
grep -q "^rot: xy plot 'xy': no row has the quantity 'gflopz'; did you mean 'gflops'?" "$T/e" && grep -q "^hint: quantities the rows have: .*gbs" "$T/e"
ok $? "an xy plot of a missing quantity names it and the ones that exist"

# point labels: a bad choice is refused; "none" and "ends" thin the labels the script asks for
cat >"$S/labels.lua" <<'EOF'
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("n", { 1 }) }, function() return { kernel = "spin" } end)
r:xy { name = "lab", x = "workingSet", y = "gbs", label = function() return "POINT" end, labels = arg[1] }
EOF
rot measure "$S/labels.lua" everything >"$T/o" 2>"$T/e"
grep -q "^rot: bad labels 'everything' for plot 'lab': auto, all, ends or none (labels.lua:3)" "$T/e"
ok $? "a bad labels= choice is refused with the choices and the script line"
rot measure "$S/labels.lua" all >"$T/o" 2>"$T/e" && grep -q '"POINT"' "$OUT/lab.gp"
ok $? "labels=all labels the point"
rot measure "$S/labels.lua" none >"$T/o" 2>"$T/e" && ! grep -q '"POINT"' "$OUT/lab.gp"
ok $? "labels=none does not"

# a user kernel named like a shipped one: said which is used
cp "$ROOT/kernels/cpu/triad.c" "$ROOT/kernels/cpu/stream.h" "$ROOT/kernels/cpu/tally.h" "$S/kernels/"
cat >"$S/mytriad.lua" <<'EOF'
local rot = require "rot"
rot.measure(rot.space { rot.axis("n", { 1000 }) }, function(p) return { kernel = "triad", params = { n = p.n } } end)
EOF
rot measure "$S/mytriad.lua" >"$T/o" 2>"$T/e"
grep -q "^rot: note: kernel 'triad' is $S/kernels/triad.c, which shadows $ROOT/kernels/cpu/triad.c" "$T/e"
ok $? "a kernel beside the script that shadows a shipped one is named"
(cd "$ROOT" && ./rot asm triad >"$T/o" 2>"$T/e") && ! grep -q "shadows" "$T/e"
ok $? "run from the checkout itself, the shipped kernels shadow nothing"
rm "$S/kernels/triad.c" "$S/kernels/stream.h" "$S/kernels/tally.h"

# errors name the user's line, not rot's library
cat >"$S/bad.lua" <<'EOF'
local rot = require "rot"
-- line 2
rot.measure(rot.space { rot.axis("n", { 1 }) }, function() return { kernel = "spin", params = { n = "many" } } end)
EOF
rot measure "$S/bad.lua" >"$T/o" 2>"$T/e"
grep -q "^rot: kernel 'spin': parameter 'n' must be a number (bad.lua:3)" "$T/e"
ok $? "a bad point names the script's line"
cat >"$S/bad2.lua" <<'EOF'
local rot = require "rot"
print(rot.util.bytes({}))
EOF
rot measure "$S/bad2.lua" >"$T/o" 2>"$T/e"
head -n 1 "$T/e" | grep -q "^rot: bad2.lua:2: in a call into rot: "
ok $? "a Lua error inside rot's library starts with the script's line"

# four rot started together in a fresh clone: one builds the driver, all run
F="$T/fresh"
mkdir -p "$F"
(cd "$ROOT" && git ls-files -z | xargs -0 cp --parents -t "$F" 2>/dev/null; cp -r lua driver core Makefile rot tests kernels config "$F/"; rm -rf "$F/build")
for i in 1 2 3 4; do
	"$F/rot" measure triad -quick=true -cacheDir="$T/c$i" -outputDir="$T/o$i" -peaksFile="$ROOT/tests/fixtures/peaks.csv" >"$T/p$i" 2>&1 &
done
wait
bad=""
for i in 1 2 3 4; do grep -q "cache: 0 hits, 6 measured, 0 failed" "$T/p$i" || bad="$bad $i"; done
test -z "$bad" && ! grep -q "Text file busy" "$T"/p?
ok $? "four rot started together in a fresh clone all succeed (no 'Text file busy')"
for i in $bad; do grep -v "^ " "$T/p$i" | tail -n 8 | sed "s/^/# rot $i of 4: /" >&2; done

# two runs of one sweep at once: the second waits for the first and uses its results
rm -rf "$T/share"
for i in 1 2; do
	rot measure triad -quick=true -cacheDir="$T/share" >"$T/q$i" 2>&1 &
done
wait
m=$(cat "$T/q1" "$T/q2" | sed -n 's/.* \([0-9]*\) measured.*/\1/p' | awk '{ s += $1 } END { print s }')
test "$m" -eq 6
ok $? "two runs of one sweep together measure each point once ($m measurements in all)"

# a checkout and a study whose paths hold a space and an accent
P="$T/rot sp é"
mkdir -p "$P"
cp -r "$F/." "$P/"
rm -rf "$P/build"
"$P/rot" measure triad -quick=true -cacheDir="$P/cache" -outputDir="$P/out" -peaksFile="$ROOT/tests/fixtures/peaks.csv" >"$T/o" 2>"$T/e"
ok $? "a checkout at a path with a space and an 'é' measures"
test -s "$P/out/triad.svg"
ok $? "and plots there"
mkdir -p "$T/my study é"
cp -r "$S/kernels" "$S/work.h" "$S/spin.lua" "$T/my study é/"
rot measure "$T/my study é/spin.lua" >"$T/o" 2>"$T/e"
ok $? "a study at such a path too"

# clang, the other compiler
if command -v clang >/dev/null 2>&1; then
	rot measure triad -quick=true -compiler=clang >"$T/o" 2>"$T/e"
	test $? -eq 0 && grep -q "cache: 0 hits, 6 measured" "$T/o"
	ok $? "-compiler=clang measures (its version is in the description: no gcc results reused)"
else
	echo "# clang is not installed: -compiler=clang not tried"
fi
done_testing
