#!/bin/sh
# rot.protocol as the driver gives it to a script (rot run): the protocol core/protocol.h
# declares, and rules checked by the core's own parser (tests/unit/lprotocol.c checks the rest).
. "$(dirname "$0")/lib.sh"
cat >"$T/p.lua" <<'EOF2'
local p = require "rot.protocol"
print("input " .. table.concat(p.input, ","))
print("failures " .. table.concat(p.failures, ","))
print("child " .. p.syntax.child)
print("rule ok " .. tostring(p.check_rule("runStart flush every=2")))
print("rule bad " .. tostring(select(2, p.check_rule("runStrat flush"))))
EOF2
"$ROOT/rot" run "$T/p.lua" >"$T/o" 2>"$T/e"
ok $? "rot run: a script requires rot.protocol"
contains "$T/o" "^input workload,kernel,param,counter,gpumetric,rule,runs,bestK,bestEpsilon,maxRuns,minRunTime,cacheMode,timeout,ignoreDisturbed,child,app,arg,env,dir$" "the input keys, in order"
contains "$T/o" "^failures input,nodevice,signal,timeout,leftover,exit,kernel,profile,setup,markers$" "the failure kinds"
contains "$T/o" "^child child each|shared$" "a key's syntax"
contains "$T/o" "^rule ok true$" "a rule the core accepts"
contains "$T/o" "^rule bad rule 'runStrat flush': unknown event 'runStrat'$" "a rule it refuses, with its words"
done_testing
