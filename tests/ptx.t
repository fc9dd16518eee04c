#!/bin/sh
# Compiled-code checks of every GPU kernel and macro setting the shipped gpu-* measurements use
# (quick and full), without a GPU: tests/gpu/ptx.lua on the "built" lines of rot build.
cd "$(dirname "$0")/.." || exit 1
if [ ! -x /usr/local/cuda/bin/nvcc ] || [ ! -x /usr/local/cuda/bin/ptxas ]; then
	echo "1..0 # SKIP the CUDA toolkit (nvcc, ptxas) is not at /usr/local/cuda"
	exit 0
fi
export XDG_CONFIG_HOME="$(mktemp -d)"
T=$(mktemp -d)
trap 'rm -rf "$T" "$XDG_CONFIG_HOME"' EXIT
for m in $(./rot list --names | grep '^gpu-'); do
	for q in true false; do
		./rot build "$m" -quick=$q -cacheDir="$T/c" -outputDir="$T/o" 2>/dev/null
	done
done | grep '^built gpu_' | sort -u >"$T/combos"
./rot run tests/gpu/ptx.lua "$T/combos" -cacheDir="$T/c"
