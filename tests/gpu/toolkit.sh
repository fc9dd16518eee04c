# toolkit.sh: sourced by the compiled-code tests (tests/ptx*.t): the repo root as cwd, a skip
# line without the CUDA toolkit, a private config and a temp dir T removed on exit.
cd "$(dirname "$0")/.." || exit 1
if [ ! -x /usr/local/cuda/bin/nvcc ] || [ ! -x /usr/local/cuda/bin/ptxas ]; then
	echo "1..0 # SKIP the CUDA toolkit (nvcc, ptxas) is not at /usr/local/cuda"
	exit 0
fi
export XDG_CONFIG_HOME="$(mktemp -d)"
T=$(mktemp -d)
trap 'rm -rf "$T" "$XDG_CONFIG_HOME"' EXIT
