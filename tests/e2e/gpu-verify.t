#!/bin/sh
# make gpu-verify without a GPU: its verdict on recorded inputs (one set that passes, one from an
# H100 that must fail on every ceiling it names), a counter disagreement, the
# reference program built with nvcc alone, and a clean refusal where there is no device.
# judges no time
. "$(dirname "$0")/lib.sh"
F=$ROOT/tests/fixtures/gpu-verify
verdict() { "$ROOT/rot" run "$ROOT/tests/gpu-verify/verdict.lua" "$1"; }

verdict "$F/pass" >"$T/o" 2>"$T/e"
ok $? "inputs within every target: the verdict passes"
contains "$T/o" "^gpu-verify: all 22 checks passed" "and says how many checks"
contains "$T/o" "^triad L2 B/element  *36.4  *36.5  *0.997" "rot's triad bytes per element against ncu's (from ncu's CSV with thousands separators)"

verdict "$F/issue" >"$T/o" 2>"$T/e"
test $? -ne 0
ok $? "issue 16's H100 figures fail the verdict"
contains "$T/e" "^rot: gpu-verify: 13 of 14 checks missed" "every ceiling and latency it names misses, and the integer add it lacks"
contains "$T/o" "^HBM triad  *2890  *3064  *0.943 .*MISS" "the HBM triad at 0.94 of the reference program"
contains "$T/o" "^int32_mad  *85900  *33454  *2.568  *<= 1.02 of its physical limit  *MISS" "int32 at 257 % of its limit"
contains "$T/o" "^shared_ldst  *63600  *33454  *1.901 .*MISS" "shared memory at 190 % of its limit"
contains "$T/o" "^latency fadd \[cycles\]  *8.4  *4  *2.100 .*published.*MISS" "fadd's 8.4 cycles against the published 4"
contains "$T/o" "skipped: ncu not found" "no ncu: the counter check says it was skipped"

verdict "$F/h100" >"$T/o" 2>"$T/e"
test $? -ne 0
ok $? "session 30's H100 figures fail the verdict"
contains "$T/e" "^rot: gpu-verify: 6 of 22 checks missed" "six misses"
contains "$T/o" "^int32_add  *194705  *16727  *11.640  *<= 1.02 of its physical limit  *MISS" "the folded integer adds: 11.6 times what the SMs can add"
contains "$T/o" "^shortest latency \[cycles\] (iadd)  *0.56  *1  *0.560 .*MISS" "and 0.56 cycles an add: no dependent chain is that fast"
contains "$T/o" "^fp32_fma  *59763  *66441  *0.899 .*MISS" "fp32 at 0.90 of theoretical at the measured clock"
contains "$T/o" "^triad HBM B/element  *24  *23.9  *1.004 .*ok" "its counters agree with ncu's"

verdict "$F/h200" >"$T/o" 2>"$T/e"
test $? -ne 0
ok $? "this session's first H200 figures fail the verdict"
contains "$T/e" "^rot: gpu-verify: 3 of 22 checks missed" "three misses: the data sheet's HBM and half2 twice"
contains "$T/o" "^latency global load (L1) \[cycles\]  *40.2  *39.1  *1.029 .*ok" "rot's latencies are read by their column's name (a column added before completion_cycles had left every one '-')"
contains "$T/o" "^shortest latency \[cycles\] (fadd)  *4.15 .*ok" "and the shortest is a real chain's"
contains "$T/o" "^fp16_fma  *86120  *107198  *0.803 .*MISS" "half2 at 0.80 of the reference with four chains a thread"

mkdir -p "$T/bad"
cp "$F/pass/"* "$T/bad/"
sed -i "s/\"4,900,000,000\"/\"9,800,000,000\"/" "$T/bad/ncu.csv"
verdict "$T/bad" >"$T/o" 2>"$T/e"
test $? -ne 0 && grep -q "^triad L2 B/element .*0.499 .*MISS" "$T/o"
ok $? "rot's L2 bytes at half of ncu's: a miss"

NVCC=${CUDA:-/usr/local/cuda}/bin/nvcc
if [ -x "$NVCC" ]; then
	mkdir -p "$T/gv"
	"$NVCC" -O3 -arch=sm_90 -o "$T/gv/reference" "$ROOT/tests/gpu-verify/reference.cu" >"$T/o" 2>&1
	ok $? "the reference program builds with nvcc alone"
	if "$T/gv/reference" --triad-only >"$T/o" 2>"$T/e"; then
		contains "$T/o" "^triad_elements,134217728," "with a device it runs the triad for ncu"
	else
		grep -q "^reference: cudaGetDeviceProperties" "$T/e"
		ok $? "without a device it stops with CUDA's reason"
		GPU_VERIFY_DIR=$T/gv "$ROOT/tests/gpu-verify/run.sh" >"$T/o" 2>"$T/e"
		test $? -eq 2 && grep -q "^rot: gpu-verify: the reference program could not run (above: why); gpu-verify needs a GPU" "$T/e"
		ok $? "make gpu-verify without a device: exit 2 and why"
	fi
else
	skip "no CUDA toolkit: the reference program is not built"
fi
done_testing
