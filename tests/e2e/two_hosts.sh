#!/usr/bin/env bash
# Two hosts on one machine (tests/hosts/cluster.sh: two network namespaces joined by a veth pair,
# each with an sshd and a slurmd, under one slurmctld), and across them, as a cluster runs them:
#  1. tests/hosts/across-nodes.sbatch on 2 nodes x 2 tasks: jobs/mpi-env.sh's multi-node settings,
#     the MPI tests at 2 ranks (one per host) and 4 (two per host), the quickstart at 1, 2 and 4
#     ranks with byte-identical outputs and run.json naming both hosts;
#  2. slurm/secpe-run.sbatch on 2 nodes, sent USR1 as Slurm does before the time limit: it stops,
#     requeues itself and resumes, with outputs equal to an uninterrupted run's;
#  3. the scaling study's smallest point (slurm/scaling.sbatch, strong scaling to 2 ranks) on 2 nodes;
#  4. `mpirun --host` over ssh (Open MPI told to use the veth, cl0): the quickstart at 2 ranks and
#     the Nodes MPI test at 4.
# Each part must move at least MIN_BYTES each way over the veth (its byte counters on both hosts):
# real TCP between the hosts. Skipped (exit 77, which ctest counts as skipped) with the reason
# where the hosts cannot be made: not root, no `ip netns`, no CAP_NET_ADMIN, no Slurm or munge.
source "$(dirname "$0")/lib/preamble.sh"
MPI_TESTS=$(dirname "$SECPE")/tests/secpe_mpi_tests
CLUSTER=$SRC/tests/hosts/cluster.sh
MIN_BYTES=${MIN_BYTES:-65536}
skip() { echo "two_hosts: SKIPPED: $*"; exit 77; }
# fail, adding Slurm's view of the job and the hosts' Slurm logs.
fail() { echo "FAIL: $*" >&2; [ -n "${jid:-}" ] && on 1 scontrol show job "$jid" >&2; tail -5 "$T"/slurm/*.log >&2 2>/dev/null; exit 1; }

[ "$(id -u)" = 0 ] || skip "needs root to make network namespaces"
command -v ip >/dev/null && ip netns list >/dev/null 2>&1 || skip "no 'ip netns' (iproute2)"
for d in slurmctld slurmd munged; do [ -x /usr/sbin/$d ] || skip "no /usr/sbin/$d (bash jobs/install-deps.sh installs slurm-wlm and munge)"; done
probe=secpe-probe-$$
why=$(ip netns add "$probe" 2>&1 && ip -n "$probe" link add p0 type veth peer name p1 2>&1); made=$?
ip netns del "$probe" 2>/dev/null
[ $made = 0 ] || skip "cannot make a network namespace with a veth pair (needs CAP_SYS_ADMIN and CAP_NET_ADMIN): $why"
why=$(unshare --uts --mount true 2>&1) || skip "cannot make UTS and mount namespaces (needs CAP_SYS_ADMIN): $why"

at_exit 'bash "$CLUSTER" stop "$T"'
trap 'exit 1' INT TERM
on() { bash "$CLUSTER" on "$T" "$@"; }
bash "$CLUSTER" start "$T" > "$T/start.log" 2>&1 || { cat "$T/start.log"; fail "could not start the two hosts"; }
# The jobs see a user's environment: not ctest's loopback pinning, nor a Slurm job CI may run in.
unset OMPI_MCA_btl_tcp_if_include OMPI_MCA_oob_tcp_if_include OMPI_MCA_rmaps_base_oversubscribe
unset $(compgen -e | grep '^SLURM_')
export SECPE MPI_TESTS
cd "$SRC"

sent() { on "$1" awk '$1 == "cl0:" { print $10 }' /proc/net/dev; }  # bytes host $1 has sent over the veth
declare -A mark
crossed() {  # crossed PART: MIN_BYTES or more each way over the veth since the last call
  local n b
  for n in 1 2; do
    b=$(sent $n)
    [ $((b - ${mark[$n]:-0})) -ge "$MIN_BYTES" ] || fail "$1: host $n sent $((b - ${mark[$n]:-0})) bytes to the other, expected $MIN_BYTES or more"
    echo "two_hosts: $1: secpe-n$n sent $((b - ${mark[$n]:-0})) bytes over cl0 (${SECONDS} s into the test)"
    mark[$n]=$b
  done
}
wait_job() {  # wait_job JOBID: until it has left the queue, then check it completed
  local deadline=$(( $(date +%s) + 300 ))
  while on 1 squeue -h -j "$1" 2>/dev/null | grep -q .; do
    [ "$(date +%s)" -lt "$deadline" ] || { on 1 scancel "$1"; fail "job $1 did not finish in 300 s"; }
    sleep 0.5
  done
  on 1 scontrol show job "$1" | grep -q 'JobState=COMPLETED' || { cat "$T"/*.out >&2; fail "job $1 did not complete"; }
}
for n in 1 2; do mark[$n]=$(sent $n); done

# 1. The across-nodes checks.
jid=$(on 1 sbatch --parsable --nodes=2 --ntasks-per-node=2 --output="$T/across-%j.out" tests/hosts/across-nodes.sbatch "$T/across") ||
  fail "sbatch refused tests/hosts/across-nodes.sbatch"
wait_job "$jid"
tail -1 "$T/across-$jid.out" | grep -qx 'across-nodes: ok' || { cat "$T/across-$jid.out" >&2; fail "across-nodes.sbatch"; }
grep -q 'Open MPI TCP interfaces: every one but loopback' "$T/across-$jid.out" || fail "the 2-node job did not leave Open MPI's interfaces open"
crossed "MPI tests and quickstart (across-nodes.sbatch)"
Q=$T/across/quickstart

# 2. A two-node run stopped by USR1 (as Slurm sends it before the time limit), requeued, resumed.
# The INI has no seed: the restart takes the interrupted run's.
printf '[run]\ndata = %s\nout = %s\nnoise-key-file = %s\niterations = 12\nsynthetic = 240\nquiet = true\n' \
  "$Q/demo.h5" "$T/job" "$Q/noise.key" > "$T/job.ini"
jid=$(on 1 sbatch --parsable --nodes=2 --ntasks-per-node=1 --output="$T/job-%j.out" slurm/secpe-run.sbatch "$T/job.ini") ||
  fail "sbatch refused slurm/secpe-run.sbatch"
for _ in $(seq 1 1200); do [ -f "$T/job.state/progress.json" ] && break; sleep 0.05; done
[ -f "$T/job.state/progress.json" ] || fail "the two-node run saved no progress"
on 1 scancel --batch --signal=USR1 "$jid" || fail "scancel --signal=USR1"
wait_job "$jid"
grep -q 'requeueing job' "$T/job-$jid.out" || { cat "$T/job-$jid.out" >&2; fail "the job did not requeue itself after USR1"; }
on 1 scontrol show job "$jid" | grep -q 'Restarts=1' || fail "the job did not run again after its requeue"
grep -q '"seed_source": "the interrupted run.s (--resume)"' "$T/job/run.json" || fail "the restart did not take the interrupted run's seed"
grep -q '"nodes": \[ *"secpe-n1", *"secpe-n2" *\]' <(tr -d '\n' < "$T/job/run.json") || fail "run.json of the requeued job does not name both hosts"
crossed "secpe-run.sbatch stopped, requeued and resumed"
seed=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['seed'])" "$T/job/run.json")
nonce=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['noise_nonce'])" "$T/job/run.json")  # the same run: its nonce
"$SECPE" run --config "$T/job.ini" --seed "$seed" --noise-nonce "$nonce" --out "$T/ref" --state-dir "$T/ref.state" 2>/dev/null || fail "the uninterrupted run"
for f in synthetic.csv initial.csv privacy.json; do cmp -s "$T/ref/$f" "$T/job/$f" || fail "requeued two-node job: $f differs from an uninterrupted run's"; done

# 3. The scaling study's smallest point on two nodes.
jid=$(on 1 env RECORDS=4000 DIM=32 SYNTHETIC=400 CLUSTERS=8 STUDIES=strong sbatch --parsable --nodes=2 --ntasks-per-node=1 \
      --output="$T/scaling-%j.out" slurm/scaling.sbatch "$T/scaling") || fail "sbatch refused slurm/scaling.sbatch"
wait_job "$jid"
python3 - "$T/scaling/strong-r2.json" <<'PY' || fail "scaling study: strong-r2.json did not run 2 ranks on 2 hosts"
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["ranks"] == 2 and j["nodes"] == ["secpe-n1", "secpe-n2"] else 1)
PY
grep -q '| strong-r2 | 2 |' "$T/scaling/scaling.md" || fail "scaling study: no table"
crossed "scaling study (scaling.sbatch)"

# 4. mpirun --host over ssh, Open MPI told to use the veth (a site's setting, which jobs/mpi-env.sh keeps).
if [ -f "$T/ssh/config" ]; then
  over_ssh=(env OMPI_MCA_plm_rsh_args="-F $T/ssh/config" OMPI_MCA_btl_tcp_if_include=cl0 OMPI_MCA_oob_tcp_if_include=cl0
            bash -c 'source jobs/mpi-env.sh && exec "$@"' over-ssh mpirun --host 10.231.0.1:2,10.231.0.2:2)
  on 1 "${over_ssh[@]}" -n 2 --map-by node "$SECPE" run --config jobs/quickstart.ini --data "$Q/demo.h5" --out "$T/ssh2" \
    --noise-key-file "$Q/noise.key" --ledger-dir "$Q/ledger" --noise-nonce 0123456789abcdef0123456789abcdef --iterations 3 --synthetic 120 --quiet 2>"$T/ssh.log" || { cat "$T/ssh.log" >&2; fail "mpirun --host over ssh"; }
  for f in synthetic.csv initial.csv privacy.json; do cmp -s "$Q/r1/$f" "$T/ssh2/$f" || fail "over ssh, 2 ranks: $f differs from 1 rank's"; done
  on 1 "${over_ssh[@]}" -n 4 "$MPI_TESTS" --gtest_filter='Nodes.*' --gtest_brief=1 > "$T/ssh-nodes.log" 2>&1 ||
    { cat "$T/ssh-nodes.log" >&2; fail "the Nodes MPI test at 4 ranks over ssh"; }
  crossed "mpirun --host over ssh"
else
  echo "two_hosts: mpirun --host over ssh SKIPPED (no /usr/sbin/sshd: bash jobs/install-deps.sh installs openssh-server)"
fi
echo "two_hosts: ok"
