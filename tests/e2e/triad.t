#!/bin/sh
# End to end: `rot measure triad` (quick) measures, writes table/CSV/plots, and a rerun is
# all cache hits without building or starting the core; plot-only edits stay cached.
# judges no time: what it asserts holds on a loaded machine (the triad at 768 MiB against a
# separate program's, which judges measured bandwidth, is tests/e2e/arrays.t's, run alone).
. "$(dirname "$0")/lib.sh"
# its own build directory (the key buildDir, from the user file; kept from one make test to the
# next): a test in the other lane that builds in the checkout's build/core cannot replace the
# core whose cached rerun must leave it untouched
B="$ROOT/build/test-triad"
echo "buildDir=$B" >>"$XDG_CONFIG_HOME/rot/config"

rot measure triad -quick=true >"$T/run1" 2>"$T/err1"
ok $? "first triad run succeeds"
contains "$T/run1" "cache: 0 hits, 6 measured" "first run measures all 6 points"
tail -n 1 "$T/run1" | grep -q "cache: 0 hits, 6 measured"
ok $? "the summary is the last line"
contains "$T/run1" "GB/s" "table has a bandwidth column"
contains "$T/run1" "declared" "table says the counts are declared"
for f in triad.csv triad.svg triad.png triad.gp triad.dat; do
	test -s "$OUT/$f"
	ok $? "writes $f"
done
test "$(wc -l <"$OUT/triad.csv")" -eq 7
ok $? "CSV has a header and 6 rows"
head -n 1 "$OUT/triad.csv" | grep -q "^flags,n,workingSet_bytes,time_s,bandwidth_GBs,performance_GFLOPs"
ok $? "CSV header names the axes and quantities"
grep -q "<svg" "$OUT/triad.svg" && grep -q "L2 triad [0-9.]* GB/s" "$OUT/triad.svg" && grep -q "double avx512 fma.* [0-9.]* GFLOP/s" "$OUT/triad.svg"
ok $? "SVG is a roofline with the measured bandwidth and compute ceilings, each labelled on the plot with its value"
grep -q "^set label [0-9]* \"L2 triad [0-9.]* GB/s\" at .* rotate by [1-9]" "$OUT/triad.gp"
ok $? "a bandwidth ceiling's label runs along its line"
grep -q '^\$ridges << EOD' "$OUT/triad.gp"
ok $? "ridge points are marked"
grep -q "set key at screen" "$OUT/triad.gp" && grep -q "set rmargin at screen" "$OUT/triad.gp"
ok $? "the legend sits outside the plot area"
test -s "$OUT/triad-bandwidth.svg" && grep -q "effective" "$OUT/triad-bandwidth.gp"
ok $? "triad also draws the staircase, the levels marked"
grep -q '"empirical"' "$OUT/triad.json" && grep -q '"gbytes"' "$OUT/triad.json" && grep -q '"gflops"' "$OUT/triad.json" &&
	grep -q '"L1",' "$OUT/triad.json" && grep -q '"points"' "$OUT/triad.json" && grep -q '"machine"' "$OUT/triad.json"
ok $? "triad.json holds the points, the ceilings (ERT's empirical gbytes and gflops) and the machine"
grep -q "declared counts" "$OUT/triad.svg"
ok $? "the legend says the counts are declared"
# one intensity, many sizes: each series a column of points no line joins, labelled by level, once a level
grep -q 'index 0 using 1:2 with points ' "$OUT/triad.gp" && grep -q 'index 1 using 1:2 with points ' "$OUT/triad.gp" &&
	! grep -q "linespoints" "$OUT/triad.gp"
ok $? "its series, each at one intensity, are points no line joins"
labels=$(sed -n 's/^[0-9.e+-]* [0-9.e+-]* "\(.*\)"$/\1/p' "$OUT/triad.dat" | grep -v '^$' | sort)
echo "$labels" | grep -qv '^\(L[0-9]\+\(+\)*\(-DRAM\)\?\|DRAM\)$'
st=$?
test $st -eq 1 && test -n "$labels" && test "$(awk '/^# series/ { s++ } /"./ { print s, $3 }' "$OUT/triad.dat" | sort | uniq -d | wc -l)" -eq 0 &&
	! grep -q "unlabelled.*KiB" "$OUT/triad.gp"
