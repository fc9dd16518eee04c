#!/bin/sh
# rot's triad at 768 MiB (three 256 MiB arrays) against a separate program's (bench/triad.c),
# alternating: a layout fault in rot's pool once halved it. It judges measured numbers: alone.
. "$(dirname "$0")/lib.sh"
# the triad script's arrays are powers of two: at 768 MiB three 256 MiB arrays, which rot's
# pool once put back to back, where they streamed from DRAM at 0.45-0.75 of the same triad in
# a separate program (bench/triad.c, its arrays allocated apart); alternating, 3 rounds,
# each build against its own, the median ratio (a neighbour's minute moves both alike). 0.80,
# not make bench's target of 0.90: single rounds scatter 0.84-1.38 here, and the fault sat at
# 0.67. Both programs hold 768 MiB: skipped with less than 2 GiB available.
avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo 2>/dev/null)
if [ "${avail:-0}" -lt 2048 ]; then
	skip "less than 2 GiB of memory available (${avail:-unknown} MiB): triad at 768 MiB not measured"
elif cc -O3 -march=native -fopenmp -o "$T/triadw" "$ROOT/bench/triad.c" 2>/dev/null &&
	cc -O2 -fno-tree-vectorize -fopenmp -o "$T/triadn" "$ROOT/bench/triad.c" 2>/dev/null; then
	OMP_NUM_THREADS=1 rot run "$ROOT/bench/arrays.lua" "$T/triadw" "$T/triadn" 3 >"$T/arrays" 2>&1
	ratios=$(awk '$1 == "ROUND" && $4 > 0 && $5 > 0 { printf "%s%.3f", n++ ? " " : "", $4 / $5 }' "$T/arrays")
	awk '$1 == "ROUND" && $4 > 0 && $5 > 0 { v[++n] = $4 / $5 }
		END { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			exit !(n == 6 && (v[3] + v[4]) / 2 >= 0.80) }' "$T/arrays"
	ok $? "triad at 768 MiB (three 256 MiB arrays) streams as fast as a separate program's, alternating: median of rot over program >= 0.80 (${ratios:-none measured})"
else
	skip "no C compiler with -fopenmp: bench/triad.c not built"
fi
done_testing
