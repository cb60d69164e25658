#!/usr/bin/env bash
# The utility study: is the synthetic text worth its privacy cost? (docs/studies.md)
# On a Yelp-format corpus, a deterministic held-out split (every 5th record; the dev set gives
# 4,000 / 1,000; analysis/heldout_split.py) is kept away from secpe; the rest is imported once per
# embedder with the secrets of $IMPORT_ARGS, stated explicitly. Given a held-out file (HELDOUT.csv,
# as PubMed's dev.csv), the whole corpus is for training and the file is the held-out set; a corpus
# without labels (text only) is scored by next-word prediction instead of classification
# (jobs/pubmed-study.sh is that study on PubMed). Then the grid
#   generator labels ($GENERATOR_LABELS) x embedder ($EMBEDDERS) x
#   { secpe and augpe at each r/p of $RP ("none": r/p = 9999, almost no noise),
#     the no-private-data control (--method random) } x seed ($SEEDS),
# every run scoring its initial population and every iteration's selection on the held-out split
# (--eval-real), and two ablations on the first generator-labels mode and embedder:
#   no-private    secpe with the private records left out (--private-batch 1e-9: the release is
#                 the public clusters alone, its noise scaled down with the batch), at r/p = 10;
#   half-private  a dataset imported with $HALF_PRIVATE_ARGS (about half of the records private),
#                 with secpe and augpe at r/p = 10 and its own control.
# analysis/utility_study.py writes the table, the targets and the plots into $OUT.
#
# Outputs: $OUT holds what may be published (table.md, table.json, targets.md, *.png, and
# runs/NAME/ with each run's synthetic.csv, privacy.json, metrics.jsonl, run.json);
# $OUT/private (mode 0700) holds what may not: the split corpus, the datasets, the noise key and
# the runs' state folders. Publish $OUT without private/.
#
# usage: bash jobs/utility-study.sh [STEP] [CORPUS.csv] [OUT] [HELDOUT.csv]
#   STEP: all (default: every step here), prepare (split, imports, public-share check, key,
#   references), points (how many runs the grid has), grid (each run's index and name), point I
#   (run I of the grid, 0-based: one Slurm array task, see slurm/utility-sweep.sbatch), analyse
#   (table and plots)
#   CORPUS default ../shared/data/yelp/dev.csv, OUT default out/utility-study, HELDOUT default none
#   (every 5th record of CORPUS is held out).
# Knobs (environment; the same in every step): SEEDS ("1 2 3"), RP ("2 10 none"),
# METHODS ("secpe augpe random"), GENERATOR_LABELS ("pooled per-label prompt"),
# EMBEDDERS ("ppmi-sif tfidf-svd hashing": the first everywhere, the others in the modes of
# COMPARE_EMBEDDERS_IN, "pooled"), ABLATIONS ("no-private half-private"),
# SYNTHETIC (1000), ITERATIONS (10), VARIATIONS (3), CLUSTERS (20), TOPICS (50: --generator-topics of
# every pooled run; 0 for the one pooled model), MAX_WORDS (unset: secpe run's --max-words, 64; set,
# every run's --max-words and the cut reference's length), RANKS (1), THREADS (2),
# LAUNCH ("mpirun"; "srun" in Slurm), PROMPTS (jobs/prompts/yelp.json: the keyword lists of the
# prompt mode), IMPORT_ARGS ("--secrets random-word --secret-count 100 --secret-quantile 0.2
# --secret-max-private-share 0.3": secpe import's defaults, spelled out; 13% of the dev set's
# training records private), HALF_PRIVATE_ARGS ("--secrets random-word --secret-count 1600
# --secret-quantile 0.4 --secret-max-private-share 1": 45% private, every label keeping public ones),
# MIN_PUBLIC_SHARE (0.2: prepare warns about a label below it; a label without public record
# stops it), RUN_ARGS (extra secpe run options for every run), SECPE (the binary, used as given;
# unset: jobs/lib/locate.sh's, built first in a source tree).
set -euo pipefail
SECPE_GIVEN=${SECPE:+1}  # a binary given is used as it is; else the tree's is built first
source "$(dirname "$0")/lib/locate.sh"
cd "$SECPE_WORKDIR"
STEP=all
case ${1:-} in all|prepare|points|grid|point|analyse) STEP=$1; shift ;; esac
INDEX=""
if [ "$STEP" = point ]; then INDEX=${1:?point needs an index}; shift; fi
CORPUS=${1:-../shared/data/yelp/dev.csv}
OUT=${2:-out/utility-study}
HELDOUT=${3:-}
SEEDS=${SEEDS:-"1 2 3"}; RP=${RP:-"2 10 none"}; METHODS=${METHODS:-"secpe augpe random"}
GENERATOR_LABELS=${GENERATOR_LABELS:-"pooled per-label prompt"}; EMBEDDERS=${EMBEDDERS:-"ppmi-sif tfidf-svd hashing"}
COMPARE_EMBEDDERS_IN=${COMPARE_EMBEDDERS_IN:-pooled}
ABLATIONS=${ABLATIONS-"no-private half-private"}
SYNTHETIC=${SYNTHETIC:-1000}; ITERATIONS=${ITERATIONS:-10}; VARIATIONS=${VARIATIONS:-3}; CLUSTERS=${CLUSTERS:-20}; TOPICS=${TOPICS:-50}
RANKS=${RANKS:-1}; THREADS=${THREADS:-2}; LAUNCH=${LAUNCH:-mpirun}; PROMPTS=${PROMPTS:-$SECPE_ROOT/jobs/prompts/yelp.json}
IMPORT_ARGS=${IMPORT_ARGS:-"--secrets random-word --secret-count 100 --secret-quantile 0.2 --secret-max-private-share 0.3"}
HALF_PRIVATE_ARGS=${HALF_PRIVATE_ARGS:-"--secrets random-word --secret-count 1600 --secret-quantile 0.4 --secret-max-private-share 1"}
MIN_PUBLIC_SHARE=${MIN_PUBLIC_SHARE:-0.2}
PRIVATE=$OUT/private
read -r -a LABEL_MODES <<<"$GENERATOR_LABELS"
read -r -a EMBEDDER_LIST <<<"$EMBEDDERS"

