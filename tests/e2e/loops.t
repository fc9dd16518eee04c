#!/bin/sh
# The loop survey's pieces end to end, on tests/loops/'s programs built -O2 -g: rot's counting
# tool (--rot-loops=yes) finds every loop of a matrix-vector product in both orders, a stencil
# under a time loop and a nest around an inlined helper at its source line (rot.symbols) with
# its nest depth, counts exactly the flops each does, and loses nothing (loops, functions and
# unknown code sum to the program); in marked regions (regions.c), each loop's part in each
# region exact, and each region's parts summing to its counts; each loop's simulated traffic
# against cachegrind's with the same two levels; a stripped build and one without
# -g give the same loops, named by object and offset or by function; the core samples an invocation at native speed
# (input sample) and each hot function's share agrees within 3 points with perf record -e
# cpu-clock's of the same invocation; the hostile ones: code in a JIT's buffer (unknown code), a dlopen'ed library (its
# loop, its object), a 20 ms program, two threads in one loop (its flops summed), one that forks
# (each process counted, both sampled; a region called across the fork; a thread that ends inside a
# region, its number then reused), and sampling refused by a seccomp filter (one line, the
# program timed all the same).
. "$(dirname "$0")/lib.sh"
. tests/optional.sh
cc=${CC:-gcc}
B=$T/b
mkdir -p "$B/gen" && : >"$B/gen/kernels.mk" && : >"$B/gen/paths.flags" && : >"$B/gen/kernel.flags"
make -s -C core O="$B" GEN="$B/gen" "$B/rot-core" count-tool >"$T/make" 2>&1
ok $? "the core and the counting tool built"
P=$T/p
mkdir -p "$P"
for p in mv stencil nest noperf; do $cc -O2 -g -o "$P/$p" tests/loops/$p.c || echo "# $p does not build"; done
$cc -O2 -g -o "$P/hostile" tests/loops/hostile.c -ldl -lpthread && $cc -O2 -g -shared -fPIC -o "$P/hostile-plugin.so" tests/loops/plugin.c
strip -o "$P/mv-stripped" "$P/mv" && $cc -O2 -o "$P/mv-nog" tests/loops/mv.c
ok $? "the programs built -O2 -g, mv also stripped and without -g"

count() { # count OUT PROGRAM ARGS...: the program counted with loops, two simulated levels
	out=$1
	shift
	VALGRIND_LIB=$B/count/valgrind valgrind -q --tool=rotcount --rot-out="$out" --rot-loops=yes \
		--rot-cache=49152:12,1048576:16 "$@" >/dev/null 2>"$out.err"
}
survey() { "$ROOT/rot" run tests/loops/survey.lua "$@"; }

# --- every loop at its line and depth, its flops exact -------------------------------------------
# expected: PROGRAM LOOP DEPTH FLOPS (the LOOP comment on the loop's `for`; flops as awk figures)
N=60 R=2 S=40 STEPS=3 NO=30 M=50
cat >"$T/want" <<W
mv init 1 $N*$N+2*$N
mv row.reps 1 0
mv row.i 2 $N*$R
mv row.j 3 2*$N*$N*$R
mv column.reps 1 0
mv column.j 2 0
mv column.i 3 2*$N*$N*$R
stencil grid 1 0
stencil sweep.i 1 0
stencil sweep.j 2 4*($S-2)*($S-2)*$STEPS
stencil time 1 0
nest init 1 0
nest outer 1 $NO
nest helper 2 2*$NO*$M
W
count "$T/mv.out" "$P/mv" $N $R && count "$T/stencil.out" "$P/stencil" $S $STEPS && count "$T/nest.out" "$P/nest" $NO $M
ok $? "mv, stencil and nest counted with their loops"
for p in mv stencil nest; do survey loops "$T/$p.out" "$P/$p" >"$T/$p.loops" 2>&1; done
while read -r p name depth flops; do
	line=$(grep -n "/\* LOOP $name \*/" tests/loops/$p.c | cut -d: -f1)
	f=$(awk "BEGIN { printf \"%d\", $flops }")
	grep -q "^loop $p.c:$line depth=$depth .* flops=$f " "$T/$p.loops"
	ok $? "$p.c:$line ($name): a loop at depth $depth with $f flops ($(grep "^loop $p.c:$line " "$T/$p.loops" | cut -d' ' -f3-5))"
done <"$T/want"
for p in mv stencil nest; do
	n=$(grep -c "^loop $p.c:" "$T/$p.loops") w=$(grep -c "^$p " "$T/want")
	test "$n" -eq "$w" && grep -q "^sum OK" "$T/$p.loops"
	ok $? "$p: no loop its source does not have ($n found, $w in the source); loops, functions and unknown code sum to the program's counts"
