#!/bin/sh
# The counting pass (rot.count: Valgrind with rot's own tool): every shipped CPU kernel's counted
# flops against its declaration (exact, or off by the convention the kernel states in a line)
# and its counted bytes beside the declared with the convention named; programs with known
# counts (tests/count/known.c): flops exact, a strided walk's simulated traffic beyond the last
# level 8x its loaded bytes and a contiguous one's 1x (within 5 %), a triad's the write-allocate
# stream besides STREAM's bytes, the matrix-vector orders' traffic beside their times, FMA loops'
# classes and their FMAs' and adds' shares exact (scalar, 256-bit, and a mix of widths, FMAs,
# adds and multiplies); the bandwidth ceilings' kernels' simulated traffic over their declared
# bytes at an L2 size and beyond the last level (what rot.results.placed converts them by);
# streamlike's regions; a declaration that drifted, said in the table; rot compare's work and
# rate; an unmarked program counted a point, uncounted said to have none; an AVX-512 program's
# clear refusal, its hint never "count it"; counts cached. It judges no time but runs alone:
# Valgrind's load would disturb the timing of a test beside it (apps.t's).
. "$(dirname "$0")/lib.sh"
cc=${CC:-gcc}

# --- every shipped CPU kernel -----------------------------------------------------------------
rot measure tests/count/kernels.lua -runs=1 -maxRuns=1 >"$T/k" 2>"$T/ke"
ok $? "the shipped kernels measured and counted"
# the conventions the kernels state (kernels/cpu/stream.h, chains.h, clock.c): sum adds its
# partial sums after the loop (up to 128 more), the chains their start and sum (3 CHAINS LANES +
# 2 LANES), clock's "flops" are imul cycles (no floating-point work)
slack() { # slack KERNEL SETTINGS: "MIN MAX" of counted minus declared flops
	case "$1 $2" in
	sum*) echo "0 128" ;;
	"peakflops "*PEAK_CHAINS=8*) echo "0 104" ;; # 8 chains of 4 lanes
	peakflops*) echo "0 38" ;;                 # 12 chains of 1
	regadd*) echo "0 14" ;;                    # 4 chains of 1
	clock*) echo "clock" ;;
	*) echo "0 0" ;;
	esac
}
grep -E '^[0-9]+ [a-z]+ ' "$T/k" >"$T/kl"
test "$(wc -l <"$T/kl")" -eq 22
ok $? "22 cases counted ($(wc -l <"$T/kl"))"
while read -r i k cf df cb db m; do
	m="$k $m"
	s=$(slack "$k" "$m")
	if [ "$s" = clock ]; then
		test "$cf" = 0
		ok $? "case $i $m: counted flops 0 (its declared $df are imul cycles, clock.c says)"
	else
		awk -v c="$cf" -v d="$df" -v s="$s" 'BEGIN { split(s, r, " "); x = c - d; exit !(c >= 0 && x >= r[1] && x <= r[2]) }'
		ok $? "case $i $m: counted flops $cf, declared $df (the kernel's convention: counted minus declared in [$s])"
	fi
	case $k in
	sum | fill | copy | scale | add | triad | daxpy | chase) # each element once, as declared
		awk -v c="$cb" -v d="$db" 'BEGIN { exit !(c >= d && c <= 1.01 * d + 512) }'
		ok $? "case $i $m: loads and stores $cb bytes, declared $db (STREAM's: each element once; the call's own few bytes beside)" ;;
	intensity | matvec | stencil | dgemm) # elements used again are loaded again
		awk -v c="$cb" -v d="$db" 'BEGIN { exit !(c >= d) }'
		ok $? "case $i $m: loads and stores $cb bytes, at least the declared $db (STREAM's convention counts an element once; its instructions load it again)" ;;
	*) echo "# case $i $m: loads and stores $cb bytes, declared $db (registers only: what it keeps on the stack)" ;;
	esac
done <"$T/kl"
contains "$T/k" "counted as built with -O3 -march=native -mno-avx512f (Valgrind decodes no AVX-512" \
	"an AVX-512 build is counted without AVX-512, and the table says so"
contains "$T/k" "simulated traffic: L1 .* LRU, write-back, write-allocate" "the table says how the caches were simulated"

