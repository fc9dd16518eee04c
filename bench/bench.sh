#!/bin/sh
# make bench: rot's own speed figures, each with its method. Targets are printed beside the
# figures; nothing here fails a build (speed targets never go into timed tests).
cd "$(dirname "$0")/.." || exit 1
B=$(mktemp -d /tmp/rot-bench.XXXXXX)
trap 'rm -rf "$B"' EXIT
export XDG_CONFIG_HOME="$B/config"
R="./rot -cacheDir=$B/cache -outputDir=$B/out"
. bench/lib.sh # now, calc, median, field, slope, warm, overhead

echo "rot benchmarks on $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores"
echo

$R measure triad -progress=never >"$B/prime" 2>&1
$R measure triad -progress=never >"$B/prime" 2>&1 # the first run also measured the peaks
points=$(sed -n 's/^rot: \([0-9]*\) points.*/\1/p' "$B/prime")
medrange() { # medrange COLUMN < lines: "median (min-max over N pairs)" of a column
	awk -v c="$1" 'NF >= c && $c != "" { v[++n] = $c } END {
		if (!n) { print "- (no pair measured)"; exit }
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j] < v[j - 1]; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
		printf "%.2f (%.2f-%.2f over %d pairs)", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, v[1], v[n], n }'
}
# the cached rerun against ./rot help, each pair run one after the other (bench/pairs.pl): the
# guest's pace, which moves tenfold between benches, cancels in each pair's ratio
perl bench/pairs.pl 11 $R measure triad -- ./rot help >"$B/pairs"
printf 'cached rerun of the full triad sweep: x%s ./rot help (each pair'"'"'s ratio; target at most x3.5): %s ms wall against %s ms, %s points, all hits (./rot measure triad and ./rot help interleaved, 11 pairs)\n' \
	"$(medrange 3 <"$B/pairs")" "$(medrange 1 <"$B/pairs" | cut -d' ' -f1)" "$(medrange 2 <"$B/pairs" | cut -d' ' -f1)" "$points"
ROT_PROFILE="$B/profile" $R measure triad >/dev/null 2>&1
echo "  where its time goes (ROT_PROFILE: CPU-time shares of one run under the sampling profiler, not times; ms inclusive, ms self):"
awk 'NR > 1 && $3 !~ /^\[C\]/ && $3 !~ /^rot\/cli\// { print "   ", $0; if (++n == 12) exit }' "$B/profile"

for i in 1 2 3 4 5 6 7 8 9 10 11; do
	t0=$(now); ./rot help >/dev/null; t1=$(now)
	t2=$(now); ROT_HOME=$(pwd) build/rot-driver help >/dev/null; t3=$(now)
	calc "($t1 - $t0) - ($t3 - $t2)"
done | median >"$B/front"
printf 'frontend (rot script) overhead when up to date: %.2f ms (median of 11: ./rot help minus build/rot-driver help; target well under 100 ms)\n' \
	"$(calc "$(cat "$B/front") * 1000")"

# A virtual machine's pace can move tenfold between benches, so the two children are measured interleaved, fresh, shared, fresh, ..., 5 slopes
# each: a regression shows in their medians and in each fresh slope over the shared one measured
# right after it (the same minutes: the guest's pace cancels), the guest in their spread.
# $B/ovh: "fresh_ms fresh_fixed_ms shared_ms shared_fixed_ms fresh/shared" a pair
warm triad each
warm triad shared
for pair in 1 2 3 4 5; do
	echo "$(slope triad each $((2 * pair))) $(slope triad shared $((2 * pair + 1)))"
done | awk 'NF == 4 { printf "%s %s %s %s %s\n", $1, $2, $3, $4, ($3 > 0 ? $1 / $3 : "") }' >"$B/ovh"
printf 'overhead per measured CPU point, a fresh traced child per point: %s ms, median (min-max) of 5 slopes between 20 and 80 tiny triad points of one run each (describing, hashing, caching, the core'"'"'s batch, fork+ptrace of a child per point; target < 5 ms); fixed per measurement %s ms (the first description, the core'"'"'s start)\n' \
	"$(medrange 1 <"$B/ovh")" "$(medrange 2 <"$B/ovh")"
printf 'overhead per measured CPU point, one shared child: %s ms, the same way, each slope measured right after a fresh one (target < 2 ms); fixed per measurement %s ms\n' \
	"$(medrange 3 <"$B/ovh")" "$(medrange 4 <"$B/ovh")"
