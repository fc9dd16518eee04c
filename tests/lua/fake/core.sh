#!/bin/sh
# A stand-in for `rot-core --batch INPUT`, answering in the core's protocol by kernel name:
# ok (measured), crash (the point failed), die (the core itself exits 9 inside the point).
# Each start appends "start FIRST-POINT-ID" to $FAKE_CORE_LOG.
in=$2
echo "start $(sed -n 's/^point //p' "$in" | head -n 1)" >>"$FAKE_CORE_LOG"
awk '/^point /{ id = $2 } /^workload /{ print id, $2 }' "$in" | while read -r id k; do
	case $k in
	ok) printf 'begin %s\nstatus ok\nmeta complete 1\nmeta flops 10\nmeta bytes 80\nrun ns=1000 reps=1\nend %s\n' "$id" "$id" ;;
	crash) printf "begin %s\nstatus failed\nerror kernel 'crash' crashed: Segmentation fault (signal 11)\nmeta failure signal\nend %s\n" "$id" "$id" ;;
	die) printf 'begin %s\n' "$id"; echo "fake core: dying" >&2; exit 9 ;;
	esac
done
