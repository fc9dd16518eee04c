#!/bin/sh
# rot.protocol as the driver gives it to a script (rot run): the protocol core/protocol.h and
# the result vocabulary core/vocabulary.h declare (read from the headers here, not restated),
# and rules checked by the core's own parser (tests/unit/lprotocol.c checks the rest).
# judges no time
. "$(dirname "$0")/lib.sh"
declared() { # declared TABLE: the names X-macro TABLE declares (its entries' first strings), comma-separated
	sed -n "/^#define $1(X)/,/^\$/p" core/protocol.h core/vocabulary.h | grep -o 'X([A-Z_0-9]*, "[^"]*"' |
		sed 's/.*"\(.*\)"/\1/' | paste -sd, -
}
cat >"$T/p.lua" <<'EOF2'
local p = require "rot.protocol"
local function names(t, f) local o = {} for i, e in ipairs(t) do o[i] = e[f] end return table.concat(o, ",") end
print("input " .. table.concat(p.input, ","))
print("failures " .. table.concat(p.failures, ","))
print("meta " .. names(p.meta, "name"))
print("row " .. names(p.row, "key"))
print("child " .. p.syntax.child)
print("rule ok " .. tostring(p.check_rule("runStart flush every=2")))
print("rule bad " .. tostring(select(2, p.check_rule("runStrat flush"))))
EOF2
"$ROOT/rot" run "$T/p.lua" >"$T/o" 2>"$T/e"
ok $? "rot run: a script requires rot.protocol"
for t in input:PROTOCOL_INPUT failures:PROTOCOL_FAILURES meta:PROTOCOL_META row:RESULT_ROW; do
	want=$(declared "${t#*:}")
	test -n "$want" && grep -qxF "${t%%:*} $want" "$T/o"
	ok $? "${t%%:*}: the names ${t#*:} declares, in order ($(echo "$want" | cut -c1-60)...)"
done
contains "$T/o" "^child child each|shared$" "a key's syntax"
contains "$T/o" "^rule ok true$" "a rule the core accepts"
contains "$T/o" "^rule bad rule 'runStrat flush': unknown event 'runStrat'$" "a rule it refuses, with its words"
# a measured point's row and its application's rows carry only fields the vocabulary declares
cat >"$T/m.lua" <<'EOF2'
local rot = require "rot"
local res = rot.measure(rot.space { rot.axis("n", { 64 }) }, function(p) return { kernel = "triad", params = { n = p.n } } end)
res:bounds()
local odd = require("rot.results.row").undeclared(res.rows[1])
print("undeclared " .. table.concat(odd, " "))
EOF2
rot measure "$T/m.lua" -runs=1 -maxRuns=1 -bestK=1 >"$T/o" 2>"$T/e"
ok $? "a script measures a point"
contains "$T/o" "^undeclared $" "its row carries only fields RESULT_ROW declares"
done_testing