done
grep -q "^loop nest.c:$(grep -n 'LOOP helper' tests/loops/nest.c | cut -d: -f1) .* fn=dot_scaled " "$T/nest.loops"
ok $? "the inlined helper's loop is named after the helper, at its own line"

# --- loops in marked regions: each region's part, exact ----------------------------------------------
$cc -O2 -g -I core/include -o "$P/regions" tests/loops/regions.c &&
	(export ROT_MARKERS="$B/count/librot-count.so" && count "$T/rg.out" "$P/regions" 100 10) &&
	survey parts "$T/rg.out" "$P/regions" >"$T/rg.parts" 2>&1
ok $? "regions.c counted with its markers and loops"
# REGION LOOP FLOPS ITERATIONS (shared.i: once in "second", twice outside, a part in "second" alone)
cat >"$T/want" <<W
first first.i 2*100*10 1000
second second.i 3*100*10 1000
second shared.i 100*10 1000
W
while read -r region name flops its; do
	line=$(grep -n "/\* LOOP $name \*/" tests/loops/regions.c | cut -d: -f1)
	f=$(awk "BEGIN { printf \"%d\", $flops }")
	grep -q "^part $region regions.c:$line flops=$f iterations=$its$" "$T/rg.parts"
	ok $? "$name's part in region '$region': $f flops, $its iterations ($(grep " regions.c:$line " "$T/rg.parts" | cut -d' ' -f2-))"
done <"$T/want"
line=$(grep -n '/\* LOOP outside.i \*/' tests/loops/regions.c | cut -d: -f1)
! grep -q " regions.c:$line " "$T/rg.parts" && test "$(grep -c "^part first regions.c" "$T/rg.parts")" = 2
ok $? "the loop outside every region has no part; first has its two loops alone"
grep -q "^region first OK$" "$T/rg.parts" && grep -q "^region second OK$" "$T/rg.parts"
ok $? "each region's parts of loops, functions and unknown code sum to its own counts exactly ($(grep '^region' "$T/rg.parts" | tr '\n' ' '))"

# --- each loop's simulated traffic against cachegrind's -------------------------------------------
# mv 600 2: A (2.9 MB) beyond both levels, walked by rows and by columns. cachegrind with the same
# D1 (48 KiB 12-way) and LL (1 MiB 16-way), its I1 given (32 KiB 8-way) so that the run is the same
# on any machine. Both see the same data accesses through the same LRU, write-allocate levels, so
# lines filled into L1 equal cachegrind's D1 misses (0.1 % for data placed otherwise: the tool's
# environment differs). cachegrind's LL also holds the instructions that missed its I1, which
# rot's does not simulate: each can evict a data line, so its LL misses may differ by up to the
# program's I1 misses (its summary's I1mr), and 0.1 % more.
count "$T/mvt.out" "$P/mv" 600 2 &&
	valgrind -q --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$T/mv.cg" --I1=32768,8,64 \
		--D1=49152,12,64 --LL=1048576,16,64 "$P/mv" 600 2 >/dev/null 2>"$T/cg.err" &&
	survey traffic "$T/mvt.out" "$P/mv" "$T/mv.cg" >"$T/mv.traffic" 2>&1
ok $? "mv counted with its loops and run under cachegrind with the same two levels"
i1=$(awk '/^summary:/ { print $3 }' "$T/mv.cg")
for name in row.j column.i init; do
	line=$(grep -n "/\* LOOP $name \*/" tests/loops/mv.c | cut -d: -f1)
	got=$(grep "^traffic mv.c:$line " "$T/mv.traffic")
	echo "$got" | awk -v i1="${i1:-0}" '{ for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		function off(a, b) { return a > b ? a - b : b - a }
		END { exit !(v["cg_l1"] > 1000 && off(v["l1"], v["cg_l1"]) <= 0.001 * v["cg_l1"] &&
			off(v["ll"], v["cg_ll"]) <= i1 + 0.001 * v["cg_ll"]) }'
	ok $? "mv.c:$line ($name): lines filled into L1 and L2 against cachegrind's D1 and LL misses there (${got#* }; its I1 misses ${i1:-?})"
done

# --- stripped, and without -g: the same loops ------------------------------------------------------
count "$T/s.out" "$P/mv-stripped" $N $R && count "$T/g.out" "$P/mv-nog" $N $R
survey loops "$T/s.out" "$P/mv-stripped" >"$T/s.loops" 2>&1
survey loops "$T/g.out" "$P/mv-nog" >"$T/g.loops" 2>&1
shape() { awk '/^loop / { print $3, $5 }' "$1" | sort; } # depth and flops of each loop
test "$(shape "$T/s.loops")" = "$(shape "$T/mv.loops")" && test "$(grep -c '^loop mv-stripped:0x[0-9a-f]* .* fn=mv-stripped+0x' "$T/s.loops")" -eq 7
ok $? "stripped: the same 7 loops, depths and flops, named by object and offset ($(grep '^loop' "$T/s.loops" | head -n 1 | cut -d' ' -f2-4))"
test "$(shape "$T/g.loops")" = "$(shape "$T/mv.loops")" && test "$(grep -cE '^loop mv-nog:0x[0-9a-f]* .* fn=(row|column|array) ' "$T/g.loops")" -eq 7
ok $? "without -g: the same 7 loops, named by their functions ($(grep '^loop' "$T/g.loops" | head -n 1 | cut -d' ' -f2-4))"

