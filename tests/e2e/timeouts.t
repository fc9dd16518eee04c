#!/bin/sh
# Timeouts against hostile kernels (tests/hostile/kernels beside a user script): a kernel that
# forks a process that lingers, one that stops itself, one that hangs. Each ends within its
# timeout plus a few seconds, with a message that names the cause, no process left and
# nothing cached. It judges how soon: alone. (The other hostile kernels: tests/e2e/hostile.t.)
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/hostile/lib.sh"

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

t0=$(now)
rot measure "$S/hostile.lua" stopself -timeout=2 >"$T/o" 2>"$T/e"
t1=$(now)
grep -q "kernel 'stopself' ran past the timeout of 2 s and was killed; it had stopped itself with Stopped (signal)" "$T/e"
ok $? "a kernel that stops itself is killed at the timeout, and the message says it stopped itself"
awk -v e="$(elapsed "$t0" "$t1")" 'BEGIN { exit !(e < 7) }'
ok $? "within the timeout plus a few seconds ($(elapsed "$t0" "$t1") s)"
left
ok $? "no process is left behind"

t0=$(now)
rot measure "$ROOT/tests/core/point.lua" hang 1 -timeout=0.3 >"$T/o" 2>"$T/e"
m=$(sed -n 's/.*measure \([0-9.]*\) s.*/\1/p' "$T/o")
awk -v m="$m" 'BEGIN { exit !(m > 0.25 && m < 0.9) }'
ok $? "-timeout=0.3 fires after 0.3 s, not a whole second (measure $m s)"
done_testing
