# bench/lib.sh: make bench's shared helpers, sourced by bench/bench.sh and the parts it
# runs (bench/*.sh); B: the bench's temp dir, R: its rot command.
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\\n\", $1 }"; }
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
field() { sed -n "s/.*$1 \([0-9.]*\) s.*/\1/p" | tail -n 1; }
# runs without rot hold rot's measuring lock too (flock), as rot does: no other rot measures then
locked() { if command -v flock >/dev/null 2>&1; then flock /tmp/rot-measuring.lock "$@"; else "$@"; fi; }
# overhead per point: the slope between 20 and 80 points (what one more point costs), and the
# fixed cost of a measurement beside it (start, description of the first point, the core's start)
slope() { # slope KERNEL CHILD SEED: "per_point_ms fixed_ms" from 20 and 80 points of one run each
	one="-useCachedResults=false -runs=1 -maxRuns=1 -minRunTime=0 -pointChild=$2"
	a=$($R run bench/overhead.lua "$1" 20 $((2 * $3)) $one 2>&1 | sed -n 's/^points 20 wall \([0-9.]*\) kernel \([0-9.]*\)/\1 \2/p')
	b=$($R run bench/overhead.lua "$1" 80 $((2 * $3 + 1)) $one 2>&1 | sed -n 's/^points 80 wall \([0-9.]*\) kernel \([0-9.]*\)/\1 \2/p')
	echo "$a $b" | awk 'NF == 4 { s = (($3 - $4) - ($1 - $2)) / 60; printf "%.3f %.1f\n", s * 1e3, (($1 - $2) - 20 * s) * 1e3 }'
}
warm() { # warm KERNEL CHILD: the core built, outside the timed runs
	$R run bench/overhead.lua "$1" 20 1 -useCachedResults=false -runs=1 -maxRuns=1 -minRunTime=0 -pointChild=$2 >/dev/null 2>&1
}
overhead() { # overhead KERNEL CHILD: "per_point_ms fixed_ms", the median of 3 slopes (one slow spell moves one by 20 %)
	warm "$1" "$2"
	for pair in 1 2 3; do slope "$1" "$2" "$pair"; done | sort -n | sed -n 2p
}
# neighbour busy|stream|quiet: a neighbour on the last CPU (the measured program is not pinned:
# the scheduler gives it another), its pid in NB; stop ends it
PIN=""
[ "$(nproc)" -gt 1 ] && command -v taskset >/dev/null 2>&1 && PIN="taskset -c $(($(nproc) - 1))"
NB=""
neighbour() {
	case $1 in
	busy) $PIN sh -c 'while :; do :; done' & NB=$! ;;
	stream) $PIN dd if=/dev/zero of=/dev/null bs=64M 2>/dev/null & NB=$! ;; # the kernel zeroes 64 MiB a read
	*) NB="" ;;
	esac
}
stop() { [ -n "$NB" ] && kill "$NB" 2>/dev/null && wait "$NB" 2>/dev/null; NB=""; }
