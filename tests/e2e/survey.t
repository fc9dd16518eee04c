#!/bin/sh
# The loop survey as a user gets it, rot profile -count -- PROGRAM on tests/loops/'s programs
# built -O2 -g: each hot loop a row at its source line with its nest depth and its exact counted
# flops, equal to the same loop marked as a region (phases.c); loops in marked regions
# (regions.c) nested under them, a loop run in and out of them split, each part's flops exact;
# the program's row placed; its time against two marked regions (~30 % and ~70 %) within 5 %;
# each function's share against perf record -e cpu-clock's within 3 points; an OpenMP loop at
# 2 threads one row, its flops summed over the threads, its time wall time; a cached rerun
# served whole; a roofline of 16 loops readable, its key on the canvas; the hostile programs
# (stripped, no -g, dlopen, a JIT's buffer, 20 ms, fork, sampling refused) each a clear row or
# line; rot compare of two builds matching loops by source line and function, and timing them
# again (-remeasure).
. "$(dirname "$0")/lib.sh"
. tests/optional.sh
cc=${CC:-gcc}
P=$T/p
mkdir -p "$P"
for p in mv stencil nest noperf many; do $cc -O2 -g -o "$P/$p" tests/loops/$p.c || echo "# $p does not build"; done
$cc -O2 -g -I core/include -o "$P/phases" tests/loops/phases.c &&
	$cc -O2 -g -I core/include -o "$P/regions" tests/loops/regions.c && $cc -O2 -g -fopenmp -o "$P/omp" tests/loops/omp.c &&
	$cc -O2 -g -o "$P/hostile" tests/loops/hostile.c -ldl -lpthread &&
	$cc -O2 -g -shared -fPIC -o "$P/hostile-plugin.so" tests/loops/plugin.c &&
	strip -o "$P/mv-stripped" "$P/mv" && $cc -O2 -o "$P/mv-nog" tests/loops/mv.c
ok $? "the programs built -O2 -g, mv also stripped and without -g"

profile() { # profile NAME ARGS...: rot profile (sampled every ms) of $P/NAME; its table in $T/NAME.table
	name=$1
	shift
	(cd "$P" && rot profile -samplingInterval=1 "$@") >"$T/$name.table" 2>"$T/$name.err"
}
col() { # col NAME PATTERN COLUMN: a column's value in the first row of $OUT/NAME.csv that holds PATTERN
	n=$(awk -v p="$2" -F'\n' 'NR > 1 && index($0, p) { print NR - 1; exit }' "$OUT/$1.csv")
	[ -n "$n" ] && csv_value "$OUT/$1.csv" "$3" "$n"
}

# --- loops at their lines, their flops exact --------------------------------------------------------
N=300 R=400 S=300 STEPS=300 NO=40000 M=1000
profile mv -threads=1 -count -- ./mv $N $R && profile stencil -threads=1 -count -- ./stencil $S $STEPS &&
	profile nest -threads=1 -count -- ./nest $NO $M
ok $? "rot profile -count of mv, stencil and nest"
# PROGRAM LOOP FUNCTION DEPTH NEST FLOPS: the hot loops (the LOOP comment on the loop's `for`)
cat >"$T/want" <<W
mv row.j row 3 3 2*$N*$N*$R
mv column.i column 3 3 2*$N*$N*$R
stencil sweep.j sweep 2 2 4*($S-2)*($S-2)*$STEPS
nest helper dot_scaled 2 2 2*$NO*$M
W
while read -r p name fn depth nest flops; do
	line=$(grep -n "/\* LOOP $name \*/" tests/loops/$p.c | cut -d: -f1)
	f=$(awk "BEGIN { printf \"%d\", $flops }")
	region="$p.c:$line loop in $fn (depth $depth of $nest)"
	got=$(col "$p" "$region" flops_counted)
	test "$got" = "$f"
	ok $? "$region: a row with its $f flops counted ($got; $(col "$p" "$region" share_of_program) of the time)"
