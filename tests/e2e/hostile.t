#!/bin/sh
# The core under hostile kernels and interruptions, as a user would meet them: user kernels
# beside a user script (tests/hostile/kernels) that fork and linger, vfork, start immortal
# threads, abort, stop themselves, exit midway, write result-like lines to every descriptor,
# block every signal; Ctrl-C, SIGTERM and SIGKILL of the driver mid-sweep. Each ends within
# its timeout plus a few seconds, with a message that names the cause, no process left and
# nothing wrong in the cache.
. "$(dirname "$0")/lib.sh"
S="$T/study"
mkdir -p "$S/kernels"
cp "$ROOT"/tests/hostile/kernels/*.[ch] "$S/kernels/"
cat >"$S/hostile.lua" <<'EOF'
-- hostile.lua KERNEL [N [POINTS]]: POINTS points of a kernel from kernels/ beside this script
local rot = require "rot"
local k, n, count = arg[1], tonumber(arg[2] or 20000), tonumber(arg[3] or 1)
local idx = {}
for i = 1, count do idx[i] = i end
local r = rot.measure(rot.space { rot.axis("i", idx) }, function(p)
  return { kernel = k, params = { n = n + p.i } }
end)
r:table { bounds = false }
r:csv("hostile", { bounds = false })
EOF
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

t0=$(now)
rot measure "$S/hostile.lua" linger -timeout=3 >"$T/o" 2>"$T/e"
st=$?
t1=$(now)
test $st -ne 0 && grep -q "kernel 'linger' started a process that outlived it (pid [0-9]*); killed" "$T/e"
ok $? "a kernel that forks and lingers fails its point: 'started a process that outlived it (pid N); killed'"
awk -v e="$(elapsed "$t0" "$t1")" 'BEGIN { exit !(e < 8) }'
ok $? "it ends within the timeout plus a few seconds ($(elapsed "$t0" "$t1") s)"
left
ok $? "no process is left behind"
test "$(entries)" -eq 0
ok $? "nothing is cached for it"

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

t0=$(now)
rot measure "$S/hostile.lua" stopself -timeout=2 >"$T/o" 2>"$T/e"
t1=$(now)
grep -q "kernel 'stopself' ran past the timeout of 2 s and was killed; it had stopped itself with Stopped (signal)" "$T/e"
ok $? "a kernel that stops itself is killed at the timeout, and the message says it stopped itself"
awk -v e="$(elapsed "$t0" "$t1")" 'BEGIN { exit !(e < 7) }'
ok $? "within the timeout plus a few seconds ($(elapsed "$t0" "$t1") s)"
left
ok $? "no process is left behind"

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

t0=$(now)
rot measure "$ROOT/tests/core/point.lua" hang 1 -timeout=0.3 >"$T/o" 2>"$T/e"
m=$(sed -n 's/.*measure \([0-9.]*\) s.*/\1/p' "$T/o")
awk -v m="$m" 'BEGIN { exit !(m > 0.25 && m < 0.9) }'
ok $? "-timeout=0.3 fires after 0.3 s, not a whole second (measure $m s)"

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
