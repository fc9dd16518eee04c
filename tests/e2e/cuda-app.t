#!/bin/sh
# rot's CUDA library without a device: it builds with the CUDA toolkit (core/Makefile's
# librot-cuda.so, its two injection entries exported); a CUDA program is told apart by its ELF
# (the runtime linked statically or shared), and rot profile refuses it in one line, status 1,
# nothing left running; loaded without a device, it enters its process, refuses an older
# CUPTI, reads 13.0's, and returns when CUPTI enters it again while it starts; its metrics
# pass, asked for where no driver is, writes why it could not profile, in its words, and ends. Its rot profile builds in a folder of its own: the device probe's GPU core
# must not replace build/core's, which a test beside it holds (triad.t's cached rerun). Without
# nvcc: a skip that says so. With a device: cuda-apps.sh's check.
# judges no time
cd "$(dirname "$0")/../.." || exit 1
NVCC=/usr/local/cuda/bin/nvcc
if [ ! -x $NVCC ]; then
	echo "1..0 # SKIP the CUDA toolkit is not installed ($NVCC missing)"
	exit 0
fi
export XDG_CONFIG_HOME="$(mktemp -d)"
T=$(mktemp -d)
trap 'rm -rf "$T" "$XDG_CONFIG_HOME"' EXIT
mkdir -p "$T/b/gen" && : >"$T/b/gen/kernels.mk" && : >"$T/b/gen/paths.flags"
make -s -C core O="$T/b" GEN="$T/b/gen" "$T/b/librot-cuda.so" >"$T/make" 2>&1
syms=$(nm -D --defined-only "$T/b/librot-cuda.so" 2>/dev/null | awk '{print $3}' | grep '^Initialize' | sort | tr '\n' ' ')
[ "$syms" = "InitializeInjection InitializeInjectionNvtx2 " ] && echo "ok 1 - the CUDA library builds and exports CUDA's and NVTX's injection entries" ||
	{ echo "not ok 1 - librot-cuda.so (exports: $syms)"; sed 's/^/#   /' "$T/make" | tail -8; }
$NVCC -o "$T/static" tests/gpu-verify/stream.cu >"$T/nvcc" 2>&1 && $NVCC -cudart shared -o "$T/shared" tests/gpu-verify/stream.cu >>"$T/nvcc" 2>&1
[ -x "$T/static" ] && [ -x "$T/shared" ] && echo "ok 2 - the stream program builds, the runtime static and shared" || { echo "not ok 2 - nvcc"; sed 's/^/#   /' "$T/nvcc"; }
# the library before CUPTI needs a device: a process the recorder did not enter enters itself;
# a CUPTI of an older major release than the headers is refused in one line, nothing entered
# or started; CUDA 13.0's first (130000) is read
cc -D_GNU_SOURCE -Icore -o "$T/host" tests/core/cuda/inject-host.c -ldl &&
	cc -shared -fPIC -o "$T/old-cupti.so" tests/core/cuda/old-cupti.c -ldl || echo "not ok - the test's helpers do not build"
out=$("$T/host" "$T/b/librot-cuda.so" 2>"$T/e")
[ "$out" = "processes 1, this one's entered, writers 2" ] && ! grep -q 'older than' "$T/e" &&
	echo "ok 3 - a process the recorder did not enter enters itself: its own entry, its writers started" ||
	{ echo "not ok 3 - an unentered process: $out"; sed 's/^/#   /' "$T/e"; }
out=$(LD_PRELOAD="$T/old-cupti.so" "$T/host" "$T/b/librot-cuda.so" 2>"$T/e")
[ "$out" = "processes 0, this one's absent, writers 0" ] && [ "$(wc -l <"$T/e")" -eq 1 ] &&
	grep -q "^rot: CUDA library: CUPTI at run time (.*old-cupti.so, version 28) is older than 130000, the oldest it reads: nothing is recorded$" "$T/e" &&
	echo "ok 4 - a CUPTI older than the library's major release is refused in one line; nothing is recorded" ||
	{ echo "not ok 4 - an older CUPTI: $out"; sed 's/^/#   /' "$T/e"; }
