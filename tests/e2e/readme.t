#!/bin/sh
# The docs' own kernel, as a newcomer meets it: the kernel and the study script are taken from
# docs/kernels.md, "Writing a kernel" (its code blocks), unchanged, into a study folder, and
# walked through what docs/compare-history.md, "Iterating on a kernel", says to do with them in a
# fresh cache: rot build, rot measure, an edit (its loop done twice), rot measure again, rot
# history, rot compare, rot asm (by name in the study and by path). Every plot it writes has each
# key entry on the canvas, each point labelled or named in the key, no overlap, no ceiling through
# a label, no band past 10%. The machine's ceilings come from the recorded peaks
# (tests/fixtures/peaks.csv): a first run here would otherwise measure them (minutes), which the
# page says.
. "$(dirname "$0")/lib.sh"

# README's tour: a copy of the shipped triad, its title edited, is served from the cache and
# writes outputs of its own name, leaving triad's as they were
grep -qF 'cp lua/measurements/triad.lua mytriad.lua' "$ROOT/README.md" &&
	grep -qF "Its outputs take the script's name: \`mytriad.csv\`, \`mytriad.svg\`, \`mytriad-bandwidth.svg\`." "$ROOT/README.md"
ok $? "README's tour copies triad.lua to mytriad.lua and says what the copy writes"
tour() { "$ROOT/rot" -cacheDir="$CACHE" -outputDir="$T/tour" -peaksFile="$ROOT/tests/fixtures/peaks.csv" "$@"; }
tour measure triad -quick=true >"$T/t1" 2>&1
ok $? "rot measure triad -quick=true"
sed 's/title = "STREAM triad, 1 thread (/title = "my triad, 1 thread (/' "$ROOT/lua/measurements/triad.lua" >"$T/mytriad.lua"
before=$(cat "$T/tour/triad.csv" "$T/tour/triad.svg" "$T/tour/triad-bandwidth.svg" | cksum)
(cd "$T" && tour measure mytriad.lua -quick=true >"$T/t2" 2>&1)
ok $? "rot measure mytriad.lua -quick=true"
contains "$T/t2" "^rot: 6 points, cache: 6 hits, 0 measured, 0 failed" "every point of the copy comes from the cache"
test -s "$T/tour/mytriad.csv" && test -s "$T/tour/mytriad.json" && test -s "$T/tour/mytriad-bandwidth.svg" &&
	grep -q "my triad, 1 thread" "$T/tour/mytriad.svg" &&
	test "$(cat "$T/tour/triad.csv" "$T/tour/triad.svg" "$T/tour/triad-bandwidth.svg" | cksum)" = "$before"
ok $? "the copy writes mytriad.csv, .json, .svg (its title) and mytriad-bandwidth.svg; triad's outputs are as they were"

# the page's first C block is the kernel, its first Lua block the study
sed -n '/^# Writing a kernel$/,$p' "$ROOT/docs/kernels.md" >"$T/section"
S="$T/study"
mkdir -p "$S/kernels"
awk '/^```c$/ { if (!done) b = 1; next } /^```$/ { if (b) done = 1; b = 0 } b' "$T/section" >"$S/kernels/myscale.c"
awk '/^```lua$/ { if (!done) b = 1; next } /^```$/ { if (b) done = 1; b = 0 } b' "$T/section" >"$S/study.lua"
grep -q "ROT_KERNEL(myscale)" "$S/kernels/myscale.c" && grep -q '#include "args.h"' "$S/kernels/myscale.c" &&
	grep -q 'r:roofline' "$S/study.lua" && grep -q "kernels/myscale.c" "$T/section"
ok $? "docs/kernels.md, 'Writing a kernel', holds the kernel (with args.h), the study and where each goes"
# the docs' walk, docs/compare-history.md, "Iterating on a kernel": its commands and what rot
# printed for them
sed -n '/^# Iterating on a kernel$/,$p' "$ROOT/docs/compare-history.md" >"$T/walk"
# where the study lives, said one way: outside rot's tree, run from the folder that holds it with
# rot on the PATH (as here: this test's study is in a temp folder), never ./rot from the checkout
grep -q "outside rot's tree" "$T/section" && grep -q '^\$ rot measure study/study.lua' "$T/section" &&
	! grep -q '\./rot [a-z]* study/' "$T/section" "$T/walk" && grep -q '^\$ rot history study/study.lua' "$T/walk"
ok $? "the docs say where the study lives one way: outside rot's tree, its commands run beside it (rot measure study/study.lua)"

cd "$T" || exit 1
rot build study/study.lua >"$T/b" 2>&1
ok $? "rot build study/study.lua builds the docs' kernel"
contains "$T/b" "^rot build: 2 cores built, 0 failed" "two cores (one a factor), built"

# more runs, and only runs nothing preempted (as compare.t): the two runs' ratio holds on a
# loaded 2-core machine
rot measure study/study.lua -runs=10 -ignoreDisturbed=true >"$T/o1" 2>"$T/e1"
ok $? "rot measure study/study.lua measures it"
contains "$T/o1" "^rot: 6 points, cache: 0 hits, 6 measured, 0 failed" "its six points"
! grep -q "is named after" "$T/e1"
ok $? "its series named after no memory level its points are not in"