done <"$T/want"
b=$(col mv "(program)" bound_GFLOPs) l=$(col mv "(program)" limiter)
test -n "$b" && test -n "$(col mv 'row (depth' bound_GFLOPs)"
ok $? "an unmarked program's row and its loops are placed: a bound from their counted traffic (program: $b GFLOP/s, $l)"
contains "$T/mv.table" "called no marker: its rows are its program's and the loop survey's" "the table says where its rows come from"
sum=0
for i in $(seq 1 $(($(wc -l <"$OUT/mv.csv") - 1))); do
	test -n "$(csv_value "$OUT/mv.csv" survey "$i")" && sum="$sum + $(csv_value "$OUT/mv.csv" share_of_program "$i")"
done
sum=$(awk "BEGIN { printf \"%.4f\", $sum }")
test "$sum" = 1.0000
ok $? "nothing lost: the survey's rows (loops, functions, kernel code, the rest in one row) share the whole time ($sum)"
grep -q 'text.*mv.c:[0-9]' "$OUT/mv.svg"
ok $? "the roofline's hover text gives a loop's source line"

# --- a cached rerun --------------------------------------------------------------------------------
profile mv2 -threads=1 -count -- ./mv $N $R
grep -q "cache: 1 hits, 0 measured" "$T/mv2.table" && grep -q "0 counted, 1 from the cache" "$T/mv2.table" &&
	test "$(grep -c 'loop in' "$T/mv2.table")" = "$(grep -c 'loop in' "$T/mv.table")"
ok $? "a rerun is served by the cache, its timed invocations and its count, with the same rows ($(grep -o 'cache: [^;]*' "$T/mv2.table"))"

# --- more loops than a key can name -----------------------------------------------------------------
# (many.c: 16 loops of about equal weight at one intensity, most hidden under another's marker;
# the roofline's key once named each, past the plot area's height, and gnuplot put half of it in a
# second column off the canvas)
profile many -threads=1 -count -- ./many 2000
loops=$(grep -c "many.c:[0-9]* loop in f[0-9]* (depth 2 of 2)" "$T/many.table")
test "$loops" -ge 12
ok $? "rot profile -count of 16 loops: $loops of them rows"
mkdir -p "$T/manyplot" && cp "$OUT/many.gp" "$OUT/many.dat" "$T/manyplot/"
readable_plots "$T/manyplot" 1 "a roofline of $loops loops, its key on the canvas"

# --- time against markers, flops against a region ------------------------------------------------
profile phases -threads=1 -count -- ./phases 2000 20000
for ph in short long; do
	line=$(grep -n "/\* LOOP $ph.i \*/" tests/loops/phases.c | cut -d: -f1)
	lt=$(col phases "phases.c:$line loop" time_s) rt=$(col phases ",$ph," time_s)
	awk -v a="$lt" -v b="$rt" 'BEGIN { exit !(a > 0 && b > 0 && a / b < 1.05 && a / b > 0.95) }'
	ok $? "loop phases.c:$line: the survey's time $lt s against region '$ph''s $rt s (within 5 %)"
	lf=$(col phases "phases.c:$line loop" flops_counted) rf=$(col phases ",$ph," flops_counted)
	test -n "$lf" && test "$lf" = "$rf"
	ok $? "loop phases.c:$line: its counted flops ($lf) equal region '$ph''s ($rf)"
done

