#!/bin/sh
# Your own program on the roofline (tests/apps): the markers outside rot; `rot profile` and a
# script's application points (rows per region, CSV, JSON, hover text, a roofline sized by share,
# cached reruns, history and compare per region); the hostile cases (a region ended in another
# thread, never closed, 10^7 empty calls, a crash, an exit status, a hang, a fork left running,
# garbage output, no markers, a static program, counters the machine cannot count), each ending
# cleanly with its cause, nothing cached wrongly and nothing left running.
# judges no time
. "$(dirname "$0")/lib.sh"

cc=${CC:-gcc}
if ! echo 'int main(void){return 0;}' | $cc -fopenmp -x c -o "$T/omp" - 2>/dev/null; then
	echo "1..0 # SKIP $cc cannot build an OpenMP program here"
	exit 0
fi
inc="-I$ROOT/core/include"
$cc -O2 -fopenmp $inc -o "$T/nested" tests/apps/nested.c &&
	$cc -O2 $inc -o "$T/serial" tests/apps/nested.c &&
	$cc -O2 -pthread $inc -o "$T/hostile" tests/apps/hostile.c &&
	$cc -O2 -DROT_MARKERS_DISABLE $inc -o "$T/disabled" tests/apps/nested.c
ok $? "the test programs build with nothing but -I core/include (no rot library linked)"

# outside rot: the markers do nothing, and the program runs as ever
out=$("$T/nested" 1000 2) && [ "$out" = "sum 751250" ]
ok $? "outside rot a marked program runs as it would without markers ($out)"
out=$(ROT_MARKERS=/nonexistent/lib.so "$T/nested" 1000 2) && [ "$out" = "sum 751250" ]
ok $? "with ROT_MARKERS naming no recorder it runs as ever"
! nm "$T/disabled" | grep -q rot_markers
ok $? "-DROT_MARKERS_DISABLE leaves no trace of the markers in the binary"

one="-runs=1 -maxRuns=1 -bestK=1"
prof() { (cd "$T" && "$ROOT/rot" -cacheDir="$CACHE" -outputDir="$OUT" -peaksFile="$ROOT/tests/fixtures/peaks.csv" profile "$@"); }

prof -threads=2 -runs=2 -maxRuns=2 -bestK=2 -- ./nested 200000 5 >"$T/o" 2>"$T/e"
ok $? "rot profile -threads=2 -- ./nested: measured"
contains "$T/o" "^nested 200000 5 *2 *(program) *1 *2 " "a row for the whole program, its threads a coordinate, the 2 it ran"
row=$(grep "^nested 200000 5 *2 *outer " "$T/o")
echo "$row" | awk '$6 == 5 && $7 == 1' | grep -q .
ok $? "a row for region outer: 5 calls in 1 thread ($row)"
row=$(grep "^nested 200000 5 *2 *inner " "$T/o")
echo "$row" | awk '$6 == 5 && $7 == 2' | grep -q .
ok $? "inner, marked inside the parallel region: 5 calls of each of 2 threads ($row)"
# outer (around the parallel loop, begun by one thread outside the parallel region): it takes the
# whole process's work while it is open, and is bounded by the 2 threads' DRAM ceiling the
# program ran (tests/fixtures/peaks.csv: triad 27.0425 GB/s at 1 thread, 48.1931 at 2)
b=$(csv_value "$OUT/nested.csv" bound_GFLOPs 2)
awk -v b="$b" 'BEGIN { exit !(b > 4.01 && b < 4.02) }'
ok $? "outer, begun outside the parallel region, is bounded by the program's 2 threads' ceilings: 48.19 GB/s x 1/12 flop/B ($b GFLOP/s)"
contains "$T/o" "^region 'outer' (in threads 1 (all 2)): one thread entered it, outside the program's parallel regions: it takes the whole process's work while it is open" \
	"and the table says which rule applied"
test "$(csv_value "$OUT/nested.csv" region_rule 2)" = process && test "$(csv_value "$OUT/nested.csv" region_rule 3)" = threads
ok $? "the CSV says it too: outer's rule process, inner's threads"
! grep -q "^region 'inner'.* entered it" "$T/o"
ok $? "inner, which every thread entered: nothing said"
echo "$row" | grep -q " none "
ok $? "inner declares no work: its counts are none, it has no intensity"
contains "$T/o" "outer .* declared " "outer's work is declared"
contains "$T/o" "rot: 1 points, cache: 0 hits, 1 measured, 0 failed" "the summary counts one point"
for f in nested.csv nested.json nested.svg nested.png nested.dat nested.gp; do
	test -s "$OUT/$f" || echo "missing $f"