# the edit the walk names: the loop now runs twice
sed -i 's|^\tfor (size_t i = 0; i < s->n; i++)$|\tfor (int rep = 0; rep < 2; rep++)\n&|' "$S/kernels/myscale.c"
grep -q "rep < 2" "$S/kernels/myscale.c"
ok $? "the kernel is edited: its loop runs twice"
rot measure study/study.lua -runs=10 -ignoreDisturbed=true >"$T/o2" 2>&1
contains "$T/o2" "^rot: 6 points, cache: 0 hits, 6 measured, 0 failed" "measured again: every point anew"

rot history study/study.lua >"$T/h" 2>&1
ok $? "rot history study/study.lua"
grep "^2 " "$T/h" | grep -q "kernels/myscale.c changed" && grep -q "^1 .*first run recorded" "$T/h"
ok $? "lists both runs, the edited kernel file as what changed"
test "$(grep '^2  ' "$T/walk" | head -n 1 | sed 's/.*  //')" = "$(grep '^2 ' "$T/h" | sed 's/.*  //')"
ok $? "the walk's history example says what rot says changed ($(grep '^2 ' "$T/h" | sed 's/.*  //'))"

rot compare study/study.lua >"$T/c" 2>&1
ok $? "rot compare study/study.lua"
grep -qxF "$(sed -n 2,3p "$T/c" | grep '^verdicts ')" "$T/walk" && grep -q '^f  *n  *time A  *time B  *B/A  *verdict ' "$T/walk" &&
	grep -q '^2\.0  *1000  .*  inconclusive  ' "$T/walk" && ! grep -q 'same (inconclusive)' "$T/walk"
ok $? "the walk's compare example has the rule line rot prints now, and its verdict column says inconclusive"
contains "$T/c" "^rot compare: .* 0 only in A, 0 only in B" "compares the six points of both runs"
# from the records alone the verdicts are inconclusive here (the walk: no reruns of identical
# builds, and a busy phase in one run moves the records anywhere from x0.65 to x2.18: one such
# run read a geometric-mean speedup of 0.903); measured again, alternately, they decide
grep -q "^rot compare: 0 faster, 0 slower, 0 same, 6 inconclusive," "$T/c" && grep -q "for a verdict on the inconclusive: .*-remeasure" "$T/c"
ok $? "from the records alone: 6 inconclusive, and the hint to measure them again ($(grep -o 'geometric-mean speedup [0-9.]*' "$T/c"))"
grep -q "^rot compare: 0 faster, 0 slower, 0 same, 6 inconclusive, 0 only in A, 0 only in B; geometric-mean speedup [0-9.]* (B over A, 6 points); for a verdict on the inconclusive: rot compare study/study.lua 1 2 -remeasure$" "$T/walk"
ok $? "and so does the walk's summary line"
rot compare study/study.lua -remeasure=8 >"$T/cr" 2>&1
sed -n 's/^verdicts from 8 rounds/verdicts from 24 rounds/p' "$T/cr" >"$T/rule"
test -s "$T/rule" && grep -qxF "$(cat "$T/rule")" "$T/walk"
ok $? "the walk's -remeasure example has the rule line rot prints now (24 rounds there)"
speedup=$(sed -n 's/^rot compare: .*geometric-mean speedup \([0-9.]*\) .*/\1/p' "$T/cr")
awk -v s="$speedup" 'BEGIN { exit !(s > 0 && s < 0.9) }' && test "$(grep -c '^2\.0 .* slower ' "$T/cr")" = 3
ok $? "measured again alternately (8 rounds), the loop run twice is slower: f=2.0's three points slower, geometric-mean speedup $speedup"
test -s "$OUT/study-compare.png" && test -s "$OUT/study.png"
ok $? "the roofline and the compare plot are drawn"

(cd "$S" && "$ROOT/rot" asm myscale -SCALE_FACTOR=3.0 -optimization=-O3 >"$T/a1" 2>&1)
ok $? "rot asm myscale in the study folder compiles the docs' kernel (its args.h found)"
contains "$T/a1" "# kernel myscale ($S/kernels/myscale.c), flags '-O3'" "it says which kernel and flags"
contains "$T/a1" "# macro SCALE_FACTOR = 3.0" "and the macro"
contains "$T/a1" "SCALE_FACTOR \* s->b\[i\]" "the source is interleaved"
"$ROOT/rot" asm study/kernels/myscale.c >"$T/a2" 2>&1
ok $? "rot asm study/kernels/myscale.c from elsewhere"
contains "$T/a2" "flags '-O2'" "without -optimization: -O2, a point's flags when it gives none"
cp "$S/kernels/myscale.c" "$T/loose.c"
"$ROOT/rot" asm "$T/loose.c" >"$T/a3" 2>&1
test $? -eq 1 && grep -q "^rot: kernel file '$T/loose.c' is not where a script finds its kernels" "$T/a3"
ok $? "a kernel file outside a kernels/ folder is refused, saying why"

# every plot the study wrote: readable as drawn
readable_plots "$OUT" 2 "the roofline and the compare plot"
# the points carry a text to label them with (their working set; the compare plot's n and B/A):
# the check above is about every one of them
test "$(grep -c '^[0-9.e+-]* [0-9.e+-]* "[^"]\+"$' "$OUT/study.dat")" -eq 6 &&
	test "$(grep -c '^[0-9.e+-]* [0-9.e+-]* "f=[0-9.]* n=[0-9]* time x[0-9.]*"$' "$OUT/study-compare.dat")" -eq 6
ok $? "every point of both plots has a label text: 6 and 6"
done_testing
