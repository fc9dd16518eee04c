#!/bin/sh
# tests/gpu-verify/timing.sh: where a fully cached gpu-peaks rerun's time goes on a GPU machine
# (device.sh's timing step): the frontend, the driver alone, git, the rerun, three times each;
# then one rerun under ROT_PROFILE (docs/architecture.md, "Where rot's time goes"), kept in build/device-bench.
cd "$(dirname "$0")/../.." || exit 2
mkdir -p build/device-bench
for i in 1 2 3; do
	for c in "./rot help" "build/rot-driver help" "git --no-optional-locks status --porcelain=v2 --untracked-files=no" \
		"./rot -progress=never measure gpu-peaks"; do
		t0=$(date +%s%N)
		ROT_HOME=$(pwd) $c >/dev/null 2>&1
		echo "$((($(date +%s%N) - t0) / 1000000)) ms: $c"
	done
done
ROT_PROFILE=$(pwd)/build/device-bench/gpu-peaks.prof ./rot -progress=never measure gpu-peaks >/dev/null 2>&1
head -n 30 build/device-bench/gpu-peaks.prof
