#!/usr/bin/env bash
# Runs SecPE end to end on the built-in demo with 2 MPI ranks: demo corpus -> HDF5 dataset ->
# synthetic text and a privacy report in out/quickstart/. In a source tree it first installs what is
# missing and builds, and writes into the tree; installed (module load secpe), it runs the installed
# binary and writes into the current folder. Arguments go to secpe run; SECPE_RANKS: ranks (2).
set -euo pipefail
source "$(dirname "$0")/lib/locate.sh"
cd "$SECPE_WORKDIR"
if [ "$SECPE_INSTALLED" = 0 ]; then
  bash jobs/install-deps.sh
  bash jobs/build.sh secpe   # the binary alone: tests/run.sh builds the rest
fi

source "$SECPE_ROOT/jobs/mpi-env.sh"
source "$SECPE_ROOT/jobs/blas-core.sh"
RANKS=${SECPE_RANKS:-2}
INI=$SECPE_ROOT/jobs/quickstart.ini

# The demo's corpus and dataset are the quickstart's own: it replaces an earlier quickstart's.
"$SECPE" corpus --config "$INI" --force
"$SECPE" import --config "$INI" --force
# secpe run never overwrites a completed run: the quickstart replaces its own earlier one.
if [ -e out/quickstart ] || [ -e out/quickstart.state ]; then
  echo "quickstart: replacing the earlier out/quickstart and out/quickstart.state"
  rm -rf out/quickstart out/quickstart.state
fi
mpirun -n "$RANKS" --oversubscribe "$SECPE" run --config "$INI" "$@"
"$SECPE" inspect out/quickstart
echo "quickstart: outputs in $PWD/out/quickstart/ (synthetic.csv, initial.csv, privacy.json, metrics.jsonl, run.json)"
