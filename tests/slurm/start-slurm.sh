#!/usr/bin/env bash
# Starts a single-node Slurm "cluster" on localhost (munge, slurmctld, slurmd), as root, without
# systemd, for the end-to-end Slurm test. Rewrites /etc/slurm/slurm.conf. Stop it with
# stop-slurm.sh, which stops only these daemons (found through their pid files).
set -euo pipefail
NODE=$(hostname -s)
NCPU=${SLURM_CI_CPUS:-4}   # advertised CPUs (may exceed nproc thanks to config_overrides)
MEM=$(( $(awk '/MemTotal/{print int($2/1024)}' /proc/meminfo) - 1024 ))

mkdir -p /run/munge /var/log/munge /var/lib/munge /etc/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
chmod 0755 /run/munge
[ -s /etc/munge/munge.key ] || dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
chown munge:munge /etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
munge -n </dev/null >/dev/null 2>&1 || runuser -u munge -- /usr/sbin/munged
for _ in $(seq 50); do munge -n </dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done

mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=secpe-ci
SlurmctldHost=${NODE}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
EnforcePartLimits=ALL
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SchedulerType=sched/backfill
MinJobAge=300
InactiveLimit=0
KillWait=5
NodeName=${NODE} NodeAddr=127.0.0.1 CPUs=${NCPU} RealMemory=${MEM} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF

/usr/sbin/slurmctld -i
/usr/sbin/slurmd
for _ in $(seq 100); do
  [ "$(sinfo -h -N -o '%t' 2>/dev/null | head -1 || true)" = idle ] && exit 0
  sleep 0.2
done
echo "start-slurm: the node did not become idle" >&2
exit 1