done | grep -q . && ok 1 "outputs named after the program" || ok 0 "outputs named after the program"
test "$(csv_value "$OUT/nested.csv" region 2)" = outer && test "$(csv_value "$OUT/nested.csv" calls 2)" = 5 &&
	test "$(csv_value "$OUT/nested.csv" flops_source 2)" = declared &&
	test "$(csv_value "$OUT/nested.csv" bytes 2)" = 24000000
ok $? "the CSV: region, calls, the source of its flops, its bytes per invocation (24 B an element, 5 calls)"
grep -q '"region": "outer"' "$OUT/nested.json" && grep -q '"flopsSource": "declared"' "$OUT/nested.json" &&
	grep -q '"timePerCall": "s"' "$OUT/nested.json"
ok $? "the JSON: the region keys with their units"
grep -q "region outer: 5 calls" "$OUT/nested.svg"
ok $? "the SVG's hover text names the region, its calls and share"
grep -q '^0.0833333333 [0-9.e+-]* "outer" [0-9.]*$' "$OUT/nested.dat" && grep -q "ps variable" "$OUT/nested.gp"
ok $? "the roofline draws outer at its intensity, its marker sized by its share"
"$ROOT/rot" run "$ROOT/tests/e2e/check-plots.lua" "$OUT" >"$T/c" 2>&1 && ! grep "nested.gp" "$T/c" | grep -qv "overlaps 0 crossed 0"
ok $? "its labels overlap nothing ($(grep nested.gp "$T/c"))"

# a phase region around a time loop of parallel loops (tests/apps/phase.c): at 2 threads its time
# is the loop's wall time, as the program times it itself in the same invocation, and a counter
# counts both threads' work while it is open (task-clock: near 2 CPUs, never above its
# process's); a thread's own would count one
$cc -O2 -fopenmp $inc -o "$T/phase" tests/apps/phase.c
prof -threads=2 -runs=1 -maxRuns=1 -bestK=1 -counters=perf::TASK-CLOCK -- ./phase 2000000 10 >"$T/o" 2>"$T/e"
ok $? "rot profile -threads=2 -counters=perf::TASK-CLOCK -- ./phase: measured"
own=$(sed -n 's/.*"stdout": "loop \([0-9.]*\) s\\n.*/\1/p' "$OUT/phase.json")
t=$(csv_value "$OUT/phase.csv" time_s 2)
awk -v t="$t" -v own="$own" 'BEGIN { exit !(own > 0 && t / own > 0.98 && t / own < 1.02) }'
ok $? "its time is the loop's wall time as the program timed it itself ($t s, the program's $own s)"
clock=$(csv_value "$OUT/phase.csv" "counter:perf::TASK-CLOCK" 2)
busy=$(csv_value "$OUT/phase.csv" busy_threads 1)
if awk -v b="$busy" 'BEGIN { exit !(b > 1.3) }'; then
	awk -v c="$clock" -v t="$t" 'BEGIN { exit !(c * 1e-9 / t > 1.3 && c * 1e-9 / t < 2.05) }'
	ok $? "its task-clock is both threads' while it is open: $(awk -v c="$clock" -v t="$t" 'BEGIN { printf "%.2f", c * 1e-9 / t }') CPUs over its time (the program kept $busy busy)"
else
	skip "the program kept only $busy CPUs busy here: two threads' task-clock cannot be told from one's"
fi

# the same program built without OpenMP runs one thread of the two it is told: the table says so,
# and its roofline draws the roofs its regions are bounded by, 1 thread's, as the table bounds them
prof -threads=2 -runs=2 -maxRuns=2 -bestK=2 -- ./serial 200000 5 >"$T/o" 2>"$T/e"
contains "$T/o" "^application 'serial' ran 1 thread of the 2 it was told to use (OMP_NUM_THREADS=2)" \
	"a program that ran 1 thread of the 2 asked: the table says so"
