#!/usr/bin/env bash
# The project's real Slurm job scripts submitted to a single-node Slurm started here
# (tests/slurm/start-slurm.sh): slurm/secpe-run.sbatch with 2 tasks must complete and write every
# output; slurm/scaling.sbatch at a tiny size must write its benchmark JSON, table and plot; and
# slurm/utility-sweep.sbatch as a job array over a 2-run grid of the dev set (from ../shared),
# then the study's table. Skipped (with a message) when not root, when Slurm is not installed, or when a Slurm is
# already running on this machine (we never touch daemons we did not start).
source "$(dirname "$0")/lib/preamble.sh"
skip() { echo "slurm_job: SKIPPED: $*"; exit 0; }
# fail, adding Slurm's view of the job and its controller's log.
fail() { echo "FAIL: $*" >&2; [ -n "${jid:-}" ] && scontrol show job "$jid" >&2; tail -20 /var/log/slurm/secpe-slurmctld.log >&2 2>/dev/null; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root to start slurmctld"
command -v slurmctld >/dev/null && command -v sbatch >/dev/null || skip "slurm-wlm is not installed (bash jobs/install-deps.sh installs it)"
pgrep -x slurmctld >/dev/null && skip "a Slurm is already running here"
at_exit 'bash "$SRC/tests/slurm/stop-slurm.sh"'
timeout 60 bash "$SRC/tests/slurm/start-slurm.sh" > "$T/start.log" 2>&1 || { cat "$T/start.log"; fail "could not start Slurm"; }

source "$LIB/demo_scratch.sh" 400
demo_import corpus.csv demo.h5 2>/dev/null || fail import
printf '[run]\ndata = %s\nout = %s\nseed = 4\niterations = 2\nsynthetic = 40\nquiet = true\n' "$T/demo.h5" "$T/out" > "$T/job.ini"

cd "$SRC"
jid=$(SECPE="$SECPE" sbatch --parsable --ntasks=2 --output="$T/job-%j.out" slurm/secpe-run.sbatch "$T/job.ini") || fail "sbatch refused the job"
wait_job() {  # wait_job JOBID: until it (every array task) has left the queue, then check it completed
  local deadline=$(( $(date +%s) + 300 ))
  while squeue -h -j "$1" 2>/dev/null | grep -q .; do
    [ "$(date +%s)" -lt "$deadline" ] || { scancel "$1"; fail "job $1 did not finish in 300 s"; }
    sleep 0.5
  done
  if scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | grep -qv 'JobState=COMPLETED'; then
    cat "$T"/*.out >&2; fail "job $1 (or one of its array tasks) did not complete"
  fi
}
wait_job "$jid"
for f in synthetic.csv privacy.json metrics.jsonl run.json; do [ -s "$T/out/$f" ] || fail "job output $f missing"; done
grep -q '"ranks": 2' "$T/out/run.json" || fail "the job did not run 2 ranks"

# The scaling study, at a tiny size, as the cluster would run it.
sid=$(SECPE="$SECPE" RECORDS=4000 DIM=32 SYNTHETIC=400 CLUSTERS=8 STUDIES="strong records" \
      sbatch --parsable --ntasks=2 --output="$T/scaling-%j.out" slurm/scaling.sbatch "$T/scaling") || fail "sbatch refused the scaling study"
wait_job "$sid"
for f in strong-r1 strong-r2 records-m500 records-m4000; do [ -s "$T/scaling/$f.json" ] || fail "scaling study: $f.json missing"; done
[ -s "$T/scaling/scaling.png" ] && grep -q '| strong-r2 | 2 |' "$T/scaling/scaling.md" || fail "scaling study: no table or plot"

# The utility study's job array on a small grid (needs the dev set from ../shared).
DEV=$SHARED/data/yelp/dev.csv
if [ -f "$DEV" ]; then
  export SEEDS=1 RP=10 METHODS="secpe random" GENERATOR_LABELS=pooled EMBEDDERS=ppmi-sif ABLATIONS="" SYNTHETIC=200 ITERATIONS=2
  bash jobs/utility-study.sh prepare "$DEV" "$T/utility" > "$T/prepare.log" 2>&1 || { cat "$T/prepare.log"; fail "utility study: prepare"; }
  n=$(bash jobs/utility-study.sh points)
  [ "$n" = 2 ] || fail "utility study: $n grid points, expected 2"
  aid=$(sbatch --parsable --array=0-$((n - 1)) --output="$T/utility-%A_%a.out" slurm/utility-sweep.sbatch "$DEV" "$T/utility") ||
    fail "sbatch refused the utility array"
  wait_job "$aid"
  bash jobs/utility-study.sh analyse "$DEV" "$T/utility" > "$T/analyse.log" 2>&1 || { cat "$T/analyse.log"; fail "utility study: analyse"; }
  grep -q '| pooled (50 topics), ppmi-sif | SecPE, r/p = 10 |' "$T/utility/table.md" && grep -q '| control: random selection' "$T/utility/table.md" ||
    fail "utility study: table"
  [ "$(stat -c %a "$T/utility/private")" = 700 ] && [ -f "$T/utility/private/noise.key" ] && [ ! -e "$T/utility/noise.key" ] ||
    fail "utility study: the private files are not apart in private/ (0700)"
fi
echo "slurm_job: ok (jobs $jid, $sid${aid:+, array $aid})"
