#!/bin/sh
# The commands around measuring: list, help, config, cache, completion, progress.
# judges no time
. "$(dirname "$0")/lib.sh"

rot list >"$T/o" 2>&1
ok $? "list runs"
contains "$T/o" "^triad  *STREAM triad" "list shows triad with its description"
mkdir -p "$XDG_CONFIG_HOME/rot/measurements"
printf -- '-- my own study\n' >"$XDG_CONFIG_HOME/rot/measurements/mine.lua"
rot list >"$T/o" 2>&1
contains "$T/o" "^mine  *my own study" "list shows user measurements"
rot list --names >"$T/o"
contains "$T/o" "^mine$" "list --names prints bare names"
printf -- '-- a study over\n-- two lines\n--\n-- not this paragraph\nlocal x = 1\n' >"$XDG_CONFIG_HOME/rot/measurements/two.lua"
rot list >"$T/o" 2>&1
contains "$T/o" "^two  *a study over two lines$" "list shows a description's whole first paragraph, in one line"
! grep -q "not this paragraph" "$T/o"
ok $? "and only its first paragraph"
tr '\n' ' ' <"$T/o" | tr -s ' ' | grep -q "gpu-peaks the GPU's ceilings, measured: .* and the cost of one more kernel launch (rot.peaks.gpu does the measuring)"
ok $? "list shows gpu-peaks' description whole, its second comment line too"
rm "$XDG_CONFIG_HOME/rot/measurements/two.lua"

"$ROOT/rot" help >"$T/o" 2>&1
ok $? "help runs"
contains "$T/o" "measure NAME|PATH.lua" "help lists measure"
"$ROOT/rot" help cache >"$T/o" 2>&1
contains "$T/o" "usage: rot cache" "help COMMAND shows that command"
"$ROOT/rot" >"$T/o" 2>"$T/e"
st=$?
test $st -eq 2 && ! test -s "$T/o"
ok $? "no command: exit 2, nothing on stdout (exit $st)"
contains "$T/e" "commands:" "no command prints the usage on stderr"
"$ROOT/rot" --help >"$T/o" 2>&1
ok $? "--help exits 0"
"$ROOT/rot" help nope >"$T/o" 2>"$T/e"
test $? -eq 1 && grep -q "^rot: unknown command 'nope'" "$T/e" && grep -q "^hint: rot help lists the commands" "$T/e"
ok $? "help of an unknown command says so, with a hint"

# -- ends the options: what follows goes to the script verbatim
printf 'print("args:" .. table.concat({ ... }, "|"))\n' >"$T/args.lua"
rot run "$T/args.lua" a -- "-O2 -fno-tree-vectorize" -quick=true -h -- --x >"$T/o" 2>"$T/e"
test $? -eq 0 && grep -qx -- "args:a|-O2 -fno-tree-vectorize|-quick=true|-h|--|--x" "$T/o"
ok $? "rot run: every argument after -- reaches the script verbatim ($(cat "$T/o" "$T/e" | head -2 | tr '\n' ' '))"
rot measure "$T/args.lua" -- "-O2 -fno-tree-vectorize" >"$T/o" 2>"$T/e"
test $? -eq 0 && grep -qx -- "args:-O2 -fno-tree-vectorize" "$T/o"
ok $? "rot measure: an argument after -- that starts with - reaches the script"

printf 'bestK=4\n' >"$XDG_CONFIG_HOME/rot/config"
rot config -runs=9 >"$T/o" 2>&1
ok $? "config runs"
contains "$T/o" "^runs .*= 9 .*(command line)" "config shows a command-line value and its origin"
contains "$T/o" "^bestK .*= 4 .*config/rot/config:1)" "config shows a user-file value with file and line"
contains "$T/o" "^maxRuns .*(default)" "config shows a declared default"
! grep -q "site.conf" "$T/o"
ok $? "config/site.conf as shipped sets nothing: every default is the one driver/config.c declares"
contains "$T/o" "default 'warm', one of warm,cold" "config shows defaults and allowed values"
rm "$XDG_CONFIG_HOME/rot/config"

rot measure triad -quick=true -progress=always >"$T/o" 2>"$T/e"
grep -q "point 6/6" "$T/e"
ok $? "progress is shown on stderr when asked"
! grep -q "point [0-9]" "$T/o"
ok $? "progress never goes to stdout"
rot measure triad -quick=true >"$T/o" 2>"$T/e"
! grep -q "point [0-9]" "$T/e"
ok $? "no progress when stderr is not a terminal"
contains "$T/o" "time: build .* measure .* cache .* plot" "time accounting in the summary"

rot cache >"$T/o" 2>&1
contains "$T/o" "entries: 6" "cache shows its entries"
rot cache clear >"$T/o" 2>&1
contains "$T/o" "removed 6 cache entries" "cache clear removes them"
rot cache >"$T/o" 2>&1
contains "$T/o" "entries: 0" "cache is empty afterwards"

"$ROOT/rot" completion bash >"$T/comp" 2>&1
ok $? "completion bash runs"
bash -n "$T/comp"
ok $? "the completion script is valid bash"
contains "$T/comp" "-useCachedResults=" "completion knows the configuration keys"
out=$(bash -c ". '$T/comp'; COMP_WORDS=(rot mea); COMP_CWORD=1; _rot; echo \${COMPREPLY[*]}")
test "$out" = "measure"
ok $? "completion completes a command ($out)"
out=$(bash -c ". '$T/comp'; COMP_WORDS=('$ROOT/rot' measure tri); COMP_CWORD=2; _rot; echo \${COMPREPLY[*]}")
test "$out" = "triad"
ok $? "completion completes a measurement name ($out)"
# ROT_PROFILE=FILE: where rot's own time went, by function, slowest first
ROT_PROFILE="$T/prof" "$ROOT/rot" list >"$T/o" 2>&1
ok $? "a command under ROT_PROFILE runs as without it"
head -n 1 "$T/prof" | grep -q "^ms_inclusive ms_self function$" && grep -q " rot/cli/init.lua:[0-9]* " "$T/prof"
ok $? "and writes its profile: inclusive and self milliseconds per Lua function ($(sed -n 2p "$T/prof"))"
# stdout and stderr in one file: a message on stderr (after the session's quiet(), as rot's are)
# never lands inside a line of stdout (rows written in pieces past a buffer's 4 KiB)
cat >"$T/rows.lua" <<'L'
for i = 1, 200 do
  io.write(string.format("row %03d ", i), string.rep("x", 40)); io.write(" end\n")
  if i % 20 == 0 then require("rot.session").current():quiet(); io.stderr:write("rot: a message\n") end
end
L
"$ROOT/rot" run "$T/rows.lua" >"$T/both" 2>&1
test "$(grep -c '^row [0-9]* x* end$' "$T/both")" -eq 200 && test "$(grep -c '^rot: a message$' "$T/both")" -eq 10
ok $? "stdout and stderr in one file: every row whole, every message on a line of its own"
done_testing
