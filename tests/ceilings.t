#!/bin/sh
# Ceilings from rounds on recorded staircases: the best round, its spread, the unstable
# marking in peaks.csv and in the limiter of the points it bounds.
# judges no time
cd "$(dirname "$0")/.." || exit 1
export XDG_CONFIG_HOME="$(mktemp -d)"
export ROT_TEST_TMP="$(mktemp -d)"
export HWLOC_XMLFILE="$PWD/tests/fixtures/topology/nocache.xml" # two PUs, no cache reported
trap 'rm -rf "$XDG_CONFIG_HOME" "$ROT_TEST_TMP"' EXIT
./rot run tests/lua/ceilings.lua
