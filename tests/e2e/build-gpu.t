#!/bin/sh
# rot build of the shipped GPU measurements: every core they need (quick and full) builds here
# for sm_90 without a GPU and without measuring, and every GPU kernel and macro setting those
# builds compiled passes the compiled-code checks (tests/gpu/ptx.lua). Apart from build.t so
# that make test's two compile-only lanes share the work.
# judges no time
. "$(dirname "$0")/lib.sh"
: >"$T/gpu"
# its own build directory (the key buildDir, from the user file; kept, so objects are reused
# from one make test to the next): the other lane's builds in the checkout's build/core never
# wait for these under the build lock
B="$ROOT/build/test-gpu"
mkdir -p "$XDG_CONFIG_HOME/rot"
echo "buildDir=$B" >"$XDG_CONFIG_HOME/rot/config"
rm -f "$B/rot-core"

for m in $("$ROOT/rot" list --names | grep '^gpu-'); do
	for q in true false; do
		built "$m" $q
		grep '^built gpu_' "$T/o" >>"$T/gpu"
	done
done
# every GPU kernel and macro setting those builds compiled (the "built" lines), checked in its
# PTX against its declared counts: tests/gpu/ptx.lua's TAP lines, numbered into this file's
if [ -x /usr/local/cuda/bin/nvcc ] && [ -x /usr/local/cuda/bin/ptxas ]; then
	sort -u "$T/gpu" >"$T/combos"
	rot run "$ROOT/tests/gpu/ptx.lua" "$T/combos" >"$T/ptx" 2>&1
	ptxst=$?
	while IFS= read -r l; do
		case $l in
		"ok "*) ok 0 "PTX: ${l#ok * - }" ;;
		"not ok "*) ok 1 "PTX: ${l#not ok * - }" ;;
		"1.."*) ;;
		*) echo "# $l" ;;
		esac
	done <"$T/ptx"
	ok $ptxst "the PTX checks ran to their end"
else
	skip "the CUDA toolkit (nvcc, ptxas) is not at /usr/local/cuda: no PTX checks"
fi
test -x "$B/rot-core" && test -f "$B/.lock" && ls "$B"/kernels/gpu_*.o >/dev/null 2>&1
ok $? "the cores were built in buildDir ($B, set in the user file), under its own lock"
test -z "$(ls -A "$OUT")" && test -z "$(find "$CACHE/results" -type f 2>/dev/null)"
ok $? "rot build of the GPU measurements writes no output and measures nothing"
done_testing
