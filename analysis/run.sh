#!/usr/bin/env bash
# Regenerates the analysis figures in analysis/figures/ (needs a built secpe: bash jobs/build.sh).
# Uses Debian's python3-matplotlib (installed here when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-matplotlib >/dev/null
fi
/usr/bin/python3 analysis/noise_ratio.py ./build/secpe analysis/figures "$@"
