#!/bin/sh
# The step from the last cache to DRAM, bounded by the peaks' sweep: on a sharp step
# (reconstructed from an Intel guest's figures) and a gradual fall (recorded on an EPYC guest).
cd "$(dirname "$0")/.." || exit 1
export XDG_CONFIG_HOME="$(mktemp -d)"
export ROT_TEST_TMP="$(mktemp -d)"
export HWLOC_XMLFILE="$PWD/tests/fixtures/topology/epyc-kvm.xml"
trap 'rm -rf "$XDG_CONFIG_HOME" "$ROT_TEST_TMP"' EXIT
./rot run tests/lua/step.lua
