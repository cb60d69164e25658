#!/usr/bin/env bash
# The project's real Slurm job script (slurm/secpe-run.sbatch) submitted to a single-node Slurm
# started here (tests/slurm/start-slurm.sh), with 2 tasks: the job must complete and write every
# output. Skipped (with a message) when not root, when Slurm is not installed, or when a Slurm is
# already running on this machine (we never touch daemons we did not start).
set -uo pipefail
SECPE=$1
SRC=${SECPE_SOURCE_DIR:?}
skip() { echo "slurm_job: SKIPPED: $*"; exit 0; }
fail() { echo "FAIL: $*" >&2; [ -n "${jid:-}" ] && scontrol show job "$jid" >&2; tail -20 /var/log/slurm/slurmctld.log >&2 2>/dev/null; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root to start slurmctld"
command -v slurmctld >/dev/null && command -v sbatch >/dev/null || skip "slurm-wlm is not installed (bash jobs/install-deps.sh installs it)"
pgrep -x slurmctld >/dev/null && skip "a Slurm is already running here"
T=$(mktemp -d)
trap 'bash "$SRC/tests/slurm/stop-slurm.sh"; rm -rf "$T"' EXIT
timeout 60 bash "$SRC/tests/slurm/start-slurm.sh" > "$T/start.log" 2>&1 || { cat "$T/start.log"; fail "could not start Slurm"; }

"$SECPE" corpus --records 400 --out "$T/c.csv" 2>/dev/null || fail corpus
"$SECPE" import --input "$T/c.csv" --secrets list --secrets-file "$T/c.secrets.txt" --out "$T/c.h5" 2>/dev/null || fail import
printf '[run]\ndata = %s\nout = %s\nseed = 4\niterations = 2\nsynthetic = 40\nquiet = true\n' "$T/c.h5" "$T/out" > "$T/job.ini"

cd "$SRC"
jid=$(SECPE="$SECPE" sbatch --parsable --ntasks=2 --output="$T/job-%j.out" slurm/secpe-run.sbatch "$T/job.ini") || fail "sbatch refused the job"
deadline=$(( $(date +%s) + 300 ))
while squeue -h -j "$jid" 2>/dev/null | grep -q .; do
  [ "$(date +%s)" -lt "$deadline" ] || { scancel "$jid"; fail "job $jid did not finish in 300 s"; }
  sleep 0.5
done
info=$(scontrol show job "$jid")
grep -q 'JobState=COMPLETED' <<<"$info" || { cat "$T"/job-*.out >&2; fail "job $jid did not complete"; }
for f in synthetic.csv privacy.json metrics.jsonl run.json; do [ -s "$T/out/$f" ] || fail "job output $f missing"; done
grep -q '"ranks": 2' "$T/out/run.json" || fail "the job did not run 2 ranks"
echo "slurm_job: ok (job $jid)"