# --- loops in marked regions: nested under them ----------------------------------------------------
N2=2000 R2=20000
profile regions -threads=1 -count -- ./regions $N2 $R2
# REGION LOOP FUNCTION FLOPS (REGION -: outside every region; shared.i ran in both)
cat >"$T/want" <<W
first first.i first 2*$N2*$R2
second second.i second 3*$N2*$R2
- outside.i outside 2*$N2*$R2
second shared.i shared $N2*$R2
- shared.i shared 2*$N2*$R2
W
while read -r region name fn flops; do
	line=$(grep -n "/\* LOOP $name \*/" tests/loops/regions.c | cut -d: -f1)
	f=$(awk "BEGIN { printf \"%d\", $flops }")
	row="regions.c:$line loop in $fn (depth 2 of 2)"
	[ "$region" = - ] || row="$region > $row"
	got=$(col regions ",$row," flops_counted)
	test "$got" = "$f"
	ok $? "$row: a row with its $f flops counted ($got; $(col regions ",$row," share_of_program) of the time)"
done <"$T/want"
# the rows in the table's order: each region's loops right after its row
awk -F, 'NR > 1 { print $3 }' "$OUT/regions.csv" >"$T/regions.order"
for region in first second; do
	n=$(grep -c "^$region > " "$T/regions.order")
	after=$(grep -A "$n" -x "$region" "$T/regions.order" | tail -n +2 | grep -c "^$region > ")
	test "$n" -ge 1 && test "$after" = "$n"
	ok $? "region $region's $n loop rows follow its own row"
done
line=$(grep -n '/\* LOOP outside.i \*/' tests/loops/regions.c | cut -d: -f1)
! grep -q "> regions.c:$line " "$T/regions.order"
ok $? "the loop outside every region nests under none"
contains "$T/regions.table" "is a row for each, its time split by the instructions it ran in each" \
	"the table says a loop split across regions has its time split by its instructions"

# --- shares against perf's ---------------------------------------------------------------------------
if optional_install perf linux-perf; then
	(cd "$P" && perf record -q -e cpu-clock -o "$T/perf.data" -- "$ROOT/rot" -cacheDir="$CACHE" -outputDir="$OUT" \
		-peaksFile="$ROOT/tests/fixtures/peaks.csv" profile -samplingInterval=1 -threads=1 -- ./mv 400 300) \
		>"$T/perf.table" 2>"$T/perf.err"
	perf report -i "$T/perf.data" --stdio --comm mv --percentage relative --sort sym 2>/dev/null |
		awk '$1 ~ /%$/ && $2 == "[.]" { sub("%", "", $1); print $3, $1 }' >"$T/perf.shares"
	for f in row column; do
		ours=$(col mv ",$f," share_of_program)
		theirs=$(awk -v f=$f '$1 == f { print $2 }' "$T/perf.shares")
		awk -v a="$ours" -v b="$theirs" 'BEGIN { d = a * 100 - b; exit !(a != "" && b != "" && d < 3 && d > -3) }'
		ok $? "$f's share of the time: $ours sampled by rot, $theirs % by perf record -e cpu-clock of the same invocations (within 3 points)"
	done
else
	skip "no perf here (Debian's linux-perf): the shares are not compared"
fi

# --- an OpenMP loop at 2 threads -------------------------------------------------------------------
# (threads wait passively at its barriers, as counted: their spinning would be samples of libgomp)
OMP_WAIT_POLICY=passive profile omp -threads=2 -count -- ./omp 200000 200
line=$(grep -n '/\* LOOP omp \*/' tests/loops/omp.c | cut -d: -f1)
# (its line: its latch's, which gcc gives the outlined loop's body, the line after its `for`)
n=$(grep -c "omp.c:\($line\|$((line + 1))\) loop in main._omp_fn.0 (depth 1 of 1)" "$OUT/omp.csv")
f=$(col omp "loop in main._omp_fn.0" flops_counted) lt=$(col omp "loop in main._omp_fn.0" time_s) pt=$(col omp "(program)" time_s)
test "$n" = 1 && test "$f" = $((2 * 200000 * 200)) && awk -v a="$lt" -v b="$pt" 'BEGIN { exit !(a > 0 && a <= b) }'
ok $? "an OpenMP loop at 2 threads: one row, its flops summed over the threads ($f), its time wall time ($lt s of the program's $pt s)"

