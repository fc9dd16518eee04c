#!/bin/sh
# GPU tests without a device: every .cu builds, declared counts, metric checks (tests/gpu/
# build.lua); then the measurement path: metric names checked at load, GPU points refused
# with "no CUDA device" while CPU points go on. Without the CUDA toolkit: a clear skip line.
# With a device (/dev/nvidia0): GPU points measured, and make gpu-verify's verdict table.
# judges no time
cd "$(dirname "$0")/.." || exit 1
export XDG_CONFIG_HOME="$(mktemp -d)"
T=$(mktemp -d)
trap 'rm -rf "$T" "$XDG_CONFIG_HOME"' EXIT
if [ ! -x /usr/local/cuda/bin/nvcc ]; then
	./rot measure tests/gpu/mixed.lua -peaksFile=tests/fixtures/peaks.csv -cacheDir="$T/c" -outputDir="$T" >"$T/o" 2>"$T/e"
	grep -q "CUDA toolkit not found ('/usr/local/cuda/bin/nvcc' missing): GPU points are skipped" "$T/e" && echo "ok 1 - without the toolkit GPU points are skipped with one line" || echo "not ok 1 - no clear skip line"
	grep -q "1 measured, 1 failed" "$T/o" && echo "ok 2 - the CPU point is still measured" || echo "not ok 2 - CPU point"
	echo "1..2"
	exit 0
fi
./rot run tests/gpu/build.lua -cacheDir="$T/c" >"$T/tap" 2>&1
st=$?
n=$(grep -c '^\(not \)\?ok ' "$T/tap")
grep '^\(not \)\?ok \|^#' "$T/tap"
n=$((n + 1))
[ $st -eq 0 ] && echo "ok $n - the build test script completed" || { echo "not ok $n - build test script"; tail -5 "$T/tap" | sed 's/^/#   /'; }

n=$((n + 1))
./rot measure tests/gpu/mixed.lua -peaksFile=tests/fixtures/peaks.csv -cacheDir="$T/c" -outputDir="$T" -gpuChip=GH100 >"$T/o" 2>"$T/e"
st=$?
if ls /dev/nvidia0 >/dev/null 2>&1; then
	grep -q "2 measured, 0 failed" "$T/o" && echo "ok $n - with a device both points are measured" || echo "not ok $n - GPU point on a device"
	# everything that needs the device, in one verdict table (make gpu-verify)
	n=$((n + 1))
	GPU_VERIFY_DIR="$T/gv" tests/gpu-verify/run.sh >"$T/gv.out" 2>&1
	st=$?
	sed 's/^/#   /' "$T/gv.out" | tail -30
	[ $st -eq 0 ] && echo "ok $n - make gpu-verify: every ceiling, counter and latency within its target" || echo "not ok $n - make gpu-verify (status $st)"
	# a CUDA error in one point costs that point only: a kernel storing through a null pointer
	# between two triads of the same run (tests/gpu/fault/)
	n=$((n + 1))
	./rot measure tests/gpu/fault/fault.lua -cacheDir="$T/c" -outputDir="$T" >"$T/fo" 2>"$T/fe"
	grep -q "2 measured, 1 failed" "$T/fo" && grep -q "^fault .*FAILED" "$T/fo" && grep -q "^triad-after .*[0-9]" "$T/fo" &&
		grep -qi "cuda\|illegal" "$T/fe" && echo "ok $n - a CUDA error fails its point only: the triad after it is measured" ||
		{ echo "not ok $n - a CUDA error in one point"; sed 's/^/#   /' "$T/fo" "$T/fe" | tail -12; }
else
	[ $st -ne 0 ] && grep -q "^rot: no CUDA device" "$T/e" && echo "ok $n - without a device the GPU point is refused: no CUDA device" || { echo "not ok $n - refusal"; sed 's/^/#   /' "$T/e"; }
	n=$((n + 1))
	grep -q "1 measured, 1 failed" "$T/o" && echo "ok $n - the CPU point of the same run is measured" || echo "not ok $n - CPU point"
fi
n=$((n + 1))
./rot build tests/gpu/fault/fault.lua -cacheDir="$T/c" >"$T/o" 2>&1
grep -q "2 cores built, 0 failed" "$T/o" && echo "ok $n - the faulting kernel of the device check builds" || { echo "not ok $n - gpu_fault builds"; tail -5 "$T/o" | sed 's/^/#   /'; }
n=$((n + 1))
grep -q "GPU metrics checked for GH100: [0-9]* profiling pass" "$T/e" && echo "ok $n - metric names are checked when the script loads, with the pass count" || echo "not ok $n - metric check line"
n=$((n + 1))
./rot measure tests/gpu/mixed.lua -peaksFile=tests/fixtures/peaks.csv bad -cacheDir="$T/c" -outputDir="$T" -gpuChip=GH100 >"$T/o" 2>"$T/e"
grep -q "unknown GPU metric 'lts__t_bytez.sum' (near: lts__t_bytes.sum" "$T/e" && ! grep -q "points, cache:" "$T/o" && echo "ok $n - an unknown metric stops the script before anything runs" || { echo "not ok $n - unknown metric"; sed 's/^/#   /' "$T/e"; }
echo "1..$n"
