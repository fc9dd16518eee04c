# tests/hostile/lib.sh: sourced by the tests of hostile kernels after tests/e2e/lib.sh: their
# study in $S (tests/hostile/kernels beside tests/hostile/hostile.lua) and the helpers below.
S="$T/study"
mkdir -p "$S/kernels"
cp "$ROOT"/tests/hostile/kernels/*.[ch] "$S/kernels/"
cp "$ROOT/tests/hostile/hostile.lua" "$S/"
entries() { find "$CACHE/results" -type f 2>/dev/null | wc -l; }
running() { # a process of rot still runs: the core, the kernels it forked, a driver (a zombie
	# is not running: it waits for init to reap it); this test's own: their command lines name
	# its temp dir (other rot runs may go on beside it)
	ps -eo stat=,args= | awk -v t="$T" '$1 !~ /^Z/ && index($0, t) && ($2 ~ /rot-core$/ || $2 ~ /rot-driver$/) { found = 1 } END { exit !found }'
}
left() { # no process of rot is left running 0.3 s after (looked at every 0.05 s until then)
	i=0
	while running; do
		[ $i -ge 6 ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
}
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
now() { date +%s.%N; }