# --- hostile programs ---------------------------------------------------------------------------------
profile s -threads=1 -count -- ./mv-stripped $N $R
grep -q "^mv-stripped $N $R .* mv-stripped+0x[0-9a-f]* loop (depth 3 of 3) " "$T/s.table"
ok $? "stripped: its loops named by object and offset ($(grep -o 'mv-stripped+0x[0-9a-f]* loop (depth [0-9] of [0-9])' "$T/s.table" | head -n 1))"
profile g -threads=1 -count -- ./mv-nog $N $R
grep -q "^mv-nog $N $R .* mv-nog+0x[0-9a-f]* loop in row (depth 3 of 3) " "$T/g.table"
ok $? "without -g: its loops named by object, offset and function ($(grep -o 'mv-nog+0x[0-9a-f]* loop in [a-z]* (depth [0-9] of [0-9])' "$T/g.table" | head -n 1))"
H=20000000
profile dl -threads=1 -count -- ./hostile dlopen $H
line=$(grep -n 'LOOP plugin' tests/loops/plugin.c | cut -d: -f1)
test "$(col hostile "plugin.c:$line loop in plugin_adds (depth 1 of 1)" flops_counted)" = $H
ok $? "a dlopen'ed library closed before the end: its loop a row at its line, $H flops"
profile jit -threads=1 -count -- ./hostile jit $H
test "$(col hostile ",unknown code," flops_counted)" = $H
ok $? "a JIT's buffer: one row, unknown code, its $H flops counted"
profile short -threads=1 -count -- ./hostile short 10000
grep -q "^hostile short 10000 .* hostile.c:[0-9]* loop in sum (depth 1 of 1) " "$T/short.table"
ok $? "a 20 ms program: its loop a row ($(grep -o 'sampled every [^;]*' "$T/short.table"))"
profile fork -threads=1 -count -- ./hostile fork 2000000
contains "$T/fork.table" "its samples are those of its 2 processes (it forked); the counted rows hold the first process's counts alone" \
	"a program that forks: its rows and a line on whose samples and counts they are"
(cd "$P" && "$P/noperf" "$ROOT/rot" -cacheDir="$CACHE" -outputDir="$OUT" -peaksFile="$ROOT/tests/fixtures/peaks.csv" \
	profile -threads=1 -- ./mv 100 10) >"$T/no.table" 2>"$T/no.err"
grep -q "application 'mv': not sampled, so no loop survey: sampling refused: .*seccomp.*(samplingInterval=0 stops asking)" "$T/no.table" &&
	grep -q "^mv 100 10 .*(program) " "$T/no.table"
ok $? "sampling refused by a seccomp filter: one line with what to change, the program timed all the same"

# --- two builds compared ---------------------------------------------------------------------------
$cc -O1 -g -o "$P/mv" tests/loops/mv.c
profile mv3 -threads=1 -count -- ./mv $N $R
(cd "$P" && rot compare ./mv) >"$T/compare" 2>&1
line=$(grep -n '/\* LOOP row.j \*/' tests/loops/mv.c | cut -d: -f1)
grep -q "mv.c:$line loop in row (depth [0-9] of [0-9]) .*work x1.00, rate x" "$T/compare"
ok $? "rot compare of two builds (-O2, -O1): the loops matched by source line and function, work and rate each ($(grep -o "mv.c:$line loop in row.*work x1.00, rate x[0-9.]*" "$T/compare" | tr -s ' '))"
(cd "$P" && rot compare -remeasure ./mv) >"$T/remeasure" 2>&1
grep -q "mv.c:$line loop in row (depth [0-9] of [0-9]) *[0-9.]* [mu]s *[0-9.]* [mu]s *[0-9]\.[0-9]* " "$T/remeasure"
ok $? "rot compare -remeasure: the loops timed again in fresh invocations of both builds ($(grep -o "mv.c:$line loop in row.*work x[0-9.]*" "$T/remeasure" | tr -s ' '))"
done_testing
