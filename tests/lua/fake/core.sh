#!/bin/sh
# A stand-in for `rot-core --batch INPUT`, answering in the core's protocol by kernel name:
# ok (measured), crash (the point failed), die (the core itself exits 9 inside the point), and
# for rounds: half (twice as slow in the first core process started, a one-off), noisy (300 ns
# slower in every core process started than in the one before, over the whole test: rounds that
# never agree; each start is counted in $FAKE_CORE_LOG.all too).
# Its words are the protocol's, given by the test from rot.protocol in $FAKE_CORE_WORDS: point
# begin end, the records status error meta run, ok failed, the meta keys complete flops bytes
# failure, the failure kind signal, the run keys ns reps, the input key workload. Each start appends "start
# FIRST-POINT-ID" to $FAKE_CORE_LOG.
in=$2
# shellcheck disable=SC2086
set -- $FAKE_CORE_WORDS
point=$1 begin=$2 end=$3 status=$4 error=$5 meta=$6 run=$7 ok=$8 failed=$9
shift 9
complete=$1 flops=$2 bytes=$3 failure=$4 signal=$5 ns=$6 reps=$7 workload=$8
echo "start $(sed -n "s/^$point //p" "$in" | head -n 1)" >>"$FAKE_CORE_LOG"
starts=$(wc -l <"$FAKE_CORE_LOG")
echo start >>"$FAKE_CORE_LOG.all"
all=$(wc -l <"$FAKE_CORE_LOG.all")
awk -v point="$point" -v workload="$workload" '$1 == point { id = $2 } $1 == workload { print id, $2 }' "$in" | while read -r id k; do
	case $k in
	ok | half | noisy)
		t=1000
		[ "$k" = half ] && [ "$starts" -eq 1 ] && t=2000
		[ "$k" = noisy ] && t=$((1000 + 300 * all))
		printf '%s %s\n%s %s\n%s %s 1\n%s %s 10\n%s %s 80\n%s %s=%s %s=1\n%s %s\n' "$begin" "$id" "$status" "$ok" \
			"$meta" "$complete" "$meta" "$flops" "$meta" "$bytes" "$run" "$ns" "$t" "$reps" "$end" "$id" ;;
	crash) printf "%s %s\n%s %s\n%s kernel 'crash' crashed: Segmentation fault (signal 11)\n%s %s %s\n%s %s\n" \
		"$begin" "$id" "$status" "$failed" "$error" "$meta" "$failure" "$signal" "$end" "$id" ;;
	die) printf '%s %s\n' "$begin" "$id"; echo "fake core: dying" >&2; exit 9 ;;
	esac
done
