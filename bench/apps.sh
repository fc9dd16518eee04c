#!/bin/sh
# bench/apps.sh: make bench's figures for applications on the roofline (bench/bench.sh
# calls it with B, its temp dir, and R, its rot command): what a begin/end pair of markers costs
# outside rot, under rot without counters and with software counters; what running a program
# under rot costs it against the same program without rot, interleaved; and, when a STREAM source
# is given (STREAM_C=/path/to/stream.c), rot's per-region bandwidths against STREAM's own.
cc=${CC:-gcc}
M="$B/markers"
if ! $cc -O2 -Icore/include -o "$M" bench/markers.c 2>"$B/markers.err"; then
	echo "markers: bench/markers.c does not build here ($(head -n 1 "$B/markers.err")): no marker or application figures"
	exit 0
fi
. bench/lib.sh # median, locked
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s..%s", lo, hi }'; }
one="-runs=1 -maxRuns=1 -bestK=1 -useCachedResults=false -progress=never"
prof() { $R profile $one "$@" >"$B/prof.out" 2>&1; }

# a pair's cost: 5 rounds, each the four ways one after another (a neighbour's phase hits all four)
: >"$B/off" && : >"$B/on" && : >"$B/on1" && : >"$B/on4"
for round in 1 2 3 4 5; do
	locked "$M" pairs 10000000 "$B/v" && cat "$B/v" >>"$B/off"
	prof -- "$M" pairs 10000000 "$B/v" && cat "$B/v" >>"$B/on"
	prof -counters=perf::TASK-CLOCK -- "$M" pairs 200000 "$B/v" && cat "$B/v" >>"$B/on1"
	prof -counters=perf::TASK-CLOCK,perf::CONTEXT-SWITCHES,perf::CPU-MIGRATIONS,perf::PAGE-FAULTS -- "$M" pairs 200000 "$B/v" &&
		cat "$B/v" >>"$B/on4"
done
for k in off on on1 on4; do
	[ -s "$B/$k" ] || { echo "markers: a run failed ($(tail -n 2 "$B/prof.out" | tr '\n' ' ')): no pair cost"; exit 0; }
done
printf 'marker pair (rot_region_begin + rot_region_end, a loop of them timed by the program itself, median and range of 5 rounds, each round the four ways in a row):\n'
printf '  outside rot %.2f ns (%s; the recorder absent: a load and a branch)\n' "$(median <"$B/off")" "$(range <"$B/off")"
printf '  under rot without counters %.1f ns (%s; target < 50 ns)\n' "$(median <"$B/on")" "$(range <"$B/on")"
printf '  under rot with one software counter (perf::TASK-CLOCK) %.0f ns (%s; target < 1500 ns); with four (task-clock, context switches, migrations, page faults: one group, one read) %.0f ns (%s)\n' \
	"$(median <"$B/on1")" "$(range <"$B/on1")" "$(median <"$B/on4")" "$(range <"$B/on4")"
printf '  (two read() system calls a pair, of the one counter alone or of the group of several: their price is this machine'"'"'s; rot profile prints the pair cost it calibrated in each program'"'"'s table header)\n'

# a program under rot against the same program without it: 15 rounds, A B and B A in turn, each
# side's minimum (what best-k reports) and the median of the rounds' ratios B/A; and rot's fixed
# price for starting a program (ptrace, the preloaded recorder, its calibration) from a program
# that does nothing
n=800000 reps=100
: >"$B/wall" && : >"$B/own" && : >"$B/wa.all" && : >"$B/wb.all" && : >"$B/z.a" && : >"$B/z.b"
csv_time() { awk -F, -v row="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "time_s") c = i } NR == row + 1 { print $c * 1e9 }' "$B/out/markers.csv"; }
without() { locked "$M" spawn "$B/wa" "$M" app $n $reps "$B/oa"; }
with() { prof -- "$M" app $n $reps "$B/ob"; }
for round in $(seq 15); do
	if [ $((round % 2)) = 1 ]; then without && with; else with && without; fi || continue
	wb=$(csv_time 1)
	call=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "time_per_call_s") c = i } NR == 3 { print $c * 1e3 }' "$B/out/markers.csv")
	echo "$wb" >>"$B/wb.all" && cat "$B/wa" >>"$B/wa.all"
	awk -v a="$(cat "$B/wa")" -v b="$wb" 'BEGIN { printf "%.5f\n", b / a }' >>"$B/wall"
	awk -v a="$(cat "$B/oa")" -v b="$(cat "$B/ob")" 'BEGIN { printf "%.5f\n", b / a }' >>"$B/own"
	locked "$M" spawn "$B/za" "$M" app 1 0 "$B/zo" && cat "$B/za" >>"$B/z.a"
	prof -- "$M" app 1 0 "$B/zo" && csv_time 1 >>"$B/z.b"
