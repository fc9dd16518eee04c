#!/bin/sh
# A point measured in rounds, each in a core process of its own (docs/architecture.md, "How a
# point is measured"): every point of the triad sweep measured in two rounds, its cache entry
# keeping them; rounds that disagree flagged in the table, the CSV, the JSON and the plot, measured
# again by the next run (once: then kept), or kept at once with -remeasureUnstable=false; a rerun
# from the cache writing the same files.
# judges no time
. "$(dirname "$0")/lib.sh"
q="-quick=true -remeasureUnstable=true"
count() { grep -o "cache: [0-9]* hits, [0-9]* measured" "$1"; }

# rounds that agree within x100 of the best: two, whatever the machine does meanwhile
rot measure triad $q -roundsEpsilon=100 >"$T/o" 2>"$T/e"
ok $? "rot measure triad -quick measures"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "rounds") c = i } NR > 1 && !($c >= 2) { bad++ } END { exit !(NR == 7 && c && !bad) }' "$OUT/triad.csv"
ok $? "each of its 6 points was measured in two rounds or more (the CSV's rounds column)"
grep -q "^flags .* runs  *rounds  *spread" "$T/o"
ok $? "the table shows each point's rounds beside its runs"
f=$(find "$CACHE/results" -type f | head -n 1)
test "$(grep -cE '^run .*round=1( |$)' "$f")" -ge 3 && test "$(grep -cE '^run .*round=2( |$)' "$f")" -ge 3 &&
	test "$(grep -o ' inv=[^ ]*' "$f" | sort -u | wc -l)" -eq 1
ok $? "its cache entry keeps both rounds, each run stamped with its round and the invocation"
mkdir -p "$T/first" && cp "$OUT"/triad* "$T/first/"
rot measure triad $q -roundsEpsilon=100 >"$T/o" 2>"$T/e"
contains "$T/o" "cache: 6 hits, 0 measured" "a rerun of rounds that agreed takes every point from the cache"
differ=$(for f in "$T"/first/*; do cmp -s "$f" "$OUT/$(basename "$f")" || basename "$f"; done)
test -z "$differ" && test "$(ls "$T/first" | wc -l)" -ge 8 && grep -q " cache$" "$T/o"
ok $? "and writes the same files, byte for byte: CSV, JSON, data, scripts and plots (differ: ${differ:-none}); its table says cache"

# rounds that cannot agree (within 1e-6 of the best): flagged, up to maxRounds
rm -rf "$CACHE/results"
rot measure triad $q -roundsEpsilon=1e-6 -maxRounds=3 >"$T/o" 2>"$T/e"
test "$(grep -c ' 3 ~x1\.[0-9][0-9] ' "$T/o")" -eq 6
ok $? "rounds that disagree: three (maxRounds), and how far apart, in the table ($(grep -c '~x' "$T/o") of 6)"
contains "$T/o" "^~xR its rounds disagree" "and why, in a line under it"
test "$(csv_value "$OUT/triad.csv" rounds_agree)" = 0 && awk -v r="$(csv_value "$OUT/triad.csv" rounds_ratio)" 'BEGIN { exit !(r > 1) }'
ok $? "the CSV: rounds_agree 0, rounds_ratio above 1"
grep -q '"roundsAgree": *false' "$OUT/triad.json"
ok $? "the JSON: roundsAgree false"
grep -q '^\$unsettled << EOD' "$OUT/triad.gp" && grep -q "rounds disagree" "$OUT/triad.gp" && grep -q "up to x[0-9.]* apart" "$OUT/triad.gp"
ok $? "the roofline marks them, its key saying how far apart"
rot measure triad $q -roundsEpsilon=1e-6 -maxRounds=3 >"$T/o" 2>"$T/e"
count "$T/o" | grep -q "cache: 0 hits, 6 measured" && test "$(grep -c ' 6 ~x' "$T/o")" -eq 6
ok $? "the next run measures the flagged points again, adding its rounds ($(count "$T/o"))"
rot measure triad $q -roundsEpsilon=1e-6 -maxRounds=3 >"$T/o" 2>"$T/e"
contains "$T/o" "cache: 6 hits, 0 measured" "once their rounds come from two runs, they are kept, flagged"
rm -rf "$CACHE/results"
rot measure triad $q -roundsEpsilon=1e-6 -maxRounds=3 >"$T/o" 2>"$T/e"
rot measure triad -quick=true -remeasureUnstable=false -roundsEpsilon=1e-6 -maxRounds=3 >"$T/o" 2>"$T/e"
contains "$T/o" "cache: 6 hits, 0 measured" "-remeasureUnstable=false keeps them at once"
done_testing
