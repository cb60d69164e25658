#!/usr/bin/env bash
# The checks and benchmarks that need a GPU, for a node that has one. Builds nothing: it runs the
# binaries in SECPE_BIN (default build), built elsewhere with CUDA (sm_80 and sm_90 by default).
#   SECPE_BIN=build bash jobs/gpu-check.sh [OUT]        (OUT default out/gpu-check)
# In order of importance, each step with its log in OUT/NAME.log and its own time limit, all of
# them within SECPE_GPU_CHECK_SECONDS (default 400: under 7 minutes on a 16-core H100 node):
#   cuda-unit-tests        every CUDA test (CPU against GPU, bit for bit; a missing GPU fails them)
#                          and the host-side plans
#   bench-kernel-cuda      bench kernel 100000 x 35000 x 768 on the GPU, fp32, against cuBLAS SGEMM
#   synth-embeddings       the Yelp-scale dataset (6 GB, in a temporary folder, deleted at the end)
#   bench-histogram-cuda   bench histogram at Yelp scale on the GPU (SecPE and Aug-PE, GEMM floors)
#   bench-histogram-cpu    the same on this node's CPU cores
#   e2e-device             tests/e2e/device.sh: --device cuda byte-identical to cpu at 1 and 2 ranks
#   bench-kernel-cuda-tf32 bench kernel with the TF32 screen against cuBLAS TF32
#   bench-histogram-cuda-tf32  Aug-PE at Yelp scale with the TF32 screen
#   nccl-1-rank, nccl-2-ranks  the NCCL communicator against MPI
# After every step OUT/steps.txt gains a line (name, ok | FAILED rc | TIMEOUT | SKIPPED, seconds)
# and analysis/gpu_summary.py rewrites OUT/summary.json and OUT/summary.md (the figures, the
# issue's targets met or not, the built-in check's failures), so a run cut short still leaves
# what it measured. Exit status 1 when a step did not pass.
set -uo pipefail  # no -e: every check runs, and the summary says which failed
cd "$(dirname "$0")/.."
OUT=$(mkdir -p "${1:-out/gpu-check}" && cd "${1:-out/gpu-check}" && pwd)
BIN=$(cd "${SECPE_BIN:-build}" && pwd)
SECPE=$BIN/secpe; UNIT=$BIN/secpe_unit_tests; MPI_TESTS=$BIN/secpe_mpi_tests
[ -x "$BIN/tests/secpe_unit_tests" ] && UNIT=$BIN/tests/secpe_unit_tests MPI_TESTS=$BIN/tests/secpe_mpi_tests
source jobs/mpi-env.sh
SECPE=$SECPE source jobs/blas-core.sh >"$OUT/blas-core.log" 2>&1
THREADS=$(nproc)
DATA=$(mktemp -d); trap 'rm -rf "$DATA"' EXIT
START=$(date +%s); DEADLINE=$((START + ${SECPE_GPU_CHECK_SECONDS:-400}))
: >"$OUT/steps.txt"
failed=()
step() {  # step NAME LIMIT_SECONDS COMMAND...: runs it under min(LIMIT, time left), output in OUT/NAME.log
  local name=$1 limit=$2; shift 2
  local left=$((DEADLINE - $(date +%s)))
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -lt 15 ]; then
    echo "$name SKIPPED 0" >>"$OUT/steps.txt"; failed+=("$name"); echo "gpu-check: $name SKIPPED (no time left)"
    return
  fi
  echo "gpu-check: $name (at most ${limit}s)"
  local t0; t0=$(date +%s)
  timeout --kill-after=10 "$limit" "$@" >"$OUT/$name.log" 2>&1
  local rc=$? status=ok
  [ $rc -ne 0 ] && status="FAILED $rc" && failed+=("$name")
  [ $rc -eq 124 ] && status=TIMEOUT
  echo "$name $status $(($(date +%s) - t0))" >>"$OUT/steps.txt"
  [ "$status" = ok ] || echo "gpu-check: $name $status (see $OUT/$name.log)"
  python3 analysis/gpu_summary.py "$OUT" >"$OUT/summary.log" 2>&1 || echo "gpu-check: the summary failed (see $OUT/summary.log)"
}
command -v nvidia-smi >/dev/null || { echo "gpu-check: no nvidia-smi (the NVIDIA driver's tool): run this on a GPU node" >&2; exit 2; }
nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv >"$OUT/gpu.txt" 2>&1 ||
  { echo "gpu-check: nvidia-smi found no GPU" >&2; exit 2; }
git rev-parse HEAD >"$OUT/commit.txt" 2>/dev/null || echo unknown >"$OUT/commit.txt"

step cuda-unit-tests 100 env SECPE_REQUIRE_GPU=1 "$UNIT" \
  --gtest_filter='CudaKernel.*:DeviceKinds.*:GpuPlan.*:ExactOrder.*:SearchBatch.*:CrMath.*:SecretNormal.*:SelectOrder.*' \
  --gtest_output="xml:$OUT/cuda-unit-tests.xml"
step bench-kernel-cuda 60 "$SECPE" bench kernel --device cuda --screen fp32 --rows 100000 --centres 35000 --dim 768 \
  --verify-rows 256 --repeats 3 --threads "$THREADS" --out "$OUT/kernel_cuda.json"
step synth-embeddings 100 "$SECPE" synth-embeddings --records 1939290 --dim 768 --labels yelp --out "$DATA/yelp.h5" --threads "$THREADS"
for device in cuda cpu; do
  screen=(); [ "$device" = cuda ] && screen=(--screen fp32)  # the fp32 screen against SGEMM; TF32 below
  step "bench-histogram-$device" 100 "$SECPE" bench histogram --data "$DATA/yelp.h5" --synthetic 5000 --variations 6 \
    --clusters 600 --kmeans-iterations 2 --method both --device "$device" ${screen[@]+"${screen[@]}"} --threads "$THREADS" --out "$OUT/histogram_$device.json"
done
step e2e-device 90 env SECPE_SOURCE_DIR="$PWD" SECPE_REQUIRE_GPU=1 bash tests/e2e/device.sh "$SECPE"
step bench-kernel-cuda-tf32 45 "$SECPE" bench kernel --device cuda --screen tf32 --rows 100000 --centres 35000 --dim 768 \
  --verify-rows 256 --repeats 3 --threads "$THREADS" --out "$OUT/kernel_cuda_tf32.json"
step bench-histogram-cuda-tf32 60 "$SECPE" bench histogram --data "$DATA/yelp.h5" --synthetic 5000 --variations 6 \
  --clusters 600 --kmeans-iterations 2 --method augpe --device cuda --screen tf32 --threads "$THREADS" --out "$OUT/histogram_cuda_tf32.json"
rm -rf "${DATA:?}"/*  # 6 GB the rest does not need
step nccl-1-rank 30 "$MPI_TESTS" --gtest_filter='NcclCommunicator.*'
step nccl-2-ranks 30 mpirun -n 2 --oversubscribe "$MPI_TESTS" --gtest_filter='NcclCommunicator.*'

echo "gpu-check: $(($(date +%s) - START)) s; summary in $OUT/summary.md"
cat "$OUT/summary.md" 2>/dev/null
if [ ${#failed[@]} -gt 0 ]; then echo "gpu-check: not passed: ${failed[*]}"; exit 1; fi
echo "gpu-check: all passed; reports in $OUT"
