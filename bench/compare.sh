#!/bin/sh
# bench/compare.sh: rot compare's verdicts on this machine, part of make bench and
# runnable alone. A 5-point user study (bench/compare: myscale from L1 to DRAM) measured as
# A/A pairs (the kernel's binary changed in its description only) under three conditions in turn (quiet,
# a busy loop on the other CPU, a memory-streaming neighbour during both runs and the compares),
# then changes of a known size by construction (the kernel's identical passes, 10 against 20 and
# against 11: 2x and 10 % slower, each checked to read so): how often the gate with -remeasure
# fails on unchanged code, how often it catches the slowdowns, and what the verdicts from the
# records alone say. ROT_BENCH_PAIRS (20) and ROT_BENCH_ROUNDS (-remeasure's default) change the
# sizes; ROT_BENCH_CONDITIONS (quiet busy stream) the neighbours of the slowdowns (PAIRS=0 and
# one condition: the slowdowns alone, a few minutes).
cd "$(dirname "$0")/.." || exit 1
B=$(mktemp -d /tmp/rot-bench-compare.XXXXXX)
NB=""
# ROT_BENCH_KEEP=DIR keeps every compare's output, CSV and exit status there
trap '[ -n "$NB" ] && kill "$NB" 2>/dev/null; [ -n "$ROT_BENCH_KEEP" ] && cp -r "$B/res" "$ROT_BENCH_KEEP"; rm -rf "$B"' EXIT
trap 'exit 130' INT TERM
export XDG_CONFIG_HOME="$B/config"
PAIRS=${ROT_BENCH_PAIRS:-20}
REM="-remeasure${ROT_BENCH_ROUNDS:+=$ROT_BENCH_ROUNDS}"
S="$B/study"
mkdir -p "$S/kernels" "$B/res"
cp bench/compare/study.lua "$S/"
cp bench/compare/kernels/myscale.c "$S/kernels/"
# recorded ceilings: the verdicts need none, and the machine's own would cost minutes first
R="./rot -cacheDir=$B/cache -outputDir=$B/out -progress=never -peaksFile=$(pwd)/tests/fixtures/peaks.csv"
. bench/lib.sh # now, neighbour, stop
cpus=$(nproc)
condition() { echo "quiet busy stream" | cut -d' ' -f$((($1 - 1) % 3 + 1)); }
edit() { sed -i "s|^$1.*|$1 $2|" "$S/kernels/myscale.c"; } # edit '#define PASSES' 11
kernel() { edit '#define PASSES' "$1"; edit '#define VARIANT' "\"$2\""; }
measure() { $R measure "$S/study.lua" -useCachedResults=false >"$B/m" 2>&1 || { echo "  (a measurement failed:"; tail -3 "$B/m"; echo ")"; }; }
newest() { $R history "$S/study.lua" 2>/dev/null | awk 'NR == 3 { print $1 }'; }
# compare FILE [ARG ...]: rot compare with the gate; its CSV kept as FILE.csv, its exit status as FILE.rc
compare() {
	f=$1
	shift
	t0=$(now)
	$R compare "$S/study.lua" "$@" -failOn=slower >"$f.out" 2>"$f.err"
	echo $? >"$f.rc"
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$f.s"
	cp "$B/out/study-compare.csv" "$f.csv" 2>/dev/null
	cp "$B/out/study-compare.json" "$f.json" 2>/dev/null
}

CONDITIONS=${ROT_BENCH_CONDITIONS:-quiet busy stream}
echo "rot compare's verdicts: $PAIRS A/A pairs of a 5-point study, then 2x and 10 % slower kernels ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $cpus CPUs; neighbours ${PIN:-unpinned})"
t_start=$(now)
for i in $(seq "$PAIRS"); do
	c=$(condition "$i")
	neighbour "$c"
	kernel 1 a
	measure
	kernel 1 b # the same code: only the kernel's description differs
	measure
	compare "$B/res/plain-$c-$i"
	compare "$B/res/rem-$c-$i" $REM
	stop
done
for c in $CONDITIONS; do
	neighbour "$c"
	kernel 10 a # ten identical passes: the base of the known changes
	measure
	a=$(newest)
	kernel 20 a # twenty: 2x slower by construction
	measure
	compare "$B/res/twice-$c" "$a" "$(newest)" $REM
	for rep in 1 2; do
		kernel 11 a # eleven: a tenth more, 10 % slower by construction
		measure
		compare "$B/res/tenth-$c-$rep" "$a" "$(newest)" $REM
	done
	stop
done
t_end=$(now)

# CSV fields by column name: csv FILE COLUMN...: one line per row ("-" for an empty field). The
# columns read here all come before the first that may hold a comma (noise).
csv() {
	awk -F, -v cols="$(shift; echo "$*")" '
		NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; m = split(cols, want, " "); next }
		{ s = ""; for (j = 1; j <= m; j++) s = s (j > 1 ? " " : "") ($at[want[j]] == "" ? "-" : $at[want[j]]); print s }' "$1"
}
# pct A B: A of B in percent
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", (b > 0 ? 100 * a / b : 0) }'; }

pairs_ok=0 points=0 slower=0 faster=0
if [ "$PAIRS" -gt 0 ]; then # the A/A pairs
for f in "$B"/res/rem-*.rc; do
	[ "$(cat "$f")" = 0 ] && pairs_ok=$((pairs_ok + 1))
	b=${f%.rc}
	points=$((points + $(csv "$b.csv" verdict | wc -l)))
	slower=$((slower + $(csv "$b.csv" verdict | grep -c '^slower$')))
	faster=$((faster + $(csv "$b.csv" verdict | grep -c '^faster$')))
