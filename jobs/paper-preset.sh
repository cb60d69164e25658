#!/usr/bin/env bash
# The SecPE paper's settings for one of its three benchmarks (its Table 1), on the corpus at hand:
# imports TRAIN.csv with the paper's secrets (secpe import's defaults: 100 random words), makes a
# noise key, and runs with the benchmark's N_syn, K, L, iterations and text length, the built-in
# generator blind to the labels as the paper's LLM is (--generator-labels pooled, 50 topics).
# Given a held-out file, every iteration is scored on it (--eval-real) and the final set too
# (OUT/eval.json, next-word prediction included).
#
#   benchmark    N_syn   K per label   L   iterations   --max-words (the paper's max tokens)
#   yelp         5000    600           6   5            64
#   openreview   2000    20            6   10           448
#   pubmed       2000    2000          6   5            448   (the paper: K 2,000 to 4,000; 2,000
#                                                           keeps K below PubMed's 2,868 public abstracts)
#
# Scaled to the data: N_syn is at most TRAIN's record count; a K above a label's public records
# gives one cluster per public record (k-means lowers it). Every other setting is secpe run's.
#
# usage: bash jobs/paper-preset.sh yelp|openreview|pubmed TRAIN.csv OUT [HELDOUT.csv] [-- more secpe run options]
#   OUT/ holds what may be published (the run's outputs, eval.json); OUT.private/ (mode 0700) what
#   may not: the dataset, the noise key, the run's state.
# Knobs (environment): METHOD (secpe), R_OVER_P (10), SEED (1), RANKS (1), THREADS (0: all),
#   LAUNCH (mpirun), TOPICS (50), and SYNTHETIC, CLUSTERS, VARIATIONS, ITERATIONS, MAX_WORDS to
#   override the benchmark's.
set -euo pipefail
source "$(dirname "$0")/lib/locate.sh"
usage="usage: bash jobs/paper-preset.sh yelp|openreview|pubmed TRAIN.csv OUT [HELDOUT.csv] [-- secpe run options]"
[ $# -ge 3 ] || { echo "$usage" >&2; exit 2; }
BENCHMARK=$1 TRAIN=$2 OUT=$3; shift 3
HELDOUT=""
if [ $# -gt 0 ] && [ "$1" != -- ]; then HELDOUT=$1; shift; fi
[ "${1:-}" = -- ] && shift
case $BENCHMARK in
  yelp)       set_syn=5000 set_k=600  set_iter=5  set_words=64 ;;
  openreview) set_syn=2000 set_k=20   set_iter=10 set_words=448 ;;
  pubmed)     set_syn=2000 set_k=2000 set_iter=5  set_words=448 ;;
  *) echo "paper-preset: the benchmark is yelp, openreview or pubmed, not '$BENCHMARK'" >&2; echo "$usage" >&2; exit 2 ;;
esac
[ -f "$TRAIN" ] || { echo "paper-preset: TRAIN.csv '$TRAIN' not found" >&2; exit 2; }
[ -z "$HELDOUT" ] || [ -f "$HELDOUT" ] || { echo "paper-preset: HELDOUT.csv '$HELDOUT' not found" >&2; exit 2; }
[ -e "$OUT/run.json" ] && { echo "paper-preset: $OUT holds a completed run: give a new OUT" >&2; exit 2; }

# The training file's records (a CSV record may span lines): N_syn is at most that many.
records=$(python3 -c 'import csv, sys; csv.field_size_limit(1 << 30); print(sum(1 for _ in csv.reader(open(sys.argv[1], newline=""))) - 1)' "$TRAIN")
SYNTHETIC=${SYNTHETIC:-$(( set_syn < records ? set_syn : records ))}
CLUSTERS=${CLUSTERS:-$set_k} VARIATIONS=${VARIATIONS:-6} ITERATIONS=${ITERATIONS:-$set_iter} MAX_WORDS=${MAX_WORDS:-$set_words}
METHOD=${METHOD:-secpe} R_OVER_P=${R_OVER_P:-10} SEED=${SEED:-1} RANKS=${RANKS:-1} THREADS=${THREADS:-0}
LAUNCH=${LAUNCH:-mpirun} TOPICS=${TOPICS:-50}

PRIVATE=$OUT.private
mkdir -p "$PRIVATE"
chmod 700 "$PRIVATE"
[ -f "$PRIVATE/data.h5" ] || "$SECPE" import --input "$TRAIN" --out "$PRIVATE/data.h5"
[ -f "$PRIVATE/noise.key" ] || "$SECPE" keygen --out "$PRIVATE/noise.key" >/dev/null
echo "paper-preset: $BENCHMARK: N_syn $SYNTHETIC, K $CLUSTERS, L $VARIATIONS, $ITERATIONS iterations, --max-words $MAX_WORDS, $METHOD at r/p $R_OVER_P" >&2
launch=("$LAUNCH" -n "$RANKS")
[ "$LAUNCH" = mpirun ] && launch+=(--oversubscribe)
eval_real=()
[ -n "$HELDOUT" ] && eval_real=(--eval-real "$HELDOUT")
# Exit 4: the outputs are written, but some secret got more than its budget (Aug-PE's record-level
# accounting): they are scored all the same, and the script exits 4 too.
rc=0
"${launch[@]}" "$SECPE" run --data "$PRIVATE/data.h5" --out "$OUT" --state-dir "$PRIVATE/state" --noise-key-file "$PRIVATE/noise.key" \
  --method "$METHOD" --r-over-p "$R_OVER_P" --seed "$SEED" --threads "$THREADS" \
  --synthetic "$SYNTHETIC" --clusters "$CLUSTERS" --variations "$VARIATIONS" --iterations "$ITERATIONS" --max-words "$MAX_WORDS" \
  --generator-labels pooled --generator-topics "$TOPICS" "${eval_real[@]}" "$@" || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 4 ] || exit "$rc"
if [ -n "$HELDOUT" ]; then
  "$SECPE" eval --synthetic "$OUT/synthetic.csv" --real "$HELDOUT" --next-word --out "$OUT/eval.json" --quiet
fi
exit "$rc"
