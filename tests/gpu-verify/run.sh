#!/bin/sh
# make gpu-verify: on a GPU machine, rot's GPU ceilings, counters and latencies against a
# reference program of rot's own (tests/gpu-verify/reference.cu, built with nvcc alone), ncu
# when it is there, and published latencies; one verdict table (verdict.lua), exit 1 on a miss,
# 2 when it cannot run (no toolkit, no device). Everything lands in build/gpu-verify.
cd "$(dirname "$0")/../.." || exit 2
D=${GPU_VERIFY_DIR:-build/gpu-verify}
CUDA=${CUDA:-/usr/local/cuda}
mkdir -p "$D" || exit 2
rm -f "$D"/*.csv
if [ ! -x "$CUDA/bin/nvcc" ]; then
	echo "rot: gpu-verify needs the CUDA toolkit ('$CUDA/bin/nvcc' missing)" >&2
	echo "hint: set CUDA=DIR to the toolkit's directory" >&2
	exit 2
fi
if [ ! -x "$D/reference" ] || [ tests/gpu-verify/reference.cu -nt "$D/reference" ]; then
	"$CUDA/bin/nvcc" -O3 -arch=native -o "$D/reference" tests/gpu-verify/reference.cu 2>/dev/null ||
		"$CUDA/bin/nvcc" -O3 -arch=sm_90 -o "$D/reference" tests/gpu-verify/reference.cu || exit 2
fi
if ! "$D/reference" >"$D/reference.csv"; then
	echo "rot: gpu-verify: the reference program could not run (above: why); gpu-verify needs a GPU" >&2
	exit 2
fi
echo "gpu-verify: reference program done; now rot's gpu-peaks, gpu-pipeline and the triad's counters" >&2
./rot measure gpu-peaks -outputDir="$D" >"$D/gpu-peaks.out" || { cat "$D/gpu-peaks.out"; exit 1; }
./rot measure gpu-pipeline -outputDir="$D" >"$D/gpu-pipeline.out" || { cat "$D/gpu-pipeline.out"; exit 1; }
./rot run tests/gpu-verify/triad-counters.lua "$D" || exit 1
if command -v ncu >/dev/null 2>&1; then
	ncu --csv --page raw --kernel-name regex:triad --launch-count 1 \
		--metrics lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum \
		"$D/reference" --triad-only >"$D/ncu.csv" 2>"$D/ncu.err" || {
		echo "rot: gpu-verify: ncu failed (see $D/ncu.err)" >&2
		rm -f "$D/ncu.csv"
	}
fi
exec ./rot run tests/gpu-verify/verdict.lua "$D"