done
npairs=$(ls "$B"/res/rem-*.rc 2>/dev/null | wc -l)
rounds=$(csv "$(ls "$B"/res/rem-*.csv | head -n 1)" rounds | sort -n | tail -n 1)
secs=$(cat "$B"/res/rem-*.s | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
echo "A/A with -remeasure ($rounds rounds): -failOn=slower exited 0 in $pairs_ok of $npairs pairs (target at least 19 of 20); points called slower $slower of $points ($(pct $slower $points); target at most 1 %), faster $faster ($(pct $faster $points)); a compare took $secs s (median)"
for c in quiet busy stream; do
	n=0 s=0 ok=0
	for f in "$B"/res/rem-$c-*.rc; do
		[ -e "$f" ] || continue
		n=$((n + 1))
		[ "$(cat "$f")" = 0 ] && ok=$((ok + 1))
		s=$((s + $(csv "${f%.rc}.csv" verdict | grep -c '^slower$')))
	done
	printf '  %s: %d of %d pairs exited 0, %d points slower\n' "$c" "$ok" "$n" "$s"
done
# every point's per-round ratios are in the JSON; the CSV's interval says how wide the rounds were
cat "$B"/res/rem-*.csv >/dev/null 2>&1 &&
	for f in "$B"/res/rem-*.csv; do csv "$f" interval_low interval_high; done |
	awk '$1 != "-" { w = $2 / $1; n++; a[n] = w } END { if (!n) exit; for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j] < a[j - 1]; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
		printf "  the 99%% intervals of B/A on unchanged code were x%.3f wide (median high/low; 90th percentile x%.3f)\n", a[int((n + 1) / 2)], a[int(0.9 * n + 0.5)] }'
fi

# B/A of the known changes against what they are by construction: "median (lo-hi over N points),
# within P % of EXPECTED: yes|NO"; ratios on stdin
reads() {
	sort -g | awk -v want="$1" -v tol="$2" '{ a[NR] = $1 } END {
		if (!NR) { print "no point"; exit }
		m = a[int((NR + 1) / 2)]; d = (m / want - 1) * 100; if (d < 0) d = -d
		printf "median %.3f (%.3f-%.3f over %d points), within %g %% of %.2f: %s", m, a[1], a[NR], NR, tol, want, d <= tol ? "yes" : "NO" }'
}
caught=0 all=0
for f in "$B"/res/twice-*.csv; do
	all=$((all + $(csv "$f" verdict | wc -l)))
	caught=$((caught + $(csv "$f" verdict | grep -c '^slower$')))
done
echo "2x slower kernel (20 against 10 identical passes), -remeasure: called slower on $caught of $all points (target every point); B/A $(for f in "$B"/res/twice-*.csv; do csv "$f" ratio_B_over_A; done | reads 2.0 3)"
caught=0 all=0
for f in "$B"/res/tenth-*.csv; do
	# the in-cache points: the first three of the study (half of L1, half of L2, a quarter of the last cache)
	all=$((all + $(csv "$f" verdict | head -n 3 | wc -l)))
	caught=$((caught + $(csv "$f" verdict | head -n 3 | grep -c '^slower$')))
done
echo "a tenth more work (11 against 10 identical passes: 10 % slower) at in-cache sizes, -remeasure: called slower on $caught of $all points ($(pct $caught $all): the detection rate; target at least 90 %); B/A $(for f in "$B"/res/tenth-*.csv; do csv "$f" ratio_B_over_A | head -n 3; done | reads 1.10 3)"
echo "  and at every size (its out-of-cache points too): B/A $(for f in "$B"/res/tenth-*.csv; do csv "$f" ratio_B_over_A; done | reads 1.10 3)"

# without -remeasure: the records judged against the noise between runs the history shows; on
# unchanged code every point called faster or slower is a false alarm
called=0 inconclusive=0 points=0
: >"$B/rules"
if [ "$PAIRS" -gt 0 ]; then # the A/A pairs
for f in "$B"/res/plain-*.csv; do
	csv "$f" verdict rule >"$B/v"
	points=$((points + $(wc -l <"$B/v")))
	called=$((called + $(awk '$1 == "slower" || $1 == "faster"' "$B/v" | wc -l)))
	inconclusive=$((inconclusive + $(awk '$1 == "inconclusive"' "$B/v" | wc -l)))
	awk '{ print $2 }' "$B/v" >>"$B/rules"
done
echo "A/A without -remeasure: $called of $points points called faster or slower (target none: the code did not change), $inconclusive inconclusive; judged against: $(sort "$B/rules" | uniq -c | awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1 }')"
for f in "$B"/res/plain-*.csv; do csv "$f" ratio_B_over_A rule noise_band; done |
	awk '{ r = $1 < 1 ? 1 / $1 : $1; a[++n] = r; if ($2 == "history") { m++; b[m] = $3 } }
		function sort(x, k,   i, j, t) { for (i = 2; i <= k; i++) for (j = i; j > 1 && x[j] < x[j - 1]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t } }
		END { sort(a, n); sort(b, m)
			printf "  unchanged code between invocations differed by x%.3f at the median, x%.3f at the 95th percentile, x%.3f at most (the default band without reruns is x4)", a[int((n + 1) / 2)], a[int(0.95 * n + 0.5)], a[n]
			if (m) printf "; the history'"'"'s 99%% bands: median x%.3f, widest x%.3f", b[int((m + 1) / 2)], b[m]
			printf "\n" }'
fi
printf 'bench time %.0f s\n' "$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { print b - a }')"
