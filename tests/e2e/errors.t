#!/bin/sh
# Bad input gets a clear `rot: ...` error, a non-zero exit, and loses nothing.
# judges no time
. "$(dirname "$0")/lib.sh"

expect_error() { # expect_error NAME PATTERN ARGS...: fails with PATTERN on stderr
	name=$1 pattern=$2
	shift 2
	rot "$@" >"$T/o" 2>"$T/e"
	st=$?
	if [ $st -ne 0 ] && grep -q -e "$pattern" "$T/e"; then ok 0 "$name"; else
		ok 1 "$name (exit $st)"
		sed 's/^/#   /' "$T/e" | head -8
	fi
}

expect_error "unknown command names the nearest" "unknown command 'mesure'; did you mean 'measure'" mesure triad
expect_error "unknown measurement names the nearest" "unknown measurement 'triadd'; did you mean 'triad'" measure triadd
expect_error "missing script path" "no measurement script" measure ./nope.lua
touch "$T/solver"
expect_error "rot compare of a path to nothing: a script or a program, the nearest name in its folder" \
	"^rot: no measurement script or program '$T/solvr'; did you mean '$T/solver'?" compare "$T/solvr"
grep -q "^hint: rot compare takes a measurement (triad, study.lua) or a program rot profile ran (./solver)" "$T/e"
ok $? "and the hint says what rot compare takes"
expect_error "a thread count that is none: the value and what it takes, as every bad value" \
	"^rot: bad value '0' for -threads: a whole number of threads, 1 or more" profile -threads=0 -- ./x
expect_error "rot profile without a program" "^rot: profile needs a program to run" profile --
grep -q "^hint: rot profile -- ./myprogram ARG ... (its loops are found without markers" "$T/e"
ok $? "and the hint does not ask for markers a loop survey does without"
expect_error "rot history of a directory says so" "^rot: '$T' is a directory, not a measurement script or program" history "$T"
expect_error "unknown config key names the nearest" "did you mean 'runs'" measure triad -rnus=3
expect_error "bad config value" "expected an integer" measure triad -runs=lots
expect_error "a GNU-style option is said, never passed on to the script (a full sweep)" "bad option '--quick': options take one dash, -key=value; did you mean 'quick'" measure triad --quick
expect_error "a script argument that starts with - is refused as an option" "^rot: bad option '-O2 -fno-tree-vectorize': options are -key=value" measure triad "-O2 -fno-tree-vectorize"
grep -q "^hint: .* goes after --" "$T/e"
ok $? "and the hint says that such an argument goes after --"
expect_error "a mistyped option that stands alone: the nearest named" "^rot: bad option '-cont': options are -key=value; did you mean '-count'?" profile -cont -- ./x
mkdir -p "$XDG_CONFIG_HOME/rot"; printf "runs=3\nbestk=3\n" >"$XDG_CONFIG_HOME/rot/config"
expect_error "bad key in the user file names file, line, nearest key" "config:2).*did you mean 'bestK'" config
rm "$XDG_CONFIG_HOME/rot/config"

expect_error "a build directory make cannot name" "build directory '$T/a b' has a character make cannot take in a path (' ')" asm triad -buildDir="$T/a b"
expect_error "a toolkit path make would expand is refused" "cuda '/x\$(shell touch $T/pwn)' is not a plain program name or path" build triad -quick=true -cuda="/x\$(shell touch $T/pwn)"
test ! -e "$T/pwn"
ok $? "and nothing in it ran"
expect_error "a build directory holding the checkout" "build directory '$(dirname "$ROOT")' holds the checkout" asm triad -buildDir="$ROOT/.."

mkdir -p "$T/s/kernels"
w() { cat >"$T/s/$1"; }
w unknown_kernel.lua <<'L'
local rot = require "rot"
rot.measure(rot.space { rot.axis("n", { 1 }) }, function(p) return { kernel = "tirad" } end)
L
expect_error "unknown kernel names the nearest" "unknown kernel 'tirad'; did you mean 'triad'" measure "$T/s/unknown_kernel.lua"

