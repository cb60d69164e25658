#!/usr/bin/env bash
# The sanitizer stage of tests/run.sh. Builds secpe with AddressSanitizer + UBSan and the libFuzzer
# targets (clang 14) in build-san/, runs the unit tests, the MPI tests at 2 ranks and the CLI error
# test under the sanitizers, then fuzzes each reader for SECPE_FUZZ_SECONDS (default 20) seconds.
# Exits non-zero on any failed test or fuzz finding.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${SECPE_BUILD_JOBS:-$(nproc)}
FUZZ_SECONDS=${SECPE_FUZZ_SECONDS:-20}

mkdir -p build-san
cmake -S . -B build-san -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-O1 -DCMAKE_CXX_FLAGS_DEBUG=-O1 \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DSECPE_SANITIZE=ON -DSECPE_FUZZ=ON \
  -DSECPE_FAISS=OFF -DSECPE_CUDA=OFF >build-san/configure.log 2>&1 || { cat build-san/configure.log; exit 1; }
cmake --build build-san -j "$JOBS"

source jobs/mpi-env.sh
export PATH=/usr/lib/llvm-14/bin:$PATH  # llvm-symbolizer: reports with file and line
export UBSAN_OPTIONS=print_stacktrace=1
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp
# Wall-clock assertions mean nothing under ASan; the slow end-to-end runs stay in the plain build.
TIMING_TESTS='Composed.FiftyReleasesAreFast|Accountant.FiveThousandHoldersCalibrateFast'
ctest --test-dir build-san --output-on-failure --timeout 900 -j "$JOBS" -E "$TIMING_TESTS|^mpi_tests|^e2e_"
# Open MPI leaks at exit from plugins it has unloaded by then: only full stacks (slow unwinding)
# reach a frame of libmpi/libopen-* that tests/lsan.supp can match.
LSAN_OPTIONS=$LSAN_OPTIONS:fast_unwind_on_malloc=0 \
  ctest --test-dir build-san --output-on-failure --timeout 900 -R '^(mpi_tests_np2|e2e_cli_errors)$'

# The first line of a finding's report: what went wrong, without the input.
signature() {
  grep -m1 -E 'secpe fuzz finding|runtime error|ERROR: AddressSanitizer|ERROR: LeakSanitizer|terminate called|what\(\)|ERROR: libFuzzer' "$1" |
    sed -E 's/==[0-9]+==//; s/0x[0-9a-f]+/0x.../g' || echo "(no report)"
}

failed=()
for source in tests/fuzz/*_fuzz.cpp; do
  name=$(basename "$source" _fuzz.cpp)
  bin=build-san/fuzz/fuzz_$name out=build-san/fuzz/$name
  rm -rf "$out/findings" && mkdir -p "$out/work" "$out/findings"
  flags=(-max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$out/findings/")
  # The committed corpus (seeds and every earlier finding) is replayed first, so a regression
  # fails here at once.
  if "$bin" "${flags[@]}" "$out/work" "tests/fuzz/corpus/$name" >"$out/log" 2>&1; then
    echo "fuzz_$name: no finding in ${FUZZ_SECONDS}s"
  else
    tail -n 60 "$out/log"
    echo "fuzz_$name: FINDING ($(signature "$out/log")), input in $out/findings/" >&2
    failed+=("$name")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "sanitize: fuzz findings in ${failed[*]}" >&2
  exit 1
fi
echo "sanitize: ok"