printf '  fresh over shared, each fresh slope over the shared one right after it (the same minutes: the guest'"'"'s pace cancels): %s\n' \
	"$(medrange 5 <"$B/ovh")"
# what dominates what remains: this machine's price of a fork, a page fault, a system call,
# and how many of each a point takes (the core on 20 and 80 points of its own batch)
if cc -O2 -Icore -o "$B/costs" bench/costs.c 2>/dev/null && [ -x /usr/bin/time ]; then
	"$B/costs" >"$B/costs.txt"
	c() { awk -v k="$1" '$1 == k { print $2 }' "$B/costs.txt"; }
	for n in 20 80; do
		: >"$B/in$n"
		for i in $(seq $n); do
			printf 'point %d\nworkload triad threads 1\nparam n %d\nruns 1\nmaxRuns 1\nminRunTime 0\nchild each\nend\n' "$i" $((300 + i)) >>"$B/in$n"
		done
		/usr/bin/time -f "%R" build/core/rot-core --batch "$B/in$n" 2>"$B/f$n" >/dev/null
	done
	faults=$(awk 'FNR == 1 { a[++i] = $1 } END { printf "%.0f", (a[2] - a[1]) / 60 }' "$B/f20" "$B/f80")
	awk -v f="$faults" -v fu="$(c fault_us)" -v fk="$(c fork_ms)" -v sc="$(c syscall_us)" 'BEGIN {
		printf "  what a fresh child per point costs here: a fork and its exit %.2f ms, %d page faults at %.1f us each (%.2f ms: every page a child writes, copied from the core or new), a system call %.1f us (tens a point)\n", fk, f, fu, f * fu / 1000, sc }'
else
	echo "  (no C compiler or /usr/bin/time here: what dominates the per-point cost is not broken down)"
fi
B="$B" R="$R" sh bench/rounds.sh # a point's rounds: their cost, and runs against each other

one="-useCachedResults=false -runs=1 -maxRuns=1 -minRunTime=0"
$R measure bench/build.lua 1 $one >/dev/null 2>&1
noop=$($R measure bench/build.lua 1 $one 2>&1 | field build)
printf 'no-op rebuild (make on an up-to-date core): %s s (build time of the second identical run)\n' "$noop"
chg=$(CCACHE_RECACHE=1 $R measure bench/build.lua 8 $one 2>&1 | field build)
printf 'rebuild after one macro change: %s s (STREAM_UNROLL 1 -> 8 with CCACHE_RECACHE=1, so the kernel is really recompiled; then relink)\n' "$chg"
back=$($R measure bench/build.lua 1 $one 2>&1 | field build)
printf 'switch back to the previous configuration: %s s (STREAM_UNROLL=1 again: ccache hit plus relink; target < 300 ms)\n' "$back"

