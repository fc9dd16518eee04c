#!/bin/sh
# tests/gpu-verify/fetch-babelstream.sh [MIRROR]: BabelStream's source, for the device check of
# rot's CUDA library (cuda-apps.sh), into .device/BabelStream (git-ignored, carried to the device
# machine, which reaches no network). From its public repository when the network allows, else
# from MIRROR: a git repository of it (bare or not) already on this machine. Only its src/ is
# kept, and COMMIT says which commit and from where. Run it here, before the device run.
# Exits 1 when neither source gives it; nothing half-fetched is left.
URL=https://github.com/UoB-HPC/BabelStream
cd "$(git rev-parse --show-toplevel)" || exit 2
excl=$(git rev-parse --git-path info/exclude) && mkdir -p .device "$(dirname "$excl")" || exit 2
grep -qx '/.device/' "$excl" 2>/dev/null || echo '/.device/' >>"$excl"
tmp=$(mktemp -d .device/BabelStream.tmp.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT
# take GITDIR FROM: its HEAD's src/ into $tmp, and the commit it was
take() {
	commit=$(git --git-dir="$1" rev-parse HEAD 2>/dev/null) &&
		git --git-dir="$1" archive HEAD src | tar -x -C "$tmp" &&
		[ -f "$tmp/src/main.cpp" ] && [ -f "$tmp/src/cuda/CUDAStream.cu" ] &&
		echo "$commit $2" >"$tmp/COMMIT"
}
if GIT_TERMINAL_PROMPT=0 timeout 60 git clone -q --bare --depth 1 "$URL" "$tmp/clone.git" 2>/dev/null &&
	take "$tmp/clone.git" "$URL"; then
	:
elif [ -n "$1" ] && { [ -d "$1/.git" ] && take "$1/.git" "$1" || take "$1" "$1"; }; then
	:
else
	echo "rot: cannot fetch BabelStream: $URL is out of reach${1:+ and '$1' holds no BabelStream}" >&2
	[ -z "$1" ] && echo "hint: give a local copy of its repository: $0 /path/to/BabelStream" >&2
	exit 1
fi
rm -rf "$tmp/clone.git" .device/BabelStream
mv "$tmp" .device/BabelStream || exit 1
trap - EXIT
echo "BabelStream $(cut -c1-12 .device/BabelStream/COMMIT) into .device/BabelStream"
