#!/usr/bin/env bash
# Surviving preemption (2 ranks, the demo corpus): SIGUSR1 (Slurm's warning) stops the run at the
# next iteration boundary with exit code 75 and its progress kept; a rank killed with SIGKILL ends
# the job promptly; in both cases --resume finishes with outputs identical to an uninterrupted
# run's. A damaged progress file is refused, naming it; --resume knows the dataset by its resolved
# path, and refuses other privacy settings before any costly work.
source "$(dirname "$0")/lib/preamble.sh"
set -e  # setup and runs are not checked one by one: any that fails ends the test
at_exit 'pkill -9 -f "^$SECPE run.*$T/" 2>/dev/null'  # this test's runs only: a killed rank's peers
source "$LIB/demo_scratch.sh" 1200
demo_import corpus.csv demo.h5 >/dev/null
# One nonce for every run: they are all the same run (run.json's noise_nonce; --resume takes the
# interrupted run's).
SETTINGS=(--config "$INI" --iterations 30 --synthetic 600 --quiet --noise-nonce 00000000000000000000000000000007)
RUN2=(mpirun -n 2 --oversubscribe "$SECPE" run "${SETTINGS[@]}" --data "$T/demo.h5" --noise-key-file "$T/noise.key")
"${RUN2[@]}" --out full 2>/dev/null

same_as_full() {  # same_as_full DIR WHAT
  for f in synthetic.csv initial.csv privacy.json; do cmp -s full/$f "$1/$f" || fail "$2: $f differs from the uninterrupted run"; done
  strip() { python3 -c "import json,sys; [print(json.dumps({k: v for k, v in json.loads(l).items() if not k.endswith('seconds')})) for l in open(sys.argv[1])]" "$1"; }
  [ "$(strip full/metrics.jsonl)" = "$(strip "$1/metrics.jsonl")" ] || fail "$2: metrics.jsonl differs from the uninterrupted run"
}
wait_for_progress() {  # until the run in $1 has saved its first iteration
  for _ in $(seq 1 600); do [ -f "$1.state/progress.json" ] && return 0; sleep 0.05; done
  fail "no progress.json in $1.state"
}

# SIGUSR1 to mpirun (forwarded to the ranks, as Slurm's --signal does to the batch step).
"${RUN2[@]}" --out usr1 2> usr1.log & pid=$!
wait_for_progress usr1
kill -USR1 $pid
rc=0; wait $pid || rc=$?
[ $rc = 75 ] || { cat usr1.log >&2; fail "SIGUSR1: exit code $rc, expected 75"; }
grep -qE "stopped: asked to stop by SIGUSR1; stopped after (iteration|label)" usr1.log || fail "SIGUSR1: the log does not say where it stopped"
[ -f usr1/run.json ] && fail "SIGUSR1: a stopped run wrote a complete output set"
# Stopped after an iteration, progress.json holds it; stopped after a whole label, checkpoint.json
# does (the label's progress file is removed then). Either way it is private: mode 0600.
kept=usr1.state/progress.json; [ -f "$kept" ] || kept=usr1.state/checkpoint.json
[ "$(stat -c %a "$kept")" = 600 ] || fail "$kept is not 0600"
"${RUN2[@]}" --out usr1 --resume 2>/dev/null
same_as_full usr1 "stopped by SIGUSR1 and resumed"

