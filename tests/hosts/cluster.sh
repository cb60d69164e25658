#!/usr/bin/env bash
# A two-host cluster on one machine, as root, for tests/e2e/two_hosts.sh. Each host is a network
# namespace with its own host name (a UTS namespace) and /etc/hosts (a bind mount seen only inside
# it); the two are joined by a veth pair named cl0 on both ends, 10.231.0.1/24 and 10.231.0.2/24,
# with no other route and no bridge: nothing leaves the machine. They share the filesystem and the
# process table, like cluster nodes on a shared filesystem. On each host: an sshd (port 2222, a
# throwaway host key, root by a key made here) and a slurmd; on host 1 also the slurmctld
# (ClusterName secpe-hosts, ports 16817/16818) and a munged of its own. Every file, socket, pid
# file and log is under DIR; the host's network, /etc and any Slurm or munge it runs are untouched.
#   cluster.sh start DIR          bring it up (the namespaces, then the daemons)
#   cluster.sh on DIR N CMD...    run CMD on host N (1 or 2), SLURM_CONF pointing at this cluster
#   cluster.sh stop DIR           stop every daemon started here, delete the namespaces
# Host N is named secpe-nN; its namespace's name, unique to this cluster, is in DIR/netns.
set -euo pipefail
NET=10.231.0
SSH_PORT=2222

host_ns() { sed -n "${2}p" "$1/netns"; }

on() {  # on DIR N CMD...
  local dir=$1 n=$2; shift 2
  SLURM_CONF=$dir/slurm/slurm.conf nsenter --net="/run/netns/$(host_ns "$dir" "$n")" unshare --uts --mount -- \
    bash -c 'hostname "secpe-n$1" && mount --bind "$2/hosts" /etc/hosts && shift 2 && exec "$@"' on "$n" "$dir" "$@"
}

network() {  # network DIR: the namespaces, the veth pair, and each host's /etc/hosts
  local dir=$1 id
  id=secpe-hosts-$$
  ip netns add "$id-n1"
  printf '%s\n' "$id-n1" > "$dir/netns"
  ip netns add "$id-n2"
  printf '%s\n' "$id-n2" >> "$dir/netns"
  ip -n "$id-n1" link add cl0 type veth peer name cl0 netns "$id-n2"
  for n in 1 2; do
    ip -n "$id-n$n" addr add "$NET.$n/24" dev cl0
    ip -n "$id-n$n" link set lo up
    ip -n "$id-n$n" link set cl0 up
  done
  { echo "127.0.0.1 localhost"; echo "$NET.1 secpe-n1"; echo "$NET.2 secpe-n2"; } > "$dir/hosts"
}

munge_up() {  # munge_up DIR: a munged with its own key and socket (a file, so both hosts reach it)
  local m=$1/munge
  mkdir -p "$m" && chmod 0755 "$m"
  head -c 1024 /dev/urandom > "$m/munge.key" && chmod 0400 "$m/munge.key"
  on "$1" 1 /usr/sbin/munged --socket="$m/socket" --key-file="$m/munge.key" --pid-file="$m/munged.pid" \
    --log-file="$m/munged.log" --seed-file="$m/munged.seed"
}

slurm_conf() {  # slurm_conf DIR
  local s=$1/slurm
  mkdir -p "$s/ctld" "$s/secpe-n1" "$s/secpe-n2"
  # Slurm's defaults (root daemons, munge, whole nodes per job, no accounting) but for: processes
  # tracked without cgroups; a requeued job eligible again after 10 s, not 120 (cred_expire), a
  # scheduler that looks every second and 5 s from SIGTERM to SIGKILL, so the requeue test is
  # quick; and this cluster's own names, ports, socket and folders.
  cat > "$s/slurm.conf" <<CONF
ClusterName=secpe-hosts
SlurmctldHost=secpe-n1($NET.1)
SlurmctldPort=16817
SlurmdPort=16818
AuthInfo=socket=$1/munge/socket,cred_expire=10
ProctrackType=proctrack/linuxproc
SlurmdParameters=config_overrides
EnforcePartLimits=ALL
SchedulerParameters=sched_interval=1,bf_interval=1
KillWait=5
StateSaveLocation=$s/ctld
SlurmdSpoolDir=$s/%n
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd-%n.pid
SlurmctldLogFile=$s/slurmctld.log
SlurmdLogFile=$s/slurmd-%n.log
NodeName=secpe-n1 NodeAddr=$NET.1 CPUs=2 RealMemory=1000 State=UNKNOWN
NodeName=secpe-n2 NodeAddr=$NET.2 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=hosts Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
}

