#!/bin/sh
# STREAM's four loops in rot's own program (tests/apps/streamlike.c: STREAM's byte counts, timer
# and report), measured with tests/apps/stream-check.lua on 1 and all CPUs: rot's bandwidth of
# each region (its best call) against the rate the program prints itself in the same invocation,
# within 5 %, and its time per call against the program's average. Judges times: runs alone.
. "$(dirname "$0")/lib.sh"

cc=${CC:-gcc}
if ! $cc -O2 -fopenmp -I"$ROOT/core/include" -o "$T/streamlike" tests/apps/streamlike.c 2>"$T/e"; then
	echo "1..0 # SKIP $cc cannot build an OpenMP program here: $(head -n 1 "$T/e")"
	exit 0
fi
rot measure "$ROOT/tests/apps/stream-check.lua" "$T/streamlike" 2000000 -runs=3 -maxRuns=5 >"$T/o" 2>"$T/e"
ok $? "stream-check measures streamlike on 1 and all CPUs"
cpus=$(getconf _NPROCESSORS_ONLN)
for t in $(echo 1 "$cpus" | tr ' ' '\n' | sort -nu); do
	n=$(grep -c "^check threads=$t " "$T/o")
	test "$n" -eq 4
	ok $? "$t thread(s): the four loops compared ($n)"
	bad=$(grep "^check threads=$t " "$T/o" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "=")
		if (kv[1] == "best_ratio" || kv[1] == "mean_ratio") if (kv[2] < 0.95 || kv[2] > 1.05) print $3, $i } }')
	test -z "$bad"
	ok $? "$t thread(s): rot's best call and time per call within 5 % of the program's own${bad:+: $bad}"
	grep "^check threads=$t " "$T/o" | sed 's/^/# /'
done
done_testing