w unknown_param.lua <<'L'
local rot = require "rot"
rot.measure(rot.space { rot.axis("n", { 1 }) }, function(p) return { kernel = "triad", params = { m = 5 } } end)
L
expect_error "unknown parameter names the kernel's parameters" "kernel 'triad' has no parameter 'm' (it has: n)" measure "$T/s/unknown_param.lua"

w bad_macro.lua <<'L'
local rot = require "rot"
rot.measure(rot.space { rot.axis("n", { 1 }) }, function(p) return { kernel = "triad", macros = { ["TRIAD UNROLL"] = 1 } } end)
L
expect_error "macro name that is not a C identifier" "is not a C identifier" measure "$T/s/bad_macro.lua"

w newline_macro.lua <<'L'
local rot = require "rot"
rot.measure(rot.space { rot.axis("n", { 1 }) }, function(p) return { kernel = "triad", macros = { STREAM_UNROLL = "1\n#error x" } } end)
L
expect_error "macro value with a newline" "contains a newline" measure "$T/s/newline_macro.lua"
w table_macro.lua <<'L'
local rot = require "rot"
rot.measure(rot.space { rot.axis("n", { 1 }) }, function(p) return { kernel = "triad", macros = { STREAM_UNROLL = { 4 } } } end)
L
w nan_param.lua <<'L'
local rot = require "rot"
rot.measure(rot.space { rot.axis("n", { 1 }) }, function(p) return { kernel = "triad", params = { n = 0/0 } } end)
L
expect_error "a NaN parameter is named, without a traceback" "^rot: kernel 'triad': parameter 'n' is NaN: it must be a finite number (nan_param.lua:2)" measure "$T/s/nan_param.lua"
w get_key.lua <<'L'
local rot = require "rot"
print(rot.get("bestk"))
L
expect_error "rot.get of an unknown key names the nearest, without a traceback" "^rot: unknown configuration key 'bestk'; did you mean 'bestK'? (get_key.lua:2)" run "$T/s/get_key.lua"
expect_error "a table as a macro value is refused before any build" "macro 'STREAM_UNROLL' has a table value: a macro's value is a number or a string" measure "$T/s/table_macro.lua"
! grep -rq "error x" "$ROOT/build/core/gen" 2>/dev/null
ok $? "the refused value was never written into a header"

w kernels/broken.c <<'L'
#include "kernel.h"
static int oops(void) { return undeclared_thing; }
L
w broken.lua <<'L'
local rot = require "rot"
rot.measure(rot.space { rot.axis("n", { 1 }) }, function(p) return { kernel = "broken" } end)
L
expect_error "compiler failure names the kernel and shows the compiler's error" "kernel 'broken'.*does not compile" measure "$T/s/broken.lua"
grep -q "undeclared_thing" "$T/e"
ok $? "the compiler's message is shown"
rm "$T/s/kernels/broken.c"

w lua_error.lua <<'L'
local rot = require "rot"
local x = nil
print(x.field)
L
expect_error "Lua error: file:line: message" "lua_error.lua:3: attempt to index" measure "$T/s/lua_error.lua"
grep -q "stack traceback" "$T/e"
ok $? "Lua error comes with a traceback"
head -n 1 "$T/e" | grep -q "^rot: .*lua_error.lua:3: attempt to index" && ! grep -q "points, cache:" "$T/o"
ok $? "said as rot's, and no closing summary: with no point described, it would read as an empty success"

# missing gnuplot: data files still written, the error says what to install
rot measure triad -quick=true -gnuplot=/nonexistent/gnuplot >"$T/o" 2>"$T/e"
st=$?
test $st -eq 2
ok $? "missing gnuplot: exit 2, a missing tool (exit $st)"
grep -q "^hint: sudo apt-get install gnuplot-nox" "$T/e"
ok $? "missing gnuplot: names the package to install"
test -s "$OUT/triad.csv" && test -s "$OUT/triad.dat" && test -s "$OUT/triad.gp"
ok $? "missing gnuplot: CSV, data and script still written"

rot measure triad -quick=true -compiler=nonexistent-cc >"$T/o" 2>"$T/e"
st=$?
test $st -eq 2 && grep -q "^rot: compiler 'nonexistent-cc' cannot be run" "$T/e" && grep -q "^hint: .*sudo apt-get install gcc" "$T/e"
ok $? "missing compiler: exit 2 with the line that installs one (exit $st)"

