#!/bin/sh
# -executor=slurm under interruption and failure, on the two-node cluster of tests/slurm/cluster.sh
# SIGTERM while sbatch submits; Ctrl-C mid-job (exit 130 within seconds, the job gone from squeue, no rot process
# left, a rerun counts the kept points as hits); one task cancelled and another's worker killed
# with SIGKILL; one task past -slurmTimeLimit and the other's node set DOWN; two rot runs with
# overlapping points at once. Each failure names the task's Slurm state, the rest of the sweep
# is kept, and a rerun measures only what is missing.
#
# Points stay in flight while $ROT_TEST_HOLD exists (the `held` kernel, tests/slurm/kernels):
# the tests act on a task once its first points are measured and its next ones are held.
# -slurmTimeLimit's minimum is a minute, and slurmctld looks at time limits every 30 s: the
# timed-out task gets a real TIMEOUT from Slurm, sooner, by setting its end time to now
# (scontrol update JobId=... EndTime=now), so it ends at slurmctld's next check.
# judges no time: its waits are bounds for what must happen (a task at work, squeue empty), and
# Ctrl-C's 10 s are many times what it takes; no measured value is judged.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/slurm/lib.sh"

start_cluster
ok $? "a two-node cluster starts on localhost"

S="$T/study"
mkdir -p "$S/kernels"
cp "$ROOT/tests/hostile/kernels/hostile.h" "$ROOT/tests/hostile/kernels/slow.c" "$ROOT/tests/slurm/kernels/held.c" "$S/kernels/"
cat >"$S/sweep.lua" <<'EOF'
-- sweep.lua FROM TO [HELD_FROM HELD_TO]: points i = FROM..TO of the kernels beside this script,
-- `held` (in flight while $ROT_TEST_HOLD exists) for i in HELD_FROM..HELD_TO, else `slow`;
-- without them, of every four points the first two are slow and the other two held.
local rot = require "rot"
local from, to, hfrom, hto = tonumber(arg[1]), tonumber(arg[2]), tonumber(arg[3]), tonumber(arg[4])
local idx = {}
for i = from, to do idx[#idx + 1] = i end
rot.measure(rot.space { rot.axis("i", idx) }, function(p)
  local held = (p.i - from) % 4 >= 2
  if hfrom then held = p.i >= hfrom and p.i <= hto end
  return { kernel = held and "held" or "slow", params = { n = 3000000 + p.i } }
end)
EOF
export ROT_TEST_HOLD="$T/hold"
# the workers share this machine's ccache (rot's default is cacheDir/ccache): fewer cold builds
CCACHE_DIR=${CCACHE_DIR:-$(ccache -k cache_dir 2>/dev/null)}
[ -n "$CCACHE_DIR" ] && export CCACHE_DIR

# a sweep on Slurm in the background (argv only: a signal reaches the driver itself), one round
# a point: a task's points settle one after another, as these faults need them to
sweep() { # sweep OUT FROM TO [ARG/OPTION ...]
	out=$1
	shift
	"$ROOT/rot" measure "$S/sweep.lua" "$@" -executor=slurm -rounds=1 -cacheDir="$CACHE" -outputDir="$OUT" >"$T/$out.o" 2>"$T/$out.e" &
	pid=$!
}
# (the run's stderr may not exist yet while a test waits for its first results)
job_of() { sed -n 's/.* submitted to Slurm as job \([0-9]*\) .*/\1/p' "$T/$1.e" 2>/dev/null | head -n 1; }
jobdir_of() { sed -n 's/.*, job directory //p' "$T/$1.e" 2>/dev/null | head -n 1; }
results() { ls "$(jobdir_of "$1")/result" 2>/dev/null | wc -l; }
has_results() { [ "$(results "$1")" -ge "$2" ]; }
entries() { find "$CACHE/results" -type f 2>/dev/null | wc -l; } # (none before the first point is cached)

# 0. SIGTERM while sbatch submits (an sbatch that answers, then takes 2 s to exit): the job it
# submitted is recorded all the same, and cancelled
mkdir -p "$T/slowbin"
printf '#!/bin/sh\n"%s" "$@"\nst=$?\nsleep 2\nexit $st\n' "$(command -v sbatch)" >"$T/slowbin/sbatch"
chmod +x "$T/slowbin/sbatch"
: >"$ROT_TEST_HOLD"
path=$PATH
PATH="$T/slowbin:$PATH"
sweep z 41 44 -slurmNodes=1
PATH=$path
until_true 30 sh -c '[ -n "$(squeue -h)" ]'
kill -TERM $pid
wait $pid
st=$?
test $st -eq 143 && grep -q "^rot: interrupted by SIGTERM" "$T/z.e"
ok $? "SIGTERM while sbatch runs: interrupted, exit 143 (was $st)"
contains "$T/z.e" "^rot: cancelled Slurm job [0-9]*; waiting for its tasks to end" "the job sbatch had submitted is cancelled"
squeue_empty && until_true 5 no_rot_process
ok $? "squeue is empty, no rot process is left"

# 1. Ctrl-C mid-job: each task measured its first two points and holds its third (the cache
# may already hold points of test 0's sweep, measured before its job was cancelled: not this run's)
: >"$ROT_TEST_HOLD"
before=$(entries)
sweep a 1 8 -slurmNodes=2
until_true 120 has_results a 4
ok $? "two tasks at work, four points measured ($(results a) results)"
t0=$(now)
kill -INT $pid
wait $pid
st=$?
took=$(elapsed "$t0")
test $st -eq 130 && grep -q "^rot: interrupted by SIGINT" "$T/a.e"
ok $? "Ctrl-C mid-job: interrupted, exit 130 (was $st)"
awk -v e="$took" 'BEGIN { exit !(e < 10) }'
ok $? "within seconds ($took s)"
contains "$T/a.e" "^rot: cancelled Slurm job $(job_of a); waiting for its tasks to end" "it says it cancelled the job"
squeue_empty
ok $? "squeue is empty when it has ended"
until_true 5 no_rot_process
ok $? "and no rot process is left (driver, workers, cores, kernels)"
kept=$(($(entries) - before))
rm -f "$ROT_TEST_HOLD"
"$ROOT/rot" measure "$S/sweep.lua" 1 8 -executor=slurm -rounds=1 -slurmNodes=2 -cacheDir="$CACHE" -outputDir="$OUT" >"$T/a2.o" 2>"$T/a2.e"
ok $? "the same command then succeeds"
contains "$T/a2.o" "rot: 8 points, cache: $kept hits, $((8 - kept)) measured ($((8 - kept)) on Slurm), 0 failed" \
	"counting as hits the $kept points the first run kept, measuring the rest"

# 2. one task cancelled (scancel JOB_TASK), the other's worker killed with SIGKILL
: >"$ROT_TEST_HOLD"
sweep b 11 18 -slurmNodes=2
until_true 120 has_results b 4
ok $? "two tasks at work again"
job=$(job_of b)
scancel "${job}_0"
wpid=$(pgrep -f "rot-driver worker $(jobdir_of b) 1\$")
kill -9 $wpid
wait $pid
st=$?
test $st -eq 1
ok $? "the run ends, with failures (exit $st)"
contains "$T/b.e" "^rot: point 'i=13' failed: Slurm task 0 of job $job was CANCELLED (scancel, or by an administrator) on node [a-z0-9]* before it measured this point" \
	"a cancelled task's points fail: CANCELLED, with the node"
contains "$T/b.e" "^rot: point 'i=17' failed: Slurm task 1 of job $job FAILED on node [a-z0-9]* before it measured this point: its worker was killed by signal 9 (SIGKILL)" \
	"a killed worker's points fail: FAILED, killed by signal 9"
contains "$T/b.e" "^  its log .*/task-0.log ends:" "with the last lines of the task's log"
contains "$T/b.o" "rot: 8 points, cache: 0 hits, 4 measured (4 on Slurm), 4 failed" "the rest of the sweep is kept"
until_true 5 no_rot_process
ok $? "no rot process is left (the killed worker's core and kernel died with it)"
rm -f "$ROT_TEST_HOLD"
"$ROOT/rot" measure "$S/sweep.lua" 11 18 -executor=slurm -rounds=1 -slurmNodes=2 -cacheDir="$CACHE" -outputDir="$OUT" >"$T/b2.o" 2>"$T/b2.e"
test $? -eq 0 && grep -q "rot: 8 points, cache: 4 hits, 4 measured (4 on Slurm), 0 failed" "$T/b2.o"
ok $? "a rerun measures only those 4 points"
! grep -q "being measured by" "$T/b2.e"
ok $? "the killed worker's claims on its points were stale, not busy"

# 3. one task past its time limit, the other's node set DOWN
: >"$ROT_TEST_HOLD"
sweep c 21 28 -slurmNodes=2 -slurmTimeLimit=1
until_true 120 has_results c 4
ok $? "two tasks at work again"
job=$(job_of c)
node=$(squeue -h -j "${job}_1" -o %N)
scontrol update JobId="${job}_0" EndTime=now
scontrol update NodeName="$node" State=DOWN Reason=rot-test
wait $pid
st=$?
test $st -eq 1
ok $? "the run ends, with failures (exit $st)"
contains "$T/c.e" "^rot: point 'i=23' failed: Slurm task 0 of job $job ran past its time limit (TIMEOUT; -slurmTimeLimit=1 is too short for its points) on node [a-z0-9]* before it measured this point" \
	"a task past its time limit: its points fail with TIMEOUT and the setting"
contains "$T/c.e" "^rot: point 'i=27' failed: Slurm task 1 of job $job lost its node $node, which went down (NODE_FAIL), before it measured this point" \
	"a task whose node went down: its points fail with NODE_FAIL and the node"
contains "$T/c.o" "rot: 8 points, cache: 0 hits, 4 measured (4 on Slurm), 4 failed" "the rest of the sweep is kept"
until_true 5 no_rot_process
ok $? "no rot process is left"
scontrol update NodeName="$node" State=RESUME 2>/dev/null # (ReturnToService=2 may have resumed it)
until_true 20 sh -c '[ "$(sinfo -h -N -o %t | grep -c idle)" = 2 ]'
rm -f "$ROT_TEST_HOLD"
"$ROOT/rot" measure "$S/sweep.lua" 21 28 -executor=slurm -rounds=1 -slurmNodes=2 -cacheDir="$CACHE" -outputDir="$OUT" >"$T/c2.o" 2>"$T/c2.e"
test $? -eq 0 && grep -q "rot: 8 points, cache: 4 hits, 4 measured (4 on Slurm), 0 failed" "$T/c2.o"
ok $? "a rerun measures only those 4 points"

# 4. two runs at once with overlapping points, one task each, on the two nodes: the first
# measures 31-33, then holds 34-36; the second starts then, with 34-39
: >"$ROT_TEST_HOLD"
sweep p 31 36 34 36 -slurmNodes=1
ppid=$pid
until_true 120 has_results p 3
ok $? "the first run holds points 34-36"
sweep q 34 39 34 36 -slurmNodes=1
busy() { [ "$(grep -c "is being measured by rot worker of Slurm job $(job_of p) (task 0)" "$(jobdir_of q)/task-0.log" 2>/dev/null)" = 3 ]; }
until_true 120 busy && until_true 60 has_results q 3
ok $? "the second run's worker measures 37-39 and waits for 34-36, busy in the first"
rm -f "$ROT_TEST_HOLD"
wait $ppid
pst=$?
wait $pid
qst=$?
test $pst -eq 0 && test $qst -eq 0
ok $? "both succeed (exit $pst and $qst)"
pm=$(sed -n 's/.*cache: [0-9]* hits, \([0-9]*\) measured.*/\1/p' "$T/p.o")
qm=$(sed -n 's/.*cache: [0-9]* hits, \([0-9]*\) measured.*/\1/p' "$T/q.o")
test "$((pm + qm))" -eq 9
ok $? "no point is measured twice: $pm + $qm measured for the 9 distinct points"
grep -q "0 failed" "$T/p.o" && grep -q "0 failed" "$T/q.o"
ok $? "and none failed for the other"
contains "$T/q.e" "^rot: 3 points were being measured by another rot run when this run's workers reached them (rot worker of Slurm job $(job_of p) (task 0) on node [a-z0-9]*, pid [0-9]*): they waited, and took them from the cache" \
	"the second run says which points were busy and by whom"
contains "$T/q.o" "rot: 6 points, cache: 3 hits, 3 measured (3 on Slurm), 0 failed" "and counts them as hits"

stop_cluster
trap 'rm -rf "$T"' EXIT
done_testing
