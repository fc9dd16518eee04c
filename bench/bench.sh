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
. tests/optional.sh
optional_install likwid-bench likwid
echo "ceilings against likwid-bench: rot measure peaks run twice, likwid-bench before, between and after them, in one run"
info=$($R -progress=never run bench/machine.lua 2>&1)
m() { echo "$info" | awk -v k="$1" '$1 == k { print $2 }'; }
lk=""
command -v likwid-bench >/dev/null 2>&1 && lk=$(m likwid_stream)
# a second DRAM reference: a STREAM-convention triad (bench/triad.c, OpenMP), its fastest
# pass (STREAM's figure) and its mean pass (likwid-bench's convention) at the same size
# (its two builds, as rot's ceilings take the faster of two codes from the last cache up: the
# widest vectors and -O2 -fno-tree-vectorize; likwid-bench's too: its widest kernel and scalar
# "stream", which can stream more from DRAM than its vectors)
tri="" trin=""
cc -O3 -march=native -fopenmp -o "$B/triad" bench/triad.c 2>/dev/null && tri="$B/triad"
cc -O2 -fno-tree-vectorize -fopenmp -o "$B/triadn" bench/triad.c 2>/dev/null && trin="$B/triadn"
lkdram() { # lkdram KEY THREADS [ARGS]: likwid-bench's DRAM stream figure as "KEY_THREADS GB/s" (kernel: $lkkern, else the widest)
	lkkey=$1 lkt=$2
	shift 2
	[ -n "$lk" ] && likwid-bench -t "${lkkern:-$lk}" "$@" -w "S0:$(m llc4_kib_$lkt)kB:$lkt" 2>/dev/null |
		awk -v k="${lkkey}_$lkt" '/^Time:/ { t = $2 } /^Data volume/ { d = $4 } /^MByte\/s/ { g = $2 / 1000 } END { if (g) print k, g, t, d }'
}
lkround() { # rounds 1-3: called before, between and after the peaks runs
	for t in 1 $(m cpus); do
		lkdram dram "$t"
		# the same kernel and size in short runs (8 iterations, a fraction of a second): a
		# neighbour's burst spoils one short run, not the whole figure (best of 4: best sustained)
		for _ in 1 2 3 4; do lkdram dramshort "$t" -i 8; done
		lkkern=stream # and the scalar kernel's (dramnshort_)
		for _ in 1 2 3 4; do lkdram dramnshort "$t" -i 8; done
		lkkern=""
		[ -n "$tri" ] && OMP_NUM_THREADS=$t OMP_PROC_BIND=true OMP_PLACES=cores "$tri" "$(m llc4_kib_$t)" 10 2>/dev/null |
			awk -v t="$t" 'BEGIN { k["best_gbs"] = "stream_"; k["mean_gbs"] = "streammean_"; k["first_gbs"] = "streamfirst_"
				k["median_gbs"] = "streammedian_"; k["slow_passes"] = "streamslow_" } $1 in k { $1 = k[$1] t; print }'
		# the narrow build: its fastest pass and its mean pass (streamn_, streamnmean_)
		[ -n "$trin" ] && OMP_NUM_THREADS=$t OMP_PROC_BIND=true OMP_PLACES=cores "$trin" "$(m llc4_kib_$t)" 10 2>/dev/null |
			awk -v t="$t" 'BEGIN { k["best_gbs"] = "streamn_"; k["mean_gbs"] = "streamnmean_" } $1 in k { $1 = k[$1] t; print }'
		lkkern=stream
		lkdram dramn "$t"
		lkkern=""
		# a second default run at the round's end: the neighbours here come in phases of
		# seconds, and a default run lasts 2-4 s, so two a round halve the chance that a round's
		# only sample sat in a busy phase (three such rounds gave 0.79 of the STREAM mean)
		lkdram dram "$t"
		[ "$t" = "$(m cpus)" ] && break
	done | awk -v r="$lkr" '{ print $0, r }' >>"$B/lk" # the round as a third column
	lkr=$((lkr + 1))
	[ -n "$lk" ] || return 0
	# three a round: a run lasts about a second, and the clock here wanders over seconds
	[ "$(m fma_lanes)" = 8 ] && for _ in 1 2 3; do
		likwid-bench -t peakflops_avx512_fma -w S0:16kB:1 2>/dev/null | awk '/^MFlops\/s/ { print "fma", $2 / 1000 }' >>"$B/lk"
	done
}
: >"$B/lk"
lkr=1
lkround
for run in 1 2; do
	rm -f "$B"/cache/machines/*.csv
	t0=$(now)
	$R -progress=never -useCachedResults=false measure peaks >"$B/peaks$run" 2>&1
	t1=$(now)
	echo "peaks_s $(calc "$t1 - $t0")" >"$B/p$run"
	$R -progress=never run bench/ceilings.lua >>"$B/p$run" 2>&1
	lkround
done
p() { awk -v k="$2" '$1 == k { print $2 }' "$B/p$1"; }
for run in 1 2; do
	printf 'rot measure peaks, run %d: %.0f s (target < 180 s)%s\n' "$run" "$(p $run peaks_s)" \
		"$(grep -q 'UNSTABLE:' "$B/peaks$run" && echo "; $(grep -c ' UNSTABLE$' "$B/peaks$run") ceilings marked unstable" || echo "; no ceiling unstable")"
done
# a KEY may name several, KEY1|KEY2 (a reference's two builds): the best of them
best() { awk -v k="$1" '$1 ~ ("^(" k ")$") && $2 > b { b = $2 } END { if (b) print b }' "$B/lk"; }
paired() { # paired KEY1 KEY2: per round (the last column), the best KEY1 over the best KEY2
	awk -v a="$1" -v b="$2" '$1 ~ ("^(" a ")$") && $2 > x[$NF] { x[$NF] = $2 } $1 ~ ("^(" b ")$") && $2 > y[$NF] { y[$NF] = $2 }
		END { for (r = 1; r in x || r in y; r++) s = s (s ? ", " : "") (x[r] && y[r] ? sprintf("%.3f", x[r] / y[r]) : "-"); print s }' "$B/lk"
}
# fixed T: a time in likwid-bench's timed region that does not grow with its iterations, per
# round from the slope between its fastest short run (-i 8) and its fastest default run (both
# "key GB/s seconds bytes round" lines), and its default runs' best figure without the median
# of it (a negative estimate is noise and removes nothing): that figure, a tab, then the line
# to print before its ratios
fixed() {
	awk -v s="dramshort_$1" -v d="dram_$1" -v k="$lk" '
		$1 == s && $2 > sg[$NF] { sg[$NF] = $2; st[$NF] = $3; sv[$NF] = $4 }
		$1 == d && $2 > dg[$NF] { dg[$NF] = $2; dt[$NF] = $3; dv[$NF] = $4 }
		$1 == d { n++; T[n] = $3; V[n] = $4 }
		END {
			for (r = 1; r in sg || r in dg; r++) {
				if (!sg[r] || !dg[r] || dt[r] <= st[r] || dv[r] <= sv[r]) continue
				c[++m] = st[r] - sv[r] * (dt[r] - st[r]) / (dv[r] - sv[r])
				l = l (l ? ", " : "") sprintf("%.3f", c[m])
			}
			if (!m) exit
			for (i = 2; i <= m; i++) for (j = i; j > 1 && c[j] < c[j - 1]; j--) { x = c[j]; c[j] = c[j - 1]; c[j - 1] = x }
			cm = m % 2 ? c[(m + 1) / 2] : (c[m / 2] + c[m / 2 + 1]) / 2
			f = cm > 0 ? cm : 0
			for (i = 1; i <= n; i++) if (T[i] > f && V[i] / (T[i] - f) / 1e9 > g) g = V[i] / (T[i] - f) / 1e9
			if (!g) exit # a fixed cost longer than every default run: the estimate is noise
			printf "%.6g\t  likwid-bench'"'"'s timed region (" k ") holds a fixed %.3f s (median; per round %s s: where its short and default runs meet, from their times and data volumes); its default runs without it: best %.2f GB/s\n", g, cm, l, g
		}' "$B/lk"
}
# machine T: what this machine does to a run of T threads that no tool can take out of a mean over
# it, from the STREAM-convention triad's rounds: its first pass over arrays just written (every
# likwid-bench run with -i, and its default run's first passes after a calibration on one
# thread, start with such passes) and its later passes well below their round's median (a
# DAMON sampler, where the kernel runs one, is named in run 1's peaks notes below)
machine() {
	awk -v t="$1" '
		$1 == "streamfirst_" t && $2 > f { f = $2 } $1 == "streammedian_" t && $2 > m { m = $2 }
		$1 == "streamslow_" t { s += $2; n += $3 }
		END {
			if (!f || !m) exit
			printf "  the machine at %d thread%s, from those rounds: the first pass over arrays just written runs at %.2f GB/s at best, %.2f of the best median pass %.2f (likwid-bench times such a pass: a run with -i starts with one, and its default run with its threads'"'"' first passes over arrays its calibration on one thread touched last); %d of %d later passes ran more than 20%% below their round'"'"'s median\n",
				t, (t > 1 ? "s" : ""), f, f / m, m, s, n
		}' "$B/lk"
}
ratios() { awk -v a="$d1" -v b="$d2" -v l="$1" 'BEGIN { printf "%.3f, %.3f", a / l, b / l }'; } # both runs over reference $1
# bracketed KEY: each run over the best KEY of the two rounds just before and just after it
# (rounds 1-2 for run 1, 2-3 for run 2): a reference from the same minutes, where the best of
# all rounds may come from a phase of the neighbours that neither run saw
bracketed() {
	awk -v k="$1" -v a="$d1" -v b="$d2" '$1 ~ ("^(" k ")$") && $2 > x[$NF] { x[$NF] = $2 }
		function r(v, i,   m) { m = x[i] > x[i + 1] ? x[i] : x[i + 1]; return v > 0 && m > 0 ? sprintf("%.3f", v / m) : "-" }
		END { printf "%s, %s", r(a, 1), r(b, 2) }' "$B/lk"
}
for t in 1 $(m cpus); do
	d1=$(p 1 "dram_$t") d2=$(p 2 "dram_$t") l=$(best "dram_$t|dramn_$t") lw=$(best "dram_$t") ln=$(best "dramn_$t")
	n1=$(p 1 "dramnote_$t" | tr _ ' ') n2=$(p 2 "dramnote_$t" | tr _ ' ')
	printf 'DRAM triad ceiling, %s: run 1 %s GB/s (%s), run 2 %s GB/s (%s) (%s apart; target within 5%%)' "$([ "$t" = 1 ] && echo "1 thread" || echo "$t threads")" "${d1:--}" "${n1:--}" "${d2:--}" "${n2:--}" \
		"$(awk -v a="$d1" -v b="$d2" 'BEGIN { if (a > 0 && b > 0) printf "%.1f%%", (a > b ? a / b : b / a) * 100 - 100; else print "-" }')"
	if [ -n "$l" ]; then
		printf '; likwid-bench at %s KiB (4x the reported last cache), its default run, the faster of %s (2 a round, best of the 6: %s GB/s) and scalar stream (1 a round, best of the 3: %s GB/s): %.2f GB/s; ratios %s (target >= 0.95: a mean over seconds, where rot'"'"'s ceiling is the fastest pass, as STREAM'"'"'s)\n' "$(m llc4_kib_$t)" "$lk" "${lw:--}" "${ln:--}" "$l" "$(ratios "$l")"
		printf '  each run against the references of the rounds just before and after it (its best default run of those two rounds, either kernel; the same minutes): likwid-bench ratios %s (target >= 0.95)\n' \
			"$(bracketed "dram_$t|dramn_$t")"
		ls=$(best "dramshort_$t|dramnshort_$t")
		fx=$(fixed "$t")
		[ -n "$fx" ] && printf '%s; ratios %s\n' "${fx#*	}" "$(ratios "${fx%%	*}")"
		[ -n "$ls" ] && printf '  likwid-bench in short runs (-i 8, 4 a round of each kernel, best of the 24: the best sustained value, as rot takes its ceiling; its default run above is a mean over seconds): %.2f GB/s; ratios %s (target 0.95-1.05)\n' "$ls" "$(ratios "$ls")"
	else
		echo "; likwid-bench is not installed (sudo apt-get install likwid): nothing to compare against"
	fi
	sb=$(best "stream_$t|streamn_$t") sm=$(best "streammean_$t|streamnmean_$t") sw=$(best "stream_$t") sn=$(best "streamn_$t")
	if [ -n "$sb" ]; then
		printf '  against a STREAM-convention triad (bench/triad.c, OpenMP, same size, 10 passes, best of 3 rounds, the faster of its builds: -O3 -march=native %s GB/s, -O2 -fno-tree-vectorize %s GB/s): fastest pass %.2f GB/s, ratios %s (target 0.95-1.05: rot'"'"'s DRAM ceiling takes the same convention, each point'"'"'s fastest run, of the faster code); each run against the rounds just before and after it (the same minutes): ratios %s; its mean pass (likwid-bench'"'"'s convention) %.2f GB/s\n' \
			"${sw:--}" "${sn:--}" "$sb" "$(ratios "$sb")" "$(bracketed "stream_$t|streamn_$t")" "$sm"
		# the two references against each other, by the same convention (a mean over a run):
		# where they disagree, a target against one of them is as good as that reference
		[ -n "$l" ] && [ -n "$sm" ] && printf '  the two references against each other: likwid-bench'"'"'s default run over the STREAM-convention triad'"'"'s mean pass, both means over a run at the same size: %.3f for their bests; in each round (the best of its runs): %s\n' \
			"$(calc "$l / $sm")" "$(paired "dram_$t|dramn_$t" "streammean_$t|streamnmean_$t")"
		machine "$t"
	else
		echo "  no STREAM-convention triad (bench/triad.c did not build with -fopenmp)"
	fi
	[ "$t" = "$(m cpus)" ] && break
done
# arrays of a power-of-two size each (the triad script's sizes): rot's triad against the
# STREAM-convention triad at the same size and build, alternating (bench/arrays.lua)
if [ -n "$tri" ] && [ -n "$trin" ]; then
	OMP_NUM_THREADS=1 $R -progress=never run bench/arrays.lua "$tri" "$trin" 3 2>/dev/null | awk '$1 == "ROUND" && $4 > 0 && $5 > 0 {
			x[$3] = x[$3] sprintf(" %.3f", $4 / $5); v[++n] = $4 / $5 }
		END { if (!n) { print "triad at 768 MiB (three 256 MiB arrays): not measured"; exit }
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			printf "triad at 768 MiB, three arrays of 256 MiB each (the triad script'"'"'s sizes are powers of two; rot'"'"'s pool once put such arrays back to back, and they streamed at 0.45-0.75 of this), 1 thread, rot over bench/triad.c at the same size and build, alternating, 3 rounds:"
			split("-O3_-march=native -O2_-fno-tree-vectorize", order, " ")
			for (i = 1; i <= 2; i++) if (order[i] in x) printf " %s%s;", order[i], x[order[i]]
			printf " median %.3f (target >= 0.90)\n", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'
else
	echo "triad at 768 MiB (three 256 MiB arrays): not measured (bench/triad.c did not build in both builds with -fopenmp)"
fi
grep -h '^rot: peaks: ' "$B/peaks1" | sed 's/^/  run 1 /'
grep -h '^read L1\|^core clock' "$B/peaks1" | sed 's/^/  run 1: /'
for run in 1 2; do # read-only against triad, level by level: two loads against two loads, a store and write-backs
	awk '$1 ~ /^(read|triad)_/ { split($1, k, "_"); v[k[1], k[2]] = $2; if (!(k[2] in seen)) { seen[k[2]] = 1; o[++n] = k[2] } }
		END { for (i = 1; i <= n; i++) if (o[i] != "L1" && v["read", o[i]] && v["triad", o[i]])
			s = s sprintf("%s%s %.3f (%.1f/%.1f GB/s)", s ? ", " : "", o[i], v["read", o[i]] / v["triad", o[i]], v["read", o[i]], v["triad", o[i]])
		  print s }' "$B/p$run" | sed "s/^/  run $run: read over triad, 1 thread, from L2 down: /; s/\$/ (target >= 1 within their spreads: in L1 a store port adds to triad's two loads; from L2 down triad's loads, store and write-backs share one level's bandwidth)/"
done
fma=$(p 2 fma_1) ghz=$(p 2 clock_ghz) lanes=$(p 2 fma_lanes) units=$(p 2 fma_per_cycle) theo=$(p 2 fma_theory)
if [ -n "$theo" ]; then
	printf 'L1 FP64 FMA ceiling, 1 core: rot %.2f GFLOP/s; theoretical %.2f GFLOP/s = %.3f GHz (its units'"'"' clock: the %s FMA chain'"'"'s just before or after its best round, docs/ceilings.md "Clock") x %s lanes x 2 flops x %s FMA%s a cycle (%.1f%%)' \
		"$fma" "$theo" "$ghz" "$(p 2 fma_isa)" "$lanes" "$units" "$([ "$units" = 1 ] || echo s)" "$(calc "$fma / $theo * 100")"
else
	printf 'L1 FP64 FMA ceiling, 1 core: %s GFLOP/s; no theoretical peak (no clock recorded with it)' "${fma:--}"
fi
lf=$(best fma)
if [ -n "$lf" ]; then
	printf '; likwid-bench peakflops_avx512_fma (16 KiB, its loop also loads a vector per iteration), 3 a round, best of the 9: %.2f GFLOP/s, ratio %.3f (target within 2%%; likwid-bench reports the mean of a run of about a second, rot a round'"'"'s median run of a millisecond, the best of 3-5 rounds: where the clock wanders, rot'"'"'s is the best clock state its points can reach, likwid-bench'"'"'s an ordinary second)\n' "$lf" "$(calc "$fma / $lf")"
else
	echo "; likwid-bench's peakflops_avx512_fma not run (no likwid-bench, or no AVX-512)"
fi
echo "STREAM itself is not packaged by Debian and cannot be fetched here: bench/triad.c is its kernel and convention (rot's triad uses the same), not its code"

B="$B" R="$R" sh bench/pipeline.sh # latencies against the published ones, the model's error
B="$B" R="$R" sh bench/apps.sh # applications: marker pairs, a program under rot, STREAM's regions
B="$B" R="$R" sh bench/apps-compare.sh # applications: rot compare -remeasure, A/A and a slower build
B="$B" R="$R" sh bench/count.sh # the counting pass: its slowdown, STREAM's loops counted region by region
B="$B" R="$R" sh bench/sampling.sh # an application's invocations sampled (input sample): their cost; the survey on a cached rerun
echo
sh bench/compare.sh # rot compare's verdicts: A/A pairs and known slowdowns

B="$B" R="$R" sh bench/gpu.sh # the GPU lines: ceilings against their targets, cached rerun, overhead per point