b=$(csv_value "$OUT/serial.csv" bound_GFLOPs 2)
grep -q "(27.0425\*x < " "$OUT/serial.gp" && ! grep -q "48.1931\*x" "$OUT/serial.gp" &&
	grep -q 'title "ceilings of 1 thread,' "$OUT/serial.gp" && awk -v b="$b" 'BEGIN { exit !(b > 2.25 && b < 2.26) }'
ok $? "its roofline draws 1 thread's DRAM roof (27.04 GB/s), which bounds outer in the table ($b GFLOP/s), not 2 threads' (48.19), and its key says so"
"$ROOT/rot" run "$ROOT/tests/e2e/check-plots.lua" "$OUT" >"$T/c" 2>&1 && grep -q "^PLOT serial.gp .*overlaps 0 crossed 0 key 0 unlabelled 0" "$T/c"
ok $? "and it is readable ($(grep serial.gp "$T/c"))"

prof -threads=2 -runs=2 -maxRuns=2 -bestK=2 -- ./nested 200000 5 >"$T/o" 2>"$T/e"
contains "$T/o" "cache: 1 hits, 0 measured" "a rerun is a cache hit"
"$ROOT/rot" -cacheDir="$CACHE" history "$T/nested" >"$T/h" 2>&1
contains "$T/h" "1 (1 measured, 0 hits, 0 failed)" "rot history ./PROGRAM lists its profiled runs (the hit repeats the newest record: none written)"

# another thread count is another point: history says so, and compare pairs none of its rows
# with the 2-thread ones (their bounds are other ceilings)
prof -threads=1 -runs=2 -maxRuns=2 -bestK=2 -- ./nested 200000 5 >"$T/o" 2>"$T/e"
contains "$T/o" "^nested 200000 5 *1 *outer " "-threads=1: the thread count in the point's coordinates"
"$ROOT/rot" -cacheDir="$CACHE" history "$T/nested" >"$T/h" 2>&1
grep "^2 " "$T/h" | grep -q "threads 2 -> 1"
ok $? "rot history says the threads changed ($(grep '^2 ' "$T/h" | sed 's/.*  //'))"
# counters change what the markers cost and so the result: history names them
prof -threads=1 -runs=2 -maxRuns=2 -bestK=2 -counters=perf::TASK-CLOCK -- ./nested 200000 5 >"$T/o" 2>"$T/e"
"$ROOT/rot" -cacheDir="$CACHE" history "$T/nested" >"$T/h" 2>&1
grep "^3 " "$T/h" | grep -q "counters (none) -> perf::TASK-CLOCK"
ok $? "rot history names the counters a run added ($(grep '^3 ' "$T/h" | sed 's/.*  //'))"
"$ROOT/rot" -cacheDir="$CACHE" -outputDir="$OUT" compare "$T/nested" 1 2 >"$T/cmp" 2>&1
# (each run's three rows, and the loop survey's where its samples landed)
test "$(grep -c " only in A " "$T/cmp")" -ge 3 && test "$(grep -c " only in B " "$T/cmp")" -ge 3 &&
	! grep -E "^nested .*(same|faster|slower)" "$T/cmp" | grep -q .
ok $? "rot compare: the 1-thread rows and the 2-thread rows, each only in one run, none paired"

# back to 2 threads (run 4): compare's default pairs it with run 1, the newest run that shares
# its points, not run 3 (1 thread), and a pair that shares none names the pair that would
prof -threads=2 -runs=2 -maxRuns=2 -bestK=2 -- ./nested 200000 5 >"$T/o" 2>"$T/e"
"$ROOT/rot" -cacheDir="$CACHE" -outputDir="$OUT" compare "$T/nested" >"$T/cmp" 2>"$T/e"
grep -q "^rot compare nested: A = run 1 " "$T/cmp" && grep -q "B = run 4 " "$T/cmp" &&
	grep -q "^rot: compare: run 3 shares no point with run 4 (their threads or arguments differ): comparing with run 1" "$T/e" &&
	! grep -q " only in [AB] " "$T/cmp"
ok $? "rot compare after a thread change: runs 1 and 4, which share points ($(cat "$T/e"))"
"$ROOT/rot" -cacheDir="$CACHE" -outputDir="$OUT" compare "$T/nested" 3 4 >"$T/cmp" 2>&1
grep -q "; no point timed in both; runs that share points compare: rot -cacheDir=$CACHE -outputDir=$OUT compare $T/nested 1 4$" "$T/cmp"
ok $? "runs 3 and 4 share no point: the summary names the pair that would compare ($(grep '^rot compare: [0-9]' "$T/cmp"))"