out=$(ROT_TEST_CUPTI_VERSION=130000 LD_PRELOAD="$T/old-cupti.so" "$T/host" "$T/b/librot-cuda.so" 2>"$T/e")
[ "$out" = "processes 1, this one's entered, writers 2" ] && ! grep -q 'older than' "$T/e" &&
	echo "ok 5 - CUDA 13.0's first CUPTI (130000) is read: the process entered, its writers started" ||
	{ echo "not ok 5 - CUPTI 130000: $out"; sed 's/^/#   /' "$T/e"; }
# CUPTI entering the library again while it starts (a driver initialized from within CUPTI
# calls InitializeInjection on the same thread): it returns, the start goes on
out=$(ROT_TEST_CUPTI_VERSION=130000 ROT_TEST_CUPTI_REENTER="$T/b/librot-cuda.so" LD_PRELOAD="$T/old-cupti.so" \
	timeout 20 "$T/host" "$T/b/librot-cuda.so" 2>"$T/e")
[ "$out" = "processes 1, this one's entered, writers 2" ] &&
	echo "ok 6 - InitializeInjection re-entered from CUPTI while starting returns: no deadlock, the start completes" ||
	{ echo "not ok 6 - re-entered start (a deadlock ends in timeout's status): $out"; sed 's/^/#   /' "$T/e"; }
if ls /dev/nvidia0 >/dev/null 2>&1; then
	echo "ok 7 # SKIP a device is here: tests/gpu-verify/cuda-apps.sh checks the library on it"
	echo "ok 8 # SKIP a device is here"
	echo "ok 9 # SKIP a device is here"
	echo "1..9"
	exit 0
fi
./rot profile -cacheDir="$T/c" -buildDir="$T/build" -outputDir="$T" -- "$T/static" 1024 2 >"$T/o" 2>"$T/e"
st=$?
[ $st -eq 1 ] && [ "$(grep '^rot: ' "$T/e" | grep -vc 'waiting for another rot process')" -eq 1 ] &&
	grep -q "^rot: no CUDA device: cannot profile CUDA program 'static' (CUDA device code (.nv_fatbin))$" "$T/e" &&
	grep -q "^hint: " "$T/e" && ! ls "$T"/static.csv >/dev/null 2>&1 &&
	echo "ok 7 - a program with the runtime linked statically is refused without a device: one line, a hint, status 1" ||
	{ echo "not ok 7 - refusal (status $st)"; sed 's/^/#   /' "$T/e" "$T/o"; }
./rot profile -cacheDir="$T/c" -buildDir="$T/build" -outputDir="$T" -- "$T/shared" >"$T/o" 2>"$T/e"
st=$?
[ $st -eq 1 ] && grep -q "^rot: no CUDA device: cannot profile CUDA program 'shared' (libcudart.so.13)$" "$T/e" &&
	! pgrep -f "$T/" >/dev/null &&
	echo "ok 8 - one linking libcudart.so is named by it and refused; nothing left running" ||
	{ echo "not ok 8 - refusal, shared runtime (status $st)"; sed 's/^/#   /' "$T/e"; }
# the metrics pass where there is no driver: the library, loaded as CUDA would load it, writes its
# output (FILE.PID) with why, and the process ends normally
printf '#include <dlfcn.h>\nint main(int c, char **v) { void *h = dlopen(v[1], RTLD_NOW);\n int (*i)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : 0;\n return i && i() == 1 ? 0 : 3; }\n' >"$T/load.c"
cc -o "$T/load" "$T/load.c" -ldl 2>"$T/cc" &&
	ROT_CUDA_METRICS=dram__bytes.sum,lts__t_bytes.sum ROT_CUDA_METRICS_OUT="$T/m" "$T/load" "$T/b/librot-cuda.so" 2>"$T/le"
st=$?
out=$(ls "$T"/m.* 2>/dev/null | head -n 1)
[ $st -eq 0 ] && [ -n "$out" ] && [ "$(head -n 1 "$out")" = "rotcudametrics 1" ] && grep -q "^metric 1 lts__t_bytes.sum$" "$out" &&
	grep -q "^error .*CUPTI" "$out" && [ "$(tail -n 1 "$out")" = "end" ] && ! ls "$T"/m.*.tmp >/dev/null 2>&1 &&
	echo "ok 9 - the metrics pass without a driver writes its output whole, with why it could not profile" ||
	{ echo "not ok 9 - metrics pass without a driver (status $st)"; sed 's/^/#   /' "$T/cc" "$T/le" $out; }
echo "1..9"
