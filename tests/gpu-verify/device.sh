#!/bin/sh
# tests/gpu-verify/device.sh [DIR]: issue 43's whole check on a lent GPU machine, as one command:
# make gpu-verify, make bench's GPU lines, rot measure gpu-predict, make test, each under its own
# time limit within one budget (DEVICE_BUDGET seconds, default 540), every log in DIR ($OUT there).
# DEVICE_STEPS picks steps (build gpu-verify bench-gpu gpu-predict timing gpu-test test).
# Exits 2 at once without a GPU; 1 when a step failed or ran out of time; 0 when all passed.
cd "$(dirname "$0")/../.." || exit 2
O=${1:-${OUT:-build/device}}
mkdir -p "$O" || exit 2
S="$O/summary.txt"
budget=${DEVICE_BUDGET:-540}
start=$(date +%s)
if ! ls /dev/nvidia0 >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "rot: device check: no GPU here (no /dev/nvidia0, or nvidia-smi cannot list one)" | tee "$S" >&2
	exit 2
fi
{
	echo "device check started $(date -u +%FT%TZ) at $(git rev-parse --short HEAD 2>/dev/null)"
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv
	/usr/local/cuda/bin/nvcc --version | tail -n 2
	echo "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores"
} >"$S" 2>&1
# .device/setup.sh drops the carried shared libraries the system already has; a development link
# (libX.so) to one of those would dangle and -lX fail: point it at the system's copy
for l in /opt/rotdeps/usr/lib/x86_64-linux-gnu/*.so; do
	[ -L "$l" ] && [ ! -e "$l" ] || continue
	sys=$(ldconfig -p | awk -v b="$(basename "$(readlink "$l")")" '$1 == b { print $NF; exit }')
	[ -n "$sys" ] && ln -sf "$sys" "$l" && echo "linked ${l##*/} to the system's $sys" >>"$S"
done
failed=0
# step NAME LIMIT CMD...: CMD under min(LIMIT, what the budget has left), its output in DIR/NAME.log
step() {
	name=$1 limit=$2
	shift 2
	left=$((budget - ($(date +%s) - start)))
	[ "$limit" -gt "$left" ] && limit=$left
	if [ "$limit" -lt 20 ]; then
		echo "$name: not run (${left}s of the budget left)" >>"$S"
		failed=1
		return
	fi
	t0=$(date +%s)
	timeout -k 10 "$limit" "$@" >"$O/$name.log" 2>&1
	rc=$?
	case $rc in
	0) what="passed" ;;
	124 | 137) what="STOPPED at its ${limit}s limit" failed=1 ;;
	*) what="FAILED (exit $rc)" failed=1 ;;
	esac
	echo "$name: $what in $(($(date +%s) - t0))s: $*" >>"$S"
}
# timing: where a fully cached gpu-peaks rerun's time goes (the frontend, the driver, git)
timing() {
	for i in 1 2 3; do
		for c in "./rot help" "build/rot-driver help" "git --no-optional-locks status --porcelain=v2 --untracked-files=no" \
			"./rot -progress=never measure gpu-peaks"; do
			t0=$(date +%s%N)
			ROT_HOME=$(pwd) $c >/dev/null 2>&1
			echo "$(((($(date +%s%N) - t0) / 1000000))) ms: $c"
		done
	done
	# and where the driver's own time goes in one (README "Where rot's time goes")
	ROT_PROFILE=$(pwd)/build/device-bench/gpu-peaks.prof ./rot -progress=never measure gpu-peaks >/dev/null 2>&1
	head -n 30 build/device-bench/gpu-peaks.prof
}
mkdir -p build/device-bench
# DEVICE_STEPS: which steps, in order (default all; a rerun after a fix names fewer)
for s in ${DEVICE_STEPS:-build gpu-verify bench-gpu gpu-predict test}; do
	case $s in
	build) step build 150 make -s -j"$(nproc)" driver ;;
	gpu-verify) step gpu-verify 300 make -s gpu-verify ;;
	bench-gpu) step bench-gpu 80 env B=build/device-bench R=./rot sh tests/bench/gpu.sh ;;
	gpu-predict) step gpu-predict 50 ./rot -progress=never measure gpu-predict -outputDir=build/device-predict ;;
	timing) timing >"$O/timing.log" 2>&1 && echo "timing: done (below)" >>"$S" ;;
	gpu-test) step gpu-test 90 prove tests/gpu.t ;;
	test) step test 600 make -s test TEST_JOBS=8 ;;
	*) echo "rot: device check: unknown step '$s'" >&2 && exit 2 ;;
	esac
done
grep -E '^gpu-verify|MISS|checks' "$O/gpu-verify.log" >>"$S" 2>/dev/null
grep -E 'APE|mean' "$O/gpu-predict.log" >>"$S" 2>/dev/null
grep -E '^GPU' "$O/bench-gpu.log" >>"$S" 2>/dev/null
cat "$O/timing.log" >>"$S" 2>/dev/null
grep -E '^not ok|^Files=|^Result|Failed' "$O/test.log" >>"$S" 2>/dev/null
tar -czf "$O/artifacts.tar.gz" build/gpu-verify build/device-predict build/device-bench 2>/dev/null
cat "$S"
exit $failed
