#!/bin/sh
# Checks that what rot needs is there: commands on PATH, headers and libraries the compiler finds
# (CPATH, LIBRARY_PATH and LD_LIBRARY_PATH count, so spack, modules and prefixes work, not only
# Debian packages). Missing ones: installed with apt-get when root on Debian, else the install
# line is printed and the exit status is 2. Used by the `rot` frontend and `make test`.
# deps.sh --lua-cflags | --lua-libs prints the flags that build against Lua 5.4 (for Makefile).
cc=${CC:-gcc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rot-deps.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# links and runs a C program: $1 its body (includes and main), the rest compiler arguments
builds() {
	body=$1
	shift
	printf '%s\n' "$body" >"$tmp/t.c"
	# shellcheck disable=SC2086 # flags are word lists
	$cc $CFLAGS "$tmp/t.c" -o "$tmp/t" "$@" >"$tmp/log" 2>&1 && "$tmp/t" >>"$tmp/log" 2>&1
}

lua_prog='#include <lua.h>
#include <lauxlib.h>
#if LUA_VERSION_NUM != 504
#error "Lua 5.4 is needed"
#endif
int main(void) { lua_State *L = luaL_newstate(); lua_close(L); return 0; }'

# the first of pkg-config's Lua 5.4 names, Debian's layout, a source install (lua.h, -llua)
# that builds a Lua 5.4 program: "cflags|libs"
lua_flags() {
	for name in lua5.4 lua-5.4 lua54 lua; do
		if c=$(pkg-config --cflags "$name" 2>/dev/null) && l=$(pkg-config --libs "$name" 2>/dev/null); then
			# shellcheck disable=SC2086
			builds "$lua_prog" $c $l -lm && { echo "$c|$l"; return 0; }
		fi
	done
	for cl in "-I/usr/include/lua5.4|-llua5.4" "|-llua5.4" "|-llua"; do
		# shellcheck disable=SC2086
		builds "$lua_prog" ${cl%%|*} ${cl#*|} -lm -ldl && { echo "$cl"; return 0; }
	done
	return 1
}

case $1 in
--lua-cflags | --lua-libs)
	f=$(lua_flags) || f="-I/usr/include/lua5.4|-llua5.4" # the build then says what is missing
	[ "$1" = --lua-cflags ] && echo "${f%%|*}" || echo "${f#*|}"
	exit 0
	;;
esac

# need: what rot looks for, the Debian package that provides it
missing=""
pkgs=""
need() {
	missing="$missing
  $1"
	case " $pkgs " in *" $2 "*) ;; *) pkgs="$pkgs $2" ;; esac
}
check() {
	missing=""
	pkgs=""
	for c in make perl prove ccache gnuplot valgrind; do
		case $c in perl | prove) p=perl ;; gnuplot) p=gnuplot-nox ;; *) p=$c ;; esac
		command -v "$c" >/dev/null 2>&1 || need "the command '$c' on PATH" "$p"
	done
	command -v "$cc" >/dev/null 2>&1 || need "the C compiler '$cc' on PATH (CC)" gcc
	for c in as ld; do command -v "$c" >/dev/null 2>&1 || need "the command '$c' on PATH" binutils; done
	command -v "$cc" >/dev/null 2>&1 || return 0
	lua_flags >/dev/null || need "Lua 5.4 (lua.h, lauxlib.h, liblua; pkg-config lua5.4)" liblua5.4-dev
	builds '#include <perfmon/pfmlib_perf_event.h>
int main(void) { pfm_initialize(); return 0; }' -lpfm ||
		need "libpfm4 (perfmon/pfmlib_perf_event.h, libpfm)" libpfm4-dev
	builds '#include <hwloc.h>
int main(void) { return hwloc_get_api_version() >= 0x20000 ? 0 : 1; }' -lhwloc ||
		need "hwloc 2 (hwloc.h, libhwloc)" libhwloc-dev
	# where samples and loops lie in a program's own words (rot.symbols): elfutils' libdw
	builds '#include <elfutils/libdwfl.h>
int main(void) { return dwfl_version(NULL) ? 0 : 1; }' -ldw -lelf ||
		need "elfutils' libdw (elfutils/libdwfl.h, libdw, libelf)" libdw-dev
	# the counting pass's engine: rot's Valgrind tool is built against Valgrind's headers
	builds '#include <valgrind/valgrind.h>
int main(void) { return RUNNING_ON_VALGRIND; }' ||
		need "Valgrind's headers (valgrind/valgrind.h)" valgrind
	return 0
}

check
[ -z "$pkgs" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1; then
	echo "rot: installing missing packages:$pkgs" >&2
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	{ apt-get update -qq && apt-get install -y -qq $pkgs; } >&2 || {
		echo "rot: apt-get failed to install:$pkgs" >&2
		exit 2
	}
	check
	[ -z "$pkgs" ] && exit 0
	echo "rot: still missing after apt-get:$missing" >&2
	exit 2
fi
echo "rot: missing:$missing" >&2
echo "hint: on Debian, install the packages below; elsewhere put the commands on PATH and the headers and libraries where the compiler finds them (CPATH, LIBRARY_PATH, LD_LIBRARY_PATH)" >&2
echo "sudo apt-get install$pkgs"
exit 2