done
if [ -s "$B/wall" ]; then
	printf 'a program under rot against the same program without it (bench/markers.c app: %d calls of a marked region of a dependent multiply-add chain, %.2f ms a call; 15 rounds of the two in a row, in turns first and second, both under rot'"'"'s measuring lock):\n' $reps "$call"
	awk -v a="$(sort -g "$B/wa.all" | head -n 1)" -v b="$(sort -g "$B/wb.all" | head -n 1)" -v med="$(median <"$B/wall")" -v r="$(range <"$B/wall")" 'BEGIN {
		printf "  its whole time, start to end (rot'"'"'s (program) row; without rot, fork to wait): fastest %.2f ms with rot, %.2f ms without: %+.2f%%; the rounds'"'"' ratios: median %+.2f%% (%s) (target < 2%% for regions of 1 ms or more)\n", b / 1e6, a / 1e6, (b / a - 1) * 100, (med - 1) * 100, r }'
	printf '  its own time, main to its end (what tracing, the preloaded recorder and the markers add to its work): median of the rounds'"'"' ratios %+.2f%% (%s)\n' \
		"$(median <"$B/own" | awk '{ print ($1 - 1) * 100 }')" "$(range <"$B/own")"
	awk -v a="$(sort -g "$B/z.a" | head -n 1)" -v b="$(sort -g "$B/z.b" | head -n 1)" 'BEGIN {
		printf "  rot'"'"'s fixed price for starting a program (one that does nothing; fastest of 15 each): %.2f ms with rot, %.2f ms without: %+.2f ms an invocation\n", b / 1e6, a / 1e6, (b - a) / 1e6 }'
else
	echo "a program under rot: no round ran ($(tail -n 2 "$B/prof.out" | tr '\n' ' '))"
fi

# STREAM itself (John McCalpin's): only where its source is given; rot ships a patch, not a copy
if [ -n "$STREAM_C" ] && [ -f "$STREAM_C" ]; then
	mkdir -p "$B/stream" && cp "$STREAM_C" "$B/stream/stream.c"
	if (cd "$B/stream" && patch -s -p1 <"$OLDPWD/bench/stream-markers.patch") &&
		$cc -O2 -fopenmp -DSTREAM_ARRAY_SIZE=20000000 -Icore/include -o "$B/stream/stream" "$B/stream/stream.c" 2>/dev/null; then
		$R -progress=never measure tests/apps/stream-check.lua "$B/stream/stream" 0 -runs=3 -maxRuns=5 >"$B/stream/out" 2>&1
		echo "STREAM (bench/stream-markers.patch on $STREAM_C, 20M doubles an array, 1 and all CPUs): rot's regions against STREAM's printed Best Rate and Avg time, same invocation (target: within 5 %):"
		grep "^check " "$B/stream/out" | sed 's/^check /  /'
	else
		echo "STREAM: $STREAM_C did not take bench/stream-markers.patch or did not build with -fopenmp"
	fi
else
	echo "STREAM validation: set STREAM_C=/path/to/stream.c (John McCalpin's, github.com/jeffhammond/STREAM) to run it; rot ships bench/stream-markers.patch, not a marked copy (STREAM's licence allows modifying it for one's own use, not redistributing the modified program); make test checks the same on tests/apps/streamlike.c"
fi
