#!/bin/sh
# Unit tests of rot compare's verdict rules and the source store (tests/lua/verdicts.lua).
# judges no time
cd "$(dirname "$0")/.." || exit 1
export XDG_CONFIG_HOME="$(mktemp -d)"
export ROT_TEST_TMP="$(mktemp -d)"
trap 'rm -rf "$XDG_CONFIG_HOME" "$ROT_TEST_TMP"' EXIT
./rot run tests/lua/verdicts.lua
