#!/bin/sh
# Checks the Debian packages rot needs; installs them when root, else prints the install line.
# Used by the `rot` frontend before building the driver and by `make test`.
pkgs="make gcc binutils perl liblua5.4-dev libpfm4-dev libhwloc-dev ccache gnuplot-nox"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "rot: installing missing packages:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get update -qq && apt-get install -y -qq $missing; } >&2 || {
		echo "rot: apt-get failed to install:$missing" >&2
		exit 2
	}
	exit 0
fi
echo "rot: missing Debian packages:$missing" >&2
echo "sudo apt-get install$missing"
exit 2
