#!/bin/sh
# driver/deps.sh on machines unlike this one: no dpkg, a tool installed outside Debian's
# packages (a module or prefix on PATH), a library's headers only under a prefix (CPATH), and
# a CPATH already set (it must not hide what the checks hide).
# judges no time
. "$(dirname "$0")/lib.sh"
deps=$ROOT/driver/deps.sh
# a PATH with only the commands rot and its checks use: no gnuplot, no dpkg, no apt-get
mkdir -p "$T/bin" "$T/opt/gnuplot/bin"
for c in sh gcc make perl prove ccache as ld mktemp rm pkg-config id valgrind; do
	p=$(command -v $c) && ln -s "$p" "$T/bin/$c"
done
ln -s "$(command -v gnuplot)" "$T/opt/gnuplot/bin/gnuplot"

PATH=$T/bin CC=gcc "$deps" >"$T/o" 2>"$T/e"
test $? -eq 2
ok $? "a missing command: exit status 2"
test "$(cat "$T/o")" = "sudo apt-get install gnuplot-nox"
ok $? "stdout is the one install line"
contains "$T/e" "the command 'gnuplot' on PATH" "stderr says what was looked for"
contains "$T/e" "^hint: .*CPATH" "and how to provide it outside Debian"

PATH=$T/bin:$T/opt/gnuplot/bin CC=gcc "$deps" >"$T/o" 2>"$T/e"
ok $? "every tool present, none as a Debian package that dpkg could name: accepted"

# hwloc's headers hidden from the compiler's system directories and from CPATH's (a spack or
# module environment, or the GPU machine's unpacked packages), then found under a prefix
mkdir -p "$T/inc" "$T/prefix/include"
hide() { # hide DIR INTO: DIR's entries but hwloc's, linked into INTO
	mkdir -p "$2"
	for e in "$1"/*; do case ${e##*/} in hwloc*) ;; *) ln -s "$e" "$2/${e##*/}" ;; esac; done
}
hide /usr/include "$T/inc"
extra="" hsrc=/usr/include i=0
for d in $(echo "${CPATH:-}" | tr ':' ' '); do
	i=$((i + 1))
	[ -e "$d/hwloc.h" ] && hsrc=$d
	hide "$d" "$T/cpath$i" && extra="$extra -isystem $T/cpath$i"
done
ln -s "$hsrc/hwloc.h" "$hsrc/hwloc" "$T/prefix/include/"
gi=$(gcc -print-file-name=include)
ma=$(gcc -print-multiarch)
cat >"$T/bin/cc-nohwloc" <<EOS
#!/bin/sh
exec gcc -nostdinc$extra -isystem "$gi" -isystem "$T/inc" -isystem "$T/inc/$ma" "\$@"
EOS
chmod +x "$T/bin/cc-nohwloc"
(unset CPATH; PATH=$T/bin:$T/opt/gnuplot/bin CC=cc-nohwloc "$deps" >"$T/o" 2>"$T/e")
test $? -eq 2 && test "$(cat "$T/o")" = "sudo apt-get install libhwloc-dev"
ok $? "hwloc's headers not where the compiler looks: missing, and its Debian package named"
contains "$T/e" "hwloc 2 (hwloc.h, libhwloc)" "stderr says which headers and library"
PATH=$T/bin:$T/opt/gnuplot/bin CC=cc-nohwloc CPATH=$T/prefix/include "$deps" >"$T/o" 2>"$T/e"
ok $? "hwloc under a prefix named by CPATH (as spack and modules do): accepted"

test "$("$deps" --lua-cflags)" = "$(pkg-config --cflags lua5.4 2>/dev/null || echo -I/usr/include/lua5.4)"
ok $? "the Lua flags the Makefile builds with are the ones the check accepted"
done_testing
