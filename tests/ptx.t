#!/bin/sh
# Compiled-code checks of every GPU kernel and macro setting the shipped gpu-* measurements use
# (quick and full), without a GPU: tests/gpu/ptx.lua on the "built" lines of rot build.
. "$(dirname "$0")/gpu/toolkit.sh"
for m in $(./rot list --names | grep '^gpu-'); do
	for q in true false; do
		./rot build "$m" -quick=$q -cacheDir="$T/c" -outputDir="$T/o" 2>/dev/null
	done
done | grep '^built gpu_' | sort -u >"$T/combos"
./rot run tests/gpu/ptx.lua "$T/combos" -cacheDir="$T/c"