# a script's application points: a sweep, a cached rerun, compare per region
cat >"$T/study.lua" <<EOF
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("n", { 100000, 200000 }) },
  function(p) return { app = "$T/nested", args = { p.n, 4 }, threads = 1 } end)
r:table()
r:csv("study")
EOF
rot measure "$T/study.lua" -runs=2 -maxRuns=2 -bestK=2 >"$T/o" 2>"$T/e"
ok $? "a script sweeps an application point over its arguments"
test "$(grep -c " outer " "$T/o")" -eq 2
ok $? "one outer row per point"
rot measure "$T/study.lua" -runs=2 -maxRuns=2 -bestK=2 -useCachedResults=false >"$T/o" 2>"$T/e"
rot compare "$T/study.lua" >"$T/cmp" 2>&1
ok $? "rot compare on two runs of it"
grep -E "^100000 +outer .*(same|faster|slower)" "$T/cmp" | grep -q . && grep -E "^200000 +\(program\)" "$T/cmp" | grep -q .
ok $? "rot compare judges each region (and the program) against the noise"
# another build of the program (its binary's hash moves: a byte appended), measured: its rows
# against the run before are inconclusive (no reruns); rot kept each run's program, so
# -remeasure measures both again and judges every row (the program's and each region's)
printf '\n' >>"$T/nested"
rot measure "$T/study.lua" -runs=2 -maxRuns=2 -bestK=2 >"$T/o" 2>"$T/e"
rot compare "$T/study.lua" >"$T/cmp" 2>&1
grep -q "^rot compare: 0 faster, 0 slower, 0 same, 6 inconclusive,.*: rot -cacheDir=$CACHE -outputDir=$OUT .*compare .*study.lua 2 3 -remeasure" "$T/cmp"
ok $? "another build: inconclusive, and the -remeasure command that decides them is named, with the -cacheDir it was given ($(grep "^rot compare: [0-9]" "$T/cmp"))"
grep -q "geometric-mean speedup [0-9.]* (B over A, 4 points, the (program) rows left out: their regions are in it)" "$T/cmp"
ok $? "the geometric mean counts the 4 regions, not the program rows that hold their time too"
rot compare "$T/study.lua" -remeasure=8 >"$T/cmp" 2>"$T/e"
ok $? "rot compare -remeasure on them ends well"
test "$(grep -c "remeasured 8 rounds, 99% interval" "$T/cmp")" -eq 6 && ! grep -q "not measured again" "$T/e" "$T/cmp"
ok $? "each of the 6 rows is judged from 8 rounds of both programs measured again ($(head -n 1 "$T/e"))"
# a program's rows show one round together: no region's time exceeds its program's, on either side
awk 'function sec(v, u) { return v * (u == "ns" ? 1e-9 : u == "us" ? 1e-6 : u == "ms" ? 1e-3 : 1) }
	$1 ~ /^[0-9]+$/ && NF > 6 { a[$1 " " $2] = sec($3, $4); b[$1 " " $2] = sec($5, $6); n[$1] = 1 }
	END { for (k in a) { split(k, w, " "); p = w[1] " (program)"; if (!(p in a) || a[k] > a[p] || b[k] > b[p]) bad++ }
		exit !(length(n) == 2 && !bad) }' "$T/cmp"
ok $? "no region's time exceeds its program's, on either side ($(grep -E '^100000 ' "$T/cmp" | awk '{ print $2, $3 $4, $5 $6 }' | tr '\n' ';'))"
test -n "$(ls "$CACHE"/sources/*/* 2>/dev/null | xargs -r cksum | grep " $(wc -c <"$T/nested") ")"
ok $? "the program each run ran is kept in the source store"
# a build that does twice the work in each region (tests/apps/nested.c -DSWEEPS=2), over the
# same path: both regions of both points are slower, from the programs rot kept
$cc -O2 -fopenmp -DSWEEPS=2 $inc -o "$T/nested" tests/apps/nested.c
rot measure "$T/study.lua" -runs=2 -maxRuns=2 -bestK=2 >"$T/o" 2>"$T/e"
rot compare "$T/study.lua" -remeasure=8 >"$T/cmp" 2>"$T/e"
test "$(grep -cE "^[0-9]+ +(outer|inner) .* slower .*remeasured 8 rounds" "$T/cmp")" -eq 4
ok $? "a build doing twice the work: outer and inner slower at both sizes (outer B/A at n=100000: $(grep -E "^100000 +outer" "$T/cmp" | awk '{ print $7 }'))"

