# tests/slurm/lib.sh: sourced by the Slurm tests after tests/e2e/lib.sh: Slurm installed (as
# root with apt-get) or one SKIP line saying why not, never a silent pass; then
# start_cluster starts the two-node cluster of tests/slurm/cluster.sh in $T/cluster (SLURM_CONF
# exported, the daemons stopped at exit) and the helpers below.
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "# installing slurm-wlm and munge for this test" >&2
		{ DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 slurm-wlm munge ||
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 slurm-wlm munge; }; } >/dev/null 2>&1
	fi
fi
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
	echo "1..0 # SKIP slurm-wlm and munge are not installed and could not be installed here (sudo apt-get install slurm-wlm munge)"
	exit 0
fi

D="$T/cluster"
stop_cluster() { "$ROOT/tests/slurm/cluster.sh" stop "$D"; }
start_cluster() {
	export SLURM_CONF
	SLURM_CONF=$("$ROOT/tests/slurm/cluster.sh" start "$D") || return 1
	trap 'stop_cluster; rm -rf "$T"' EXIT
}

# until_true SECONDS COMMAND...: runs COMMAND every 0.1 s until it succeeds; fails after SECONDS
until_true() {
	n=$(($1 * 10))
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ $n -le 0 ] && return 1
		sleep 0.1
	done
}

# rot processes (drivers, workers, cores, kernels) of this test still running, one a line
rot_processes() {
	ps -eo pid=,stat=,args= | awk -v t="$T/" '$2 !~ /^Z/ && index($0, t) && $3 ~ /rot-(driver|core)$/ { print }'
}
no_rot_process() { [ -z "$(rot_processes)" ]; }
squeue_empty() { [ -z "$(squeue -h 2>/dev/null)" ]; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