# unwritable output and cache directories
expect_error "unwritable output directory" "cannot write output directory '/proc/rot-out'" measure triad -quick=true -outputDir=/proc/rot-out
grep -q "^hint: set -outputDir" "$T/e" && ! grep -q "points, cache:" "$T/o"
ok $? "unwritable output directory: a hint at the setting, said before anything is measured"
echo "a file" >"$T/notadir"
"$ROOT/rot" measure triad -quick=true -cacheDir="$T/notadir" -outputDir="$OUT" >"$T/o" 2>"$T/e"
test $? -ne 0 && head -1 "$T/e" | grep -q "^rot: cache directory '$T/notadir' is not a directory" && ! grep -q "corrupted" "$T/e" && test "$(cat "$T/notadir")" = "a file"
ok $? "a cache directory that is a file: said first, in one line, the file untouched"
"$ROOT/rot" measure triad -quick=true -cacheDir="$T/notadir/x" -outputDir="$OUT" >"$T/o" 2>"$T/e"
test $? -eq 1 && test "$(grep -c '^rot: ' "$T/e")" -eq 1 &&
	grep -q "^rot: cannot write cache directory '$T/notadir/x': not a directory" "$T/e" &&
	grep -q "^hint: set -cacheDir" "$T/e" && ! grep -q "points\?, cache:" "$T/o"
ok $? "a cache directory under a file: one error with a hint, said before anything is looked up or measured"
"$ROOT/rot" build triad -quick=true -cacheDir="$T/notadir/x" >"$T/o" 2>"$T/e"
test $? -eq 1 && grep -q "^rot: cannot write cache directory '$T/notadir/x': not a directory" "$T/e"
ok $? "rot build says the same"
mkdir -p "$T/c2" && echo "a file" >"$T/c2/results"
rot measure triad -quick=true -cacheDir="$T/c2" >"$T/o" 2>"$T/e"
grep -q "cannot read cache entry '$T/c2/results/.*': not a directory" "$T/e" && ! grep -q "corrupted" "$T/e"
ok $? "a cache entry the system cannot read (ENOTDIR) is said so, never called corrupted"
"$ROOT/rot" measure triad -quick=true -cacheDir=/proc/rot-cache -outputDir="$OUT" -useCachedResults=false >"$T/o" 2>"$T/e"
ok $((1 - ($? != 0))) "unwritable cache directory: non-zero exit"
grep -q "cannot write cache directory '/proc/rot-cache'" "$T/e" && grep -q "^hint: set -cacheDir" "$T/e"
ok $? "unwritable cache directory: says which and hints at the setting"

# a failed point writes no cache entry
cat >"$T/s/kernels/crash.c" <<'L'
#include "kernel.h"
#include <stdlib.h>
static const struct rot_param params[] = {{NULL, 0, NULL}};
static void *init(const struct rot_args *a) { return malloc(1); }
static void run(void *s) { *(volatile int *)0 = 1; }
static void dispose(void *s) { free(s); }
static double zero(const struct rot_args *a) { return 0; }
static const struct rot_kernel crash = {.name = "crash", .params = params, .init = init, .run = run,
	.dispose = dispose, .flops = zero, .bytes = zero};
ROT_KERNEL(crash)
L
w crash.lua <<'L'
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("n", { 1 }) }, function(p) return { kernel = "crash" } end)
r:table()
L
rm -rf "$CACHE"
rot measure "$T/s/crash.lua" >"$T/o" 2>"$T/e"
ok $((1 - ($? != 0))) "a crashing kernel makes the run fail"
grep -q "kernel 'crash' crashed: Segmentation fault (signal 11) in thread [0-9]* at address (nil)" "$T/e"
ok $? "the crash report names kernel, signal, thread and address"
test -z "$(find "$CACHE/results" -type f 2>/dev/null)"
ok $? "no cache entry for the failed point"
contains "$T/o" "0 measured, 1 failed" "summary counts the failure"
done_testing
