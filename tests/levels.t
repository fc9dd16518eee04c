#!/bin/sh
# Topology (hwloc XML fixtures) and memory-level detection (recorded staircases) on machines
# unlike this one: no cache information, an oversized L3, ordinary ones, a slope past the last cache.
# judges no time
cd "$(dirname "$0")/.." || exit 1
export XDG_CONFIG_HOME="$(mktemp -d)"
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
./rot run tests/lua/levels.lua
