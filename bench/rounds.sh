# bench/rounds.sh: a point's rounds (docs/architecture.md), run by bench/bench.sh
# with B and R set. The triad sweep from scratch (peaks stored) in rounds, the default, and in one
# process a point as before them (-rounds=1 -maxRounds=1 -runs=5 -maxRuns=40), alternating, 4
# pairs: their measuring times and each pair's ratio (the same minutes: the guest's pace
# cancels); the rounds a point took, quiet and beside a busy neighbour; and each kind's
# consecutive runs against each other: points outside the other run's value +- its spread.
. bench/lib.sh
ONE="-rounds=1 -maxRounds=1 -runs=5 -maxRuns=40"
sweep() { # sweep TAG I [OPTIONS]: a fresh sweep, its CSV kept as $B/rounds-TAG-I.csv; prints its measure time
	tag=$1 i=$2
	shift 2
	$R measure triad -useCachedResults=false -progress=never "$@" 2>&1 | sed -n 's/^rot: .* measure \([0-9.]*\) s.*/\1/p'
	cp "$B/out/triad.csv" "$B/rounds-$tag-$i.csv"
}
# agree A B: "outside flagged points" of B's points against A's: outside its value +- A's spread
# (neither flagged), flagged in either
agree() {
	awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; f++; next }
		{ k = $h["flags"] "/" $h["n"]; v = $h["bandwidth_GBs"]; s = $h["spread"]; fl = (h["rounds_agree"] && $h["rounds_agree"] == "0")
		  if (f == 1) { va[k] = v; sa[k] = s; fa[k] = fl; next }
		  n++; if (fl || fa[k]) { flagged++; next }
		  d = v - va[k]; if (d < 0) d = -d; if (d > sa[k] * va[k]) out++ }
		END { printf "%d %d %d\n", out, flagged, n }' "$1" "$2"
}
mean_rounds() { awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "rounds") c = i; next } { s += $c; n++ } END { printf "%.2f", n ? s / n : 0 }' "$@"; }

: >"$B/rounds-times"
for i in 1 2 3 4; do
	a=$(sweep rounds "$i")
	b=$(sweep one "$i" $ONE)
	echo "$a $b" >>"$B/rounds-times"
done
awk '{ r[NR] = $1 / $2; a[NR] = $1; b[NR] = $2 }
	function med(x, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j] < x[j - 1]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }; return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2 }
	END { printf "triad sweep measured from scratch in rounds: measure %.2f s (median of %d), in one process a point as before: %.2f s; rounds over one process %.2f (median of each pair'"'"'s ratio, alternating, peaks stored; target <= 2)\n", med(a, NR), NR, med(b, NR), med(r, NR) }' "$B/rounds-times"
for kind in rounds one; do
	for i in 1 2 3; do agree "$B/rounds-$kind-$i.csv" "$B/rounds-$kind-$((i + 1)).csv"; done |
		awk -v k="$kind" -v r="$(mean_rounds "$B"/rounds-$kind-*.csv)" '{ o += $1; f += $2; n += $3 } END {
			printf "  %s: of each run'"'"'s points, outside the run before'"'"'s value +- its spread %d of %d (%.1f%%; target <= 5%% in rounds), flagged (rounds that disagree, in either run) %d (%.1f%%); %s rounds a point\n",
				k == "rounds" ? "in rounds" : "one process", o, n, n ? 100 * o / n : 0, f, n ? 100 * f / n : 0, r }'
done
neighbour busy
b=$(sweep busy 1)
stop
printf '  rounds a point took: %s quiet (the 4 sweeps above), %s beside a busy neighbour (one sweep, measure %s s)\n' \
	"$(mean_rounds "$B"/rounds-rounds-*.csv)" "$(mean_rounds "$B/rounds-busy-1.csv")" "$b"
