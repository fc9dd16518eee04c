#!/bin/sh
# The read kernel's code: eight independent partial sums in its loop and a tree, not a chain,
# after it (recorded x86-64 code of both machine kinds, and sum compiled here by rot asm).
cd "$(dirname "$0")/.." || exit 1
export XDG_CONFIG_HOME="$(mktemp -d)"
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
./rot run tests/lua/reduction.lua