# --- hostile programs under the counting tool ------------------------------------------------------
H=100000
count "$T/jit.out" "$P/hostile" jit $H && survey loops "$T/jit.out" "$P/hostile" >"$T/jit.loops" 2>&1
grep -q "^unknown $H " "$T/jit.loops" && grep -q "^sum OK" "$T/jit.loops"
ok $? "a JIT's buffer: its $H flops counted as unknown code, nothing lost ($(grep '^unknown' "$T/jit.loops"))"
count "$T/dl.out" "$P/hostile" dlopen $H && survey loops "$T/dl.out" "$P/hostile-plugin.so" >"$T/dl.loops" 2>&1
grep -q "^loop plugin.c:$(grep -n 'LOOP plugin' tests/loops/plugin.c | cut -d: -f1) depth=1 fn=plugin_adds flops=$H " "$T/dl.loops"
ok $? "a dlopen'ed library, closed before the end: its loop at its line, $H flops"
count "$T/fork.out" "$P/hostile" fork $H
kid=$(ls "$T"/fork.out.* 2>/dev/null | grep -v '\.err$' | head -n 1)
survey loops "$T/fork.out" "$P/hostile" >"$T/fork.loops" 2>&1 && survey loops "$kid" "$P/hostile" >"$T/kid.loops" 2>&1
grep -q "^forks n=1$" "$T/fork.out" && grep -q "^loop hostile.c:.* fn=sum flops=$((2 * H)) " "$T/fork.loops" &&
	grep -q "^loop hostile.c:.* fn=sum flops=$H " "$T/kid.loops"
ok $? "a program that forks: the parent's counts ($((2 * H)) flops) say it forked one, the child's own ($H) in ${kid##*/}"
# a region called before a fork and in the child: the child's counts its own call's alone
$cc -O2 -g -I core/include -o "$P/forked" tests/loops/forked.c &&
	(export ROT_MARKERS="$B/count/librot-count.so" && count "$T/fk.out" "$P/forked" $H)
kid=$(ls "$T"/fk.out.* 2>/dev/null | grep -v '\.err$' | head -n 1)
grep -q "^region name=sum calls=1 threads=1 whole_process=1 .* fp64_scalar=$H " "$T/fk.out" &&
	grep -q "^region name=sum calls=1 threads=1 whole_process=1 .* fp64_scalar=$((2 * H)) " "$kid"
ok $? "a region called before a fork and again in the child: the parent's $H flops, the child's own $((2 * H)) ($(grep -o '^region name=sum.* fp64_scalar=[0-9]*' "$kid" | sed 's/.* //'))"
# a thread left a region open and ended; the next thread (the same number under Valgrind), then
# the main thread, run outside every region: their loop is no part of the dead thread's region
$cc -O2 -g -I core/include -o "$P/reused" tests/loops/reused.c -lpthread &&
	(export ROT_MARKERS="$B/count/librot-count.so" && count "$T/ru.out" "$P/reused" $H)
grep -q "^loop .* iterations=$((2 * H)) back=$((2 * H - 2)) " "$T/ru.out" &&
	! grep -q "^regionloop region=left .* fp64_scalar=[1-9]" "$T/ru.out"
ok $? "a thread that ended inside a region: the next thread's loop and the main thread's ($((2 * H)) iterations) are counted outside it"
count "$T/th.out" "$P/hostile" threads $H && survey loops "$T/th.out" "$P/hostile" >"$T/th.loops" 2>&1
grep -q "^loop hostile.c:$(grep -n 'LOOP sum' tests/loops/hostile.c | cut -d: -f1) depth=1 fn=sum flops=$((2 * H)) entries=2 " "$T/th.loops"
ok $? "two threads in one loop: one loop, its flops summed over both ($((2 * H))), entered twice"
count "$T/short.out" "$P/hostile" short 10000 && survey loops "$T/short.out" "$P/hostile" >"$T/short.loops" 2>&1
grep -q "^loop hostile.c:.* fn=sum " "$T/short.loops" && grep -q "^sum OK" "$T/short.loops"
ok $? "a 20 ms program: its loop found, nothing lost"

