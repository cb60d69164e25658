#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit, MPI at 1-4 ranks, end to end),
# then the sanitizer and fuzzing stage, tests/sanitize.sh (SECPE_SKIP_SANITIZERS=1 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash jobs/install-deps.sh tests
bash jobs/build.sh
source jobs/mpi-env.sh
(cd build && ctest --output-on-failure --timeout 900 "$@")
if [ "${SECPE_SKIP_SANITIZERS:-0}" = 1 ]; then
  echo "run.sh: sanitizer and fuzzing stage skipped (SECPE_SKIP_SANITIZERS=1)"
else
  bash tests/sanitize.sh
fi
