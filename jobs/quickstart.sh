#!/usr/bin/env bash
# Installs what is missing, builds, and runs SecPE end to end on the built-in demo with 2 MPI
# ranks: demo corpus -> HDF5 dataset -> synthetic text and a privacy report in out/quickstart/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash jobs/install-deps.sh
bash jobs/build.sh

source jobs/mpi-env.sh
source jobs/blas-core.sh
RANKS=${SECPE_RANKS:-2}

./build/secpe corpus --config jobs/quickstart.ini
./build/secpe import --config jobs/quickstart.ini
# secpe run never overwrites a completed run: the quickstart replaces its own earlier one.
if [ -e out/quickstart ] || [ -e out/quickstart.state ]; then
  echo "quickstart: replacing the earlier out/quickstart and out/quickstart.state"
  rm -rf out/quickstart out/quickstart.state
fi
mpirun -n "$RANKS" --oversubscribe ./build/secpe run --config jobs/quickstart.ini "$@"
./build/secpe inspect out/quickstart
echo "quickstart: outputs in out/quickstart/ (synthetic.csv, initial.csv, privacy.json, metrics.jsonl, run.json)"
