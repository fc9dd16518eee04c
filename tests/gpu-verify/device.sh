#!/bin/sh
# tests/gpu-verify/device.sh [DIR]: the whole GPU check on a lent GPU machine, as one command:
# make gpu-verify, make bench's GPU lines, rot measure gpu-predict, make test, each under its own
# time limit within one budget (DEVICE_BUDGET seconds, default 540), every log in DIR ($OUT there).
# DEVICE_STEPS picks steps (build gpu-verify bench-gpu timing gpu-predict cuda-apps gpu-test test).
# Exits 2 at once without a GPU; 1 when a step failed or ran out of time; 0 when all passed.
# Prepared here first, as the device reaches no network: ../shared/device/bundle.sh (rot's
# packages) and tests/gpu-verify/fetch-babelstream.sh [MIRROR] (BabelStream's source, for the
# cuda-apps step), both into .device/, which the run carries (carry [".device"]).
here=$(pwd)
cd "$(dirname "$0")/../.." || exit 2
O=${1:-${OUT:-build/device}}
[ -n "$1" ] && case $O in /*) ;; *) O=$here/$O ;; esac # DIR: from where it was called
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
mkdir -p build/device-bench
# DEVICE_STEPS: which steps, in order (default: build gpu-verify bench-gpu timing gpu-predict
# cuda-apps test; gpu-test, tests/gpu.t alone, is for a rerun after a fix, which names fewer)
for s in ${DEVICE_STEPS:-build gpu-verify bench-gpu timing gpu-predict cuda-apps test}; do
	case $s in
	build) step build 150 make -s -j"$(nproc)" driver ;;
	gpu-verify) step gpu-verify 300 make -s gpu-verify ;;
	bench-gpu) step bench-gpu 80 env B=build/device-bench R=./rot sh bench/gpu.sh ;;
	gpu-predict) step gpu-predict 50 ./rot -progress=never measure gpu-predict -outputDir=build/device-predict ;;
	timing) step timing 60 sh tests/gpu-verify/timing.sh ;;
	cuda-apps) step cuda-apps 120 sh tests/gpu-verify/cuda-apps.sh "$O" ;;
	gpu-test) step gpu-test 90 prove tests/gpu.t ;;
	test) step test 600 make -s test TEST_JOBS=8 ;;
	*) echo "rot: device check: unknown step '$s'" >&2 && exit 2 ;;
	esac
done
grep -E '^gpu-verify|MISS|checks' "$O/gpu-verify.log" >>"$S" 2>/dev/null
grep -E 'APE|mean' "$O/gpu-predict.log" >>"$S" 2>/dev/null
grep -E '^GPU' "$O/bench-gpu.log" >>"$S" 2>/dev/null
cat "$O/timing.log" >>"$S" 2>/dev/null && mv "$O/timing.log" build/device-bench/ # at most 8 files come back
grep -E '^ok|^MISS|^not checked|stands in|^BabelStream' "$O/cuda-apps.log" >>"$S" 2>/dev/null
grep -E '^not ok|^Files=|^Result|Failed' "$O/test.log" >>"$S" 2>/dev/null
tar -czf "$O/artifacts.tar.gz" build/gpu-verify build/device-predict build/device-bench 2>/dev/null
cat "$S"
exit $failed
