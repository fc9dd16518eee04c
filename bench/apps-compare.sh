#!/bin/sh
# bench/apps-compare.sh: make bench's figures for rot compare -remeasure on an application
# (bench/bench.sh calls it with B, its temp dir, and R, its rot command): A/A pairs (the same
# program, a byte appended between the two runs, so its hash and record differ), which no verdict
# may call slower or faster; then a build doing twice the work in each region
# (tests/apps/nested.c -DSWEEPS=2), which must be slower there.
cc=${CC:-gcc}
d="$B/appcmp"
mkdir -p "$d"
if ! $cc -O2 -fopenmp -Icore/include -o "$d/nested" tests/apps/nested.c 2>"$d/cc.err"; then
	echo "application compare: tests/apps/nested.c does not build with -fopenmp here: not measured"
	exit 0
fi
cat >"$d/study.lua" <<LUA
local rot = require "rot"
rot.measure(rot.space { rot.axis("n", { 100000, 400000 }) },
  function(p) return { app = "$d/nested", args = { p.n, 4 }, threads = 1 } end)
LUA
run="-runs=2 -maxRuns=2 -bestK=2 -progress=never"
# half the pairs beside a busy neighbour: a shell loop on the last CPU during both runs and the compare
. bench/lib.sh # neighbour, stop
pairs=10 called=0 points=0 t0=$(date +%s) line=""
trap stop EXIT
for kind in quiet busy; do
	kc=0 kp=0
	neighbour $kind
	for i in $(seq $((pairs / 2))); do
		$R measure "$d/study.lua" $run >/dev/null 2>&1 && printf '\n' >>"$d/nested" &&
			$R measure "$d/study.lua" $run >/dev/null 2>&1 &&
			$R compare "$d/study.lua" -remeasure >"$d/cmp" 2>&1 || continue
		kp=$((kp + $(grep -c "remeasured 24 rounds" "$d/cmp")))
		kc=$((kc + $(grep "remeasured 24 rounds" "$d/cmp" | grep -c " slower \| faster ")))
	done
	stop
	points=$((points + kp)) called=$((called + kc)) line="$line; $kind: $kc of $kp"
done
printf 'rot compare -remeasure on an application (tests/apps/nested.c, two sizes, its program row and two regions each; 24 rounds): A/A, %d pairs (half of them beside a busy loop on CPU %d): %d of %d rows called slower or faster (target at most 1 %%)%s; %d s\n' \
	$pairs $(($(nproc) - 1)) $called $points "$line" $(($(date +%s) - t0))
$cc -O2 -fopenmp -DSWEEPS=2 -Icore/include -o "$d/nested" tests/apps/nested.c &&
	$R measure "$d/study.lua" $run >/dev/null 2>&1 && $R compare "$d/study.lua" -remeasure >"$d/cmp" 2>&1
slow=$(grep -E "^[0-9]+ +(outer|inner) .* slower .*remeasured 24 rounds" "$d/cmp" | wc -l)
ratios=$(grep -E "^[0-9]+ +(outer|inner) " "$d/cmp" | awk '{ printf "%s%s", s, $7; s = " " }')
echo "  twice the work in each region (-DSWEEPS=2): $slow of 4 regions called slower (target every one); their B/A: $ratios"
