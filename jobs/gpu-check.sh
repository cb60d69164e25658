#!/usr/bin/env bash
# The checks and benchmarks that need a GPU, for a node that has one (run from the repository root
# after `bash jobs/build.sh` there): the CUDA equivalence tests, the NCCL communicator, the
# --device e2e test, then `bench kernel` and `bench histogram` on the GPU and on the CPU at Yelp
# scale. Reports go to OUT (default out/gpu-check); the synthetic Yelp-scale dataset (6 GB) goes
# to a temporary folder and is deleted. SECPE_BIN (default build) names the folder of the binaries.
#   bash jobs/gpu-check.sh [OUT]
set -uo pipefail  # no -e: every check runs, and the summary says which failed
cd "$(dirname "$0")/.."
OUT=$(mkdir -p "${1:-out/gpu-check}" && cd "${1:-out/gpu-check}" && pwd)
BIN=$(cd "${SECPE_BIN:-build}" && pwd)
SECPE=$BIN/secpe; UNIT=$BIN/secpe_unit_tests; MPI_TESTS=$BIN/secpe_mpi_tests
[ -x "$BIN/tests/secpe_unit_tests" ] && UNIT=$BIN/tests/secpe_unit_tests MPI_TESTS=$BIN/tests/secpe_mpi_tests
source jobs/mpi-env.sh
SECPE=$SECPE source jobs/blas-core.sh
THREADS=$(nproc)
DATA=$(mktemp -d); trap 'rm -rf "$DATA"' EXIT
failed=()
check() {  # check NAME COMMAND...: runs it, its output in OUT/NAME.log
  local name=$1; shift
  echo "gpu-check: $name"
  "$@" >"$OUT/$name.log" 2>&1 || { failed+=("$name"); echo "gpu-check: $name FAILED (see $OUT/$name.log)"; }
}
nvidia-smi -L >"$OUT/gpu.txt" 2>&1 || { echo "gpu-check: nvidia-smi found no GPU" >&2; exit 2; }
check cuda-unit-tests "$UNIT" --gtest_filter='CudaKernel.*:Device.*:GpuPlan.*'
check nccl-1-rank "$MPI_TESTS" --gtest_filter='NcclCommunicator.*'
check nccl-2-ranks mpirun -n 2 --oversubscribe "$MPI_TESTS" --gtest_filter='NcclCommunicator.*'
check e2e-device env SECPE_SOURCE_DIR="$PWD" bash tests/e2e/device.sh "$SECPE"
for tf32 in "" --tf32; do
  check "bench-kernel-cuda${tf32}" "$SECPE" bench kernel --device cuda --rows 100000 --centres 35000 --dim 768 \
    --verify-rows 2000 --threads "$THREADS" $tf32 --out "$OUT/kernel_cuda${tf32}.json"
done
check synth-embeddings "$SECPE" synth-embeddings --records 1939290 --dim 768 --labels yelp --out "$DATA/yelp.h5" --threads "$THREADS"
for device in cuda cpu; do
  check "bench-histogram-$device" "$SECPE" bench histogram --data "$DATA/yelp.h5" --synthetic 5000 --variations 6 \
    --clusters 600 --kmeans-iterations 2 --method both --device "$device" --threads "$THREADS" --out "$OUT/histogram_$device.json"
done
if [ ${#failed[@]} -gt 0 ]; then echo "gpu-check: failed: ${failed[*]}"; exit 1; fi
echo "gpu-check: all passed; reports in $OUT"
