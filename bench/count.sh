#!/bin/sh
# make bench's counting-pass lines (B: the bench's folder, R: rot): the engine's slowdown against
# the native run of the same program (tests/count/known.c: a streaming triad and a dense matrix
# multiply), with counts alone (target < 30x) and with the caches simulated (target < 150x);
# STREAM's loops counted region by region: tests/apps/streamlike.c always, and with
# STREAM_C=/path/to/stream.c STREAM itself (bench/stream-markers.patch), arrays 4x the last
# level: counted bytes against STREAM's, simulated bytes beyond the last level against STREAM's
# and its write-allocate stream's; the loops counted (--rot-loops=yes) against the counts alone
# (target <= 1.2x) and against cachegrind with the same two levels (target <= 1.0x), on known.c
# and on tests/loops/regions.c (loops in and out of two regions, each loop's part per region
# kept), their markers open as in rot's counting pass. The timed
# runs are never instrumented (rot.count runs after them, in a process of its own), so their
# overhead is the one the other lines report.
cc=${CC:-gcc}
K="$B/known"
if ! $cc -O2 -Icore/include -o "$K" tests/count/known.c 2>"$B/known.err" || ! command -v valgrind >/dev/null; then
	echo "count: tests/count/known.c does not build, or no valgrind here: no counting-pass figures"
	exit 0
fi
VG=build/core/count/valgrind # the tool, as a counting pass builds it (the first below does)
sim=$($R run bench/count-caches.lua 2>/dev/null) # this machine's caches, as simulated
llc=$(echo "$sim" | tr ',' '\n' | tail -n 1 | cut -d: -f1)
n=$((4 * ${llc:-0} / 8))
# STREAM's arrays counted under Valgrind at most this long (doubles): a guest that reports its
# host's last level (hundreds of MiB) would count for hours
max=${STREAM_COUNT_MAX:-16777216}
stream_fits() { # stream_fits NAME: whether NAME's arrays are short enough to count; a line if not
	[ "$n" -gt 0 ] && [ "$n" -le "$max" ] && return 0
	echo "$1: not counted: 4x the last level simulated here ($llc B) is $n doubles an array, beyond $max (STREAM_COUNT_MAX=$n counts it)"
	return 1
}
# STREAM's loops, region by region: bytes counted against STREAM's, beyond the last level
# against STREAM's and the write-allocate stream's (written arrays read first)
stream_lines() { # stream_lines NAME CSV
	awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["region"] != "(program)" && $c["region"] != "" {
			d = $c["bytes_declared"]; w = $c["bytes_written_declared"]
			printf "  %s %s: counted bytes %.4fx STREAM'\''s, beyond the last level %.4fx (STREAM'\''s + written: %.4fx)\n",
				name, $c["region"], $c["bytes_counted"] / d, $c["traffic_bytes:DRAM"] / d, (d + w) / d }' "$2"
}
cc_stream() { $cc -O2 -fopenmp -Icore/include "$@"; }
if stream_fits streamlike && cc_stream -o "$B/streamlike" tests/apps/streamlike.c 2>/dev/null; then
	$R -progress=never profile -count -threads=1 -runs=1 -maxRuns=1 -useCachedResults=false -- "$B/streamlike" "$n" \
		>"$B/streamlike.out" 2>&1
	echo "streamlike ($n doubles an array: 4x the last level), counted (target: bytes 1.00x, beyond the last level as STREAM's + written within 5 %):"
	stream_lines streamlike "$B/out/streamlike.csv"
fi
[ -x "$VG/rotcount-amd64-linux" ] && [ -n "$sim" ] || { echo "count: the counting tool did not build: no slowdown figures"; exit 0; }
best() { # best CMD...: the shortest wall time of three runs, in seconds
	for i in 1 2 3; do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s.%N)
		echo "$s $e" | awk '{ print $2 - $1 }'
	done | sort -g | head -n 1
}
engine() { VALGRIND_LIB=$VG valgrind -q --tool=rotcount --rot-out="$B/count.out" "$@"; }
echo "counting pass (Valgrind $(valgrind --version | sed 's/valgrind-//'), rot's tool; simulated: $sim), best of 3 runs each:"
for w in "triad 20000000" "matmul 700"; do
	set -- $w
	nat=$(best "$K" "$@")
	c=$(best engine "$K" "$@")
	s=$(best engine --rot-cache="$sim" "$K" "$@")
	echo "$w $nat $c $s" | awk '{ printf "  %s %s: native %.3f s, counts alone %.2f s (x%.1f, target < 30x), with the caches simulated %.2f s (x%.1f, target < 150x)\n", $1, $2, $3, $4, $4 / $3, $5, $5 / $3 }'
