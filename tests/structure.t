#!/bin/sh
# The shape a newcomer can rely on: no Lua file over 450 lines, no C file over 600, no C or Lua
# function over 80 lines (tables aside), no require cycle among lua/rot's modules and none of a
# later stage, a head comment on every module, the result vocabulary spelled once. Each check
# names what breaks it.
cd "$(dirname "$0")/.." || exit 1
n=0
fails=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }

big=$(find lua -name '*.lua' -exec wc -l {} + | awk '$2 != "total" && $1 > 450 { print $2 " (" $1 ")" }')
test -z "$big"
ok $? "no Lua file over 450 lines${big:+: $big}"

big=$(find core driver -name '*.c' -exec wc -l {} + | awk '$2 != "total" && $1 > 600 { print $2 " (" $1 ")" }')
test -z "$big"
ok $? "no C file over 600 lines${big:+: $big}"

# a function: from a line opening it at column 0 ('{' alone, after a signature) to the '}' at
# column 0 that closes it; initializers of tables (= { ... };) are not functions
long=$(for f in core/*.c driver/*.c kernels/cpu/*.c tests/unit/*.c; do
	awk -v f="$f" '/^\{$/ && prev !~ /=[ ]*$/ { start = NR; name = prev; next }
		/^\}/ && start { if (NR - start + 1 > 80) print f ":" start " " name " (" NR - start + 1 " lines)"; start = 0 }
		{ prev = $0 }' "$f"
done)
test -z "$long"
ok $? "no C function over 80 lines${long:+: $long}"

# a Lua function: from its function keyword to the end that closes it (tests/lua/functions.lua, a
# small Lua lexer run by the driver)
long=$(./rot run tests/lua/functions.lua 80 lua 2>&1 | tr '\n' ' ')
test -z "$long"
ok $? "no Lua function over 80 lines${long:+: $long}"

# the module graph of lua/rot: every require of a rot module, from the top or inside a function
graph=$(find lua/rot -name '*.lua' | while read -r f; do
	m=$(echo "$f" | sed -e 's|^lua/||' -e 's|/init\.lua$||' -e 's|\.lua$||' -e 's|/|.|g')
	grep -o 'require[ (]*"rot[a-z_.]*"' "$f" | sed 's/.*"\(.*\)"/\1/' | while read -r d; do
		[ -f "lua/$(echo "$d" | tr . /).lua" ] || [ -f "lua/$(echo "$d" | tr . /)/init.lua" ] || continue
		[ "$d" = "$m" ] || echo "$m $d"
	done
done)
cycle=$(echo "$graph" | tsort 2>&1 >/dev/null | head -n 3 | tr '\n' ' ')
test -z "$cycle"
ok $? "no require cycle among lua/rot's modules${cycle:+: $cycle}"
# the stages in the order a point goes through them: a module's stage is its folder under lua/rot
# (the shared context: util, session, csv, profile; space is describe's, rot itself the cli's).
# Each may require the shared context and the stages before it, never a later one: a later
# stage's work reaches an earlier one only through what it is handed (an executor's plan, the
# rot module a measurement is given). So describe requires nothing of build.
order="shared machine describe build gpu execute count plot results history compare models cli"
later=$(echo "$graph" | awk -v order="$order" '
	function stage(m, a) {
		if (m ~ /^rot\.(util|session|csv|profile)$/) return "shared"
		if (m == "rot.space") return "describe"
		if (m == "rot") return "cli"
		split(m, a, ".")
		return a[2]
	}
	BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
	{
		s = stage($1); t = stage($2)
		if (!(s in rank)) print $1 " (in no stage)"
		else if (!(t in rank)) print $2 " (in no stage)"
		else if (rank[t] > rank[s]) print $1 " -> " $2
	}' | sort -u | head -n 5 | tr '\n' ' ')
test -n "$graph" && test -z "$later"
ok $? "no stage requires a later one ($order)${later:+: $later}"

nohead=$(for f in $(find lua/rot -name '*.lua') core/*.[ch] driver/*.[ch]; do
	head -n 1 "$f" | grep -qE '^(--|/\*)' || echo "$f"
done)
test -z "$nohead"
ok $? "every module says what it owns in its first lines${nohead:+: $nohead}"
# the result vocabulary is declared once (core/vocabulary.h): the core's writers and the driver's
# readers of records spell no record word of their own; the GPU side (no GPU here to run it)
# spells its meta keys, each of which must be declared there
gpu="core/gpu.c core/gpuprof.c core/device_gpu.c"
words=$(grep -n '"\(meta\|run\|status\|error\|stderr\|region\) \|\\n\(meta\|run\|status\) ' core/*.c driver/cache.c driver/lrecords.c |
	grep -v '^core/gpu\|^core/device_gpu' | grep -v '^[^:]*:[0-9]*:[[:space:]]*\(/\*\|\*\)' | grep -v "region '%s'" | cut -c1-80)
test -z "$words"
ok $? "no record word spelled in the core's writers or the driver's readers${words:+: $words}"
undeclared=$(grep -ho '\("\|\\n\)meta [A-Za-z][A-Za-z0-9]*\(%d\)\?' $gpu | sed 's/^.*meta //' | sort -u |
	while read -r k; do grep -qF "\"$k\"," core/vocabulary.h || echo "$k"; done | tr '\n' ' ')
test -z "$undeclared"
ok $? "every meta key the GPU side writes by name is declared in core/vocabulary.h${undeclared:+: $undeclared}"
# README's stage map (its "How rot is built" section) names every file under lua/rot, driver and
# core: a file is named in a cell, or a part of one between semicolons, that holds its folder
# (`lua/rot/describe/`) and its name (`app.lua`, or `measure.[ch]` for a .c and .h pair)
segments=$(sed -n '/^## How rot is built$/,/^## /p' README.md | tr ';|' '\n\n')
unnamed=$(find lua/rot driver core -type f | sort | while read -r f; do
	d=${f%/*}/ b=${f##*/}
	echo "$segments" | grep -F "\`$d\`" | grep -qF -e "\`$b\`" -e "\`${b%.[ch]}.[ch]\`" || echo "$f"
done | tr '\n' ' ')
test -n "$segments" && test -z "$unnamed"
ok $? "README's stage map (How rot is built) names every file under lua/rot, driver and core${unnamed:+: $unnamed}"
# the rot frontend rebuilds the driver when a core file it is built from changes: every core file
# the driver's objects read (their dependency files) is a module of the Makefile's one list
mods=$(sed -n 's/^DRIVER_CORE_MODULES := //p' Makefile)
read=$(cat build/driver/*.d 2>/dev/null | tr ' \\' '\n\n' | sed -n 's/^\(core\/[^:]*\):*$/\1/p' | sort -u)
unlisted=$(for f in $read; do
	b=${f##*/}
	case " $mods " in *" ${b%.[ch]} "*) ;; *) echo "$f" ;; esac
done | tr '\n' ' ')
test -n "$mods" && test -n "$read" && test -z "$unlisted"
ok $? "every core file the driver is built from is in DRIVER_CORE_MODULES (what rot checks)${unlisted:+: $unlisted}"
echo "1..$n"
[ $fails -eq 0 ]
