#!/usr/bin/env bash
# The utility study on PubMed (docs/studies.md#pubmed-study): the paper's Table 3 question, does
# SecPE keep next-word accuracy as r/p tightens where Aug-PE loses it? jobs/utility-study.sh with
# PubMed's shape and the paper's PubMed settings (jobs/paper-preset.sh pubmed): the whole training
# file imported with secpe import's default secrets (100 random words) and the ppmi-sif embedder,
# the held-out abstracts given as a file of their own, the built-in generator blind to labels
# (pooled, 50 topics), N_syn 2,000, K 2,000, L 6, 5 iterations, --max-words 448; 3 seeds of the
# control, SecPE and Aug-PE at r/p 2, 10 and none, and the no-private ablation (24 runs, about
# 20 minutes on 2 cores). Every run is an experiment (not for publication, see utility-study.sh).
#
# usage: bash jobs/pubmed-study.sh [STEP] [TRAIN.csv] [OUT] [HELDOUT.csv]
#   STEP as jobs/utility-study.sh's; TRAIN default ../shared/data/pubmed/train.csv, OUT default
#   out/pubmed-study, HELDOUT default ../shared/data/pubmed/dev.csv.
# Knobs: utility-study.sh's, with PubMed's defaults here (each may still be set).
set -euo pipefail
STEP=()
case ${1:-} in all|prepare|points|grid|analyse) STEP=("$1"); shift ;; point) STEP=("$1" "${2:?point needs an index}"); shift 2 ;; esac
export GENERATOR_LABELS=${GENERATOR_LABELS:-pooled} EMBEDDERS=${EMBEDDERS:-ppmi-sif} ABLATIONS=${ABLATIONS-no-private}
export SYNTHETIC=${SYNTHETIC:-2000} CLUSTERS=${CLUSTERS:-2000} VARIATIONS=${VARIATIONS:-6} ITERATIONS=${ITERATIONS:-5}
export MAX_WORDS=${MAX_WORDS:-448} TOPICS=${TOPICS:-50}
exec bash "$(dirname "$0")/utility-study.sh" "${STEP[@]}" "${1:-../shared/data/pubmed/train.csv}" "${2:-out/pubmed-study}" \
  "${3:-../shared/data/pubmed/dev.csv}"
