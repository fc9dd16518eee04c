#!/bin/sh
# cluster.sh start|stop DIR [NODES]: a Slurm cluster on localhost, all of it in DIR (its own
# munge key and socket, slurm.conf, state, spool, logs, pid files, free ports), for the tests.
# Its NODES nodes (default 2), NAME1, NAME2, ... (NAME: this host's short name), are as many
# slurmd on this machine, each with its own node-local TMPDIR (DIR/tmp/NODE, set by the task
# prolog), as nodes of one type would be. KillWait is 2 s, so a cancelled or timed-out task
# ends quickly. start prints the SLURM_CONF to export; stop ends the daemons by their pid files.
set -u
cmd=$1
D=$2
daemons() { echo "$D"/slurmd-*.pid "$D/slurmctld.pid" "$D/munged.pid"; }
case $cmd in
stop)
	for f in $(daemons); do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	i=0
	while [ $i -lt 50 ]; do
		alive=0
		for f in $(daemons); do
			[ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && alive=1
		done
		[ $alive = 0 ] && exit 0
		sleep 0.1
		i=$((i + 1))
	done
	for f in $(daemons); do
		[ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
	done
	exit 0
	;;
start) ;;
*)
	echo "usage: cluster.sh start|stop DIR" >&2
	exit 2
	;;
esac
nodes=${3:-2}
mkdir -p "$D/state" "$D/spool" "$D/log" "$D/tmp" || exit 1
# free TCP ports: not listening now (from /proc/net/tcp)
used=$(for h in $(awk 'NR > 1 && $4 == "0A" { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null); do
	printf '%d\n' "0x$h"
done)
port() {
	p=$1
	while echo "$used" | grep -qx "$p"; do p=$((p + 1)); done
	echo $p
}
# ten ports a cluster from its own base: two clusters started at once (two tests) do not collide
base=$((20000 + $$ % 4000 * 10))
cport=$(port $base)
host=$(hostname -s)
cpus=$(nproc)
dd if=/dev/urandom of="$D/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$D/munge.key"
munged --key-file="$D/munge.key" --socket="$D/munge.sock" --pid-file="$D/munged.pid" \
	--log-file="$D/log/munged.log" --seed-file="$D/munge.seed" -f || exit 1
# munged returns before its daemon has written the pid file that stop (and slurm.t) read
i=0
while [ ! -s "$D/munged.pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
# each node's own TMPDIR, as a node-local disk would be
cat >"$D/task-prolog.sh" <<PROLOG
#!/bin/sh
mkdir -p "$D/tmp/\$SLURMD_NODENAME" && echo "export TMPDIR=$D/tmp/\$SLURMD_NODENAME"
PROLOG
chmod +x "$D/task-prolog.sh"
cat >"$D/slurm.conf" <<CONF
ClusterName=rottest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$cport
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
TaskProlog=$D/task-prolog.sh
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
# a job is started at the scheduler's next pass (each second), not up to 3 s later
SchedulerParameters=batch_sched_delay=0
MpiDefault=none
SwitchType=switch/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MinJobAge=600
KillWait=2
OverTimeLimit=0
PartitionName=rot Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
dport=$cport
for n in $(seq "$nodes"); do
	dport=$(port $((dport + 1)))
	echo "NodeName=$host$n NodeHostname=$host NodeAddr=127.0.0.1 Port=$dport CPUs=$cpus Feature=rotnode,rotfast State=UNKNOWN" >>"$D/slurm.conf"
done
export SLURM_CONF="$D/slurm.conf"
slurmctld || exit 1
for n in $(seq "$nodes"); do
	slurmd -N "$host$n" || exit 1
done
i=0
while [ $i -lt 100 ]; do
	[ "$(sinfo -h -N -o %t 2>/dev/null | grep -c idle)" = "$nodes" ] && { echo "$SLURM_CONF"; exit 0; }
	sleep 0.1
	i=$((i + 1))
done
echo "cluster.sh: the nodes did not come up; see $D/log" >&2
exit 1
