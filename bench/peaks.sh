#!/bin/sh
# make bench's ceilings against references: rot measure peaks run twice, the DRAM references
# (bench/dram.sh) and likwid-bench's FMA peak before, between and after them, then the ratios and
# verdicts. B: the bench's temp dir, R: its rot command; run alone (sh bench/peaks.sh), it makes
# its own, with a fresh cache, so both peaks runs measure afresh.
cd "$(dirname "$0")/.." || exit 1
if [ -z "$B" ]; then
	B=$(mktemp -d /tmp/rot-bench.XXXXXX)
	trap 'rm -rf "$B"' EXIT
	export XDG_CONFIG_HOME="$B/config"
	R="./rot -cacheDir=$B/cache -outputDir=$B/out"
fi
. bench/lib.sh # now, calc, locked
. tests/optional.sh
optional_install likwid-bench likwid
echo "ceilings against STREAM and likwid-bench: rot measure peaks run twice, the references before, between and after them, in one run"
info=$($R -progress=never run bench/machine.lua 2>&1)
m() { echo "$info" | awk -v k="$1" '$1 == k { print $2 }'; }
lk=""
command -v likwid-bench >/dev/null 2>&1 && lk=$(m likwid_stream)
. bench/dram.sh # dram_round, dram_report; tri and trin, bench/triad.c's two builds
fmaround() { # likwid-bench's FP64 FMA peak, three a round: a run lasts about a second, and the clock here wanders over seconds
	[ -n "$lk" ] && [ "$(m fma_lanes)" = 8 ] && for _ in 1 2 3; do
		locked likwid-bench -t peakflops_avx512_fma -w S0:16kB:1 2>/dev/null | awk '/^MFlops\/s/ { print "fma", $2 / 1000 }' >>"$B/lk"
	done
	return 0
}
: >"$B/lk"
dram_round
fmaround
for run in 1 2; do
	rm -f "$B"/cache/machines/*.csv
	t0=$(now)
	$R -progress=never -useCachedResults=false measure peaks >"$B/peaks$run" 2>&1
	t1=$(now)
	echo "peaks_s $(calc "$t1 - $t0")" >"$B/p$run"
	$R -progress=never run bench/ceilings.lua >>"$B/p$run" 2>&1
	dram_round
	fmaround
done
p() { awk -v k="$2" '$1 == k { print $2 }' "$B/p$1"; }
for run in 1 2; do
	printf 'rot measure peaks, run %d: %.0f s (target < 180 s)%s\n' "$run" "$(p $run peaks_s)" \
		"$(grep -q 'UNSTABLE:' "$B/peaks$run" && echo "; $(grep -c ' UNSTABLE$' "$B/peaks$run") ceilings marked unstable" || echo "; no ceiling unstable")"
done
[ -n "$lk" ] || echo "likwid-bench is not installed (sudo apt-get install likwid): rot's DRAM ceilings against the STREAM-convention triad alone"
if [ -n "$tri" ] || [ -n "$trin" ]; then dram_report; else echo "no STREAM-convention triad (bench/triad.c did not build with -fopenmp): no DRAM reference"; fi
best() { awk -v k="$1" '$1 ~ ("^(" k ")$") && $2 > b { b = $2 } END { if (b) print b }' "$B/lk"; }
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