# a script that sets the threads without a thread axis (here its argument): history says the
# threads changed, compare pairs the points by their coordinates and says that they ran at
# other thread counts
cat >"$T/bythreads.lua" <<EOF
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("n", { 100000 }) },
  function(p) return { app = "$T/nested", args = { p.n, 4 }, threads = tonumber(arg[1]) } end)
r:table()
EOF
rot measure "$T/bythreads.lua" 2 -runs=2 -maxRuns=2 -bestK=2 >"$T/o" 2>"$T/e" &&
	rot measure "$T/bythreads.lua" 1 -runs=2 -maxRuns=2 -bestK=2 >"$T/o" 2>"$T/e"
ok $? "a script run at 2, then 1 thread by its argument"
rot history "$T/bythreads.lua" >"$T/h" 2>&1
grep "^2 " "$T/h" | grep -q "threads 2 -> 1"
ok $? "rot history: the threads changed, not only the argument ($(grep '^2 ' "$T/h" | sed 's/.*  //'))"
rot compare "$T/bythreads.lua" >"$T/cmp" 2>"$T/e"
grep -q "^rot: compare: note: 3 points ran at another thread count in B than in A (threads 2 -> 1, the first)" "$T/e"
ok $? "rot compare says its pairs ran at other thread counts ($(head -n 1 "$T/e"))"

# hostile programs: each ends cleanly, its cause named, nothing cached, nothing left running
prof -runs=2 -maxRuns=2 -bestK=2 -- ./hostile other-thread >"$T/o" 2>"$T/e"
st=$?
test $st -eq 1 && grep -q "region 'handoff' ended in thread 1, but thread 0 began it: a region ends in the thread that began it" "$T/e"
ok $? "a region ended in another thread: a clear error, exit 1 (exit $st)"
! grep -qi "traceback\|internal error" "$T/e"
ok $? "and no crash of rot"
contains "$T/o" "^# measured on .*, a marker pair " "the failed point's table says where and how it was measured"
! grep -q "best-k did not converge\|%!" "$T/o"
ok $? "its rows, cut short by the failure, are not said to have failed best-k"
for f in hostile.csv hostile.json hostile.svg hostile.png hostile.dat hostile.gp; do test -s "$OUT/$f" || echo "missing $f"; done |
	grep -q . && ok 1 "a failed point's outputs: all of them" || ok 0 "a failed point's outputs: all of them, the roofline too"
grep -q "not drawn (its point failed): handoff" "$OUT/hostile.gp"
ok $? "its roofline's key says why its region is not on it"
prof -runs=2 -maxRuns=2 -bestK=2 -- ./hostile other-thread >"$T/o" 2>"$T/e"
contains "$T/o" "cache: 0 hits, 0 measured, 1 failed" "nothing of it was cached: measured again"

prof $one -- ./hostile never-closed >"$T/o" 2>"$T/e"
st=$?
test $st -eq 0 && grep -q "region 'open': 1 call(s) never closed" "$T/o" && grep -q " done *2 *1 " "$T/o"
ok $? "a region never closed: said; the completed regions measured (exit $st)"

prof $one -- ./hostile empty 10000000 >"$T/o" 2>"$T/e"
st=$?
test $st -eq 0 && grep -q " empty *10000000 *1 " "$T/o"
ok $? "10^7 calls of an empty region: all counted (exit $st)"
contains "$T/o" "region 'empty': a begin/end pair costs .*, more than its .* a call (.*%): the time its calls take the program is mostly the markers'" \
	"and said to be too short for its markers"

prof $one -- ./hostile crash >"$T/o" 2>"$T/e"
st=$?
test $st -eq 1 && grep -q "application 'hostile' was killed by Segmentation fault (signal 11)" "$T/e"
ok $? "a crash: its cause named (exit $st)"
grep -q " before *3 *1 .*FAILED" "$T/o" && grep -q "its rows are what its invocations completed before it failed" "$T/o"
ok $? "the regions it completed before are kept and marked"
prof $one -- ./hostile crash >"$T/o" 2>"$T/e"
contains "$T/o" "0 hits, 0 measured, 1 failed" "a crash is not cached"