ok $? "its points are labelled by level, each level once a series, no size in the key ($(echo $labels))"
contains "$T/run1" "limiter" "the table has the bound and its limiter"
grep -q "logscale xy" "$OUT/triad.gp"
ok $? "gnuplot script is log-log"
ls "$OUT" | grep -q tmp
ok $((1 - $?)) "no temp files left in the output directory"

core="$B/rot-core"
before=$(stat -c %Y.%N "$core" 2>/dev/null; stat -c %y "$core")
rot measure triad -quick=true >"$T/run2" 2>&1
ok $? "second run succeeds"
contains "$T/run2" "cache: 6 hits, 0 measured" "second run is all cache hits"
contains "$T/run2" "build 0.00 s" "second run builds nothing"
after=$(stat -c %Y.%N "$core" 2>/dev/null; stat -c %y "$core")
test -x "$core" && test "$before" = "$after"
ok $? "core binary untouched by the cached rerun"

# edit only the plotting part of the script: still all hits, new plot
mkdir -p "$T/study"
sed 's/title = "STREAM triad, 1 thread/title = "EDITED TITLE/' lua/measurements/triad.lua >"$T/study/triad.lua"
rot measure "$T/study/triad.lua" -quick=true >"$T/run3" 2>&1
contains "$T/run3" "cache: 6 hits, 0 measured" "plot-only edit: all hits"
grep -q "EDITED TITLE" "$OUT/triad.svg"
ok $? "plot-only edit: the new plot is written"

# more runs a round than cached: the rounds are measured again (a round is one process's)
rot measure triad -quick=true -runs=45 >"$T/run4" 2>&1
contains "$T/run4" "0 hits, 6 measured" "asking for more runs a round than cached measures again"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "runs") c = i; if ($i == "rounds") r = i } }
	NR > 1 && $c < 45 * $r { bad = 1 } END { exit bad || !c || !r }' "$OUT/triad.csv"
ok $? "each point has 45 runs or more in each of its rounds"
rot measure triad -quick=true -runs=45 >"$T/run5" 2>&1
contains "$T/run5" "6 hits, 0 measured" "the new rounds satisfy the larger run count"

# useCachedResults=false re-measures and overwrites
rot measure triad -quick=true -useCachedResults=false >"$T/run6" 2>&1
contains "$T/run6" "0 hits, 6 measured" "useCachedResults=false re-measures"

# a corrupted cache entry is detected, re-measured with a warning
entry=$(find "$CACHE/results" -type f | head -n 1)
printf 'garbage' >"$entry"
rot measure triad -quick=true >"$T/run7" 2>&1
ok $? "run with a corrupted entry succeeds"
contains "$T/run7" "warning: corrupted cache entry" "corruption is reported"
contains "$T/run7" "5 hits, 1 measured" "only the corrupted point is re-measured"

# a result measured by another core build is not trusted unless told so
entry=$(find "$CACHE/results" -type f | head -n 1)
cat >"$T/recore.lua" <<L
local cache = require "rot.cache"
local e = assert(cache.read("$entry"))
e.coreHash = string.rep("0", 64)
assert(cache.write("$entry", e))
L
"$ROOT/rot" run "$T/recore.lua"
ok $? "rewrite one entry as if another core had measured it"
rot measure triad -quick=true -shouldCheckCoreHash=false >"$T/run8" 2>&1
contains "$T/run8" "6 hits, 0 measured" "shouldCheckCoreHash=false accepts it"
rot measure triad -quick=true >"$T/run9" 2>&1
contains "$T/run9" "5 hits, 1 measured" "by default it is measured again with the current core"
! grep -q -e "corrupted cache entry" -e "holds another description" "$T/run9"
ok $? "a foreign core hash is not reported as corruption"

