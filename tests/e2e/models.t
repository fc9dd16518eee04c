#!/bin/sh
# The model commands on recorded profiles (no GPU needed): rot predict (Konstantinidis &
# Cotronis) from an Nsight Compute export onto another GPU's ceilings, with the APE against
# that GPU's measured times; rot utilization (Dong & Pai) from a T(n, e, c) table.
# judges no time
. "$(dirname "$0")/lib.sh"
F="$ROOT/tests/fixtures"

rot predict "$F/ncu-profile.csv" "$F/gpu-peaks.csv" "$F/ncu-target.csv" >"$T/o" 2>"$T/e"
ok $? "rot predict: profile, device file and measured times"
grep "^saxpy" "$T/o" | head -n 1 | grep -q "fp32 *0.333 *5.33 *memory *333.3 *0.0048 *0.006 *20.0"
ok $? "saxpy: fp32, O_krn 1/3 below O_dev 5.33: memory bound, 4.8 ms predicted against 6 ms measured: 20% APE"
grep "^hist_kernel" "$T/o" | grep -q "int *1 *3 *memory *1000 *0.0004 *0.00032 *25.0"
ok $? "histogram: integer kernel, 0.4 ms predicted (times in usecond and msecond scaled), 25% APE"
contains "$T/o" "mean APE 21.67% over 3 kernels (Konstantinidis & Cotronis report 27.66%)" "the mean APE is printed beside the paper's"
sed -n 4p "$OUT/predict.csv" | grep -q '^"saxpy(int, float, float\*, float\*)",fp32,0.3333333333333333,5.333333333333333,memory,333.3333333333333,0.0048000000000000004,0.004,20.00000000000001,,,memory-bound prediction within 25%,$'
ok $? "predict.csv: the second saxpy launch matches the second measured one (numbers in full, the kernel's name quoted)"
{ cat "$F/gpu-peaks.csv"; echo "launch,latency,2,1000,us"; } >"$T/launch.csv"
rot predict "$F/ncu-profile.csv" "$T/launch.csv" "$F/ncu-target.csv" >"$T/o" 2>"$T/e"
grep "^saxpy" "$T/o" | head -n 1 | grep -q "0.0048 *0.006 *20.0 *0.0058 *3.3 "
ok $? "a device file with gpu-peaks' launch row (1 ms here): 4.8 + 1 ms predicted with the launch term, 3.3% APE"
contains "$T/o" "mean APE 21.67% over 3 kernels (Konstantinidis & Cotronis report 27.66%); with the launch term" "the summary gives both means"
rot predict "$F/ncu-profile.csv" "$F/gpu-peaks.csv" >"$T/o" 2>"$T/e"
ok $? "without measured times: predictions only"
! grep -q "mean APE" "$T/o"
ok $? "and no APE line"

rot utilization "$F/ncu-profile.csv" "$F/atomics.csv" >"$T/o" 2>"$T/e"
ok $? "rot utilization: profile and T(n, e, c) table"
grep "^hist_kernel" "$T/o" | grep -q "100 *32.00 *4.00 *1.00 *102 *1.025e+04 *2e+04 *51.2"
ok $? "histogram: N 100 jobs per SM, e 32, n 4, c 1, S 102.5, B 10250 of 20000 cycles: 51.2%"
grep "^saxpy" "$T/o" | head -n 1 | grep -q "no shared-memory atomics"
ok $? "a kernel without shared atomics says so"
contains "$T/o" "per-SM averages" "the aggregation over SMs is stated"
test -s "$OUT/utilization.csv"
ok $? "utilization.csv is written"

# bad input: clear errors naming the file, nothing written
rm -f "$OUT/predict.csv"
rot predict "$T/nope.csv" "$F/gpu-peaks.csv" >"$T/o" 2>"$T/e"
test $? -ne 0 && grep -q "^rot: cannot read a profile '$T/nope.csv'" "$T/e"
ok $? "a missing profile is named"
rot predict "$F/ncu-profile.csv" "$F/peaks.csv" >"$T/o" 2>"$T/e"
test $? -ne 0 && grep -q "^rot: device file '$F/peaks.csv': the device file has no value for" "$T/e" && grep -q "^hint: rot measure gpu-peaks" "$T/e"
ok $? "a CPU peaks file is no GPU device file"
rot predict "$F/peaks.csv" "$F/gpu-peaks.csv" >"$T/o" 2>"$T/e"
test $? -ne 0 && grep -q "^rot: profile '$F/peaks.csv': not a rot results CSV" "$T/e"
ok $? "a file that is no profile is refused"
test ! -e "$OUT/predict.csv"
ok $? "nothing is written on an error"
rot utilization "$F/ncu-profile.csv" "$F/gpu-peaks.csv" >"$T/o" 2>"$T/e"
test $? -ne 0 && grep -q "not a T(n, e, c) table" "$T/e"
ok $? "a file that is no T(n, e, c) table is refused"
rot predict >"$T/o" 2>"$T/e"
test $? -ne 0 && grep -q "^rot: predict needs a profile" "$T/e"
ok $? "missing arguments are named"
done_testing
