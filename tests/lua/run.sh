#!/bin/sh
# tests/lua/run.sh TEST.lua: one Lua test through the driver (rot run: the real rot modules, and
# this folder's helpers tap and fakerot beside it); tests/harness.pl runs every Lua test so. Each
# gets a configuration and a scratch folder of its own (XDG_CONFIG_HOME, ROT_TEST_TMP); a line
# "-- topology: NAME" in its head comment runs it on tests/fixtures/topology/NAME.xml (HWLOC_XMLFILE).
case $1 in
/*) test=$1 ;;
*) test=$PWD/$1 ;;
esac
cd "$(dirname "$0")/../.." || exit 1
export XDG_CONFIG_HOME="$(mktemp -d)"
export ROT_TEST_TMP="$(mktemp -d)"
trap 'rm -rf "$XDG_CONFIG_HOME" "$ROT_TEST_TMP"' EXIT
topology=$(sed -n '/^--/!q; s/^-- topology: \([A-Za-z0-9_-]*\)$/\1/p' "$test")
if [ -n "$topology" ]; then
	export HWLOC_XMLFILE="$PWD/tests/fixtures/topology/$topology.xml"
fi
./rot run "$test"
