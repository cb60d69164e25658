#!/usr/bin/env bash
# Configures and builds secpe in build/ (Release).
#   build.sh           everything: secpe, the tests, and the CUDA backend wherever nvcc is found
#                      (tests/run.sh; a GPU is not needed to compile it)
#   build.sh secpe     the secpe binary alone (the quickstart, the studies): in a tree not yet
#                      configured, without the tests and with the CUDA backend only where a GPU is
#                      visible (nvidia-smi lists one); a configured tree keeps its choices
# SECPE_CUDA=ON|OFF decides the CUDA backend either way; SECPE_CMAKE_ARGS adds CMake options;
# SECPE_BUILD_JOBS sets the parallel jobs (all cores).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${SECPE_BUILD_JOBS:-$(nproc)}
TARGET=${1:-all}

has_nvcc() { command -v nvcc >/dev/null; }
has_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }

ARGS=()
if [ "$TARGET" = all ]; then
  cuda=OFF; has_nvcc && cuda=ON
  ARGS+=(-DSECPE_TESTS=ON "-DSECPE_CUDA=${SECPE_CUDA:-$cuda}")
elif [ ! -f build/CMakeCache.txt ]; then
  cuda=OFF; has_nvcc && has_gpu && cuda=ON
  ARGS+=(-DSECPE_TESTS=OFF "-DSECPE_CUDA=${SECPE_CUDA:-$cuda}")
elif [ -n "${SECPE_CUDA:-}" ]; then
  ARGS+=("-DSECPE_CUDA=$SECPE_CUDA")
fi
# shellcheck disable=SC2086  # SECPE_CMAKE_ARGS holds several options
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${ARGS[@]}" ${SECPE_CMAKE_ARGS:-} >build-configure.log 2>&1 ||
  { cat build-configure.log; exit 1; }
cmake --build build -j "$JOBS" --target "$TARGET"