# --- a declaration that drifted, and rot compare's work and rate ---------------------------------
(cd tests/count && rot measure work.lua 1 >"$T/w1" 2>&1 && rot measure work.lua 2 >"$T/w2" 2>&1)
ok $? "a user kernel measured and counted, then doing its work twice"
contains "$T/w2" "n=1000: flops counted 2000, 2.00x declared 1000" "its declaration, one pass's, said to disagree with the count"
(cd tests/count && rot compare work.lua >"$T/c" 2>&1)
test "$(grep -c 'work x2.00, rate x' "$T/c")" -eq 2
ok $? "rot compare on the two counted runs: work x2.00 at both sizes"
(cd tests/count && rot measure work.lua 2 -useCachedResults=false >/dev/null 2>&1 && rot compare work.lua >"$T/aa" 2>&1)
test "$(grep -c 'work x1.00, rate x' "$T/aa")" -eq 2
ok $? "an A/A pair: work x1.00 at both sizes"
(cd tests/count && rot measure work.lua 2 >"$T/w3" 2>&1)
contains "$T/w3" "count 0.00 s (0 counted, 2 from the cache)" "a rerun takes its counts from the cache"

# --- programs with known counts ----------------------------------------------------------------
$cc -O2 -I"$ROOT/core/include" -o "$T/known" tests/count/known.c
rot measure tests/count/known.lua "$T/known" -runs=1 >"$T/n" 2>"$T/ne"
ok $? "the known programs measured and counted"
val() { awk -v r="$1" -v c="$2" '$1 == r && NF == 7 { print $c }' "$T/n"; }
for x in "matmul 2*60^3" "stencil 4*198^2" "row 2*1000^2" "column 2*1000^2" "reduce 100000"; do
	r=${x%% *}
	want=$(awk "BEGIN { printf \"%d\", ${x#* } }")
	test "$(val "$r" 3)" = "$want"
	ok $? "$r: counted flops $(val "$r" 3) = ${x#* } = $want"
done
llc=$(sed -n 's/^llc //p' "$T/n")
for x in "strided 8" "contiguous 1"; do
	r=${x% *} f=${x#* }
	awk -v d="$(val "$r" 7)" -v l="$(val "$r" 4)" -v f="$f" 'BEGIN { q = d / l / f; exit !(q > 0.95 && q < 1.05) }'
	ok $? "$r walk over 4x the LLC ($llc B): simulated bytes beyond it $(val "$r" 7), ${f}x the $(val "$r" 4) its instructions loaded, within 5 %"
done
n=$(awk -v l="$llc" 'BEGIN { print int(5 * l / 32) }')
awk -v d="$(val triad 7)" -v n="$n" 'BEGIN { q = d / (32 * n); exit !(q > 0.95 && q < 1.05) }'
ok $? "triad over arrays larger than the LLC: beyond it $(val triad 7) B, STREAM's 24 B an element and the write-allocate stream's 8 (32 n = $((32 * n))), within 5 %"
# FMA loops in registers, 1000 steps (known.c's fma): each class's flops, of them the FMAs' and
# the adds' and subs', by hand
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
	cls() { awk -v r="$1" -v k="$2" '$1 == "class" && $2 == r && $3 == k { print $4, $5, $6 }' "$T/n"; }
	for x in "fma_scalar fp64_scalar 8000 8000 0" "fma_avx2 fp64_256 32000 32000 0" "fma_mixed fp64_256 16000 8000 4000" \
		"fma_mixed fp64_scalar 1000 0 1000" "fma_mixed fp64_128 4000 4000 0" "fma_mixed fp32_256 16000 16000 0"; do
		set -- $x
		test "$(cls "$1" "$2")" = "$3 $4 $5"
		ok $? "$1: $2 flops $3, of them FMAs' $4, adds' $5 (counted: $(cls "$1" "$2"))"
	done
	test "$(grep -c "^class fma_mixed " "$T/n")" -eq 4
	ok $? "fma_mixed: four classes, no other ($(grep "^class fma_mixed " "$T/n" | awk '{ print $3 }' | tr '\n' ' '))"
else
	skip "no AVX2 and FMA here: known.c's fma loops cannot run"
fi
# the bandwidth ceilings' kernels (triad, read's sum, write's fill, both codes the peaks build):
# their loads and stores the declared bytes, and below L1 triad's simulated traffic 4/3 of its
# declared bytes (the store's line filled, then written back), read's 1, write's 2, within 1 %
rot measure tests/placed/ceilings.lua -runs=1 -maxRuns=1 >"$T/ceil" 2>"$T/ceile"
ok $? "the ceilings' kernels measured and counted"
awk '$1 == "ceiling" {
	want = $2 == "triad" ? 4 / 3 : $2 == "fill" ? 2 : 1
	if ($6 / $5 < 0.999 || $6 / $5 > 1.01) bad = bad " " $2 "/" $3 "/" $4 " L1 " $6 / $5
	below = $4 == "l2" ? $7 : $NF
	if (below / $5 < 0.99 * want || below / $5 > 1.01 * want) bad = bad " " $2 "/" $3 "/" $4 " " below / $5
	n++ } END { if (bad != "") print bad; exit !(n == 12 && bad == "") }' "$T/ceil" >"$T/ceilbad"