ssh_conf() {  # ssh_conf DIR: keys, each host's sshd_config, and the client's config
  local s=$1/ssh
  mkdir -p "$s"
  ssh-keygen -q -t ed25519 -N '' -f "$s/host_key"
  ssh-keygen -q -t ed25519 -N '' -f "$s/id"
  cp "$s/id.pub" "$s/authorized_keys"
  for n in 1 2; do
    cat > "$s/sshd_config.$n" <<CONF
ListenAddress $NET.$n:$SSH_PORT
HostKey $s/host_key
AuthorizedKeysFile $s/authorized_keys
PidFile $s/sshd.$n.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
CONF
  done
  cat > "$s/config" <<CONF
Host $NET.* secpe-n1 secpe-n2
  Port $SSH_PORT
  User root
  IdentityFile $s/id
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  BatchMode yes
  ConnectTimeout 5
  LogLevel ERROR
CONF
}

nodes_idle() { [ "$(on "$1" 1 sinfo -h -N -o %t | sort -u)" = idle ]; }

wait_for() {  # wait_for SECONDS WHAT CMD...: until CMD succeeds
  local deadline=$(( $(date +%s) + $1 )) what=$2; shift 2
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "cluster: $what did not come up" >&2; return 1; }
    sleep 0.2
  done
}

start() {  # start DIR
  local dir=$1
  chmod 0711 "$dir"  # munged needs its socket's folders searchable by all
  network "$dir"
  munge_up "$dir"
  wait_for 10 munged munge -S "$dir/munge/socket" -n
  slurm_conf "$dir"
  on "$dir" 1 /usr/sbin/slurmctld -i
  wait_for 20 slurmctld on "$dir" 1 scontrol ping
  for n in 1 2; do on "$dir" "$n" /usr/sbin/slurmd; done
  wait_for 30 "both slurmd" nodes_idle "$dir"
  if [ -x /usr/sbin/sshd ]; then
    ssh_conf "$dir"
    [ -d /run/sshd ] || { mkdir -m 0755 /run/sshd && touch "$dir/ssh/made-run-sshd"; }  # sshd's privilege separation folder
    for n in 1 2; do on "$dir" "$n" /usr/sbin/sshd -f "$dir/ssh/sshd_config.$n" -E "$dir/ssh/sshd.$n.log"; done
    wait_for 10 sshd on "$dir" 1 ssh -F "$dir/ssh/config" "$NET.2" true
  fi
}

stop() {  # stop DIR: every process in the two namespaces (daemons, job steps, ssh sessions), then the namespaces
  local dir=$1 ns pids
  [ -f "$dir/netns" ] || return 0
  for sig in TERM TERM TERM TERM TERM KILL; do
    pids=$(while read -r ns; do ip netns pids "$ns" 2>/dev/null; done < "$dir/netns")
    [ -n "$pids" ] || break
    kill -s $sig $pids 2>/dev/null || true
    sleep 1
  done
  [ -f "$dir/ssh/made-run-sshd" ] && rmdir /run/sshd 2>/dev/null
  while read -r ns; do ip netns del "$ns" 2>/dev/null || true; done < "$dir/netns"
}

case ${1:-} in
  start) start "$2" ;;
  on) shift; on "$@" ;;
  stop) stop "$2" ;;
  *) echo "usage: cluster.sh start DIR | on DIR N CMD... | stop DIR" >&2; exit 2 ;;
esac
