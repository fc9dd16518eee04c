#!/bin/sh
# Unit tests of run records and comparisons (rot.history, rot.compare) without measuring anything.
# judges no time
cd "$(dirname "$0")/.." || exit 1
export XDG_CONFIG_HOME="$(mktemp -d)"
export ROT_TEST_TMP="$(mktemp -d)"
trap 'rm -rf "$XDG_CONFIG_HOME" "$ROT_TEST_TMP"' EXIT
./rot run tests/lua/history.lua