done

if [ -n "$STREAM_C" ] && [ -f "$STREAM_C" ] && stream_fits STREAM; then
	mkdir -p "$B/stream-count" && cp "$STREAM_C" "$B/stream-count/stream.c"
	if (cd "$B/stream-count" && patch -s -p1 <"$OLDPWD/bench/stream-markers.patch") &&
		cc_stream -DSTREAM_ARRAY_SIZE="$n" -o "$B/stream-count/stream" "$B/stream-count/stream.c" 2>/dev/null; then
		$R -progress=never profile -count -threads=1 -runs=1 -maxRuns=1 -useCachedResults=false -- "$B/stream-count/stream" \
			>"$B/stream-count/out" 2>&1
		echo "STREAM (stream-markers.patch on $STREAM_C, $n doubles an array), counted:"
		stream_lines STREAM "$B/out/stream.csv"
	else
		echo "STREAM: $STREAM_C did not take bench/stream-markers.patch or did not build"
	fi
fi

# The loops (--rot-loops=yes) against the counts alone, and against cachegrind: the same binary,
# the same two simulated levels (this machine's first and last, each one's sets rounded down to
# a power of two, as cachegrind takes them; cachegrind simulates an I1 besides), interleaved:
# each round runs the three in turn and its ratios are taken within it (the guest's pace moves
# over seconds: neighbours' ratios cancel it). CPU time of each run, 5 rounds.
two=$(echo "$sim" | awk -F, 'function pow2(size, ways,   s, p) { s = size / (64 * ways); p = 1
		while (p * 2 <= s) p *= 2; return p * 64 * ways }
	{ split($1, a, ":"); split($NF, b, ":"); printf "%d %d %d %d", pow2(a[1], a[2]), a[2], pow2(b[1], b[2]), b[2] }')
set -- $two
d1s=$1 d1a=$2 lls=$3 lla=$4
cpu() { # cpu CMD...: its user and system time in seconds (wall time without /usr/bin/time)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -n 1 | awk '{ print $1 + $2 }'
	else
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		echo "$s $(date +%s.%N)" | awk '{ print $2 - $1 }'
	fi
}
# The programs' markers open their regions (ROT_MARKERS, as in rot's counting pass: each loop's
# part per region is kept) under all three; tests/loops/regions.c: loops in two regions and out.
export ROT_MARKERS="$VG/../librot-count.so"
$cc -O2 -g -Icore/include -o "$B/regions" tests/loops/regions.c 2>/dev/null || echo "  (tests/loops/regions.c does not build)"
echo "loops counted (--rot-loops=yes) against counts alone, and against cachegrind (valgrind --tool=cachegrind --cache-sim=yes --D1=$d1s,$d1a,64 --LL=$lls,$lla,64), the same two levels, interleaved, CPU time, 5 rounds, median (min-max) of the rounds' ratios:"
for w in "$K triad 5000000" "$K matmul 400" "$B/regions 2000 3000"; do
	set -- $w
	w="${1##*/} $2 $3"
	for i in 1 2 3 4 5; do
		a=$(cpu env VALGRIND_LIB=$VG valgrind -q --tool=rotcount --rot-out="$B/count.out" --rot-cache="$d1s:$d1a,$lls:$lla" "$@")
		b=$(cpu env VALGRIND_LIB=$VG valgrind -q --tool=rotcount --rot-out="$B/count.out" --rot-loops=yes --rot-cache="$d1s:$d1a,$lls:$lla" "$@")
		c=$(cpu valgrind -q --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null --D1="$d1s,$d1a,64" --LL="$lls,$lla,64" "$@")
		echo "$a $b $c"
	done | awk -v w="$w" 'function med(x, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j] < x[j - 1]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
			return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2 }
		$1 > 0 && $3 > 0 { n++; l[n] = $2 / $1; c[n] = $2 / $3; r[n] = $1 / $3; a += $1; b += $2; g += $3 }
		END { if (!n) { print "  " w ": not measured"; exit }
			ml = med(l, n); mc = med(c, n); mr = med(r, n) # (sorted: [1] the least, [n] the most)
			printf "  %s: counts alone %.2f s, with loops %.2f s, cachegrind %.2f s (means); loops over counts alone x%.3f (%.3f-%.3f; target <= 1.2), loops over cachegrind x%.3f (%.3f-%.3f; target <= 1.0), counts alone over cachegrind x%.3f\n",
				w, a / n, b / n, g / n, ml, l[1], l[n], mc, c[1], c[n], mr }'
done
