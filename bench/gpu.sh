#!/bin/sh
# make bench's GPU lines: HBM triad and FP64/FP32 FMA against their targets, a
# fully cached gpu-peaks rerun, the overhead per GPU point. Run by bench/bench.sh (B: its temp dir,
# R: its rot command), or alone on a GPU machine: sh bench/gpu.sh (a temp cache of its own),
# or B=DIR R=./rot sh bench/gpu.sh (the user's cache: ceilings already measured are hits).
cd "$(dirname "$0")/.." || exit 1
if [ -z "${B:-}" ]; then
	B=$(mktemp -d /tmp/rot-bench-gpu.XXXXXX)
	trap 'rm -rf "$B"' EXIT
	export XDG_CONFIG_HOME="$B/config"
	R="./rot -cacheDir=$B/cache -outputDir=$B/out"
fi
. bench/lib.sh
if ! ls /dev/nvidia0 >/dev/null 2>&1; then
	echo "GPU: no CUDA device here, so the HBM triad and FMA throughput targets, the cached gpu-peaks rerun (< 60 ms) and the overhead per GPU point (< 20 ms) were not measured (make bench on a GPU machine prints them)"
	exit 0
fi
# HBM triad against the data-sheet bandwidth (the fraction BabelStream reaches on the same GPU;
# goal 90%), FP64/FP32 FMA against theoretical at the measured clock (>= 95%)
t0=$(now)
$R -progress=never measure gpu-peaks >"$B/gpu" 2>&1 || { echo "GPU: rot measure gpu-peaks failed:"; tail -n 5 "$B/gpu" | sed 's/^/GPU:   /'; exit 1; }
printf 'GPU: rot measure gpu-peaks: %.1f s (%s)\n' "$(calc "$(now) - $t0")" "$(grep -o '[0-9]* points, cache: .*' "$B/gpu" | tail -n 1)"
grep -E '^(HBM_triad|fp64_fma|fp32_fma) ' "$B/gpu" | sed 's/^/GPU: /'
echo "GPU targets: HBM_triad >= 85% (H100) / 86-87% (H200) of theoretical, goal 90%; fp64/fp32 FMA >= 95% at the measured clock"
for i in 1 2 3 4 5 6 7; do
	t0=$(now)
	$R -progress=never measure gpu-peaks >/dev/null 2>&1
	t1=$(now)
	calc "$t1 - $t0"
done | median >"$B/gcached"
printf 'GPU: cached rerun of gpu-peaks: %.1f ms wall (median of 7, all hits: no GPU process starts; target < 60 ms)\n' "$(calc "$(cat "$B/gcached") * 1000")"
for child in shared each; do
	o=$(overhead gpu_triad $child)
	printf 'GPU: overhead per measured GPU point, %s child: %s ms (slope between 20 and 80 points beyond the kernel and its launches; target < 20 ms); fixed per measurement %s ms\n' "$child" "${o%% *}" "${o##* }"
done