prof $one -- ./hostile exit >"$T/o" 2>"$T/e"
contains "$T/e" "application 'hostile' exited with status 3 in invocation 1" "an exit status other than 0: said with its invocation"

prof $one -timeout=1 -- ./hostile hang >"$T/o" 2>"$T/e"
st=$?
test $st -eq 1 && grep -q "application 'hostile' ran past the timeout of 1 s and was killed" "$T/e"
ok $? "a hang: killed at the timeout (exit $st)"
prof $one -- ./hostile fork >"$T/o" 2>"$T/e"
contains "$T/e" "application 'hostile' started a process that outlived it (pid [0-9]*); killed" "a fork left running: named and killed"
sleep 0.2
! pgrep -f "$T/hostile" >/dev/null
ok $? "nothing of the hostile program is left running"

prof $one -- ./hostile garbage >"$T/o" 2>"$T/e"
st=$?
test $st -eq 0 && grep -q " before *1 *1 " "$T/o" && ! grep -q forged "$T/o" "$OUT/hostile.csv"
ok $? "garbage on stdout and stderr (the core's own protocol lines): measured, nothing forged (exit $st)"

prof $one -- ./hostile unmarked >"$T/o" 2>"$T/e"
contains "$T/o" "application 'hostile' called no marker: only its whole time is measured" "a program without markers: its whole time, and said"

# a program started through a launcher (sh -c, env, a wrapper script that execs it, a shell that
# forks it, two at once): the regions of each process of the tree that marks them are recorded,
# and where they came from is said
printf '#!/bin/sh\nexec ./nested "$@"\n' >"$T/wrapper.sh" && chmod +x "$T/wrapper.sh"
launched() { # launched NAME THREADS COMMAND...: outer's 5 calls in THREADS threads, and the line on where they were recorded
	th=$2
	shift 2
	prof -threads=1 $one -- "$@" >"$T/o" 2>"$T/e"
	test $? -eq 0 && grep -q " outer  *5  *$th " "$T/o" &&
		grep -q "^application '[^']*': its regions were recorded in .*'nested' (pid [0-9]*)" "$T/o"
}
launched "sh -c" 1 sh -c "./nested 200000 5"
ok $? "sh -c ./nested: outer's 5 calls recorded in nested, and said ($(grep -o "its regions were recorded in [^;]*" "$T/o"))"
launched env 1 env ./nested 200000 5
ok $? "env ./nested: recorded"
launched wrapper 1 ./wrapper.sh 200000 5
ok $? "a wrapper script that execs it: recorded"
launched "sh -c, forked" 1 sh -c "./nested 200000 5; true"
ok $? "a shell that forks it first: recorded"
launched "two at once" 2 sh -c "./nested 200000 5 & ./nested 200000 5; wait"
ok $? "two processes at once: outer's calls in 2 threads, one of each, recorded and said ($(grep -o "recorded in [0-9]* processes" "$T/o"))"
grep -q "recorded in 2 processes: 'nested' (pid [0-9]*), 'nested' (pid [0-9]*)" "$T/o" && grep -q "work summed" "$T/o"
ok $? "and the rule that sums them is stated"
prof $one -- sh -c true >"$T/o" 2>"$T/e"
contains "$T/o" "called no marker: only its whole time is measured" "a launcher whose tree marks nothing: said"
prof $one -- ./hostile forked >"$T/o" 2>"$T/e"
grep -q " before  *1 " "$T/o" && ! grep -q " child " "$T/o" &&
	grep -q "^application 'hostile': a process it forked without exec (pid [0-9]*) began regions 1 time: not recorded" "$T/o"
ok $? "markers in a process forked without exec: not recorded, and the process named with why"
if $cc -static -O2 -pthread $inc -o "$T/static" tests/apps/hostile.c 2>/dev/null; then
	# glibc's static dlopen may load the recorder all the same; where it cannot, rot says so
	prof $one -- ./static never-closed >"$T/o" 2>"$T/e"
	st=$?
	test $st -eq 0 && { grep -q " done *2 *1 " "$T/o" || grep -q "no region recorded: rot's marker recorder was not loaded into it" "$T/o"; }
	ok $? "a static program: its regions recorded, or rot says why they cannot be (exit $st)"
