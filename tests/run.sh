#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit, MPI at 1/2/4 ranks, end to end).
set -euo pipefail
cd "$(dirname "$0")/.."
bash jobs/install-deps.sh
bash jobs/build.sh
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd build
ctest --output-on-failure --timeout 900 "$@"