# two rot processes at once: the build lock keeps them from building over each other
rot measure triad -quick=true -useCachedResults=false >"$T/p1" 2>&1 &
rot measure triad -quick=true -useCachedResults=false -cacheDir="$T/cache2" >"$T/p2" 2>&1
st2=$?
wait $!
st1=$?
test $st1 -eq 0 && test $st2 -eq 0
ok $? "two concurrent runs both succeed"
contains "$T/p1" "6 measured, 0 failed" "first concurrent run measured everything"
contains "$T/p2" "6 measured, 0 failed" "second concurrent run measured everything"

# ceilings a hundredth of what a machine does: every point is above its bound, and says so
awk -F, 'BEGIN { OFS = "," } $2 == "bandwidth" { $4 = $4 / 100 } { print }' "$ROOT/tests/fixtures/peaks.csv" >"$T/low.csv"
"$ROOT/rot" -cacheDir="$CACHE" -outputDir="$T/low" -peaksFile="$T/low.csv" measure triad -quick=true >"$T/o" 2>"$T/e"
ok $? "triad against ceilings a hundred times too low runs"
test "$(grep -c '%^' "$T/o")" -eq 6
ok $? "the table marks all six points above their bound with ^ ($(grep -c '%^' "$T/o"))"
test "$(grep -c 'above .* bound beyond the spread' "$T/e")" -eq 1 &&
	grep -q "6 points are above their bound beyond the spread (up to [0-9]*%, marked ^; by ceiling: L[0-9] bw 2, L[0-9] bw 2, L[0-9] bw 2); the L[0-9] bw ceiling in .*low.csv. (-peaksFile) is probably low for this machine; or the kernel.s declared bytes overstate its work" "$T/e"
st=$?
ok $st "one warning names how many, the worst, how many each ceiling, and the ceiling to suspect"
[ $st -eq 0 ] || sed 's/^/#   /' "$T/e"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } $h["above_bound"] != 1 { bad++ } END { exit bad > 0 || NR != 7 }' "$T/low/triad.csv"
ok $? "the CSV says above_bound=1 for each"
grep -q "above its bound" "$T/low/triad.gp"
ok $? "and the plot rings them"

