#!/usr/bin/env bash
# Installs what is missing, builds, and runs SecPE end to end on the built-in demo with 2 MPI
# ranks: demo corpus -> HDF5 dataset -> synthetic text and a privacy report in out/quickstart/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash jobs/install-deps.sh
bash jobs/build.sh

# MPI stays on this machine (loopback); root may run it.
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RANKS=${SECPE_RANKS:-2}

./build/secpe corpus --config jobs/quickstart.ini
./build/secpe import --config jobs/quickstart.ini
mpirun -n "$RANKS" --oversubscribe ./build/secpe run --config jobs/quickstart.ini "$@"
./build/secpe inspect out/quickstart
echo "quickstart: outputs in out/quickstart/ (synthetic.csv, privacy.json, metrics.jsonl, run.json)"
