#!/usr/bin/env bash
# --device on secpe run and secpe bench. auto gives the same outputs as cpu, byte for byte (on a
# machine without a GPU it runs the CPU kernels and says so; with one, the CUDA kernel, whose
# results equal the CPU's by construction). cuda without a GPU is a clear error (exit 2, no
# output); with one, the outputs equal the CPU's (SecPE at 1 and 2 ranks, Aug-PE) and bench kernel
# verifies the CUDA kernel. SECPE_REQUIRE_GPU set: a missing GPU is a failure.
source "$(dirname "$0")/lib/preamble.sh"
source "$LIB/demo_scratch.sh" 600
demo_import corpus.csv demo.h5 >/dev/null 2>&1 || fail "import"
NONCE=0123456789abcdef0123456789abcdef  # one run, on several devices
run() {  # run DEVICE OUT [more options]
  local device=$1 out=$2; shift 2
  "$SECPE" run --config "$INI" --data demo.h5 --noise-key-file noise.key --noise-nonce "$NONCE" --seed 5 --iterations 2 --synthetic 60 \
    --device "$device" --out "$out" "$@"
}
same() {  # same DIR_A DIR_B: the released outputs are byte-identical
  for f in synthetic.csv initial.csv privacy.json; do cmp "$1/$f" "$2/$f" || fail "$f differs between $1 and $2"; done
}

run cpu out_cpu --quiet >/dev/null 2>&1 || fail "run --device cpu"
run auto out_auto >auto.log 2>&1 || fail "run --device auto: $(cat auto.log)"
same out_cpu out_auto
grep -q '"device": "\(cpu\|cuda\)"' out_auto/run.json || fail "run.json does not record the device"

if grep -q "the CPU kernels run instead" auto.log; then
  [ -z "${SECPE_REQUIRE_GPU:-}" ] || fail "SECPE_REQUIRE_GPU is set, but --device auto found no usable GPU"
  echo "device: no usable GPU here: auto fell back to the CPU; cuda must fail cleanly"
  expect 2 "--device cuda: " -- run cuda out_cuda --quiet
  [ ! -e out_cuda/synthetic.csv ] || fail "run --device cuda wrote output without a GPU"
  expect 2 "--device cuda: " -- "$SECPE" bench kernel --device cuda --rows 8 --centres 8 --dim 4
else
  echo "device: GPU found: cuda must match the CPU bit for bit"
  run cuda out_cuda --quiet >/dev/null 2>&1 || fail "run --device cuda"
  same out_cpu out_cuda
  mpirun -n 2 --oversubscribe "$SECPE" run --config "$INI" --data demo.h5 --noise-key-file noise.key --noise-nonce "$NONCE" --seed 5 --iterations 2 \
    --synthetic 60 --device auto --out out_auto2 --quiet >/dev/null 2>&1 || fail "run --device auto at 2 ranks"
  same out_cpu out_auto2
  # Aug-PE: its voters kept on the GPU for every iteration.
  run cpu out_cpu_augpe --method augpe --quiet --allow-over-budget >/dev/null 2>&1 || fail "run --method augpe --device cpu"
  run cuda out_cuda_augpe --method augpe --quiet --allow-over-budget >/dev/null 2>&1 || fail "run --method augpe --device cuda"
  same out_cpu_augpe out_cuda_augpe
  "$SECPE" bench kernel --device cuda --rows 3000 --centres 2000 --dim 64 --k 3 --verify-rows 3000 --repeats 1 --out kernel.json \
    >/dev/null 2>&1 || fail "bench kernel --device cuda did not verify"
  python3 -c "import json,sys; j=json.load(open('kernel.json')); assert j['figures']['verified_against_reference'] and j['figures']['bytes_moved'] > 0, j" ||
    fail "bench kernel --device cuda report"
fi
expect 2 "device" -- run gpu out_bad --quiet
expect 2 "device" -- "$SECPE" bench kernel --device gpu
echo "device: ok"