ok $? "triad, read and write at an L2 size and beyond the last level, both codes: L1 1x declared, below 4/3, 1 and 2x ($(cat "$T/ceilbad"))"
awk -v c="$(val column 6)" -v r="$(val row 6)" 'BEGIN { exit !(c > 4 * r) }'
ok $? "matrix-vector in column order moves $(val column 6) B into L2 against row order's $(val row 6): more than 4x"
# (the regions' own rows: a sample in a loop of theirs adds a row 'row > LOOP')
grep -E '^matvec +(row|column) +[0-9]' "$T/n" | grep -q ' us \| ms ' &&
	test "$(grep -cE '^matvec +(row|column) +[0-9].* L2 [0-9.]+[KMG]' "$T/n")" -eq 2
ok $? "the table shows both orders' times beside their simulated traffic"

# --- STREAM's loops (streamlike) ----------------------------------------------------------------
$cc -O2 -fopenmp -I"$ROOT/core/include" -o "$T/streamlike" tests/apps/streamlike.c
rot profile -count -threads=1 -- "$T/streamlike" 100000 >"$T/s" 2>"$T/se"
ok $? "rot profile -count of streamlike"
for r in Copy Scale Add Triad; do
	line=$(grep " $r " "$T/s")
	echo "$line" | grep -q 'flops 1.000 bytes 1.00[0-9]\|flops - bytes 1.00[0-9]'
	ok $? "$r: counted flops and bytes equal STREAM's per region ($(echo "$line" | grep -o 'flops [-0-9.]* bytes [0-9.]*'))"
done

# its own output beside rot's (-showOutput): the fastest invocation's and the counted run's, on
# the terminal and in the JSON (the rerun takes both from the caches)
rot profile -count -threads=1 -showOutput -- "$T/streamlike" 100000 >"$T/s" 2>"$T/se"
sed -n '/^output of application .streamlike. (command=streamlike 100000 threads=1), its fastest invocation ([0-9]* of [0-9]*):$/,/^output of/p' "$T/s" |
	grep -q '^  Triad: *[0-9.]* ' &&
	sed -n '/^output of application .streamlike. .*, its counted run (under Valgrind):$/,$p' "$T/s" | grep -q '^  Triad: *[0-9.]* '
ok $? "-showOutput prints the program's own output: its fastest invocation's and its counted run's ($(grep -c '^output of' "$T/s") headings)"
grep -q '"stdout": "[^"]*Triad: ' "$OUT/streamlike.json" && grep -q '"countedStdout": "[^"]*Triad: ' "$OUT/streamlike.json" &&
	grep -q '"stdoutRun": [0-9]' "$OUT/streamlike.json"
ok $? "the JSON holds both outputs and which invocation the first is"

# --- a phase region around parallel loops (tests/apps/phase.c), counted at 1 and 2 threads ----------
# one thread begins and ends it, outside the parallel regions: its counts are the whole
# process's while it is open, the same at either thread count (2 threads combine their
# reductions once more a step: 5 flops of 3 million), as its declaration says
$cc -O2 -fopenmp -I"$ROOT/core/include" -o "$T/phase" tests/apps/phase.c
for t in 1 2; do
	rot profile -count -threads=$t -runs=1 -maxRuns=1 -bestK=1 -- "$T/phase" 200000 5 >"$T/p$t" 2>&1 &&
		cp "$OUT/phase.csv" "$T/phase$t.csv"
done
f1=$(csv_value "$T/phase1.csv" flops_counted 2)
f2=$(csv_value "$T/phase2.csv" flops_counted 2)
awk -v a="$f1" -v b="$f2" 'BEGIN { exit !(a >= 3000000 && b >= a && (b - a) / a < 1e-5) }' &&
	grep -q "timestep loop .* 1 (all 2) .* flops 1.000 bytes 1.00[0-9] " "$T/p2"
ok $? "a phase region's counted flops are the same at 1 and 2 threads ($f1, $f2), its declaration's"
test "$(csv_value "$T/phase2.csv" region_rule 2)" = process
ok $? "and its rule is the process's"

