#!/bin/sh
# The core under hostile kernels and interruptions, as a user would meet them: user kernels
# beside a user script (tests/hostile/kernels) that fork and exit, vfork, start immortal
# threads, abort, exit midway, write result-like lines to every descriptor, block every signal;
# Ctrl-C, SIGTERM and SIGKILL of the driver mid-sweep. Each ends with a message that names the
# cause, no process left and nothing wrong in the cache. (Kernels that linger or stop
# themselves, and how soon their timeouts fire: tests/e2e/timeouts.t.)
# judges no time
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/hostile/lib.sh"

for k in forkexit vforkexec immortal; do
	rot measure "$S/hostile.lua" $k -timeout=10 >"$T/o" 2>"$T/e"
	test $? -eq 0 && grep -q "1 measured, 0 failed" "$T/o"
	ok $? "$k: measured normally (what it started was gone when it ended)"
	left
	ok $? "$k: no process is left behind"
done

rot measure "$S/hostile.lua" blocksig 20000 3 -timeout=10 >"$T/o" 2>"$T/e"
test $? -eq 0 && grep -q "3 measured, 0 failed" "$T/o"
ok $? "a kernel that blocks every signal is measured (the core's own signals are unblocked before each use)"
rot measure "$S/hostile.lua" blocksig 30000 3 -timeout=10 -pointChild=shared >"$T/o" 2>"$T/e"
test $? -eq 0 && grep -q "3 measured, 0 failed" "$T/o"
ok $? "and so in one shared child, point after point"

rot measure "$S/hostile.lua" aborts >"$T/o" 2>"$T/e"
grep -q "kernel 'aborts' was killed by Aborted (signal 6), raised by itself in thread [0-9]*" "$T/e" && ! grep -q "address" "$T/e"
ok $? "abort(): the signal and that the kernel raised it itself, no faulting address"

rot measure "$S/hostile.lua" exits 3000000 >"$T/o" 2>"$T/e"
grep -q "kernel 'exits' exited with status 3 during run 2" "$T/e"
ok $? "an exit midway says the status and the run"
grep -q "| exits: giving up: the input is wrong" "$T/e"
ok $? "the kernel's last lines on stderr are shown"
test "$(grep -c '^  | ' "$T/e")" -le 40
ok $? "but only the last of its 1001 lines ($(grep -c '^  | ' "$T/e"))"

rot measure "$S/hostile.lua" forger 200000 >"$T/o" 2>"$T/e"
ok $? "a kernel writing result-like lines to every descriptor is measured"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "time_s") c = i } NR == 2 { exit !($c > 1e-6) }' "$OUT/hostile.csv"
ok $? "and its time is its own, not the forged 0 ns"

# interruptions: a sweep of 8 slow points (about 0.2 s each), one round a point: a cache entry
# is a finished point (an entry of a point in rounds is its finished rounds: tests/e2e/rounds.t)
sweep() { "$ROOT/rot" measure "$S/hostile.lua" slow 30000000 8 -cacheDir="$CACHE/int" -outputDir="$OUT" -runs=3 -maxRuns=3 -rounds=1 "$@"; }
sweep_bg() { # the driver itself in the background ($! is its pid, not a subshell's)
	"$ROOT/rot" measure "$S/hostile.lua" slow 30000000 8 -cacheDir="$CACHE/int" -outputDir="$OUT" -runs=3 -maxRuns=3 -rounds=1 >"$T/o" 2>"$T/e" &
}
wait_entries() { # wait_entries N: until N points are in the cache (at most 30 s)
	i=0
	while [ "$(find "$CACHE/int/results" -type f 2>/dev/null | wc -l)" -lt "$1" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
for sig in 2 15; do
	name=$(kill -l $sig)
	rm -rf "$CACHE/int"
	sweep_bg
	pid=$!
	wait_entries 2
	kill -$sig $pid
	wait $pid
	st=$?
	want=$((128 + sig))
	test $st -eq $want && grep -q "^rot: interrupted by SIG$name" "$T/e"
	ok $? "SIG$name mid-sweep: 'interrupted by SIG$name', exit status $want (was $st)"
	left
	ok $? "SIG$name: no process is left behind"
	n=$(find "$CACHE/int/results" -type f | wc -l)
	test "$n" -ge 2 && test "$n" -lt 8 && test -z "$(find "$CACHE/int" -name '*.tmp*')"
	ok $? "SIG$name: the $n finished points are in the cache, nothing half-written"
	sweep >"$T/o" 2>"$T/e"
	contains "$T/o" "cache: $n hits, $((8 - n)) measured" "SIG$name: the rerun measures only the $((8 - n)) missing points"
done

rm -rf "$CACHE/int"
sweep_bg
pid=$!
wait_entries 2
kill -KILL $pid
wait $pid 2>/dev/null
left
ok $? "SIGKILL of the driver mid-sweep: the core and the kernel die with it"
n=$(find "$CACHE/int/results" -type f | wc -l)
sweep >"$T/o" 2>"$T/e"
contains "$T/o" "cache: $n hits, $((8 - n)) measured" "after SIGKILL the rerun measures only the $((8 - n)) missing points"
done_testing
