#!/bin/sh
# The commands around measuring: list, help, config, cache, completion, progress.
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

"$ROOT/rot" help >"$T/o" 2>&1
ok $? "help runs"
contains "$T/o" "measure NAME|PATH.lua" "help lists measure"
"$ROOT/rot" help cache >"$T/o" 2>&1
contains "$T/o" "usage: rot cache" "help COMMAND shows that command"
"$ROOT/rot" >"$T/o" 2>&1
contains "$T/o" "commands:" "no command prints help"

printf 'bestK=4\n' >"$XDG_CONFIG_HOME/rot/config"
rot config -runs=9 >"$T/o" 2>&1
ok $? "config runs"
contains "$T/o" "^runs .*= 9 .*(command line)" "config shows a command-line value and its origin"
contains "$T/o" "^bestK .*= 4 .*config/rot/config:1)" "config shows a user-file value with file and line"
contains "$T/o" "^bestEpsilon .*default.conf:[0-9]*)" "config shows a default.conf value"
contains "$T/o" "^maxRuns .*(default)" "config shows a declared default"
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
done_testing
