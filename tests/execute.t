#!/bin/sh
# Unit tests of the execution half (executor contract, batch, outcome policy) without a real core.
# judges no time
cd "$(dirname "$0")/.." || exit 1
export XDG_CONFIG_HOME="$(mktemp -d)"
export ROT_TEST_TMP="$(mktemp -d)"
trap 'rm -rf "$XDG_CONFIG_HOME" "$ROT_TEST_TMP"' EXIT
./rot run tests/lua/execute.lua
