#!/bin/sh
# The CPU kernel library: every kernel's declared flops and bytes against an independent
# count: the kernel built with ROT_TALLY=1 adds up the work of each loop where it does it.
# judges no time
. "$(dirname "$0")/lib.sh"
P=tests/core/point.lua
check_kernel() { # check_kernel KERNEL N MACROS... : declared flops == tally flops (and bytes where tallied)
	k=$1 n=$2
	shift 2
	rot measure $P $k $n macro=ROT_TALLY:1 "$@" -minRunTime=0 -runs=3 -maxRuns=3 >"$T/o" 2>&1
	d=$(sed -n 's/^declared: flops=\([^ ]*\) bytes=\([^ ]*\) .*/\1 \2/p' "$T/o")
	c=$(sed -n 's/^tally: flops=\([^ ]*\) bytes=\([^ ]*\)/\1 \2/p' "$T/o")
	# a measurement that failed prints neither line: that must fail here, not compare empty with empty
	test -n "$d" && test -n "$c" && echo "$d $c" | awk 'NF == 4 { exit !($1 == $3 && ($4 == 0 || $2 == $4)) } { exit 1 }'
	ok $? "$k n=$n $*: declared (flops bytes) ${d:-none}, counted ${c:-none}"
	# the written share, where the kernel declares one: the bound's read, write or triad ceilings follow it
	dw=$(sed -n 's/^declared written: //p' "$T/o") cw=$(sed -n 's/^tally written: //p' "$T/o")
	if [ -n "$dw" ]; then
		test "$dw" = "$cw"
		ok $? "$k n=$n $*: declared written bytes $dw, counted ${cw:-none}"
	fi
}
for k in sum fill copy scale add triad daxpy; do check_kernel $k 1000; done
check_kernel triad 1000 macro=STREAM_TYPE:float
check_kernel copy 1003 macro=STREAM_NT:1 flags=-O2,-march=native
check_kernel peakflops 100 macro=PEAK_LANES:4 macro=PEAK_CHAINS:8
check_kernel peakflops 100 macro=PEAK_OP:1
check_kernel peakflops 100 macro=PEAK_OP:3
check_kernel chase 1000 macro=CHASE_CHAINS:4
check_kernel regadd 1000
check_kernel intensity 1000 macro=INTENSITY_TYPE:float
check_kernel matvec 50 macro=MATVEC_BLOCK:4
check_kernel matvec 50 macro=MATVEC_ORDER:1
check_kernel stencil 50
check_kernel dgemm 20
check_kernel dgemm 20 macro=DGEMM_BLOCK:8

# hand-computed counts for small sizes (what the kernel files promise in their comments)
expect() { # expect KERNEL N MACROS -- FLOPS BYTES
	k=$1 n=$2
	shift 2
	args=""
	while [ "$1" != "--" ]; do args="$args $1"; shift; done
	shift
	rot measure $P $k $n $args -minRunTime=0 -runs=3 -maxRuns=3 >"$T/o" 2>&1
	grep -q "^declared: flops=$1 bytes=$2 " "$T/o"
	ok $? "$k n=$n$args declares $1 flops and $2 bytes"
}
expect triad 1000 -- 2000 24000
expect triad 1000 macro=STREAM_TYPE:float -- 2000 12000
expect daxpy 1000 -- 2000 24000
expect sum 1000 -- 1000 8000
expect fill 1000 -- 0 8000
# the written share: what decides whether the read, write or triad ceilings bound a point
written() { # written KERNEL N BYTES
	rot measure $P $1 $2 -minRunTime=0 -runs=3 -maxRuns=3 >"$T/o" 2>&1
	grep -qx "declared written: $3" "$T/o"
	ok $? "$1 n=$2 declares $3 of its bytes written"
}
written sum 1000 0
written fill 1000 8000
written triad 1000 8000
expect intensity 1000 -- 2000 16000
expect matvec 10 -- 200 960
expect stencil 10 -- 256 1600
expect dgemm 10 -- 2000 3200
expect peakflops 10 macro=PEAK_LANES:8 macro=PEAK_CHAINS:24 -- 3840 0
expect chase 100 macro=CHASE_CHAINS:2 -- 0 1600
expect clock 1000 -- 3000 0
done_testing