# --- sampling, against perf's ----------------------------------------------------------------------
sample() { # sample OUT PROGRAM ARGS...: one invocation sampled every ms by the core
	out=$1
	shift
	{
		printf 'point 1\napp %s\n' "$1"
		shift
		for a in "$@"; do printf 'arg %s\n' "$a"; done
		printf 'sample 1000000\nruns 1\nmaxRuns 1\nend\n'
	} >"$out.in"
	$WRAP "$B/rot-core" --batch "$out.in" >"$out" 2>"$out.err"
}
# the same invocation sampled by both: perf record follows the core into the program's process
if optional_install perf linux-perf; then
	WRAP="perf record -q -e cpu-clock -o $T/perf.data" sample "$T/mv.smp" "$P/mv" 300 8000
	perf report -i "$T/perf.data" --stdio --comm mv --percentage relative --sort sym 2>/dev/null |
		awk '$1 ~ /%$/ && $2 == "[.]" { sub("%", "", $1); print $3, $1 }' >"$T/perf.shares"
else
	sample "$T/mv.smp" "$P/mv" 300 8000
fi
survey shares "$T/mv.smp" >"$T/mv.shares" 2>&1
grep -q "^sampled run=0 .* samples=[0-9][0-9][0-9]" "$T/mv.smp" && grep -q "^share column " "$T/mv.shares"
ok $? "an invocation sampled: $(grep -o 'samples=[0-9]*' "$T/mv.smp"), $(head -n 2 "$T/mv.shares" | tr '\n' ' ')"
if [ -s "$T/perf.shares" ]; then
	for f in row column; do
		ours=$(awk -v f=$f '$1 == "share" && $2 == f { print $3 }' "$T/mv.shares")
		theirs=$(awk -v f=$f '$1 == f { print $2 }' "$T/perf.shares")
		awk -v a="$ours" -v b="$theirs" 'BEGIN { d = a - b; exit !(a != "" && b != "" && d < 3 && d > -3) }'
		ok $? "$f's share of the time: $ours % sampled by rot, $theirs % by perf record -e cpu-clock in the same invocation (within 3 points)"
	done
else
	skip "no perf here (Debian's linux-perf): the shares are not compared"
fi

# --- hostile programs sampled ----------------------------------------------------------------------
sample "$T/s.smp" "$P/mv-stripped" 200 2000 && survey shares "$T/s.smp" >"$T/s.shares" 2>&1
grep -q "^share mv-stripped+0x[0-9a-f]* " "$T/s.shares" && grep -q "^object run=0 id=2 path=$P/mv-stripped$" "$T/s.smp"
ok $? "a stripped program's samples: its object and offsets ($(head -n 1 "$T/s.shares"))"
sample "$T/jit.smp" "$P/hostile" jit 300000000
awk '/^sampled / { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } } END { exit !(v["samples"] > 20 && v["unknown"] > v["samples"] / 2) }' "$T/jit.smp"
ok $? "a JIT's buffer: its samples are unknown code ($(grep -o 'samples=[0-9]* .*unknown=[0-9]*' "$T/jit.smp"))"
sample "$T/dl.smp" "$P/hostile" dlopen 300000000 && survey shares "$T/dl.smp" >"$T/dl.shares" 2>&1
grep -q "^object run=0 id=[0-9]* path=$P/hostile-plugin.so$" "$T/dl.smp" && head -n 1 "$T/dl.shares" | grep -q "^share plugin_adds "
ok $? "a dlopen'ed library: its object and its function's samples ($(head -n 1 "$T/dl.shares"))"
sample "$T/short.smp" "$P/hostile" short 10000
grep -q "^sampled run=0 .* samples=[1-9][0-9]* " "$T/short.smp" && grep -q "^status ok" "$T/short.smp"
ok $? "a 20 ms program: sampled ($(grep -o 'samples=[0-9]*' "$T/short.smp"))"
sample "$T/th.smp" "$P/hostile" threads 100000000
grep -q "^sampled run=0 .* threads=[23] processes=1 " "$T/th.smp"
ok $? "two threads: both sampled ($(grep '^sampled' "$T/th.smp" | grep -o 'threads=[0-9]*'))"
sample "$T/fork.smp" "$P/hostile" fork 50000000
grep -q "^sampled run=0 .* processes=2 " "$T/fork.smp"
ok $? "a program that forks: both processes sampled ($(grep -o 'processes=[0-9]*' "$T/fork.smp"))"
WRAP=$P/noperf sample "$T/no.smp" "$P/mv" 100 100
grep -q "^meta sampling sampling refused: perf_event_open: Operation not permitted .*seccomp" "$T/no.smp" &&
	grep -q "^run ns=[0-9]" "$T/no.smp" && grep -q "^status ok" "$T/no.smp" && ! grep -q "^sampled " "$T/no.smp"
ok $? "sampling refused by a seccomp filter: one line that says what to allow, the program timed all the same"
done_testing
