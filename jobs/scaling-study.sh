#!/usr/bin/env bash
# Scaling study of one evolution iteration's votes, SecPE (O(K N)) against Aug-PE (O(M N)), with
# `secpe bench histogram` on synthetic Yelp-shaped embeddings (`secpe synth-embeddings`). Each
# point writes its benchmark JSON into OUT; analysis/scaling.py turns them into a table and plots.
#   strong   fixed data, 1, 2, 4, ... up to MAX_RANKS ranks
#   weak     RECORDS / MAX_RANKS records per rank, 1 .. MAX_RANKS ranks
#   records  M: RECORDS x 1/8, 1/4, 1/2, 1 (1 rank)
#   synthetic N: SYNTHETIC x 1/4, 1/2, 1, 2 (1 rank)
#   clusters K: CLUSTERS x 1/4, 1/2, 1, 2 (1 rank)
# usage: bash jobs/scaling-study.sh [OUT]      (default out/scaling-study)
# Knobs (environment): RECORDS (200000), DIM (768), LABELS (yelp), SYNTHETIC (5000), CLUSTERS (600),
# MAX_RANKS (2), THREADS (1 per rank), STUDIES ("strong weak records synthetic clusters"),
# LAUNCH (the MPI launcher and its flags; default "mpirun --oversubscribe", "mpirun" or "srun" in
# a Slurm job: slurm/scaling.sbatch), SECPE (jobs/lib/locate.sh). The full Yelp size is RECORDS=1939290.
set -euo pipefail
source "$(dirname "$0")/lib/locate.sh"
cd "$SECPE_WORKDIR"
OUT=${1:-out/scaling-study}
RECORDS=${RECORDS:-200000}; DIM=${DIM:-768}; LABELS=${LABELS:-yelp}
SYNTHETIC=${SYNTHETIC:-5000}; CLUSTERS=${CLUSTERS:-600}; MAX_RANKS=${MAX_RANKS:-2}; THREADS=${THREADS:-1}
STUDIES=${STUDIES:-"strong weak records synthetic clusters"}
LAUNCH=${LAUNCH:-mpirun --oversubscribe}
[ -x "$SECPE" ] || bash jobs/build.sh secpe >/dev/null
source "$SECPE_ROOT/jobs/mpi-env.sh"
source "$SECPE_ROOT/jobs/blas-core.sh"
mkdir -p "$OUT/data"

data() {  # data N: the synthetic dataset of N records (made once)
  local f="$OUT/data/m$1.h5"
  [ -f "$f" ] || "$SECPE" synth-embeddings --records "$1" --dim "$DIM" --labels "$LABELS" --out "$f" >/dev/null
  echo "$f"
}
point() {  # point NAME RANKS RECORDS SYNTHETIC CLUSTERS: one benchmark JSON (skipped when there)
  local json="$OUT/$1.json"
  [ -f "$json" ] && return 0
  echo "scaling-study: $1 ($2 rank(s), M = $3, N_syn = $4, K = $5)"
  $LAUNCH -n "$2" "$SECPE" bench histogram --data "$(data "$3")" --synthetic "$4" --clusters "$5" --method both \
    --threads "$THREADS" --out "$json" >/dev/null
}
ranks_list() { local r=1; while [ $r -le "$MAX_RANKS" ]; do echo $r; r=$((r * 2)); done; }

for study in $STUDIES; do
  case $study in
    strong) for r in $(ranks_list); do point "strong-r$r" "$r" "$RECORDS" "$SYNTHETIC" "$CLUSTERS"; done ;;
    weak) for r in $(ranks_list); do point "weak-r$r" "$r" $((RECORDS / MAX_RANKS * r)) "$SYNTHETIC" "$CLUSTERS"; done ;;
    records) for f in 8 4 2 1; do point "records-m$((RECORDS / f))" 1 $((RECORDS / f)) "$SYNTHETIC" "$CLUSTERS"; done ;;
    synthetic) for n in $((SYNTHETIC / 4)) $((SYNTHETIC / 2)) "$SYNTHETIC" $((SYNTHETIC * 2)); do point "synthetic-n$n" 1 "$RECORDS" "$n" "$CLUSTERS"; done ;;
    clusters) for k in $((CLUSTERS / 4)) $((CLUSTERS / 2)) "$CLUSTERS" $((CLUSTERS * 2)); do point "clusters-k$k" 1 "$RECORDS" "$SYNTHETIC" "$k"; done ;;
    *) echo "scaling-study: unknown study '$study' (strong, weak, records, synthetic, clusters)" >&2; exit 2 ;;
  esac
done
/usr/bin/python3 "$SECPE_ROOT/analysis/scaling.py" "$OUT"