else
	skip "no static libc here: the static program's case is not checked"
fi

prof $one -counters=perf::TASK-CLOCK -- ./hostile counters 200000 >"$T/o" 2>"$T/e"
task=$(csv_value "$OUT/hostile.csv" counter:perf::TASK-CLOCK 2)
awk -v v="$task" 'BEGIN { exit !(v + 0 > 0) }'
ok $? "a software counter counts per region ($task ns of task-clock in 'work')"
wt=$(csv_value "$OUT/hostile.csv" time_s 2)
awk -v c="$task" -v t="$wt" 'BEGIN { r = c * 1e-9 / t; exit !(r > 0.8 && r < 1.25) }'
ok $? "its count is the region's: task-clock over the region's time $(awk -v c="$task" -v t="$wt" 'BEGIN { printf "%.3f", c * 1e-9 / t }') (one thread, a single counter read alone)"
row=$(grep " work " "$T/o")
echo "$row" | grep -q "%  *-  *[0-9.]*  *-  " && test -z "$(csv_value "$OUT/hostile.csv" bandwidth_GBs 2)"
ok $? "'work' declares flops and 0 bytes: GB/s '-', not 0.00, in the table and the CSV ($row)"
test -s "$OUT/hostile.png" && grep -q "not drawn (no bytes): work" "$OUT/hostile.gp"
ok $? "its roofline drawn all the same, its key saying why 'work' is not on it"
prof $one -counters=perf::TASK-CLOCK,INSTRUCTIONS -- ./hostile counters 200000 >"$T/o" 2>"$T/e"
instr=$(csv_value "$OUT/hostile.csv" counter:INSTRUCTIONS 2)
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	awk -v v="$instr" 'BEGIN { exit !(v + 0 > 0) }'
	ok $? "with a core PMU, INSTRUCTIONS counts per region ($instr)"
else
	test "$instr" = "not counted" && grep -q "INSTRUCTIONS not counted: event 'INSTRUCTIONS' cannot be counted: the machine has no counter" "$T/o"
	ok $? "without a core PMU, INSTRUCTIONS is 'not counted' with why, never 0 ($instr)"
fi
task=$(csv_value "$OUT/hostile.csv" counter:perf::TASK-CLOCK 2)
awk -v v="$task" 'BEGIN { exit !(v + 0 > 0) }'
ok $? "and perf::TASK-CLOCK beside it still counts ($task)"

prof -- ./missing >"$T/o" 2>"$T/e"
st=$?
test $st -eq 1 && grep -q "^rot: no program './missing'" "$T/e"
ok $? "a missing program: a clear error (exit $st)"
cp "$T/nested" "$T/noexec" && chmod -x "$T/noexec"
prof -- ./noexec >"$T/o" 2>"$T/e"
grep -q "^rot: program './noexec' is not executable" "$T/e" && grep -q "^hint: chmod +x ./noexec" "$T/e"
ok $? "a program that is not executable: said, with the hint"

# hints that fit the command they correct (rot profile's own command line, not a script's)
cp tests/apps/nested.c "$T/prog.c"
prof -- ./prog.c >"$T/o" 2>"$T/e"
grep -q "^rot: './prog.c' is source code, not a program" "$T/e" &&
	grep -q "^hint: compile it first: cc -O2 -fopenmp -I $ROOT/core/include -o ./prog ./prog.c, then rot profile -- ./prog" "$T/e"
ok $? "C source given as the program: said, with how to compile it ($(tail -n 1 "$T/e"))"
prof nested >"$T/o" 2>"$T/e"
grep -q "^rot: no program 'nested' on PATH" "$T/e" && grep -q "^hint: rot profile -- ./nested (a program in the current directory" "$T/e"
ok $? "a program here named without ./: the command line that names it ($(tail -n 1 "$T/e"))"
for p in ./nosuchprog "$T/nosuchprog"; do
	prof -- "$p" >"$T/o" 2>"$T/e"
	grep -q "^rot: no program '$p'" "$T/e" && ! grep -q "^hint:" "$T/e"
	ok $? "a program that is not there ($p): said, no hint in a script's syntax"
