#!/bin/sh
# The measuring core: crash and timeout reports, threads the kernel spawns, counters
# (software events here; hardware ones where a PMU exists), cache modes, best-k, rules.
. "$(dirname "$0")/lib.sh"
P=tests/core/point.lua
# the core's own behaviour, in one process a point: its runs, reports and rules as one core
# measured them (a point's rounds over several processes are tests/e2e/rounds.t's)
echo "rounds=1" >>"$XDG_CONFIG_HOME/rot/config"
csv() { csv_value "$OUT/point.csv" "$1"; } # csv COLUMN: the value of COLUMN in point.csv's data row
ratio_between() { # ratio_between A B LO HI: LO <= A/B <= HI
	awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" 'BEGIN { r = a / b; exit !(b > 0 && r >= lo && r <= hi) }'
}

# a crash: signal, thread, address; nothing cached
rot measure $P segv 1 >"$T/o" 2>"$T/e"
ok $((1 - ($? != 0))) "crashing kernel: the run fails"
grep -q "kernel 'segv' crashed: Segmentation fault (signal 11) in thread [0-9][0-9]* at address 0x40" "$T/e"
ok $? "crash report names kernel, signal, thread and faulting address"
test -z "$(find "$CACHE/results" -type f 2>/dev/null)"
ok $? "no cache entry for the crash"

# a hang: killed at the timeout
t0=$(date +%s)
rot measure $P hang 1 -timeout=1 >"$T/o" 2>"$T/e"
st=$?
t1=$(date +%s)
test $st -ne 0 && grep -q "kernel 'hang' ran past the timeout of 1 s and was killed" "$T/e"
ok $? "hanging kernel is killed at the timeout and reported"
test $((t1 - t0)) -lt 15
ok $? "the driver did not hang ($((t1 - t0)) s)"
test -z "$(find "$CACHE/results" -type f 2>/dev/null)"
ok $? "no cache entry for the hang"