r_over_p() { if [ "$1" = none ]; then echo 9999; else echo "$1"; fi; }

grid() {  # one line per run: NAME DATASET and its secpe run options
  local labels emb seed method rp
  for labels in "${LABEL_MODES[@]}"; do
    for emb in "${EMBEDDER_LIST[@]}"; do
      # The other embedders only where they are compared; the control (it embeds nothing) once.
      [ "$emb" != "${EMBEDDER_LIST[0]}" ] && [[ " $COMPARE_EMBEDDERS_IN " != *" $labels "* ]] && continue
      for seed in $SEEDS; do
        for method in $METHODS; do
          if [ "$method" = random ]; then
            [ "$emb" = "${EMBEDDER_LIST[0]}" ] && echo "$labels-$emb-random-s$seed $emb --generator-labels $labels --method random --seed $seed"
            continue
          fi
          for rp in $RP; do
            echo "$labels-$emb-$method-rp$rp-s$seed $emb --generator-labels $labels --method $method --r-over-p $(r_over_p "$rp") --seed $seed"
          done
        done
      done
    done
  done
  labels=${LABEL_MODES[0]}; emb=${EMBEDDER_LIST[0]}
  for seed in $SEEDS; do
    for ablation in $ABLATIONS; do
      case $ablation in
        no-private) echo "abl-no-private-$labels-$emb-secpe-rp10-s$seed $emb --generator-labels $labels --method secpe --r-over-p 10 --private-batch 1e-9 --seed $seed" ;;
        half-private)
          for method in secpe augpe; do
            echo "abl-half-private-$labels-$emb-$method-rp10-s$seed half-$emb --generator-labels $labels --method $method --r-over-p 10 --seed $seed"
          done
          echo "abl-half-private-$labels-$emb-random-s$seed half-$emb --generator-labels $labels --method random --seed $seed" ;;
        *) echo "utility-study: unknown ablation '$ablation' (no-private, half-private)" >&2; exit 2 ;;
      esac
    done
  done
}

