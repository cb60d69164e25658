#!/usr/bin/env bash
# Configures and builds secpe in build/ (Release). Used by quickstart.sh and tests/run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${SECPE_BUILD_JOBS:-$(nproc)}
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${SECPE_CMAKE_ARGS:-} >build-configure.log 2>&1 || { cat build-configure.log; exit 1; }
cmake --build build -j "$JOBS"
