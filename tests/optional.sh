# optional.sh: sourced by the tests and the bench that use a Debian package rot itself does not
# need (chromium, likwid): installed quietly when run as root with apt-get, said on stderr.
optional_install() { # optional_install COMMAND PACKAGE: 0 when COMMAND is (now) on PATH
	command -v "$1" >/dev/null 2>&1 && return 0
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "# installing $2 for this check" >&2
		{ DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" ||
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2"; }; } >/dev/null 2>&1
	fi
	command -v "$1" >/dev/null 2>&1
}