# check_public_share DATA.h5: every label needs public records (the generator's texts, the
# clusters and the label's share of N_syn come from them); a label below MIN_PUBLIC_SHARE is named.
check_public_share() {
  "$SECPE" inspect "$1" | awk -v min="$MIN_PUBLIC_SHARE" -v file="$1" '
    /^ +id +records +public +private +label/ { table = 1; next }
    table && NF >= 4 && $1 ~ /^[0-9]+$/ {
      label = $0; sub(/^ *[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +/, "", label)
      all += $2; pub += $3
      if ($3 == 0) { printf "utility-study: %s: label %s (%s) has no public record\n", file, $1, label > "/dev/stderr"; bad = 1 }
      else if ($3 < min * $2) printf "utility-study: %s: label %s (%s) is only %.0f%% public\n", file, $1, label, 100 * $3 / $2 > "/dev/stderr"
    }
    END { if (all) printf "utility-study: %s: %d of %d records public (%.1f%%)\n", file, pub, all, 100 * pub / all; exit bad }'
}

prepare() {
  [ -f "$CORPUS" ] || { echo "utility-study: CORPUS.csv $CORPUS not found" >&2; exit 2; }
  [ -z "$HELDOUT" ] || [ -f "$HELDOUT" ] || { echo "utility-study: HELDOUT.csv $HELDOUT not found" >&2; exit 2; }
  [ "$SECPE_INSTALLED" = 1 ] || bash jobs/install-deps.sh analysis  # with the plots' matplotlib
  [ "$SECPE_INSTALLED" = 1 ] || [ -n "$SECPE_GIVEN" ] || bash jobs/build.sh secpe >/dev/null
  mkdir -p "$OUT/references" "$PRIVATE/data"
  chmod 700 "$PRIVATE"
  # Given a held-out file, nothing of the corpus is held out (--every 0) and the file is copied in.
  python3 "$SECPE_ROOT/analysis/heldout_split.py" "$CORPUS" "$PRIVATE/train.csv" "$PRIVATE/heldout.csv" --reference "$PRIVATE/reference.csv" \
    --size "$SYNTHETIC" --reference-cut "$PRIVATE/reference_cut.csv" --cut-words "${MAX_WORDS:-64}" ${HELDOUT:+--every 0}
  [ -z "$HELDOUT" ] || cp "$HELDOUT" "$PRIVATE/heldout.csv"
  local emb
  for emb in "${EMBEDDER_LIST[@]}"; do
    # shellcheck disable=SC2086  # options are words
    [ -f "$PRIVATE/data/$emb.h5" ] || "$SECPE" import --input "$PRIVATE/train.csv" --out "$PRIVATE/data/$emb.h5" --embedder "$emb" $IMPORT_ARGS >/dev/null
    check_public_share "$PRIVATE/data/$emb.h5"
  done
  if [[ " $ABLATIONS " == *" half-private "* ]]; then
    emb=${EMBEDDER_LIST[0]}
    # shellcheck disable=SC2086
    [ -f "$PRIVATE/data/half-$emb.h5" ] || "$SECPE" import --input "$PRIVATE/train.csv" --out "$PRIVATE/data/half-$emb.h5" --embedder "$emb" $HALF_PRIVATE_ARGS >/dev/null
    check_public_share "$PRIVATE/data/half-$emb.h5"
  fi
  # One key for the whole grid is safe: every run's noise is keyed by everything that determines its
  # releases (here dataset, generator labels, method, r/p and seed, which differ between grid
  # points) and by a nonce each run draws afresh (run.json; a requeued task's --resume takes its
  # interrupted run's), so no two runs share noise (src/evolve/release_keys.hpp; tests/e2e/noise_reuse.sh).
  [ -f "$PRIVATE/noise.key" ] || "$SECPE" keygen --out "$PRIVATE/noise.key" >/dev/null
  for name in reference reference_cut train; do
    "$SECPE" eval --synthetic "$PRIVATE/$name.csv" --real "$PRIVATE/heldout.csv" --out "$OUT/references/$name.eval.json" --quiet >/dev/null
  done
}

point() {  # point I: run line I of the grid, skipped when already complete (run.json is written last)
  local line name rest data
  line=$(grid | sed -n "$(($1 + 1))p")
  [ -n "$line" ] || { echo "utility-study: no run $1 in a grid of $(grid | wc -l)" >&2; exit 2; }
  name=${line%% *}; rest=${line#* }; data=${rest%% *}
  [ -f "$OUT/runs/$name/run.json" ] && return 0
  echo "utility-study: $name"
  local extra=()
  [[ "$rest" == *"--generator-labels prompt"* ]] && extra+=(--prompts "$PROMPTS")
  [[ "$rest" == *"--generator-labels pooled"* ]] && extra+=(--generator-topics "$TOPICS")
  # Aug-PE's record-level noise leaves secrets held by several records over their budget: the
  # baseline runs anyway, and its privacy.json says by how much.
  [[ "$rest" == *"--method augpe"* ]] && extra+=(--allow-over-budget)
  [ -z "${MAX_WORDS:-}" ] || extra+=(--max-words "$MAX_WORDS")
  # shellcheck disable=SC2086  # the grid's options are words
  $LAUNCH -n "$RANKS" "$SECPE" run --data "$PRIVATE/data/$data.h5" --out "$OUT/runs/$name" --state-dir "$PRIVATE/state/$name" \
    --noise-key-file "$PRIVATE/noise.key" --synthetic "$SYNTHETIC" --iterations "$ITERATIONS" --variations "$VARIATIONS" \
    --clusters "$CLUSTERS" --threads "$THREADS" --eval-real "$PRIVATE/heldout.csv" --quiet --resume --experiment "${extra[@]}" ${RUN_ARGS:-} ${rest#* }
}

source "$SECPE_ROOT/jobs/mpi-env.sh"
source "$SECPE_ROOT/jobs/blas-core.sh"
case $STEP in
  prepare) prepare ;;
  points) grid | wc -l ;;
  grid) grid | awk '{print NR - 1, $1}' ;;
  point) point "$INDEX" ;;
  analyse) /usr/bin/python3 "$SECPE_ROOT/analysis/utility_study.py" "$OUT" ;;
  all)
    prepare
    for i in $(seq 0 $(($(grid | wc -l) - 1))); do point "$i"; done
    /usr/bin/python3 "$SECPE_ROOT/analysis/utility_study.py" "$OUT" ;;
esac
