#!/bin/sh
# tests/gpu-verify/cuda-apps.sh DIR: rot's CUDA library on a device (device.sh's cuda-apps step):
# a stream program's kernels profiled, rot's best-call bandwidth within 5 % of its printed rates;
# its NVTX ranges as regions; a CUDA error in one kernel fails the point. Exits 1 on a miss.
cd "$(dirname "$0")/../.." || exit 2
O=${1:-build/device}
mkdir -p "$O/cuda-apps" && W=$O/cuda-apps
NVCC=/usr/local/cuda/bin/nvcc
# BabelStream's CUDA version from its public source (never committed); the device reaches no
# network, so where the clone fails, rot's own small stream program stands in, and says so
src=tests/gpu-verify/stream.cu
if timeout 20 git clone -q --depth 1 https://github.com/UoB-HPC/BabelStream "$W/BabelStream" 2>/dev/null; then
	echo "BabelStream fetched; its CUDA build is not wired into this check yet: rot's stream.cu is used"
else
	echo "BabelStream cannot be fetched here (no network): rot's own stream.cu stands in"
fi
$NVCC -O3 -arch=sm_90 -o "$W/stream" "$src" || exit 1
fail=0
./rot profile -showOutput -outputDir="$W" -- "$W/stream" 33554432 20 >"$W/profile.out" 2>&1 || fail=1
cat "$W/profile.out"
python3 - "$W/stream.csv" "$W/profile.out" <<'PY' || fail=1
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
printed = dict(re.findall(r"^\s*(Copy|Mul|Add|Triad)\s+([0-9.]+)", open(sys.argv[2]).read(), re.M))
n, bytes_ = 33554432, {"copy": 16, "mul": 16, "add": 24, "triad": 24}
bad = 0
for k, b in bytes_.items():
    r = [x for x in rows if x.get("region", "").startswith(k + " <<<")]
    if not r or k.capitalize() not in printed:
        print("MISS %s: no region or no printed rate" % k); bad = 1; continue
    gbs = b * n / float(r[0]["best_call_s"]) / 1e9
    ref = float(printed[k.capitalize()]) / 1e3
    ok = abs(gbs / ref - 1) <= 0.05
    bad |= not ok
    print("%s %s: rot %.1f GB/s, the program %.1f GB/s, ratio %.4f" % ("ok" if ok else "MISS", k, gbs, ref, gbs / ref))
nv = [x for x in rows if x.get("region") in ("stream", "iteration")]
print(("ok" if len(nv) == 2 else "MISS") + " NVTX ranges as regions: %d of 2" % len(nv))
sys.exit(bad or len(nv) != 2)
PY
./rot profile -outputDir="$W" -- "$W/stream" 1048576 3 fault >"$W/fault.out" 2>&1
st=$?
if [ $st -ne 0 ] && grep -q "FAILED\|exited with status" "$W/fault.out"; then
	echo "ok a CUDA error in one kernel fails the point (status $st)"
else
	echo "MISS a CUDA error in one kernel: status $st" && fail=1
fi
tail -5 "$W/fault.out"
pgrep -f "$W/stream" >/dev/null && echo "MISS the program left running" && fail=1
echo "not checked: bytes against ncu (rot's per-region metrics are not wired yet)"
exit $fail
