#!/usr/bin/env bash
# Stops the daemons start-slurm.sh started (through their pid files), nothing else, and waits
# (up to 10 s) until they are gone.
pids=()
for f in /run/secpe-slurmd.pid /run/secpe-slurmctld.pid /run/munge/munged.pid; do [ -s $f ] && pids+=("$(cat $f)"); done
scontrol shutdown >/dev/null 2>&1 || true
for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
for _ in $(seq 100); do
  alive=0
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
  [ $alive = 0 ] && break
  sleep 0.1
done
rm -f /run/secpe-slurmd.pid /run/secpe-slurmctld.pid
exit 0
