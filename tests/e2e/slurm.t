#!/bin/sh
# -executor=slurm against a real two-node Slurm cluster on localhost (slurmctld, two slurmd and
# munged from Debian's slurm-wlm and munge, all in a temporary directory: tests/slurm/cluster.sh):
# the quick triad measured through sbatch, a local rerun that is all hits, a crashing kernel's
# point reported as failed with its cause, two node types, a clear error without sbatch; the
# daemons stopped by their pid files at the end. Interruption and failures: slurm-faults.t.
# judges no time: no measured value is judged, and the tasks measure outside the measuring lock
# as a scheduled node would, so a neighbouring test's run is no noise in anything it asserts.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/slurm/lib.sh"

# without sbatch on PATH: a clear error with the install hint
mkdir -p "$T/bin"
ln -s "$(command -v bash)" "$T/bin/bash"
PATH="$T/bin" "$ROOT/rot" measure triad -quick=true -executor=slurm -cacheDir="$CACHE" -outputDir="$OUT" >"$T/o" 2>"$T/e"
st=$?
test $st -eq 2 && grep -q "^rot: -executor=slurm needs Slurm's 'sbatch', which is not on PATH" "$T/e" &&
	grep -q "^hint: sudo apt-get install slurm-client" "$T/e"
ok $? "without sbatch: a clear error and the install hint (exit $st)"

start_cluster
ok $? "a two-node cluster starts on localhost"
pids=$(cat "$D"/slurmd-*.pid "$D/slurmctld.pid" "$D/munged.pid")

rot measure triad -quick=true -executor=slurm -slurmNodes=2 >"$T/o" 2>"$T/e"
ok $? "rot measure triad -quick=true -executor=slurm succeeds"
contains "$T/o" "rot: 6 points, cache: 0 hits, 6 measured (6 on Slurm), 0 failed" "all 6 points measured on Slurm, and the summary says so"
contains "$T/e" "6 points submitted to Slurm as job [0-9]* (2 tasks)" "one array job of 2 tasks"
test "$(wc -l <"$OUT/triad.csv")" -eq 7
ok $? "the same CSV as a local run (6 rows)"
test -s "$OUT/triad.svg"
ok $? "and the same plot"
rot measure triad -quick=true >"$T/o" 2>"$T/e"
contains "$T/o" "cache: 6 hits, 0 measured" "a local rerun is all hits"
rot measure triad -quick=true -executor=slurm >"$T/o" 2>"$T/e"
contains "$T/o" "cache: 6 hits, 0 measured, 0 failed" "a Slurm rerun is all hits too"
! grep -q "submitted to Slurm" "$T/e"
ok $? "and submits nothing"

# a task whose kernel crashes: its point fails with the cause, like a local crash
rot measure "$ROOT/tests/core/point.lua" segv 1 -executor=slurm >"$T/o" 2>"$T/e"
test $? -ne 0 && grep -q "kernel 'segv' crashed: Segmentation fault (signal 11)" "$T/e"
ok $? "a crashing kernel on a node: its point fails with the crash report"
contains "$T/o" "0 measured, 1 failed" "and is counted as failed"

# an application point on a node: its regions come back as a local run's; a crash, named
if ${CC:-gcc} -O2 -fopenmp -I"$ROOT/core/include" -o "$T/nested" tests/apps/nested.c 2>/dev/null &&
	${CC:-gcc} -O2 -pthread -I"$ROOT/core/include" -o "$T/hostile" tests/apps/hostile.c; then
	cat >"$T/app.lua" <<EOF
local rot = require "rot"
local r = rot.measure(rot.space { rot.axis("mode", { "nested", "crash" }) }, function(p)
  if p.mode == "nested" then return { app = "$T/nested", args = { 100000, 3 }, threads = 1 } end
  return { app = "$T/hostile", args = { "crash" } }
end)
r:table()
EOF
	rot measure "$T/app.lua" -executor=slurm -slurmNodes=2 -runs=2 -maxRuns=2 -bestK=2 >"$T/o" 2>"$T/e"
	contains "$T/o" "1 measured (1 on Slurm), 1 failed" "application points measured on Slurm"
	grep -q "^nested *outer *3 *1 " "$T/o" && grep -q "^nested *inner *3 *1 " "$T/o"
	ok $? "their regions come back as a local run's"
	contains "$T/e" "application 'hostile' was killed by Segmentation fault (signal 11)" "a crash on a node: its cause named"
	rot measure "$T/app.lua" -runs=2 -maxRuns=2 -bestK=2 >"$T/o" 2>"$T/e"
	contains "$T/o" "cache: 1 hits, 0 measured, 1 failed" "a local rerun takes the application point from the cache"
else
	skip "no OpenMP compiler: application points on Slurm are not checked"
fi

# two node types: the same points once per type
rot measure triad -quick=true -executor=slurm -slurmConstraint=rotnode,rotfast -slurmNodes=1 >"$T/o" 2>"$T/e"
ok $? "-slurmConstraint=rotnode,rotfast succeeds"
contains "$T/o" "rot: 12 points" "the 6 points once per node type"
test "$(grep -c "submitted to Slurm" "$T/e")" -eq 2
ok $? "one job per node type"
grep -q "^machine " "$T/o" && grep -q "^rotnode " "$T/o" && grep -q "^rotfast " "$T/o"
ok $? "the table says which node type each row is from"
grep -q "@ rotnode" "$OUT/triad.gp" && grep -q "@ rotfast" "$OUT/triad.gp"
ok $? "the roofline draws each node type as its own series"
rot measure triad -quick=true -executor=slurm -slurmConstraint=nosuchfeature >"$T/o" 2>"$T/e"
test $? -ne 0 && grep -q "^rot: sbatch refused the job for constraint 'nosuchfeature'" "$T/e"
ok $? "a constraint no node has: sbatch's refusal, named"

stop_cluster
sleep 0.3
gone=1
for p in $pids; do ps -o stat= -p "$p" 2>/dev/null | grep -qv '^Z' && gone=0; done
test $gone = 1
ok $? "the daemons are stopped (by their pid files)"
trap 'rm -rf "$T"' EXIT
done_testing
