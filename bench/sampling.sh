#!/bin/sh
# make bench's sampling lines (B: the bench's folder): what sampling an application's
# invocation costs (the core's input sample, core/sampler.c), at the default period
# (SAMPLER_DEFAULT_NS in core/vocabulary.h: 4 ms of a thread's CPU time) and at 1 ms, against
# unsampled invocations of the same program by the same core process, interleaved: pairs of
# invocations, the sampled one first in every other pair, each pair's ratio taken within it (the
# guest's pace moves over seconds: neighbours' ratio cancels it). The program: tests/loops/mv.c
# (both orders of a matrix-vector product, about 0.1 s). Target: the default's median <= 1.02x.
CORE=${CORE:-build/core/rot-core} # as the bench's triad sweep built it (an application needs no kernel)
cc=${CC:-gcc}
if ! [ -x "$CORE" ] || ! $cc -O2 -g -o "$B/mv" tests/loops/mv.c 2>/dev/null; then
	echo "sampling: no core or no C compiler: no sampling figures"
	exit 0
fi
pairs=${PAIRS:-12}
point() { # point ID PERIOD: an application point of one invocation of mv, sampled every PERIOD ns
	printf 'point %s\napp %s\narg 1000\narg 60\nsample %s\nruns 1\nmaxRuns 1\nend\n' "$1" "$B/mv" "$2"
}
for period in ${PERIODS:-4000000 1000000}; do
	: >"$B/sampling.in"
	for i in $(seq $pairs); do
		if [ $((i % 2)) = 1 ]; then
			point "$i-s" $period && point "$i-u" 0
		else
			point "$i-u" 0 && point "$i-s" $period
		fi >>"$B/sampling.in"
	done
	"$CORE" --batch "$B/sampling.in" >"$B/sampling.out" 2>"$B/sampling.err"
	awk -v p=$period '/^begin / { id = $2 } /^run / { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "ns") t[id] = kv[2] } }
		/^sampled / { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "samples") s += kv[2]; if (kv[1] == "lost") lost += kv[2] } }
		/^meta sampling / { sub(/^meta sampling /, ""); refused = $0 }
		/^error / && !err { sub(/^error /, ""); err = $0 }
		END {
			if (refused != "") { print "sampling: " refused; exit }
			for (k in t) if (k ~ /-s$/) { u = k; sub(/-s$/, "-u", u); if (t[u] > 0) { n++; r[n] = t[k] / t[u]; ts += t[k]; tu += t[u] } }
			if (!n) { print "sampling: no pair measured" (err != "" ? ": " err : ""); exit }
			for (i = 2; i <= n; i++) for (j = i; j > 1 && r[j] < r[j - 1]; j--) { x = r[j]; r[j] = r[j - 1]; r[j - 1] = x }
			med = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
			printf "sampling every %g ms of CPU time (tests/loops/mv.c 1000 60, %d pairs): sampled over unsampled x%.4f median (%.4f-%.4f)%s; mean invocation %.1f ms sampled, %.1f ms not; %d samples, %d lost\n",
				p / 1e6, n, med, r[1], r[n], p == 4000000 ? " (the default; target <= 1.02)" : "", ts / n / 1e6, tu / n / 1e6, s, lost }' "$B/sampling.out"
done
# The survey's rows on a cached rerun (rot.results.survey: the samples named by rot.symbols,
# matched to the count's loops): rot profile -count of mv served whole by the cache, sampled
# (the default interval) against not (samplingInterval=0), interleaved, wall time of rot.
if [ -n "$R" ]; then
	for iv in 4 0; do $R profile -threads=1 -count -samplingInterval=$iv -progress=never -- "$B/mv" 1000 60 >/dev/null 2>&1; done
	for i in 1 2 3 4 5 6 7; do
		for iv in 4 0; do
			s=$(date +%s%N)
			$R profile -threads=1 -count -samplingInterval=$iv -progress=never -- "$B/mv" 1000 60 >/dev/null 2>&1
			echo "$iv $(($(date +%s%N) - s))"
		done
	done | awk '{ t[$1] = t[$1] " " $2 / 1e6 } END {
		n = split(t[4], a, " "); split(t[0], b, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j] < a[j - 1]; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
		for (i = 2; i <= n; i++) for (j = i; j > 1 && b[j] < b[j - 1]; j--) { x = b[j]; b[j] = b[j - 1]; b[j - 1] = x }
		printf "survey rows on a cached rerun (rot profile -count of mv, 7 interleaved pairs): %.0f ms with them, %.0f ms without (medians)\n", a[4], b[4] }'
fi