echo
echo "measuring core"
build/core/rot-core --timer
P=tests/core/point.lua
steal() { awk '$1 == "cpu" { print $9 + 0, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
# the machine's own minimum: the same chain without rot, as many runs as rot made (before an
# invocation: as many as the one before it made)
spin=""
gcc -O2 -Icore -Itests/core/kernels -o "$B/spin" bench/spin.c 2>/dev/null && spin="$B/spin"
bare() { [ -n "$spin" ] && "$spin" "$1" "$2" | sed -n 's/^min_s //p'; }
col() { awk -F, -v k="$1" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i } NR == 2 { print $h[k] }' "$B/out/point.csv" 2>/dev/null; }
# The clock of a shared VM wanders by 10 % within seconds, and an integer chain's minimum follows
# it. So each of 15 rot invocations is bracketed by the bare chain's minimum just before and just
# after it, and the scatter is split: rot's minima scatter as the bare ones do (the machine) plus
# what rot adds (independent, so their variances add; a spread over 5 invocations is about 2.3
# standard deviations of a normal scatter).
for spec in "1us 500" "100us 50000" "10ms 5000000"; do
	set -- $spec
	label=$1 n=$2
	: >"$B/mins"
	runs="" k=10
	for i in $(seq 15); do
		s0=$(steal)
		b0=$(bare "$n" "$k")
		rm -f "$B/out/point.csv"
		$R -progress=never -useCachedResults=false measure $P stable "$n" >"$B/o" 2>&1
		t=$(col time_s) made=$(col runs)
		k=${made:-10}
		b1=$(bare "$n" "$k")
		s1=$(steal)
		echo "${t:-0} ${b0:-0} ${b1:-0} $s0 $s1" >>"$B/mins"
		runs="$runs ${made:--}$( [ "$(col converged)" = 1 ] || echo '!')"
	done
	awk -v l="$label" -v runs="$runs" '
		function spread(a, n,   i, lo, hi) { lo = a[1]; hi = a[1]; for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }; return (hi - lo) / lo * 100 }
		function sort(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
		function sd(a, n,   i, h, l, d) { # robust: 1.4826 x the median absolute deviation of the logs, in %
			h = int((n + 1) / 2); for (i = 1; i <= n; i++) l[i] = log(a[i]); sort(l, n)
			for (i = 1; i <= n; i++) d[i] = l[i] > l[h] ? l[i] - l[h] : l[h] - l[i]; sort(d, n); return 1.4826 * d[h] * 100 }
		{ t[NR] = $1; if ($1 <= 0 || $2 <= 0 || $3 <= 0) nobare = 1
		  m[2 * NR - 1] = $2; m[2 * NR] = $3; r[NR] = $3 > 0 ? $1 / (($2 + $3) / 2) : 0; st += $6 - $4; tot += $7 - $5 }
		END { target = l == "1us" ? 2 : 0.5
			printf "stable kernel ~%s: spread of the reported minimum over the first 5 rot invocations %.2f%%, over all %d %.2f%% (target %s%%); best-k runs needed:%s\n", l, spread(t, 5), NR, spread(t, NR), target, runs
			if (nobare) { printf "  no bare reference (bench/spin.c did not build or run, or a rot invocation failed): the machine'"'"'s part not separated\n"; exit }
			sr = sd(t, NR); sb = sd(m, 2 * NR); own = sr > sb ? sqrt(sr ^ 2 - sb ^ 2) : 0
			sp = sd(r, NR); sort(r, NR); med = r[int((NR + 1) / 2)]
			printf "  the machine: the same chain without rot (bench/spin.c, as many runs of at least 1 ms as rot made) just before and just after each invocation: %d minima spread %.2f%%, scatter %.2f%% (an integer chain'"'"'s time is cycles over the clock: the clock wandering); steal time %.2f%% of the CPU time\n", 2 * NR, spread(m, 2 * NR), sb, (tot > 0 ? st / tot * 100 : 0)
			printf "  rot'"'"'s own part: rot'"'"'s minima scatter by %.2f%%, the bare ones by %.2f%% (scatter: a standard deviation from the median absolute deviation): rot adds %.2f%% (the square root of the difference of their squares), a spread over 5 invocations of about %.2f%% (target %s%%); from %d samples such a scatter is known to about 30%% of itself, so what rot adds is resolved here only above about %.2f%% (%.2f%% over 5 invocations)\n", sr, sb, own, 2.33 * own, target, NR, 0.8 * sb, 2.33 * 0.8 * sb
			printf "  paired: rot'"'"'s minimum over the mean of the bare ones just before and after it is %.4f (median), scattering by %.2f%% (about %.2f%% over 5 invocations; an upper bound of rot'"'"'s part: it also holds how the clock moved within each bracket)\n", med, sp, 2.33 * sp }' "$B/mins"
done
echo "(best-k: k=3, epsilon=2%, at least 3 and at most 10 runs a round, 2 rounds or more; '!' marks a run set that did not converge;"
echo " a warm run repeats the kernel until it lasts minRunTime=1 ms, so the 1 us kernel is timed over ~1000 calls)"

echo
B="$B" R="$R" sh bench/peaks.sh # the ceilings against STREAM and likwid-bench: DRAM, FMA, read over triad
B="$B" R="$R" sh bench/pipeline.sh # latencies against the published ones, the model's error
B="$B" R="$R" sh bench/apps.sh # applications: marker pairs, a program under rot, STREAM's regions
B="$B" R="$R" sh bench/apps-compare.sh # applications: rot compare -remeasure, A/A and a slower build
B="$B" R="$R" sh bench/count.sh # the counting pass: its slowdown, STREAM's loops counted region by region
B="$B" R="$R" sh bench/sampling.sh # an application's invocations sampled (input sample): their cost; the survey on a cached rerun
echo
sh bench/compare.sh # rot compare's verdicts: A/A pairs and known slowdowns

B="$B" R="$R" sh bench/gpu.sh # the GPU lines: ceilings against their targets, cached rerun, overhead per point
