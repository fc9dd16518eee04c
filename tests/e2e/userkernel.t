#!/bin/sh
# A user's own kernel beside their script: compiled into the core with its macros and flags;
# a macro change recompiles only what depends on it; switching back is a ccache hit.
. "$(dirname "$0")/lib.sh"

S="$T/study"
mkdir -p "$S/kernels"
cat >"$S/kernels/scale.c" <<'K'
/* scale: a[i] = f * b[i], f set by the macro SCALE_FACTOR */
#include "kernel.h"
#include <stdlib.h>
#include "macro/SCALE_FACTOR.h"
#ifndef SCALE_FACTOR
#define SCALE_FACTOR 1.0
#endif
struct st { double *a, *b; size_t n; };
static const struct rot_param params[] = {{"n", 1000, "elements"}, {NULL, 0, NULL}};
static void *init(const struct rot_args *a)
{
	struct st *s = malloc(sizeof *s);
	s->n = (size_t)rot_arg(a, "n");
	s->a = rot_alloc(s->n * 8);
	s->b = rot_alloc(s->n * 8);
	return s;
}
static void run(void *p)
{
	struct st *s = p;
	for (size_t i = 0; i < s->n; i++)
		s->a[i] = SCALE_FACTOR * s->b[i];
}
static void dispose(void *p) { struct st *s = p; free(s->a); free(s->b); free(s); }
static double flops(const struct rot_args *a) { return rot_arg(a, "n"); }
static double bytes(const struct rot_args *a) { return 16 * rot_arg(a, "n"); }
static const struct rot_kernel scale = {.name = "scale", .description = "a = f*b", .params = params,
	.init = init, .run = run, .dispose = dispose, .flops = flops, .bytes = bytes};
ROT_KERNEL(scale)
K
cat >"$S/study.lua" <<'L'
-- my scale study
local rot = require "rot"
local factor = arg[1] or "2.0"
local r = rot.measure(rot.space { rot.axis("n", { 4096 }) }, function(p)
  return { kernel = "scale", params = { n = p.n }, flags = arg[2] and ("-" .. arg[2]) or "-O2", macros = { SCALE_FACTOR = factor } }
end)
r:table()
r:csv("study")
L

rot measure "$S/study.lua" 2.0 >"$T/o1" 2>&1
ok $? "a user kernel beside the script is built and measured"
contains "$T/o1" "1 measured" "its point is measured"
awk -F, 'NR==2 { exit !($7 == 4096 && $8 == 65536) }' "$OUT/study.csv"
ok $? "its declared flops (n) and bytes (16n) reach the CSV"
grep -q "#define SCALE_FACTOR 2.0" "$ROOT/build/core/gen/macro/SCALE_FACTOR.h"
ok $? "the macro went into its own generated header"

B="$ROOT/build/core"
stamp() { stat -c '%n %Y.%y' "$B"/obj/*.o "$B"/kernels/scale-*.o "$B/gen/kernel.flags" 2>/dev/null | sort; }
stamp >"$T/s1"
sleep 1
rot measure "$S/study.lua" 3.0 >"$T/o2" 2>&1
contains "$T/o2" "1 measured" "a new macro value is a new measurement"
stamp >"$T/s2"
diff "$T/s1" "$T/s2" | grep '^>' | grep -q 'kernels/scale-'
ok $? "the kernel object was recompiled"
! diff "$T/s1" "$T/s2" | grep '^>' | grep -q '/obj/'
ok $? "no core object was recompiled for a macro change"
! diff "$T/s1" "$T/s2" | grep '^>' | grep -q 'kernel.flags'
ok $? "the flags file was not rewritten (flags unchanged)"

rot measure "$S/study.lua" 3.0 O3 >"$T/o3" 2>&1
contains "$T/o3" "1 measured" "a new flag is a new measurement"
grep -q "^-O3" "$B/gen/kernel.flags"
ok $? "the flags went into the flags file"

# switching back to an earlier configuration: the result is cached; a forced rebuild is a ccache hit
rot measure "$S/study.lua" 2.0 >"$T/o4" 2>&1
contains "$T/o4" "1 hits, 0 measured" "back to the first macro value: cached"
hits() { ccache --print-stats 2>/dev/null | awk '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { s += $2 } END { print s + 0 }'; }
h1=$(hits)
rot measure "$S/study.lua" 2.0 -useCachedResults=false >"$T/o5" 2>&1
h2=$(hits)
test "$h2" -gt "$h1"
ok $? "rebuilding an earlier configuration hits ccache ($h1 -> $h2)"

# the description includes the macro: different values never share a cache entry
test "$(find "$CACHE/results" -type f | wc -l)" -eq 3
ok $? "three configurations, three cache entries"

# a kernel that declares more bytes written than it moves: its point fails, saying so
sed -e 's/static const struct rot_kernel scale = {/static double over(const struct rot_args *a) { return 32 * rot_arg(a, "n"); }\
static const struct rot_kernel scale = {.written = over,/' "$S/kernels/scale.c" >"$T/over.c"
mkdir -p "$T/over/kernels" && cp "$T/over.c" "$T/over/kernels/scale.c" && cp "$S/study.lua" "$T/over/study.lua"
rot measure "$T/over/study.lua" 2.0 >"$T/o6" 2>&1
test $? -ne 0 && grep -q "kernel 'scale' declares 131072 bytes written of 65536: its written bytes must be from 0 to its bytes" "$T/o6"
ok $? "written bytes beyond the kernel's bytes: the point fails with both figures"

# The docs' kernel example (docs/kernels.md), as printed there: it compiles outside rot's tree
# (args.h reachable), its check refuses a fraction under rot build, and it measures with the
# declared counts
R="$T/readme"
mkdir -p "$R/kernels"
awk '/^# Writing a kernel/ { on = 1 } on && /^```c$/ { c = 1; next } c && /^```$/ { exit } c' "$ROOT/docs/kernels.md" >"$R/kernels/myscale.c"
grep -q "ROT_KERNEL(myscale)" "$R/kernels/myscale.c"
ok $? "the docs' kernel example is found"
cat >"$R/study.lua" <<'L'
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("n", { 1000, 1.5 }) }, function(p)
  return { kernel = "myscale", params = { n = p.n }, macros = { SCALE_FACTOR = "3.0" }, flags = "-O2 -Wall -Wextra -Werror" }
end)
r:table()
L
rot build "$R/study.lua" >"$T/o7" 2>"$T/e7"
test $? -eq 1 && grep -q "^rot: point 'n=1.5' failed: myscale: n must be a whole number from 1 to 1000000000000 elements, not 1.5$" "$T/e7" &&
	grep -q "^1000 .* planned$" "$T/o7" && ! grep -q "does not compile" "$T/e7"
ok $? "it compiles with -Wall -Wextra -Werror, and rot build refuses n=1.5 through its check"
sed -i 's/{ 1000, 1.5 }/{ 1000 }/' "$R/study.lua"
rot measure "$R/study.lua" >"$T/o8" 2>"$T/e8"
test $? -eq 0 && grep -q "^1000  *15.6 KiB .* measured$" "$T/o8"
ok $? "and measures: its buffers make the working set (2 x 1000 doubles)"
done_testing
