#!/usr/bin/env bash
# Regenerates the analysis figures in analysis/figures/ (needs a built secpe: bash jobs/build.sh).
# Uses Debian's python3-matplotlib (install-deps.sh's analysis group, installed here when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
bash jobs/install-deps.sh analysis
/usr/bin/python3 analysis/noise_ratio.py ./build/secpe analysis/figures "$@"
