#!/bin/sh
# tests/gpu-verify/build-babelstream.sh DIR OUT: BabelStream's CUDA version, from the source
# fetch-babelstream.sh left in DIR (DIR/src), built with nvcc for sm_90 (the H100 and H200) into
# the program OUT, as its CMake model builds it: -DCUDA, grid-stride loops, an unroll of 4,
# device lambdas. A toolkit without NVML's header gets rot's stand-in for BabelStream's four
# NVML calls (nvml-standin.h: only its peak line changes). Says which; exits 1 when nvcc fails.
here=$(cd "$(dirname "$0")" && pwd)
dir=$1 out=$2
src=$dir/src
CUDA=${CUDA:-/usr/local/cuda}
[ -f "$src/main.cpp" ] && [ -f "$src/cuda/CUDAStream.cu" ] || {
	echo "rot: no BabelStream source in '$dir' (tests/gpu-verify/fetch-babelstream.sh fetches it)" >&2
	exit 2
}
inc=$(mktemp -d) && trap 'rm -rf "$inc"' EXIT && cp "$here/nvml-standin.h" "$inc/nvml.h" || exit 2
# build WHAT FLAGS...: nvcc with BabelStream's flags and these
build() {
	what=$1
	shift
	"$CUDA/bin/nvcc" -O3 -std=c++17 -arch=sm_90 --extended-lambda -DCUDA -DGRID_STRIDE -DUNROLL_FACTOR=4 \
		-I"$src" -I"$src/cuda" -o "$out" "$src/main.cpp" "$src/cuda/CUDAStream.cu" "$@" &&
		echo "BabelStream $(cut -c1-12 "$dir/COMMIT" 2>/dev/null) built with $what"
}
[ -f "$CUDA/include/nvml.h" ] && build "NVML's" -L"$CUDA/lib64/stubs" -lnvidia-ml 2>"$inc/err" ||
	build "rot's NVML stand-in (the toolkit's nvml.h is missing or does not link)" -I"$inc" || exit 1
