#!/bin/sh
# cluster.sh start|stop DIR: a one-node Slurm cluster on localhost, all of it in DIR (its own
# munge key and socket, slurm.conf, state, spool, logs, pid files, free ports), for the tests.
# start prints the SLURM_CONF to export; stop ends the daemons by their pid files.
set -u
cmd=$1
D=$2
case $cmd in
stop)
	for f in slurmd slurmctld munged; do
		[ -f "$D/$f.pid" ] && kill "$(cat "$D/$f.pid")" 2>/dev/null
	done
	i=0
	while [ $i -lt 50 ]; do
		alive=0
		for f in slurmd slurmctld munged; do
			[ -f "$D/$f.pid" ] && kill -0 "$(cat "$D/$f.pid")" 2>/dev/null && alive=1
		done
		[ $alive = 0 ] && exit 0
		sleep 0.1
		i=$((i + 1))
	done
	for f in slurmd slurmctld munged; do
		[ -f "$D/$f.pid" ] && kill -9 "$(cat "$D/$f.pid")" 2>/dev/null
	done
	exit 0
	;;
start) ;;
*)
	echo "usage: cluster.sh start|stop DIR" >&2
	exit 2
	;;
esac
mkdir -p "$D/state" "$D/spool" "$D/log" || exit 1
# two free TCP ports: not listening now (from /proc/net/tcp)
used=$(for h in $(awk 'NR > 1 && $4 == "0A" { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null); do
	printf '%d\n' "0x$h"
done)
port() {
	p=$1
	while echo "$used" | grep -qx "$p"; do p=$((p + 1)); done
	echo $p
}
base=$((20000 + $$ % 20000))
cport=$(port $base)
dport=$(port $((cport + 1)))
node=$(hostname -s)
cpus=$(nproc)
dd if=/dev/urandom of="$D/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$D/munge.key"
munged --key-file="$D/munge.key" --socket="$D/munge.sock" --pid-file="$D/munged.pid" \
	--log-file="$D/log/munged.log" --seed-file="$D/munge.seed" -f || exit 1
cat >"$D/slurm.conf" <<CONF
ClusterName=rottest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
SwitchType=switch/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus Feature=rotnode,rotfast State=UNKNOWN
PartitionName=rot Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$D/slurm.conf"
slurmctld || exit 1
slurmd || exit 1
i=0
while [ $i -lt 100 ]; do
	sinfo -h -o %t 2>/dev/null | grep -q idle && { echo "$SLURM_CONF"; exit 0; }
	sleep 0.1
	i=$((i + 1))
done
echo "cluster.sh: the node did not come up; see $D/log" >&2
exit 1
