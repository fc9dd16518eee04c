#!/bin/sh
# Runs after every other test file: no test left a process of rot running (a core, a kernel
# it forked, a driver). Zombies are not running: they wait for init to reap them.
sleep 0.5
found=$(ps -eo pid=,stat=,comm= | awk '$2 !~ /^Z/ && ($3 == "rot-core" || $3 == "rot-driver") { print $1 "(" $3 ")" }')
if [ -z "$found" ]; then
	echo "ok 1 - no rot process is left running after the tests"
else
	echo "not ok 1 - processes left running: $found"
fi
echo "1..1"