# the read, write or triad ceilings: a read-only and a write-only kernel beside triad, in L1 and
# from DRAM (cold), against the recorded peaks; each bounded by its own family's ceiling
cat >"$T/families.lua" <<'EOF'
local rot = require "rot"
local arrays = { sum = 1, fill = 1, triad = 3 }
local r = rot.measure(rot.space { rot.axis("k", { "sum", "fill", "triad" }), rot.axis("mode", { "warm", "cold" }) }, function(p)
  return { kernel = p.k, params = { n = 16384 // (8 * arrays[p.k]) }, flags = "-O2", cacheMode = p.mode }
end)
r:table { axes = { "k", "mode" }, columns = { "limiter" } }
r:csv("families")
r:roofline { name = "families", title = "read, write, triad", series = function(x) return x.point.k end }
EOF
rot measure "$T/families.lua" -minRunTime=0 -runs=3 -maxRuns=3 >"$T/o" 2>"$T/e"
ok $? "a read-only, a write-only and a mixed kernel measured in one run"
lim() { awk -v k="$1" -v m="$2" '$1 == k && $2 == m { sub(/^[^ ]+ +[^ ]+ +/, ""); print }' "$T/o"; }
test "$(lim sum warm)" = "L1 read bw" && test "$(lim sum cold)" = "DRAM read bw"
ok $? "the read-only kernel is bounded by the read ceilings (limiter '$(lim sum warm)', '$(lim sum cold)')"
test "$(lim fill warm)" = "L1 write bw" && test "$(lim fill cold)" = "DRAM write bw"
ok $? "the write-only kernel by the write ceilings ('$(lim fill warm)', '$(lim fill cold)')"
test "$(lim triad warm)" = "L1 bw" && test "$(lim triad cold)" = "DRAM bw"
ok $? "triad by triad's ('$(lim triad warm)', '$(lim triad cold)')"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	{ w[$h["k"]] = $h["bytes_written_declared"]; b[$h["k"]] = $h["bytes_declared"] }
	END { exit !(w["sum"] == 0 && w["fill"] == b["fill"] && w["triad"] == b["triad"] / 3) }' "$OUT/families.csv"
ok $? "the CSV carries the written bytes each kernel declares"
grep -q '"L1 read [0-9.]* GB/s' "$OUT/families.gp" && ! grep -q 'L1 write [0-9.]* GB/s' "$OUT/families.gp" &&
	grep -q '"L1 triad [0-9.]* GB/s' "$OUT/families.gp"
ok $? "the roofline draws the read ceilings beside triad's, and no write ones (fill has no flops: it is not on a roofline)"

# rot processes measure one at a time on a machine, whatever their checkout or build directory:
# a run with its own buildDir waits for the machine's measuring lock, then builds there and measures
if command -v flock >/dev/null 2>&1; then
	flock /tmp/rot-measuring.lock sleep 2 &
	sleep 0.3
	rot measure triad -quick=true -useCachedResults=false -buildDir="$T/bd" >"$T/run9" 2>&1
	st=$?
	wait
	test $st -eq 0 && grep -q "waiting for another rot process (lock '/tmp/rot-measuring.lock', held by pid [0-9]*: " "$T/run9" && test -x "$T/bd/rot-core"
	ok $? "a run with its own buildDir waits for the machine's measuring lock, and builds there"
	test "$(grep -c "waiting for another rot process" "$T/run9")" -eq 1 && grep -q "plot [0-9.]* s, waiting for another rot [0-9.]* s, total" "$T/run9"
	ok $? "said once; the summary's time has the wait ($(grep -o 'waiting for another rot [0-9.]* s' "$T/run9"))"
else
	skip "no flock(1) here to hold the measuring lock"
fi
# the lock file of another user (or in a read-only folder) is taken all the same: a flock
# needs no write access (as root, the lock is tried as the user nobody)
mkdir -p "$T/pub" && touch "$T/pub/l" && chmod 444 "$T/pub/l" && chmod 755 "$T" "$T/pub"
printf 'print(require("rot.gen").lock(arg[1]))\n' >"$T/pub/t.lua"
as=""
[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 && as="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ "$(id -u)" -ne 0 ] || [ -n "$as" ]; then
	# that user must reach a rot: a checkout inside a private folder (mktemp -d, mode 700) is out
	# of its reach, so it runs a copy of what rot run needs (times kept: nothing is rebuilt)
	home=$ROOT
	if ! $as test -x "$ROOT/rot" -a -r "$ROOT/lua/rot/init.lua" 2>/dev/null; then
		home=$T/rothome
		mkdir -p "$home/build" "$home/core" &&
			cp -p "$ROOT/rot" "$ROOT/Makefile" "$home/" && cp -pR "$ROOT/driver" "$ROOT/lua" "$ROOT/config" "$home/" &&
			cp -p "$ROOT"/core/topology.[ch] "$ROOT"/core/strdist.[ch] "$ROOT"/core/rules.[ch] "$ROOT/core/protocol.h" "$home/core/" &&
			cp -p "$ROOT/build/rot-driver" "$home/build/" && chmod -R a+rX "$home"
		echo "# the checkout is out of reach of uid 65534: its rot runs from a copy in $home"
	fi
	XDG_CONFIG_HOME="$T/pub" XDG_CACHE_HOME="$T/pub" $as "$home/rot" run "$T/pub/t.lua" "$T/pub/l" >"$T/o" 2>&1
	contains "$T/o" "^rot.lock (held)" "a lock file this user cannot write is locked all the same"
	# a symbolic link where a lock should be (anyone can put one in /tmp) is refused, and the
	# file it points to keeps its mode
	: >"$T/pub/secret" && chmod 600 "$T/pub/secret" && ln -s "$T/pub/secret" "$T/pub/link.lock"
	XDG_CONFIG_HOME="$T/pub" XDG_CACHE_HOME="$T/pub" $as "$home/rot" run "$T/pub/t.lua" "$T/pub/link.lock" >"$T/o" 2>&1
	grep -q "'$T/pub/link.lock' is a symbolic link or not a regular file: not used as a lock" "$T/o" &&
		test "$(stat -c %a "$T/pub/secret")" = 600
	ok $? "a symbolic link is not used as a lock, and what it points to keeps its mode ($(stat -c %a "$T/pub/secret"))"
else
	skip "root without setpriv(1): no other user to try a lock file as"
fi
done_testing
