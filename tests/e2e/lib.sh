# lib.sh: TAP helpers for the end-to-end tests; each test sources it from the repo root.
# Every test gets its own cache, output and config directories under a temp dir.
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)
T=$(mktemp -d /tmp/rot-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_CONFIG_HOME="$T/config"
CACHE="$T/cache"
OUT="$T/out"
mkdir -p "$OUT" "$XDG_CONFIG_HOME/rot"
# A rerun serves what the cache holds: a point whose rounds disagreed on this noisy machine is
# otherwise measured again by the next run (remeasureUnstable), which tests of what a rerun
# serves would read as a miss. tests/e2e/rounds.t tests that behaviour with it on. Likewise a
# neighbour on this shared machine (another worktree's build) would flag points busy and give
# them rounds the tests do not expect: busyCpus and busyWait are off; tests/e2e/busy.t tests them.
printf 'remeasureUnstable=false\nbusyCpus=0\nbusyWait=0\n' >"$XDG_CONFIG_HOME/rot/config"
tap_n=0
failed=0
ok() { # ok CONDITION-EXIT-STATUS NAME
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else
		echo "not ok $tap_n - $2"
		echo "# failed: $tap_n - $2" >&2 # prove shows stderr: a CI log says which test and its figures
		failed=$((failed + 1))
	fi
}
skip() { # skip WHY: one test that cannot run here, said as a TAP skip
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # skip $1"
}
check() { # check NAME COMMAND...: ok when the command succeeds
	name=$1
	shift
	"$@" >/dev/null 2>&1
	ok $? "$name"
}
contains() { # contains FILE PATTERN NAME
	if grep -q -e "$2" "$1"; then ok 0 "$3"; else ok 1 "$3"; echo "#   '$2' not in:"; sed 's/^/#   /' "$1" | head -20; fi
}
csv_value() { # csv_value FILE COLUMN [ROW]: COLUMN's value in data row ROW (1: the first) of a
	# CSV file, a quoted field (which may hold commas) read whole, its quotes taken off
	awk -v col="$2" -v row="${3:-1}" '
		function split_csv(line, f,   n, q, c, i, cur) {
			n = 0; q = 0; cur = ""
			for (i = 1; i <= length(line); i++) {
				c = substr(line, i, 1)
				if (c == "\"") q = !q
				else if (c == "," && !q) { f[++n] = cur; cur = "" }
				else cur = cur c
			}
			f[++n] = cur
			return n
		}
		NR == 1 { n = split_csv($0, h); for (i = 1; i <= n; i++) if (h[i] == col) c = i; next }
		NR == row + 1 && c { split_csv($0, f); print f[c]; exit }' "$1"
}
# recorded ceilings, so tests need not measure the machine first (measurements.t and machines.t do)
rot() { "$ROOT/rot" -cacheDir="$CACHE" -outputDir="$OUT" -peaksFile="$ROOT/tests/fixtures/peaks.csv" "$@"; }
built() { # built NAME QUICK: rot build of a shipped measurement as one TAP line; its output stays in $T/o
	rot build "$1" -quick="$2" >"$T/o" 2>"$T/e"
	if [ $? -eq 0 ] && grep -q "^rot build: [0-9]* cores\? built, 0 failed" "$T/o" && ! grep -q "does not compile" "$T/e"; then
		ok 0 "rot build $1 -quick=$2: $(sed -n 's/^rot build: \([0-9]* cores\? built\).*/\1/p' "$T/o"), none failed"
	else
		ok 1 "rot build $1 -quick=$2"
		grep "does not compile" -A 5 "$T/e" | sed 's/^/#   /' | head -20
	fi
}
readable_plots() { # readable_plots DIR N WHAT: the N plots rot drew in DIR (tests/e2e/check-plots.lua),
	# a TAP line each: no overlap, no ceiling through a label, the key on the canvas, each point
	# with a label text labelled or named in the key (and said to be hidden where another hides
	# it), no band past 10%, no ceiling label on its own line, no mark in a series' colour
	"$ROOT/rot" run "$ROOT/tests/e2e/check-plots.lua" "$1" >"$T/plots" 2>&1
	test "$(grep -c "^PLOT " "$T/plots")" -eq "$2"
	ok $? "$3: $2 plots"
	grep "^PLOT " "$T/plots" | while read -r _ name _ labels _ overlaps _ crossed _ keyoff _ unlabelled _ bands _ hidden _ online _ colours rest; do
		test "$overlaps" -eq 0 && test "$crossed" -eq 0 && test "$keyoff" -eq 0 && test "$unlabelled" -eq 0 && test "$bands" -eq 0 &&
			test "$hidden" -eq 0 && test "$online" -eq 0 && test "$colours" -eq 0
		echo $?
		echo "$3, $name: $labels labels; $overlaps overlaps, $crossed crossed, $keyoff key entries off the canvas, $unlabelled points neither labelled nor in the key, $bands bands past 10%, $hidden hidden points not said so, $online ceiling labels on their line, $colours marks in a series' colour $rest"
	done >"$T/plotok"
	while read -r st && read -r what; do ok "$st" "$what"; done <"$T/plotok"
}
done_testing() {
	echo "1..$tap_n"
	[ $failed -eq 0 ]
}
