#!/bin/sh
# make bench's pipeline figures: rot measure pipeline's latencies, in cycles of the
# clock read around each point, against the published ones of this core (bench/latencies.txt,
# target within 10 %), and the model's mean error per class against Cornelis & Lemeire's Table II
# (0.19-11.59 %). B: the bench's temp dir, R: its rot command.
cd "$(dirname "$0")/.." || exit 1
t0=$(date +%s)
if ! $R measure pipeline -progress=never >"$B/pipeline.out" 2>&1; then
	echo "pipeline: rot measure pipeline failed: $(tail -n 2 "$B/pipeline.out" | tr '\n' ' ')"
	exit 0
fi
secs=$(($(date +%s) - t0))
csv="$B/out/pipeline-latencies.csv"
[ -s "$csv" ] || { echo "pipeline: no $csv written"; exit 0; }
vendor=$(sed -n 's/^vendor_id[^:]*: //p' /proc/cpuinfo | head -n 1)
family=$(sed -n 's/^cpu family[^:]*: //p' /proc/cpuinfo | head -n 1)
model=$(sed -n 's/^model[^:]*: //p' /proc/cpuinfo | grep -v '[^0-9]' | head -n 1)
# this core's row of the table: vendor, family and a model range that hold it
row=$(awk -v v="$vendor" -v f="$family" -v m="$model" '
	function hex(s,   i, x) { sub(/^0x/, "", s); x = 0; for (i = 1; i <= length(s); i++) x = 16 * x + index("0123456789abcdef", substr(tolower(s), i, 1)) - 1; return x }
	/^#/ || NF < 9 { next }
	$1 == v && hex($2) == f + 0 {
		n = split($3, r, ",")
		for (i = 1; i <= n; i++) { k = split(r[i], b, "-"); lo = hex(b[1]); hi = k > 1 ? hex(b[2]) : lo
			if (m + 0 >= lo && m + 0 <= hi) { print; exit } } }' bench/latencies.txt)
echo "pipeline model (rot measure pipeline, $secs s; one thread, scalar double chains and an L1 pointer chase, 1-14 chains, best of 3 rounds, each point in cycles of the imul clock read just before and after it):"
awk -F, -v row="$row" '
	function unq(s) { gsub(/"/, "", s); return s }
	BEGIN { split("fma add mul div load", names, " "); if (row != "") { split(row, t, /[ \t]+/); core = t[4]; for (i = 1; i <= 5; i++) pub[names[i]] = t[4 + i] } }
	NR == 1 { for (i = 1; i <= NF; i++) col[unq($i)] = i; next }
	{
		op = unq($col["op"]); c = $col["completion_cycles"]; e = $col["mean_abs_error_pct"]
		p = pub[op]; verdict = "no published figure for this core in bench/latencies.txt"
		if (p != "" && p != "-") {
			n = split(p, r, "-"); lo = r[1]; hi = n > 1 ? r[2] : r[1]
			off = c < lo ? c / lo - 1 : (c > hi ? c / hi - 1 : 0)
			if (off > -0.0005 && off < 0.0005) off = 0
			verdict = sprintf("published %s (%s): %+.1f%% (target within 10%%)", p, core, off * 100)
		}
		printf "  %-4s latency %.2f cycles, %s; model mean error %.1f%% (Table II: 0.19-11.59%%)\n", op, c, verdict, e
	}' "$csv"
[ -n "$row" ] || echo "  ($vendor family $family model $model: no row in bench/latencies.txt; the latencies above stand without a published figure)"
grep -h 'is an upper bound' "$B/pipeline.out" | sed 's/^/  /'
