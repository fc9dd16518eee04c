#!/bin/sh
# The compiled-code checks of tests/ptx.t catch what they are for, on GPU kernels broken on
# purpose (tests/gpu/broken/kernels): a precision leak, a dropped store, a register spill.
cd "$(dirname "$0")/.." || exit 1
if [ ! -x /usr/local/cuda/bin/nvcc ] || [ ! -x /usr/local/cuda/bin/ptxas ]; then
	echo "1..0 # SKIP the CUDA toolkit (nvcc, ptxas) is not at /usr/local/cuda"
	exit 0
fi
export XDG_CONFIG_HOME="$(mktemp -d)"
T=$(mktemp -d)
trap 'rm -rf "$T" "$XDG_CONFIG_HOME"' EXIT
./rot run tests/gpu/broken/broken.lua -cacheDir="$T/c" 2>"$T/e"
