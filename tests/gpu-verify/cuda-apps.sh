#!/bin/sh
# tests/gpu-verify/cuda-apps.sh DIR: rot's CUDA library on a device (device.sh's cuda-apps step):
# BabelStream's CUDA version (fetch-babelstream.sh left its source in .device/BabelStream; else
# rot's own stream.cu stands in, and says so) profiled, rot's per-kernel best-call bandwidth within
# 5 % of the rates it prints; stream.cu's NVTX ranges of every kind as regions; a CUDA error in
# one kernel fails the point; each stream.cu kernel's DRAM bytes from rot's metrics pass within
# 3 % of ncu's (ncu_bytes, at the end). Exits 1 on a miss.
cd "$(dirname "$0")/../.." || exit 2
O=${1:-build/device}
mkdir -p "$O/cuda-apps" && W=$O/cuda-apps
NVCC=/usr/local/cuda/bin/nvcc
fail=0
$NVCC -O3 -arch=sm_90 -o "$W/stream" tests/gpu-verify/stream.cu || exit 1
# the bandwidth check's program ($W/$prog): BabelStream, built here from the fetched source
if [ -f .device/BabelStream/src/main.cpp ] && sh tests/gpu-verify/build-babelstream.sh .device/BabelStream "$W/babelstream"; then
	prog=babelstream
	echo "BabelStream runs: $(cat .device/BabelStream/COMMIT)"
	set -- --csv -s 268435456 -n 20 # 2 GiB an array: a launch's cost is under 2 % of a call
else
	prog=stream
	echo "BabelStream is not in .device/BabelStream (tests/gpu-verify/fetch-babelstream.sh): rot's own stream.cu stands in"
	set -- 33554432 20
fi
./rot profile -showOutput -maxRuns=5 -outputDir="$W" -- "$W/$prog" "$@" >"$W/profile.out" 2>&1 || fail=1
cat "$W/profile.out"
# per kernel: the region (BabelStream's copy_kernel<double> of old, its for_each_kernel of a
# device lambda in CUDAStream<double>::copy now, stream.cu's copy), its bytes a call, and the rate the program prints
python3 - "$W/$prog.csv" "$W/profile.out" "$prog" <<'PY' || fail=1
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8")))
out, prog = open(sys.argv[2], encoding="utf-8", errors="replace").read(), sys.argv[3]
weight = {"copy": 2, "mul": 2, "add": 3, "triad": 3, "dot": 2}  # arrays a call reads or writes
printed = {}  # per kernel: its bytes a call, the best MB/s the program prints (over rot's invocations)
best = lambda k, b, mbs: (b, max(mbs, printed.get(k, (0, 0))[1]))
if prog == "babelstream":  # --csv: function,num_times,n_elements,sizeof,max_mbytes_per_sec,...
    for f, n, size, mbs in re.findall(r"^(Copy|Mul|Add|Triad|Dot),\d+,(\d+),(\d+),([0-9.eE+]+),", out, re.M):
        printed[f.lower()] = best(f.lower(), weight[f.lower()] * int(n) * int(size), float(mbs))
    match = lambda k, r: re.match(r"(%s_kernel<|for_each_kernel<CUDAStream<double>::%s \{lambda #\d+\}> )" % (k, k), r)
else:
    for f, mbs in re.findall(r"^\s*(Copy|Mul|Add|Triad)\s+([0-9.]+)", out, re.M):
        printed[f.lower()] = best(f.lower(), weight[f.lower()] * 8 * 33554432, float(mbs))
    match = lambda k, r: r.startswith(k + " <<<")
bad = 0
for k in ["copy", "mul", "add", "triad"] + (["dot"] if prog == "babelstream" else []):
    r = [x for x in rows if match(k, x.get("region", ""))]
    if len(r) != 1 or k not in printed:
        print("MISS %s: %d regions, printed rate %s" % (k, len(r), "found" if k in printed else "missing")); bad = 1; continue
    bytes_, mbs = printed[k]
    gbs, ref = bytes_ / float(r[0]["best_call_s"]) / 1e9, mbs / 1e3
    ok = abs(gbs / ref - 1) <= 0.05
    bad |= not ok
    print("%s %s (%s): rot %.1f GB/s, the program %.1f GB/s, ratio %.4f" % ("ok" if ok else "MISS", k, r[0]["region"], gbs, ref, gbs / ref))