# --- the docs' application example (docs/applications.md), counted --------------------------------
awk '/^## Your own program on the roofline/ { s = 1; next } /^## / { s = 0 } s' docs/applications.md |
	awk '/^```c$/ { if (!done) b = 1; next } /^```$/ { if (b) done = 1; b = 0 } b' >"$T/solver.c"
$cc -O2 -fopenmp -I"$ROOT/core/include" -o "$T/solver" "$T/solver.c" &&
	(cd "$T" && rot profile -threads=2 -count -- ./solver 100000 >"$T/r" 2>"$T/re")
ok $? "the docs' solver.c profiled with -count on 2 threads"
test "$(grep -cE ' (solve|residual) .* declared +flops 1\.000 bytes 1\.00[0-9] ' "$T/r")" -eq 2
ok $? "both its regions' declarations agree with their counts ($(grep -oE '(solve|residual) .*flops 1[.0-9]* bytes [.0-9]*' "$T/r" | awk '{ print $1, $(NF-3), $(NF-2), $(NF-1), $NF }' | tr '\n' ';'))"
grep -q 'series [0-9]*: L1: loads and stores' "$OUT/solver.dat" && grep -q 'series [0-9]*: L3 traffic (simulated)' "$OUT/solver.dat"
ok $? "its roofline has a point per level (solver.dat's series)"

# --- an unmarked program, placed -------------------------------------------------------------------
# without markers (ROT_MARKERS_DISABLE) a program is one row, (program): counted, it takes its
# counts and is a point with a bound; uncounted, its plot says why it has none
$cc -O2 -DROT_MARKERS_DISABLE -I"$ROOT/core/include" -o "$T/unmarked" tests/count/known.c
rot profile -count -threads=1 -- "$T/unmarked" reduce 100000 >"$T/u" 2>"$T/ue"
ok $? "an unmarked program profiled with -count"
test "$(csv_value "$OUT/unmarked.csv" counts)" = counted && test "$(csv_value "$OUT/unmarked.csv" bound_source)" = counted &&
	csv_value "$OUT/unmarked.csv" limiter | grep -q " bw\|^compute: " && test -n "$(csv_value "$OUT/unmarked.csv" bound_GFLOPs)"
ok $? "its (program) row takes its counts, with a bound and a limiter ($(csv_value "$OUT/unmarked.csv" limiter), $(csv_value "$OUT/unmarked.csv" bound_GFLOPs) GFLOP/s)"
grep -q '^[0-9.e+-]* [0-9.e+-]* "(program) L1"' "$OUT/unmarked.dat"
ok $? "and a point on its roofline (its L1 point: its own, drawn once)"
rot profile -threads=1 -- "$T/unmarked" reduce 100001 >"$T/u2" 2>&1
grep -q 'title "not drawn (no region marked, no work counted:' "$OUT/unmarked.gp" && grep -q 'places it): (program)"' "$OUT/unmarked.gp"
ok $? "uncounted, its roofline says why it has no point"

# --- a program the engine cannot decode -----------------------------------------------------------
if $cc -O3 -mavx512f -mprefer-vector-width=512 -I"$ROOT/core/include" -o "$T/known512" tests/count/known.c 2>/dev/null &&
	grep -qw avx512f /proc/cpuinfo; then
	rot profile -count -threads=1 -- "$T/known512" triad 1000 >"$T/x" 2>"$T/xe"
	ok $? "an AVX-512 program is timed all the same"
	contains "$T/xe" "uses AVX-512 instructions, which the counting engine (Valgrind" "its count refused in words"
	contains "$T/xe" "^hint: build it without AVX-512 for counting (add -mno-avx512f" "with the build hint"
	grep -q "^region 'triad' declares no work, and counting failed (application 'known512' uses AVX-512" "$T/x" &&
		! grep -q "count it\|count them" "$T/x"
	ok $? "its region's hint says the count failed, never 'count it' ($(grep "declares no work" "$T/x"))"
	contains "$T/x" "count [0-9.]* s (0 counted, 1 failed, 0 from the cache)" "the summary counts the refused count as failed, not counted"
	rot profile -count -threads=1 -samplingInterval=1 -- "$T/known512" triad 2000000 >"$T/x" 2>"$T/xe"
	grep -q "its survey has functions only: its count failed, and only the count finds loops" "$T/x" &&
		! grep -q "rot profile -count finds" "$T/x"
	ok $? "its survey (sampled) says the count failed, never to ask for the -count it was given"
else
	skip "no AVX-512 here: a program that uses it cannot run"
fi
done_testing
