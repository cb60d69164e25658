#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit, MPI at 1/2/4 ranks, end to end).
set -euo pipefail
cd "$(dirname "$0")/.."
bash jobs/install-deps.sh
bash jobs/build.sh
source jobs/mpi-env.sh
cd build
ctest --output-on-failure --timeout 900 "$@"