sys.exit(bad)
PY
# NVTX: stream.cu's ranges, each kind a region (its stream.csv is also ncu_bytes's)
./rot profile -outputDir="$W" -- "$W/stream" 33554432 20 >"$W/nvtx.out" 2>&1 || fail=1
python3 - "$W/stream.csv" <<'PY' || fail=1
import csv, sys
rows = {x.get("region"): x for x in csv.DictReader(open(sys.argv[1], encoding="utf-8"))}
want = {"stream": "pushed and popped", "iteration": "nested in it", "rot:kernels": "in a domain, crossing 'stream'",
        "arrays": "started, ended in another thread", "wide-\u00e9": "a wide name, in UTF-8"}
bad = 0
for name, what in want.items():
    ok = name in rows and float(rows[name].get("calls") or 0) > 0
    bad |= not ok
    print("%s NVTX range %s (%s)" % ("ok" if ok else "MISS", name, what))
sys.exit(bad)
PY
# the fault run in its own directory: its stream.csv would replace the one ncu_bytes reads
mkdir -p "$W/fault"
./rot profile -outputDir="$W/fault" -- "$W/stream" 1048576 3 fault >"$W/fault.out" 2>&1
st=$?
if [ $st -ne 0 ] && grep -q "FAILED\|exited with status" "$W/fault.out"; then
	echo "ok a CUDA error in one kernel fails the point (status $st)"
else
	echo "MISS a CUDA error in one kernel: status $st" && fail=1
fi
tail -5 "$W/fault.out"
pgrep -f "$W/stream" >/dev/null && echo "MISS the program left running" && fail=1

# ncu_bytes W: each kernel region's DRAM bytes a launch (rot's metrics pass: its stream.csv's
# gpu:dram__bytes.sum over gpu_launches_profiled) against ncu's dram__bytes_read.sum plus
# dram__bytes_write.sum for the same program and kernel, a launch (summed over ncu's launches of
# that kernel and shape, over their number), within 3 %: one verdict line a kernel. 1 on a miss.
ncu_bytes() {
	ncu=/usr/local/cuda/bin/ncu
	[ -x $ncu ] || ncu=$(command -v ncu)
	if [ -z "$ncu" ]; then
		echo "not checked: bytes against ncu (ncu is not installed)"
		return 0
	fi
	$ncu --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base \
		"$1/stream" 33554432 3 >"$1/ncu.csv" 2>"$1/ncu.err" || { echo "MISS ncu failed:"; tail -5 "$1/ncu.err"; return 1; }
	python3 - "$1/stream.csv" "$1/ncu.csv" <<'PY'
import csv, io, re, sys
rot = list(csv.DictReader(open(sys.argv[1])))
text = open(sys.argv[2]).read()
text = text[text.index('"ID"'):] if '"ID"' in text else text  # ncu's own lines come first
def shape(s):  # "(32768, 1, 1)" -> "32768", as rot names a launch shape: dimensions of 1 off the end
    d = [int(x) for x in re.findall(r"\d+", s)]
    while len(d) > 1 and d[-1] == 1:
        d.pop()
    return "x".join(map(str, d))
ncu, launches = {}, {}
for r in csv.DictReader(io.StringIO(text)):
    if r.get("Metric Name") not in ("dram__bytes_read.sum", "dram__bytes_write.sum"):
        continue
    name = r["Kernel Name"].split("(")[0].strip() + " <<<%s, %s>>>" % (shape(r["Grid Size"]), shape(r["Block Size"]))
    ncu[name] = ncu.get(name, 0.0) + float(r["Metric Value"].replace(",", ""))
    if r["Metric Name"] == "dram__bytes_read.sum":
        launches[name] = launches.get(name, 0) + 1
bad = 0
kernels = [x for x in rot if x.get("gpu_region") == "kernel"]
for x in kernels:
    name = x["region"]
    if name not in ncu or not x.get("gpu:dram__bytes.sum") or not x.get("gpu_launches_profiled"):
        print("MISS %s: rot %s, ncu %s" % (name, x.get("gpu:dram__bytes.sum") or "no bytes", "has it" if name in ncu else "has no such kernel"))
        bad = 1
        continue
    mine = float(x["gpu:dram__bytes.sum"]) / float(x["gpu_launches_profiled"])
    theirs = ncu[name] / launches[name]
    ok = theirs > 0 and abs(mine / theirs - 1) <= 0.03
    bad |= not ok
    print("%s %s: DRAM bytes a launch, rot %.4g, ncu %.4g, ratio %.4f" % ("ok" if ok else "MISS", name, mine, theirs, mine / theirs if theirs else 0))
if not kernels:
    print("MISS no kernel region with metrics in rot's CSV")
sys.exit(1 if bad or not kernels else 0)
PY
}
ncu_bytes "$W" || fail=1
exit $fail