# Sharded by label (the default at 2 ranks here), each rank has its own labels in progress when
# stopped (one window each, evolve/label_windows.hpp): progress.json keeps both ranks', and a
# resume at another rank count (1 rank, by record) finishes them with the same outputs.
# A stop that lands just after a rank finished a window leaves only the other rank's labels in
# progress (on a loaded machine a small label's 30 iterations can pass before the signal arrives),
# so the stop is tried up to three times for one that catches both ranks mid-window.
grep -q '"shard_by": "label"' full/run.json || fail "2 ranks on the demo did not shard by label"
# Each label's rank as assign_labels (evolve/shard.hpp) deals them, from the labels' record counts.
"$SECPE" inspect "$T/demo.h5" | awk '/^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ /{print $1, $2}' >label-records.txt
both_in_progress() {  # progress.json $1 holds labels of both ranks
  python3 - "$1" label-records.txt <<'PY' 2>/dev/null
import json, sys
records = [int(line.split()[1]) for line in open(sys.argv[2])]
room = [len(records) // 2 + (1 if k < len(records) % 2 else 0) for k in range(2)]
load, rank = [0, 0], {}
for label in sorted(range(len(records)), key=lambda l: -records[l]):
    best = min((k for k in range(2) if room[k] > 0), key=lambda k: (load[k], k))
    rank[label], room[best], load[best] = best, room[best] - 1, load[best] + records[label]
held = {rank[p["outcome"]["label"]] for p in json.load(open(sys.argv[1]))["content"]["in_progress"]}
sys.exit(held != {0, 1})
PY
}
ranks=""
for try in 1 2 3; do
  "${RUN2[@]}" --out ranks$try 2>/dev/null & pid=$!
  wait_for_progress ranks$try
  kill -USR1 $pid
  rc=0; wait $pid || rc=$?
  [ $rc = 75 ] || fail "SIGUSR1 by label: exit code $rc, expected 75"
  if both_in_progress ranks$try.state/progress.json; then ranks=ranks$try; break; fi
done
[ -n "$ranks" ] || fail "three stops by label: progress.json never held both ranks' labels"
"$SECPE" run "${SETTINGS[@]}" --data "$T/demo.h5" --noise-key-file "$T/noise.key" --out $ranks --resume 2>/dev/null
same_as_full $ranks "stopped at 2 ranks by label and resumed at 1"

# One rank killed mid-run: the job ends promptly (no hang) and --resume completes it.
"${RUN2[@]}" --out killed 2> killed.log & pid=$!
wait_for_progress killed
pkill -9 -f "^$SECPE run.*$T/.*--out killed" -n
rc=0; timeout 60 tail --pid=$pid -f /dev/null || fail "a killed rank left the job hanging"
wait $pid || rc=$?
[ $rc != 0 ] || fail "a killed rank: exit code 0"
"${RUN2[@]}" --out killed --resume 2>/dev/null
same_as_full killed "a rank killed and resumed"

# A damaged progress file is refused, naming it; never silently used. As above, the stop may come
# after a whole label, and then checkpoint.json holds the progress: whichever does is damaged.
"${RUN2[@]}" --out damaged 2>/dev/null & pid=$!
wait_for_progress damaged
kill -USR1 $pid; wait $pid || true
kept=damaged.state/progress.json; [ -f "$kept" ] || kept=damaged.state/checkpoint.json
sed -i '0,/"label":/s//"label": /' "$kept"
rc=0; "${RUN2[@]}" --out damaged --resume 2> damaged.log || rc=$?
[ $rc = 2 ] || fail "damaged $kept: exit code $rc, expected 2"
grep -q "$kept: damaged or edited checkpoint" damaged.log || fail "damaged $kept: no clear error"

# A full disk while saving progress (the private state folder on a 300 KB tmpfs; needs root, else
# skipped): a clear error naming the file, exit code 2, the last checkpoint intact; --resume, with
# room again, completes the run.
mkdir -p small
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=300k tmpfs small 2>/dev/null; then
  at_exit 'umount "$T/small" 2>/dev/null'
  out=$("$SECPE" run "${SETTINGS[@]}" --data "$T/demo.h5" --noise-key-file "$T/noise.key" --out full-disk --state-dir small/state 2>&1) &&
    rc=0 || rc=$?
  [ $rc = 2 ] || fail "a full disk: exit code $rc: $out"
  grep -q "small/state/checkpoint.json: write failed (disk full?)" <<<"$out" || fail "a full disk: no clear error: $out"
  "$SECPE" inspect small/state/checkpoint.json | grep -q "finished " || fail "a full disk: the last checkpoint is not intact"
  cp -a small/state full-disk.state && umount small
  "$SECPE" run "${SETTINGS[@]}" --data "$T/demo.h5" --noise-key-file "$T/noise.key" --out full-disk --resume 2>/dev/null
  same_as_full full-disk "a full disk, then resumed"
else
  echo "preemption: full-disk case SKIPPED (needs root to mount a tmpfs)"
fi

# The dataset by another path to the same file is the same dataset; other settings are refused early.
mkdir sub
(cd sub && "$SECPE" run "${SETTINGS[@]}" --data ../demo.h5 --noise-key-file ../noise.key --out ../usr1 --resume 2>/dev/null) ||
  fail "--resume refused the same dataset by another path"
same_as_full usr1 "resumed by another path to the dataset"
rc=0; "${RUN2[@]}" --out usr1 --resume --r-over-p 20 2> other.log || rc=$?
[ $rc = 2 ] && grep -q "was made with a different 'r'" other.log || fail "--resume with another r: exit code $rc"

# The Slurm job script passes Slurm's USR1 on to the ranks and exits 75 (outside Slurm it cannot
# requeue itself; inside, it runs scontrol requeue), and its next start continues with --resume.
# The job's INI has no seed: the restart must continue with the interrupted run's.
sed -e "s|^data = .*|data = $T/demo.h5|" -e "s|^out = out/quickstart|out = $T/job|" -e '/^seed = /d' \
  -e "s|^iterations = .*|iterations = 30\nnoise-key-file = $T/noise.key\nquiet = true|" -e 's|^synthetic = .*|synthetic = 600|' "$INI" > job.ini
(cd "$SRC" && SECPE="$SECPE" exec bash slurm/secpe-run.sbatch "$T/job.ini" > "$T/job.log" 2>&1) & pid=$!
wait_for_progress job
kill -USR1 $pid
rc=0; wait $pid || rc=$?
[ $rc = 75 ] || { cat job.log >&2; fail "the job script: exit code $rc after USR1, expected 75"; }
(cd "$SRC" && SECPE="$SECPE" bash slurm/secpe-run.sbatch "$T/job.ini" >> "$T/job.log" 2>&1) || fail "the job script's second start"
grep -q '"seed_source": "the interrupted run.s (--resume)"' job/run.json || fail "the restart did not take the interrupted run's seed"
grep -q '"noise_nonce_source": "the interrupted run.s (--resume)"' job/run.json || fail "the restart did not take the interrupted run's nonce"
seed=$(python3 -c "import json; print(json.load(open('job/run.json'))['seed'])")
nonce=$(python3 -c "import json; print(json.load(open('job/run.json'))['noise_nonce'])")
mpirun -n 2 --oversubscribe "$SECPE" run --config job.ini --seed "$seed" --noise-nonce "$nonce" --out jobref --state-dir jobref.state 2>/dev/null
for f in synthetic.csv initial.csv privacy.json; do cmp -s "jobref/$f" "job/$f" || fail "job script, stopped and restarted: $f differs"; done

# Loopback pinning only on one node: a multi-node allocation uses the cluster's network.
env -u OMPI_MCA_btl_tcp_if_include -u OMPI_MCA_oob_tcp_if_include SLURM_JOB_NUM_NODES=2 \
  bash -c "source '$SRC/jobs/mpi-env.sh'; env" | grep -q '_if_include=lo' && fail "mpi-env.sh pins loopback on 2 nodes"
env -u OMPI_MCA_btl_tcp_if_include -u OMPI_MCA_oob_tcp_if_include SLURM_JOB_NUM_NODES=1 \
  bash -c "source '$SRC/jobs/mpi-env.sh'; env" | grep -q 'OMPI_MCA_btl_tcp_if_include=lo' || fail "mpi-env.sh does not pin loopback on 1 node"
echo "preemption: ok"
