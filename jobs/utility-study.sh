#!/usr/bin/env bash
# The utility study: is the synthetic text worth its privacy cost? On a Yelp-format corpus, a
# deterministic held-out split (every 5th record; the dev set gives 4,000 / 1,000) is kept away
# from secpe; the rest is imported with the default secrets. Then, for every seed:
#   secpe and augpe at each r/p of $RP ("none": r/p = 9999, almost no noise), and the
#   no-private-data control (--method random), each with --eval-real on the held-out split, so
#   metrics.jsonl scores the initial population and every iteration;
#   references: N_syn random real training reviews, and the whole training split.
# analysis/utility_study.py then writes table.md, table.json and the plots into $OUT.
#
# usage: bash jobs/utility-study.sh [STEP] [CORPUS.csv] [OUT]
#   STEP: all (default: every step here), prepare (split, import, key, references), points (how
#   many runs the grid has), point I (run I of the grid, 0-based: one Slurm array task, see
#   slurm/utility-sweep.sbatch), analyse (table and plots)
#   CORPUS default ../shared/data/yelp/dev.csv, OUT default out/utility-study.
# Knobs (environment): SEEDS ("1 2 3"), RP ("2 10 50 none"), METHODS ("secpe augpe random"),
# SYNTHETIC (2000), ITERATIONS (10), VARIATIONS (3), CLUSTERS (20), RANKS (1), THREADS (2),
# LAUNCH ("mpirun"; "srun" in Slurm), IMPORT_ARGS (extra secpe import options, e.g.
# "--embedder tfidf-svd"), RUN_ARGS (extra secpe run options for every run, e.g. "--variation span").
set -euo pipefail
source "$(dirname "$0")/lib/locate.sh"
cd "$SECPE_WORKDIR"
STEP=all
case ${1:-} in all|prepare|points|point|analyse) STEP=$1; shift ;; esac
INDEX=""
if [ "$STEP" = point ]; then INDEX=${1:?point needs an index}; shift; fi
CORPUS=${1:-../shared/data/yelp/dev.csv}
OUT=${2:-out/utility-study}
SEEDS=${SEEDS:-"1 2 3"}; RP=${RP:-"2 10 50 none"}; METHODS=${METHODS:-"secpe augpe random"}
SYNTHETIC=${SYNTHETIC:-2000}; ITERATIONS=${ITERATIONS:-10}; VARIATIONS=${VARIATIONS:-3}; CLUSTERS=${CLUSTERS:-20}
RANKS=${RANKS:-1}; THREADS=${THREADS:-2}; LAUNCH=${LAUNCH:-mpirun}

grid() {  # one line per run: NAME and its secpe run options
  for seed in $SEEDS; do
    for method in $METHODS; do
      if [ "$method" = random ]; then echo "random-s$seed --method random --seed $seed"; continue; fi
      for rp in $RP; do
        r_over_p=$rp; [ "$rp" = none ] && r_over_p=9999
        echo "$method-rp$rp-s$seed --method $method --r-over-p $r_over_p --seed $seed"
      done
    done
  done
}

prepare() {
  [ -f "$CORPUS" ] || { echo "utility-study: $CORPUS not found" >&2; exit 2; }
  [ "$SECPE_INSTALLED" = 1 ] || bash jobs/install-deps.sh
  if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then  # the plots (Debian's package)
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-matplotlib >/dev/null
  fi
  [ "$SECPE_INSTALLED" = 1 ] || bash jobs/build.sh >/dev/null
  mkdir -p "$OUT"
  python3 "$SECPE_ROOT/analysis/heldout_split.py" "$CORPUS" "$OUT/train.csv" "$OUT/heldout.csv" --reference "$OUT/reference.csv" --size "$SYNTHETIC" \
    --reference-cut "$OUT/reference_cut.csv" --cut-words 64
  # shellcheck disable=SC2086  # options are words
  "$SECPE" import --input "$OUT/train.csv" --out "$OUT/train.h5" ${IMPORT_ARGS:-}
  # One key for the whole grid is safe: every run's noise is keyed by everything that determines its
  # releases (here method, r/p and seed, which differ between grid points) and by a nonce each run
  # draws afresh (run.json; a requeued task's --resume takes its interrupted run's), so no two runs
  # share noise (src/evolve/release_keys.hpp; tests/e2e/noise_reuse.sh).
  [ -f "$OUT/noise.key" ] || "$SECPE" keygen --out "$OUT/noise.key" >/dev/null
  for name in reference reference_cut train; do
    "$SECPE" eval --synthetic "$OUT/$name.csv" --real "$OUT/heldout.csv" --out "$OUT/$name.eval.json" --quiet >/dev/null
  done
}

point() {  # point I: run line I of the grid, skipped when already complete (run.json is written last)
  local line name
  line=$(grid | sed -n "$(($1 + 1))p")
  [ -n "$line" ] || { echo "utility-study: no run $1 in a grid of $(grid | wc -l)" >&2; exit 2; }
  name=${line%% *}
  [ -f "$OUT/runs/$name/run.json" ] && return 0
  echo "utility-study: $name"
  # shellcheck disable=SC2086  # the grid's options are words
  $LAUNCH -n "$RANKS" "$SECPE" run --data "$OUT/train.h5" --out "$OUT/runs/$name" --noise-key-file "$OUT/noise.key" \
    --synthetic "$SYNTHETIC" --iterations "$ITERATIONS" --variations "$VARIATIONS" --clusters "$CLUSTERS" \
    --threads "$THREADS" --eval-real "$OUT/heldout.csv" --quiet --resume ${RUN_ARGS:-} ${line#* }
}

source "$SECPE_ROOT/jobs/mpi-env.sh"
source "$SECPE_ROOT/jobs/blas-core.sh"
case $STEP in
  prepare) prepare ;;
  points) grid | wc -l ;;
  point) point "$INDEX" ;;
  analyse) /usr/bin/python3 "$SECPE_ROOT/analysis/utility_study.py" "$OUT" ;;
  all)
    prepare
    for i in $(seq 0 $(($(grid | wc -l) - 1))); do point "$i"; done
    /usr/bin/python3 "$SECPE_ROOT/analysis/utility_study.py" "$OUT" ;;
esac
