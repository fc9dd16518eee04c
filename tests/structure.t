#!/bin/sh
# The shape a newcomer can rely on: no Lua file over 450 lines, no C file over 600 (headers
# too), no C or Lua function over 80 lines (tables aside), Lua lines of 120 characters at most
# (counted, not yet enforced), no require cycle among lua/rot's modules and none of a later
# layer, no history in comments, a head comment on every module, every Lua test named after what
# it tests, the result vocabulary spelled once, a layer map that names every file, README a way
# in to docs/ whose links all lead somewhere, docs in short sentences. Each check names what
# breaks it; docs/conventions.md says why each holds.
# judges no time
cd "$(dirname "$0")/.." || exit 1
n=0
fails=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
# the C of the tree, headers and CUDA too: the core with its counting tool and marker recorder,
# the driver, the kernels and the unit tests
csrc=$(find core driver kernels tests/unit \( -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' \) | sort)

big=$(find lua -name '*.lua' -exec wc -l {} + | awk '$2 != "total" && $1 > 450 { print $2 " (" $1 ")" }')
test -z "$big"
ok $? "no Lua file over 450 lines${big:+: $big}"

big=$(echo "$csrc" | xargs wc -l | awk '$2 != "total" && $1 > 600 { print $2 " (" $1 ")" }')
test -n "$csrc" && test -z "$big"
ok $? "no C file over 600 lines${big:+: $big}"

# a function: from a line opening it at column 0 ('{' alone, after a signature) to the '}' at
# column 0 that closes it; initializers of tables (= { ... };) are not functions
long=$(for f in $csrc; do
	awk -v f="$f" '/^\{$/ && prev !~ /=[ ]*$/ { start = NR; name = prev; next }
		/^\}/ && start { if (NR - start + 1 > 80) print f ":" start " " name " (" NR - start + 1 " lines)"; start = 0 }
		{ prev = $0 }' "$f"
done)
test -z "$long"
ok $? "no C function over 80 lines${long:+: $long}"

# Lua lines at most 120 characters, in every Lua file of the tree (else width absorbs the
# length caps above)
lua_width=120
wide=$(find lua tests bench -name '*.lua' -not -path 'tests/fixtures/*' | sort | xargs perl -CSD -ne \
	'chomp; print "$ARGV:$. (" . length . ")\n" if length > '"$lua_width"'; close ARGV if eof')
count=$(echo "$wide" | grep -c .)
first=$(echo "$wide" | sort -t'(' -k2 -rn | head -n 3 | tr '\n' ' ')
test -z "$wide"
ok $? "no Lua line over $lua_width characters${wide:+: $count, $first}"

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
# the layers in the order a point goes through them: a module's layer is its folder under lua/rot
# (the shared context: util, session, csv, selfprofile; space is describe's, rot itself the cli's).
# Each may require the shared context and the layers before it, never a later one: a later
# layer's work reaches an earlier one only through what it is handed (an executor's plan, the
# rot module a measurement is given). So describe requires nothing of build.
order="shared machine describe build gpu execute count plot results history compare models peaks cli"
later=$(echo "$graph" | awk -v order="$order" '
	function layer(m, a) {
		if (m ~ /^rot\.(util|session|csv|selfprofile)$/) return "shared"
		if (m == "rot.space") return "describe"
		if (m == "rot") return "cli"
		split(m, a, ".")
		return a[2]
	}
	BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
	{
		s = layer($1); t = layer($2)
		if (!(s in rank)) print $1 " (in no layer)"
		else if (!(t in rank)) print $2 " (in no layer)"
		else if (rank[t] > rank[s]) print $1 " -> " $2
	}' | sort -u | head -n 5 | tr '\n' ' ')
test -n "$graph" && test -z "$later"
ok $? "no layer requires a later one ($order)${later:+: $later}"

# comments say what is and why; history lives in commits and one machine's figures in docs: no
# issue number, no analysis version told by number (its constant is code, not a comment), no
# measured figure beside a machine's name. Comments: Lua's -- and --[[ ]], C's /* */ and //, and #
# in shell and Perl, of lua, core, driver, kernels and tests (its fixtures are data)
comments=$(find lua core driver kernels tests -type f \( -name '*.lua' -o -name '*.[ch]' -o -name '*.cu' \
	-o -name '*.sh' -o -name '*.t' -o -name '*.pl' \) -not -path 'tests/fixtures/*' | sort | xargs awk '
	function out(s) { if (s ~ /[^[:space:]]/) print FILENAME ":" FNR ": " s }
	FNR == 1 { inblock = 0; inc = 0; lang = FILENAME ~ /\.lua$/ ? "lua" : FILENAME ~ /\.(c|h|cu)$/ ? "c" : "sh" }
	lang == "lua" {
		line = $0
		if (inblock) {
			j = index(line, "]]")
			if (!j) { out(line); next }
			out(substr(line, 1, j - 1)); inblock = 0; line = substr(line, j + 2)
		}
		i = index(line, "--")
		if (!i || substr(line, i - 1, 1) ~ /["\047]/) next
		rest = substr(line, i + 2)
		if (substr(rest, 1, 2) != "[[") { out(rest); next }
		rest = substr(rest, 3); j = index(rest, "]]")
		if (j) out(substr(rest, 1, j - 1)); else { out(rest); inblock = 1 }
		next
	}
	lang == "c" {
		line = $0
		while (line != "") {
			if (inc) {
				j = index(line, "*/")
				if (!j) { out(line); break }
				out(substr(line, 1, j - 1)); inc = 0; line = substr(line, j + 2); continue
			}
			i = index(line, "/*"); k = index(line, "//")
			if (k && (!i || k < i) && substr(line, k - 1, 1) != ":") { out(substr(line, k + 2)); break }
			if (!i) break
			line = substr(line, i + 2); inc = 1
		}
		next
	}
	FNR > 1 || $0 !~ /^#!/ {
		if (match($0, /^[[:space:]]*#/) || match($0, /[[:space:]]#[[:space:]]/)) out(substr($0, RSTART + RLENGTH))
	}')
machine='(^|[^a-z0-9_./-])(guest|zen ?[0-9]|epyc|kvm|sapphire|golden cove|xeon|h100|h200|a100|vcpus?)([^a-z0-9_./-]|$)'
figure='[0-9][0-9.,]* ?(gb/s|gib/s|mb/s|ghz|mhz|tflop/s|gflop/s|ns|us|ms|cycles?|%|mib|kib|gib|s)([^a-z]|$)|x[0-9]'
history=$( (echo "$comments" | grep -iE 'issues? #?[0-9]+([^.0-9]|\.([^0-9]|$)|$)|before analysis|analysis [0-9]'
	echo "$comments" | grep -iE "$machine" | grep -iE "$figure") | cut -d: -f1-2 | head -n 5 | tr '\n' ' ')
test -n "$comments" && test -z "$history"
ok $? "no history in comments (issue numbers, analysis versions, one machine's figures)${history:+: $history}"
nohead=$(for f in $(find lua/rot -name '*.lua') $csrc; do
	head -n 1 "$f" | grep -qE '^(--|/\*)' || echo "$f"
done)
test -z "$nohead"
ok $? "every module says what it owns in its first lines${nohead:+: $nohead}"
# a Lua test is named after what it tests, its path with dots for slashes: a module
# (rot.results.quantities.lua: lua/rot/results/quantities.lua), a layer (rot.execute.lua:
# lua/rot/execute/) or another file (kernels.cpu.sum.lua: kernels/cpu/sum.c)
misnamed=$(for f in tests/lua/*.*.lua; do
	p=$(basename "$f" .lua | tr . /)
	[ -e "lua/$p.lua" ] || [ -d "lua/$p" ] || ls "$p".* >/dev/null 2>&1 || echo "$f"
done | tr '\n' ' ')
test -z "$misnamed"
ok $? "every Lua test is named after the module, layer or file it tests${misnamed:+: $misnamed}"
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
# the layer map, file by file (docs/architecture.md, its "Layers" section), names every file under
# lua/rot, driver and core: a file is named in a cell, or a part of one between semicolons, that
# holds its folder (`lua/rot/describe/`) and its name (`app.lua`, or `measure.[ch]` for a .c and
# .h pair)
segments=$(sed -n '/^## Layers$/,/^## /p' docs/architecture.md | tr ';|' '\n\n')
unnamed=$(find lua/rot driver core -type f | sort | while read -r f; do
	d=${f%/*}/ b=${f##*/}
	echo "$segments" | grep -F "\`$d\`" | grep -qF -e "\`$b\`" -e "\`${b%.[ch]}.[ch]\`" || echo "$f"
done | tr '\n' ' ')
test -n "$segments" && test -z "$unnamed"
ok $? "the layer map (docs/architecture.md, Layers) names every file under lua/rot, driver and core${unnamed:+: $unnamed}"
# README's short map (its "How rot is built" section) has a line for each layer of the full map,
# and none for a layer the full map does not have
layers() { sed -n "/^## $2\$/,/^## /p" "$1" | awk -F ' [|] ' '/^[|] / && !/^[|] (layer|---) / { sub(/^[|] /, "", $1); print $1 }' | sort; }
full=$(layers docs/architecture.md Layers)
short=$(layers README.md "How rot is built")
odd=$(printf '%s\n%s\n' "$full" "$short" | sort | uniq -u | tr '\n' ' ')
test -n "$full" && test "$full" = "$short"
ok $? "README's layer map has a line for each layer of docs/architecture.md's, no other${odd:+: $odd}"
# README is a way in: at most 200 lines, a link to every page of docs/
lines=$(wc -l <README.md)
unlinked=$(for f in docs/*.md; do grep -qF -e "](docs/${f#docs/})" -e "](docs/${f#docs/}#" README.md || echo "$f"; done | tr '\n' ' ')
test "$lines" -le 200 && test -z "$unlinked"
ok $? "README is a way in: $lines lines (at most 200), a link to every docs page${unlinked:+; no link to: $unlinked}"
# every link of README and docs/ (outside code) to a file of the tree leads to one, and to a
# heading of it where it names one (its anchor as GitHub makes it: lower case, punctuation dropped,
# spaces to hyphens)
anchors() { awk '/^```/ { c = !c; next } !c && /^#+ / { sub(/^#+ /, ""); print }' "$1" |
	tr 'A-Z' 'a-z' | sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'; }
links() { awk '/^```/ { c = !c; next } !c { s = $0; gsub(/`[^`]*`/, "", s); while (match(s, /\]\([^) ]+\)/)) { print substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, RSTART + RLENGTH) } }' "$1"; }
broken=$(for f in README.md docs/*.md; do
	links "$f" | while read -r l; do
		case $l in *://*) continue ;; esac
		p=${l%%#*} a=${l#*#}
		[ "$a" != "$l" ] || a=""
		to=$(dirname "$f")/$p
		[ -n "$p" ] || to=$f
		{ [ -e "$to" ] && { [ -z "$a" ] || anchors "$to" | grep -qxF "$a"; }; } || echo "$f: $l"
	done
done | tr '\n' ' ')
test -z "$broken"
ok $? "every link of README and docs/ leads to a file and heading that exist${broken:+: $broken}"
# the docs read aloud: every page of README and docs/ in short sentences, as tests/prose.pl reads
# them (code blocks, tables' code, URLs and command lines are no sentences): a page's median and
# 90th-percentile sentence, any one sentence (but those prose.pl allows, each with its reason), a
# paragraph or list item, a table cell
limits=$(perl tests/prose.pl --limits)
long=$(perl tests/prose.pl --check README.md docs/*.md)
test $? -eq 0 && test -n "$limits"
ok $? "README and docs/ in short sentences ($limits)${long:+: $(echo "$long" | head -n 5 | tr '\n' ' ')}"
# and that check refuses what it is for: a 45-word sentence, a 150-word paragraph and a 250-character cell
sample=$(mktemp)
{
	printf 'One sentence%s, then its end.\n\n' "$(printf ' and more' | awk '{ for (i = 0; i < 20; i++) printf "%s", $0 }')"
	awk 'BEGIN { for (i = 0; i < 35; i++) printf "Four words a sentence. "; print "" }'
	printf '\n| a | b |\n| --- | --- |\n| %s | x |\n' "$(awk 'BEGIN { for (i = 0; i < 50; i++) printf "cell " }')"
} >"$sample"
refused=$(perl tests/prose.pl --check "$sample" | sed "s|^$sample: ||")
rm -f "$sample"
echo "$refused" | grep -q '^a sentence of 45 words' && echo "$refused" | grep -q '^a paragraph of 1[0-9][0-9] words' &&
	echo "$refused" | grep -q '^a table cell of 2[0-9][0-9] characters'
ok $? "tests/prose.pl refuses a long sentence, paragraph and table cell ($(echo "$refused" | cut -d' ' -f1-6 | tr '\n' ';'))"
# the rot frontend rebuilds the driver when a core file it is built from changes: every core file
# the driver's objects read (their dependency files) is a module of the Makefile's one list (its
# path under core/, without .c or .h)
mods=$(sed -n 's/^DRIVER_CORE_MODULES := //p' Makefile)
read=$(cat build/driver/*.d 2>/dev/null | tr ' \\' '\n\n' | sed -n 's/^\(core\/[^:]*\):*$/\1/p' | sort -u)
unlisted=$(for f in $read; do
	b=${f#core/}
	case " $mods " in *" ${b%.[ch]} "*) ;; *) echo "$f" ;; esac
done | tr '\n' ' ')
test -n "$mods" && test -n "$read" && test -z "$unlisted"
ok $? "every core file the driver is built from is in DRIVER_CORE_MODULES (what rot checks)${unlisted:+: $unlisted}"
echo "1..$n"
[ $fails -eq 0 ]
