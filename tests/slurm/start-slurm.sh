#!/usr/bin/env bash
# Starts a single-node Slurm "cluster" (ClusterName secpe-local) on localhost: munge, slurmctld
# and slurmd, as root, without systemd. Used by the end-to-end Slurm test, and by anyone who wants
# to try the job scripts in slurm/ on one machine:
#   sudo bash tests/slurm/start-slurm.sh        # then sbatch slurm/secpe-run.sbatch ... as usual
#   sudo bash tests/slurm/stop-slurm.sh         # stops only what this script started
# Writes /etc/slurm/slurm.conf (an existing one it did not write is kept as slurm.conf.secpe-saved)
# and keeps its own state, logs and pid files apart from any other Slurm's
# (/var/spool/secpe-slurm, /var/log/slurm/secpe-*.log, /run/secpe-*.pid), so state left by a Slurm
# of another cluster name ("CLUSTER NAME MISMATCH") never stops it. Refuses to run while another
# slurmctld runs. Every failure says what failed and shows the daemon's log; exit 1.
set -euo pipefail
NODE=$(hostname -s)
NCPU=${SLURM_CI_CPUS:-4}   # advertised CPUs (may exceed nproc thanks to config_overrides)
MEM=$(( $(awk '/MemTotal/{print int($2/1024)}' /proc/meminfo) - 1024 ))
CLUSTER=secpe-local
STATE=/var/spool/secpe-slurm
LOGS=/var/log/slurm
CONF=/etc/slurm/slurm.conf
MARK="# written by secpe tests/slurm/start-slurm.sh"

fail() {
  echo "start-slurm: $1" >&2
  for log in "${@:2}"; do
    [ -s "$log" ] && { echo "--- last lines of $log:" >&2; tail -15 "$log" >&2; }
  done
  exit 1
}
[ "$(id -u)" = 0 ] || fail "run as root (it starts slurmctld and slurmd and writes $CONF)"
for d in slurmctld slurmd munge sinfo; do command -v "$d" >/dev/null || [ -x "/usr/sbin/$d" ] || fail "$d is not installed (bash jobs/install-deps.sh installs Slurm)"; done
if pid=$(pgrep -x slurmctld); then
  fail "a slurmctld is already running here (pid $(echo $pid | tr '\n' ' ')); stop it first (bash tests/slurm/stop-slurm.sh if this script started it), or use that Slurm directly"
fi

mkdir -p /run/munge /var/log/munge /var/lib/munge /etc/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
chmod 0755 /run/munge
[ -s /etc/munge/munge.key ] || dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
chown munge:munge /etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
munge -n </dev/null >/dev/null 2>&1 || runuser -u munge -- /usr/sbin/munged || fail "munged did not start" /var/log/munge/munged.log
for _ in $(seq 50); do munge -n </dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
munge -n </dev/null | unmunge >/dev/null 2>&1 || fail "munge does not answer" /var/log/munge/munged.log

# A fresh state every time: this cluster keeps no jobs between starts, and no state of another
# cluster name is ever read.
rm -rf "$STATE"
mkdir -p /etc/slurm "$STATE/ctld" "$STATE/d" "$LOGS"
if [ -f "$CONF" ] && ! grep -qxF "$MARK" "$CONF"; then
  cp -p "$CONF" "$CONF.secpe-saved"
  echo "start-slurm: kept the existing $CONF as $CONF.secpe-saved"
fi
cat > "$CONF" <<CONF
$MARK
ClusterName=${CLUSTER}
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
StateSaveLocation=${STATE}/ctld
SlurmdSpoolDir=${STATE}/d
SlurmctldPidFile=/run/secpe-slurmctld.pid
SlurmdPidFile=/run/secpe-slurmd.pid
SlurmctldLogFile=${LOGS}/secpe-slurmctld.log
SlurmdLogFile=${LOGS}/secpe-slurmd.log
SchedulerType=sched/backfill
MinJobAge=300
InactiveLimit=0
KillWait=5
NodeName=${NODE} NodeAddr=127.0.0.1 CPUs=${NCPU} RealMemory=${MEM} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF

: > "$LOGS/secpe-slurmctld.log"
: > "$LOGS/secpe-slurmd.log"
/usr/sbin/slurmctld -i || fail "slurmctld did not start" "$LOGS/secpe-slurmctld.log"
/usr/sbin/slurmd || fail "slurmd did not start" "$LOGS/secpe-slurmd.log"
for _ in $(seq 100); do
  [ "$(sinfo -h -N -o '%t' 2>/dev/null | head -1 || true)" = idle ] && { echo "start-slurm: cluster $CLUSTER up on $NODE ($NCPU CPUs)"; exit 0; }
  pgrep -x slurmctld >/dev/null || fail "slurmctld stopped right after starting" "$LOGS/secpe-slurmctld.log"
  pgrep -x slurmd >/dev/null || fail "slurmd stopped right after starting" "$LOGS/secpe-slurmd.log"
  sleep 0.2
done
fail "the node did not become idle in 20 s (sinfo: $(sinfo -h -N -o '%t %E' 2>&1 | head -1))" "$LOGS/secpe-slurmctld.log" "$LOGS/secpe-slurmd.log"
