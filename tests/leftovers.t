#!/bin/sh
# Runs after every other test file: no test left a process of rot running (a core, a kernel
# it forked, a driver). Zombies are not running: they wait for init to reap them. Only this
# checkout's count: their environment holds its ROT_HOME (the frontend sets it, children keep
# it), so another checkout's rot running beside the tests is none of theirs.
sleep 0.5
home=$(pwd -P)
found=
for p in $(ps -eo pid=,stat=,comm= | awk '$2 !~ /^Z/ && ($3 == "rot-core" || $3 == "rot-driver") { print $1 }'); do
	tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "ROT_HOME=$home" &&
		found="$found $p($(cat "/proc/$p/comm" 2>/dev/null))"
done
if [ -z "$found" ]; then
	echo "ok 1 - no rot process of this checkout is left running after the tests"
else
	echo "not ok 1 - processes left running:$found"
fi
echo "1..1"