# onFailure: continue goes on with the next point, stop stops
cat >"$T/two.lua" <<L
local rot = require "rot"
package.path = "$ROOT/tests/core/?.lua;" .. package.path
local r = rot.measure(rot.space { rot.axis("k", { "segv", "stable" }) }, function(p)
  return { kernel = p.k, params = { n = 1000 } }
end)
r:table()
L
mkdir -p "$T/kernels" && cp tests/core/kernels/*.[ch] "$T/kernels/"
rot measure "$T/two.lua" >"$T/o" 2>"$T/e"
contains "$T/o" "1 measured, 1 failed" "onFailure=continue: the next point is measured"
contains "$T/o" "FAILED" "the failed point is marked in the table"
rot measure "$T/two.lua" -onFailure=stop >"$T/o" 2>"$T/e"
grep -q "stopping after a failed point" "$T/e"
ok $? "onFailure=stop stops at the failure"

# garbage on stdout does not disturb the results
rot measure $P garbage 1 >"$T/o" 2>&1
ok $? "a kernel writing garbage to stdout is measured"
contains "$T/o" "1 measured, 0 failed" "its point counts as measured"

# counters: software events, plausible against the measured time. A run's counts span a little
# more than its timed region (the stops that bracket it), and on a busy virtual machine that
# margin can hold a fraction of a millisecond the timer does not see, so each run here lasts
# 50 ms and the margin is a few percent at most; a count not divided by the run's invocations
# would still be about 100x off
rot measure $P stable 200000 counter=perf::TASK-CLOCK counter=perf::CONTEXT-SWITCHES -minRunTime=0.05 >"$T/o" 2>&1
ok $? "software counters are counted"
tc=$(csv counter:perf::TASK-CLOCK)
tm=$(csv time_s)
ratio_between "$tc" "$(awk -v t="$tm" 'BEGIN { print t * 1e9 }')" 0.8 1.3
ok $? "task-clock ($tc ns per invocation) is close to the measured time ($tm s)"
contains "$T/o" "perf::TASK-CLOCK" "the table shows the counter"

# counters follow threads the kernel creates itself
rot measure $P spawn 1000000 counter=perf::TASK-CLOCK >"$T/o" 2>&1
tc=$(csv counter:perf::TASK-CLOCK)
tm=$(csv time_s)
# two spinning threads give about 2 alone; a CPU shared with other work gives them less, and
# the creating thread alone (which only waits) would give about 0
ratio_between "$tc" "$(awk -v t="$tm" 'BEGIN { print t * 1e9 }')" 0.5 4
ok $? "task-clock includes the kernel's own threads ($tc ns vs $tm s wall; the creating thread only waits)"
counted=$(sed -n "s/^threadsCounted: //p" "$T/o")
test "$counted" -ge 3
ok $? "the result says how many threads were counted ($counted)"
contains "$T/o" "threadTable: 0:exited:counted,1:exited:counted" "thread table lists created threads and their state"
contains "$T/o" "events: .*threadCreated/thread=1.*threadExited/thread=1" "thread creation and exit are in the event log"

# hardware events: counted where a PMU exists, a clear error where not; never a silent zero
if ls /sys/bus/event_source/devices | grep -q '^cpu'; then
	rot measure $P stable 100000 counter=INSTRUCTIONS >"$T/o" 2>"$T/e"
	v=$(csv counter:INSTRUCTIONS)
	awk -v v="$v" 'BEGIN { exit !(v > 100000) }'
	ok $? "INSTRUCTIONS counted on this PMU ($v per invocation)"
else
	rot measure $P stable 100000 counter=INSTRUCTIONS >"$T/o" 2>"$T/e"
	ok $((1 - ($? != 0))) "INSTRUCTIONS without a PMU: the run fails"
	grep -q "event 'INSTRUCTIONS' cannot be counted: the machine has no counter for it" "$T/e" && grep -q "no core PMU" "$T/e"
	ok $? "the error names the event and says there is no PMU"
fi
grep -q "software events such as perf::TASK-CLOCK" "$T/e" || grep -q "INSTRUCTIONS" "$OUT/point.csv"
ok $? "what can be counted is listed (or it was counted)"
rot measure $P stable 100000 counter=NO_SUCH_EVENT >"$T/o" 2>"$T/e"
grep -q "event 'NO_SUCH_EVENT' cannot be counted: unknown event name" "$T/e"
ok $? "an unknown event name is an error naming it"
"$ROOT/rot" events >"$T/o" 2>&1
contains "$T/o" "^pmu perf " "rot events lists the PMUs"
# whether this machine counts hardware events at all, said first, and each event it cannot open
# marked: on a guest without a PMU, INSTRUCTIONS is listed but cannot be opened
head -n 1 "$T/o" | grep -q "^hardware events: \(this machine counts them\|none can be counted on this machine: perf_event_open of the CPU's cycles fails\)"
ok $? "rot events says first whether this machine counts hardware events ($(head -n 1 "$T/o" | cut -c1-100)...)"
"$ROOT/rot" events all >"$T/all" 2>&1
if head -n 1 "$T/o" | grep -q "none can be counted"; then
	grep -q "^event perf::INSTRUCTIONS (cannot be opened here: " "$T/all" && grep -q "^event perf::TASK-CLOCK$" "$T/all" &&
		grep -q "^pmu perf .* events, [0-9]* of them open here)" "$T/o"
	ok $? "no PMU: rot events all marks INSTRUCTIONS as one it cannot open, TASK-CLOCK opens, each PMU counts those that do"
	if command -v perf >/dev/null 2>&1; then # perf's own word, independently
		perf stat -e cycles true 2>&1 | grep -q "<not supported>.*cycles\|cycles.*not supported\|<not counted>"
		ok $? "perf stat agrees: cycles are not supported here"
	else skip "perf is not installed: no second opinion on the PMU"; fi
else
	grep -q "^event perf::INSTRUCTIONS$" "$T/all"
	ok $? "a PMU: rot events all lists INSTRUCTIONS unmarked"
	skip "this machine counts hardware events: nothing for perf to confirm as missing"
fi

# measured counts: a linear combination of counters replaces the declared flops
rot measure $P stable 100000 counter=perf::TASK-CLOCK "flops=perf::TASK-CLOCK*1" >"$T/o" 2>&1
contains "$T/o" "flops measured, bytes declared" "counts say which quantity was measured"
test -n "$(csv flops_measured_over_declared)"
ok $? "the CSV has the measured/declared ratio"

# cold caches make a small kernel slower than warm ones
rot measure $P buf 65536 >"$T/o" 2>&1
warm=$(csv time_s)
rot measure $P buf 65536 mode=cold >"$T/o" 2>&1
cold=$(csv time_s)
contains "$T/o" "cold" "the cache mode is shown"
awk -v c="$cold" -v w="$warm" 'BEGIN { exit !(c > 1.5 * w) }'
ok $? "cold ($cold s) is slower than warm ($warm s) for 64 KiB"

# best-k: stops early on a stable kernel, reports non-convergence on a noisy one
rot measure $P stable 300000 -bestEpsilon=0.05 >"$T/o" 2>&1
test "$(csv converged)" = 1 && test "$(csv runs)" -lt 40
ok $? "stable kernel: best-k converged after $(csv runs) runs (max 40)"
# what the kernel measured itself comes back as row.report: here how often it ran
reps=$(awk '/^run [0-9]+:/ { for (i = 1; i <= NF; i++) if ($i ~ /^reps=/) { sub("reps=", "", $i); s += $i } } END { print s }' "$T/o")
calls=$(sed -n 's/^report: calls=\([0-9]*\) n=300000$/\1/p' "$T/o")
test -n "$calls" && test "$calls" -ge "$reps" && test "$reps" -gt 0
ok $? "the kernel's report reaches the script: $calls calls >= $reps timed repetitions, n = 300000"
! grep -q "bad name" "$T/o"
ok $? "a reported name that is no identifier is dropped"
rot measure $P noisy 20000 -maxRuns=12 -minRunTime=0 >"$T/o" 2>&1
test "$(csv converged)" = 0 && test "$(csv runs)" -eq 12
ok $? "noisy kernel: not converged after the maximum of 12 runs"
contains "$T/o" "best-k did not converge" "non-convergence is reported"

# workloads in threads, pinned
rot measure $P triad 200000 threads=2 pin=1,0 >"$T/o" 2>&1
ok $? "two-thread triad is measured"
! grep "^run " "$T/o" | grep -v "cpus=1,0 " | grep -q .
ok $? "each thread ran on the core it was pinned to"
test "$(csv threads)" = 2
ok $? "the thread count is in the result"
# a CPU no thread can be pinned to fails the point, in a workload thread as in the main one
rot measure $P triad 200000 threads=2 pin=4000,4000 >"$T/o" 2>"$T/e"
ok $((1 - ($? != 0))) "a workload thread pinned to cpu 4000: the run fails"
contains "$T/e" "failed: cannot pin to cpu 4000: " "and says which CPU could not be pinned to"

# a size no array can have: the kernel refuses it and says why, nothing is allocated
rot measure $P triad -1 >"$T/o" 2>"$T/e"
ok $((1 - ($? != 0))) "triad with n=-1: the run fails"
grep -q "kernel 'triad' failed to initialize: Invalid argument" "$T/e" &&
	grep -q "triad: n must be a whole number from 1 to [0-9]* elements, not -1" "$T/e"
ok $? "the error names the parameter and its range"
refused() { # refused KERNEL N WORDS ARGS...: the run fails, its init said WORDS (a pattern); rot build too
	k=$1 n=$2 words=$3
	shift 3
	rot measure $P "$k" "$n" "$@" >"$T/o" 2>"$T/e"
	st=$?
	test $st -ne 0 && grep -q "kernel '$k' failed to initialize: Invalid argument" "$T/e" &&
		grep -q "$k: $words" "$T/e"
	ok $? "$k n=$n${*:+ $*}: refused, the user reads '$words'"
	rot build $P "$k" "$n" "$@" >"$T/o" 2>"$T/e"
	test $? -eq 1 && grep -q "failed: $k: $words" "$T/e"
	ok $? "and rot build says so before anything runs (the kernel's check agrees with its init)"
}
# 3 n^2 doubles past what a size_t counts: refused before the size wraps
refused dgemm 0 "n must be a whole number from 1 to [0-9]* rows, not 0"
refused dgemm 1e10 "n must be a whole number from 1 to [0-9]* rows, not 10000000000"
refused chase 1000 "ws must be a whole number from 128 to [0-9]* bytes, not 100" param=ws:100 macro=CHASE_CHAINS:2
refused chase 0 "n must be a whole number from 1 to [0-9]* steps, not 0"
refused stencil 2 "n must be a whole number from 3 to [0-9]* points a side, not 2"
refused peakflops -5 "n must be a whole number from 1 to [0-9]* iterations, not -5"
# a fraction: the buffers would hold its whole part while the declared bytes count it all
refused triad 1000.5 "n must be a whole number from 1 to [0-9]* elements, not 1000.5"

# several workloads at once, each in its own thread
cat >"$T/multi.lua" <<L
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("p", { 1 }) }, function()
  return { workloads = { { kernel = "triad", params = { n = 100000 } }, { kernel = "stable", params = { n = 100000 }, pin = { 0 } } } }
end)
r:table()
r:csv("point")
print("workloads: " .. r.rows[1].entry.meta.workload0 .. " / " .. r.rows[1].entry.meta.workload1)
L
rot measure "$T/multi.lua" >"$T/o" 2>&1
ok $? "two workloads (triad and a kernel beside the script) run together"
contains "$T/o" "workloads: triad threads=1 / stable threads=1" "both workloads are recorded"
test "$(csv threads)" = 2 && test "$(csv kernel)" = "triad+stable"
ok $? "one thread per workload; the CSV names both kernels"

# rules: each action
rot measure $P stable 100000 "rule=runEnd:marker:every=2,text=half" >"$T/o" 2>&1
contains "$T/o" "runEnd/run=0/thread=0/marker=half;.*runEnd/run=2/thread=0/marker=half" "marker: recorded at the matching events"
! grep -q "run=1/marker" "$T/o"
ok $? "marker: not recorded where the predicate fails"
rot measure $P triad 100000 threads=2 "rule=threadCreated:pin:cpu=1" >"$T/o" 2>&1
contains "$T/o" "threadCreated/thread=1/pin=1" "pin: the new thread was pinned"
! grep "^run " "$T/o" | grep -v "cpus=1,1 " | grep -q .
ok $? "pin: both workload threads ran on cpu 1"
rot measure $P stable 100000 counter=perf::TASK-CLOCK "rule=runStart:stopCounters:run=1" "rule=runStart:startCounters:run=2" >"$T/o" 2>&1
e0=$(sed -n 's/^run 0: .* e0=\([0-9]*\) counting=1/\1/p' "$T/o")
e1=$(sed -n 's/^run 1: .* e0=\([0-9]*\) counting=0/\1/p' "$T/o")
test -n "$e0" && test -n "$e1" && awk -v a="$e1" -v b="$e0" 'BEGIN { exit !(a < b / 10) }'
ok $? "stopCounters: run 1 was not counted ($e1 vs $e0)"
grep -q '^run 2: .* counting=1' "$T/o"
ok $? "startCounters: counting resumed at run 2"
rot measure $P buf 65536 "rule=runStart:flush:every=2" >"$T/o" 2>&1
runs=$(csv runs)
f=$(sed -n 's/^ruleFlushes: //p' "$T/o")
test "$f" -eq $(((runs + 1) / 2))
ok $? "flush: ran before every second run ($f flushes in $runs runs)"

# the machine's state is recorded with every measurement
contains "$T/o" "^# measured on .*kernel .*governor .*load .*timer overhead [0-9]* ns" "machine, kernel, governor, load, timer overhead shown"
model=$("$ROOT/rot" run "$ROOT/tests/e2e/print-machine.lua" 2>/dev/null | sed -n 's/^model "\(.*\)"$/\1/p')
grep -qF "# measured on $model, kernel" "$T/o"
ok $? "the table names the CPU as the plots and the machine's identity do ('$model'; $(grep -o '^# measured on [^,]*' "$T/o"))"
e=$(find "$CACHE/results" -type f | head -n 1)
grep -q "^meta cpuModel " "$e" && grep -q "^meta kernelVersion " "$e" && grep -q "^meta loadavg " "$e" && grep -q "^meta cpuKHzBefore " "$e" && grep -q "^meta cpuKHzAfter " "$e"
ok $? "cache entries record CPU model, kernel, load and frequency before and after"

if [ -d /sys/devices/system/cpu/cpu0/cpufreq ]; then
	rot measure $P stable 1000 -governor=performance >"$T/o" 2>"$T/e"
	test $? -eq 0 || grep -q "cannot set the cpufreq governor" "$T/e"
	ok $? "governor: set, or a clear error"
else
	rot measure $P stable 1000 -governor=performance >"$T/o" 2>"$T/e"
	grep -q "cannot set the cpufreq governor 'performance': this machine exposes no cpufreq" "$T/e"
	ok $? "governor: a clear error where there is no cpufreq"
fi
done_testing
