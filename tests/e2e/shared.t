#!/bin/sh
# One traced child for a run of points (-pointChild=shared, what GPU points get by default: one
# CUDA context): points share it while they succeed; a point that crashes, hangs, leaves a
# process behind or exits fails alone, with its own message, and a fresh child measures the
# rest; a point that leaves a thread running is measured, and its child ends. With
# -pointChild=each every point has its own process.
. "$(dirname "$0")/lib.sh"
S="$T/study"
mkdir -p "$S/kernels"
cp "$ROOT"/tests/hostile/kernels/moody.c "$S/kernels/"
cat >"$S/moody.lua" <<'EOF2'
-- moody.lua ACT,ACT,...: one point per act (0 fine, 1 segfault, 2 hang, 3 linger, 4 exit,
-- 5 a spinning thread left behind, 6 a sleeping one, 7 kill the core)
local rot = require "rot"
local acts, idx = {}, {}
for a in arg[1]:gmatch("%d+") do acts[#acts + 1] = tonumber(a); idx[#idx + 1] = #acts end
local r = rot.measure(rot.space { rot.axis("i", idx) }, function(p)
  return { kernel = "moody", params = { n = 20000 + p.i, act = acts[p.i] } }
end)
for _, row in ipairs(r.rows) do
  local rep = row.report or {}
  print(string.format("point %d act %d pid %s inits %s failed %s", row.point.i, acts[row.point.i],
    tostring(rep.pid), tostring(rep.inits), tostring(row.failed)))
end
EOF2
pid() { awk -v i="$1" '$1 == "point" && $2 == i { print $6 }' "$T/o"; }
field() { awk -v i="$1" -v f="$2" '$1 == "point" && $2 == i { print $f }' "$T/o"; }
failed() { awk -v i="$1" '$1 == "point" && $2 == i { sub(/.* failed /, ""); print }' "$T/o"; }

rot measure "$S/moody.lua" 0,0,0,0 -pointChild=shared -useCachedResults=false >"$T/o" 2>"$T/e"
ok $? "four good points in one shared child are measured"
test -n "$(pid 1)" && test "$(pid 1)" = "$(pid 4)" && test "$(field 4 8)" = 4
ok $? "by one process: the same pid, and the fourth point is the fourth initialized there ($(pid 1) $(pid 4), $(field 4 8))"

rot measure "$S/moody.lua" 0,0,0,0 -pointChild=each -useCachedResults=false >"$T/o" 2>"$T/e"
test "$(pid 1)" != "$(pid 2)" && test "$(field 4 8)" = 1
ok $? "-pointChild=each: a process per point ($(pid 1) $(pid 2), inits $(field 4 8))"

rot measure "$S/moody.lua" 0,0,1,0,0,2,0,3,0,4,0 -pointChild=shared -timeout=2 -useCachedResults=false >"$T/o" 2>"$T/e"
test $? -ne 0 && grep -q "7 measured, 4 failed" "$T/o"
ok $? "a mixed run: the seven good points measured, the four bad ones failed"
failed 3 | grep -q "kernel 'moody' crashed: Segmentation fault (signal 11) in thread [0-9]* at address 0x10"
ok $? "the crash is point 3's, with its address: $(failed 3)"
failed 6 | grep -q "ran past the timeout of 2 s"
ok $? "the hang is point 6's: $(failed 6)"
failed 8 | grep -q "started a process that outlived it"
ok $? "the lingering process is point 8's: $(failed 8)"
failed 10 | grep -q "exited with status 3"
ok $? "the exit is point 10's: $(failed 10)"
ok=0
for i in 1 2 4 5 7 9 11; do test "$(failed $i)" = nil || ok=1; done
ok $ok "no good point carries another's failure"
test "$(pid 1)" = "$(pid 2)" && test "$(pid 4)" = "$(pid 5)" && test "$(pid 2)" != "$(pid 4)" &&
	test "$(pid 5)" != "$(pid 7)" && test "$(pid 7)" != "$(pid 9)" && test "$(pid 9)" != "$(pid 11)"
ok $? "each failure ends its child, a fresh one goes on: pids $(pid 1) $(pid 2) | $(pid 4) $(pid 5) | $(pid 7) | $(pid 9) | $(pid 11)"
test "$(field 5 8)" = 2 && test "$(field 11 8)" = 1
ok $? "and counts its points from one again (inits $(field 5 8), $(field 11 8))"
rot measure "$S/moody.lua" 0,5,0,6,0 -pointChild=shared -useCachedResults=false >"$T/o" 2>"$T/e"
grep -q "5 measured, 0 failed" "$T/o"
ok $? "threads left behind (one spinning, one sleeping) do not fail their points"
test "$(pid 1)" = "$(pid 2)" && test "$(pid 2)" != "$(pid 3)" && test "$(pid 3)" = "$(pid 4)" && test "$(pid 4)" = "$(pid 5)"
ok $? "a thread still running after its point ends the child (the next point must not share the CPU with it); a sleeping one does not: pids $(pid 1) $(pid 2) | $(pid 3) $(pid 4) $(pid 5)"
for mode in each shared; do
	rot measure "$S/moody.lua" 0,7,0 -pointChild=$mode -useCachedResults=false >"$T/o" 2>"$T/e"
	st=$?
	test $st -ne 0 && grep -q "2 measured, 1 failed" "$T/o" &&
		failed 2 | grep -q "the measuring core ended unexpectedly, killed by signal 9 (SIGKILL"
	ok $? "-pointChild=$mode: a kernel that kills the measuring core fails its own point, and says how: $(failed 2)"
	# what a failure here needs to be understood: the exit status, the summary, every point's line
	[ $st -ne 0 ] && grep -q "2 measured, 1 failed" "$T/o" ||
		{ echo "#   exit status $st"; grep "^point \|points, cache" "$T/o" | sed 's/^/#   /'; tail -3 "$T/e" | sed 's/^/#   /'; }
done
sleep 0.3
! ps -eo stat=,args= | awk -v t="$T" '$1 !~ /^Z/ && index($0, t) && ($2 ~ /rot-core$/ || $2 ~ /rot-driver$/) { f = 1 } END { exit !f }' &&
	! pgrep -f "$S" >/dev/null
ok $? "no process is left behind"

done_testing
