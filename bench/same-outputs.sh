#!/bin/sh
# bench/same-outputs.sh REV [MEASUREMENT [ARG ...]]: whether a cached rerun writes the same
# outputs with this checkout as with revision REV (a speed-up must change no byte): the table on
# stdout (its timing line aside), what it says on stderr, and every file it writes (CSV, JSON,
# the plots' .dat and .gp, SVG and PNG). REV is built in a temporary worktree; both use this
# checkout's cache, so they read the same points (REV runs first and last: any point it had to
# measure is a hit for the other two). Exits 0 when they are the same, 1 with the differences.
cd "$(dirname "$0")/.." || exit 1
[ -n "$1" ] || { echo "usage: bench/same-outputs.sh REV [MEASUREMENT [ARG ...]]" >&2; exit 2; }
rev=$1
shift
[ $# -gt 0 ] || set -- triad
T=$(mktemp -d /tmp/rot-same.XXXXXX)
trap 'git worktree remove --force "$T/rev" >/dev/null 2>&1; rm -rf "$T"' EXIT
git worktree add --detach "$T/rev" "$rev" >/dev/null 2>&1 || { echo "same-outputs: no revision '$rev'" >&2; exit 2; }
make -s -C "$T/rev" driver >/dev/null || { echo "same-outputs: '$rev' does not build" >&2; exit 2; }
# measure_with CHECKOUT NAME MEASUREMENT...: its cached rerun into $T/NAME (timings cut)
measure_with() {
	c=$1 n=$2
	shift 2
	mkdir -p "$T/$n/out"
	"$c/rot" -outputDir="$T/$n/out" -progress=never measure "$@" >"$T/$n/stdout" 2>"$T/$n/stderr"
	echo "exit $?" >>"$T/$n/stderr"
	sed -i '/^rot: [0-9]* points, cache: /s/; time: .*//' "$T/$n/stdout" "$T/$n/stderr"
}
measure_with "$T/rev" first "$@"
measure_with "$(pwd)" this "$@"
measure_with "$T/rev" before "$@"
if diff -r "$T/before" "$T/this" >"$T/diff"; then
	echo "same outputs as $rev: $(ls "$T/this/out" | wc -l) files, stdout and stderr ($*)"
	exit 0
fi
echo "outputs differ from $rev ($*):"
head -n 40 "$T/diff"
exit 1
