#!/bin/sh
# Machines unlike this one (hwloc XML in HWLOC_XMLFILE): their topology is read from the XML;
# machines with different fingerprints sharing one cache directory never see each other's
# results; rot cache lists them per machine. (A guest without cache information measured:
# tests/e2e/machines.t.)
# judges no time
. "$(dirname "$0")/lib.sh"
FX="$ROOT/tests/fixtures/topology"

# topology from hwloc, and from the XML a test names
HWLOC_XMLFILE="$FX/ordinary.xml" "$ROOT/rot" run "$ROOT/tests/e2e/print-machine.lua" >"$T/o" 2>"$T/e"
contains "$T/o" "pus 16 cores 8 numa 2" "HWLOC_XMLFILE simulates another machine (16 PUs, 2 NUMA nodes)"
contains "$T/o" "L3 31457280" "its caches come from the topology"
HWLOC_XMLFILE="$FX/vm-oversized-l3.xml" "$ROOT/rot" run "$ROOT/tests/e2e/print-machine.lua" >"$T/o" 2>"$T/e"
contains "$T/o" '^model "Oxide Virtual Turin-like Processor"$' "a CPU name CPUID pads with blanks is used without them (plot titles, JSON)"
"$ROOT/rot" run "$ROOT/tests/e2e/print-machine.lua" >"$T/o" 2>"$T/e"
grep -q "^pus $(nproc) " "$T/o"
ok $? "without it, the topology is this machine's ($(nproc) PUs)"
HWLOC_XMLFILE="$T/nope.xml" "$ROOT/rot" run "$ROOT/tests/e2e/print-machine.lua" >"$T/o" 2>"$T/e"
test $? -ne 0 && grep -q "^rot: hwloc cannot read the topology from '$T/nope.xml'" "$T/e"
ok $? "an unreadable topology file is a clear error"

# two machines, one cache directory: no hits across fingerprints
rot measure triad -quick=true >"$T/o" 2>&1
contains "$T/o" "cache: 0 hits, 6 measured" "this machine measures its points"
HWLOC_XMLFILE="$FX/vm-oversized-l3.xml" rot measure triad -quick=true >"$T/o" 2>&1
contains "$T/o" "cache: 0 hits, 6 measured" "another machine sharing the cache directory sees none of them as hits"
rot measure triad -quick=true >"$T/o" 2>&1
contains "$T/o" "cache: 6 hits, 0 measured" "back on this machine: all hits"
rot cache >"$T/o" 2>&1
test "$(grep -c '^machine ' "$T/o")" -eq 2
ok $? "rot cache lists the entries per machine"
grep -q "^machine .* (this one): 6 entries" "$T/o"
ok $? "and says which machine is this one"
rot measure triad -quick=true -machineIdentity=hostname >"$T/o" 2>&1
contains "$T/o" "cache: 0 hits, 6 measured" "-machineIdentity=hostname keeps results per host"
done_testing