done
prof ./nested -n 5 >"$T/o" 2>"$T/e"
grep -q "^rot: bad option '-n' after the program" "$T/e" && grep -q "^hint: rot profile .*-- ./nested -n 5$" "$T/e"
ok $? "the program's option before --: the command line that passes it ($(tail -n 1 "$T/e"))"
prof -thread=2 -- ./nested >"$T/o" 2>"$T/e"
grep -q "^rot: unknown option '-thread' for rot profile; did you mean '-threads'?" "$T/e" && grep -q "^hint: rot profile's own options: " "$T/e"
ok $? "a misspelt option of rot profile's own: the nearest named ($(head -n 1 "$T/e"))"
mkdir -p "$T/st/study/kernels" && echo "/* a study's kernel */" >"$T/st/study/kernels/myscale.c"
(cd "$T/st" && "$ROOT/rot" -cacheDir="$CACHE" asm myscale) >"$T/o" 2>"$T/e"
grep -q "^rot: unknown kernel 'myscale' here" "$T/e" && grep -q "^hint: .*rot asm study/kernels/myscale.c$" "$T/e"
ok $? "rot asm NAME of a study's kernel: the path that finds it ($(tail -n 1 "$T/e"))"
# docs/applications.md's "Your own program on the roofline" as a newcomer follows it: its
# solver.c and its script taken from there, built as it says, profiled and swept in one folder:
# neither overwrites the other's outputs
R="$T/readme"
mkdir -p "$R"
awk '/^## Your own program on the roofline/ { s = 1; next } /^## / { s = 0 } s' "$ROOT/docs/applications.md" >"$T/section"
awk '/^```c$/ { if (!done) b = 1; next } /^```$/ { if (b) done = 1; b = 0 } b' "$T/section" >"$R/solver.c"
awk '/^```lua$/ { if (!done) b = 1; next } /^```$/ { if (b) done = 1; b = 0 } b' "$T/section" >"$R/script"
script=$(sed -n '1s/^-- \([^ :]*\.lua\):.*/\1/p' "$R/script")
test -n "$script" && mv "$R/script" "$R/$script" && grep -q 'app = "./solver"' "$R/$script" &&
	(cd "$R" && $cc -O2 -fopenmp $inc -o solver solver.c)
ok $? "the docs' solver.c builds as the docs say, beside its script ($script)"
readme() { (cd "$R" && "$ROOT/rot" -cacheDir="$CACHE" -peaksFile="$ROOT/tests/fixtures/peaks.csv" $one "$@"); }
readme profile -threads=1 -- ./solver 100000 >"$T/o" 2>"$T/e" && readme measure "$script" >"$T/o2" 2>"$T/e2"
ok $? "rot profile -threads=1 -- ./solver, then rot measure $script"
test "$(csv_value "$R/solver.csv" command 1)" = "solver 100000" && test "$(csv_value "$R/solver.csv" threads 1)" = 1 &&
	grep -q '"command": "solver 100000"' "$R/solver.json" && grep -q '"solve"' "$R/solver.dat"
ok $? "rot profile's solver.csv, .json and roofline are still its own after the script ran"
for f in "$R"/*.csv; do
	case $(basename "$f") in solver.csv) ;; *) test "$(csv_value "$f" n 1)" = 100000 && echo sweep ;; esac
done | grep -q sweep
ok $? "the script's sweep wrote its own CSV ($(cd "$R" && ls *.csv | tr '\n' ' '))"

# a program gone by the time its run is recorded (it removed itself: its second invocation
# fails): the point fails with why, and the run is recorded all the same, without a copy of it
printf '#!/bin/sh\nrm -f "$0"\necho gone\n' >"$T/selfdel" && chmod +x "$T/selfdel"
prof -- ./selfdel >"$T/o" 2>"$T/e"
st=$?
test $st -eq 1 && grep -q "cannot start application 'selfdel'.*No such file" "$T/e" && ! grep -q "run record was not written" "$T/e"
ok $? "a program that removed itself: its point fails with why, and its run is recorded (exit $st$(grep "warning" "$T/e" | head -n 1 | sed 's/^/; /'))"

# a program never measured: compare names the command that records its runs
cp "$T/nested" "$T/never"
rot compare "$T/never" >"$T/o" 2>"$T/e"
test $? -ne 0 && grep -q "^hint: measure it first: rot profile -- $T/never$" "$T/e"
ok $? "rot compare on a program never profiled: the hint is rot profile, not rot measure ($(tail -n 1 "$T/e"))"
done_testing
