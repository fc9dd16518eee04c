#!/bin/sh
# Lua-level unit tests, run through the driver so they use the real rot modules.
# judges no time
cd "$(dirname "$0")/.." || exit 1
export XDG_CONFIG_HOME="$(mktemp -d)"
exec ./rot run tests/lua/unit.lua
