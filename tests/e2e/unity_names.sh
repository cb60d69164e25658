#!/usr/bin/env bash
# Names in anonymous namespaces are unique across the library (DEVELOPERS.md): the unity build
# compiles 8 sources at a time, and which files share a batch depends on the configuration (the
# quickstart's build has no CUDA or test sources, so its batches differ from CI's), so a clash
# may show in only one of them. This compiles every unity source of the fullest configuration
# here (CUDA where nvcc is found) as one batch, where any two clashing names meet. It checks
# first that the batch really holds all of them.
source "$(dirname "$0")/lib/preamble.sh"
cuda=OFF
command -v nvcc >/dev/null && cuda=ON
cmake -S "$SRC" -B "$T/one" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DSECPE_TESTS=OFF -DSECPE_CUDA=$cuda \
  -DSECPE_UNITY_BATCH=100000 >"$T/configure.log" 2>&1 || { cat "$T/configure.log"; fail "cmake configure"; }
batches=$(find "$T/one/CMakeFiles/secpe_lib.dir/Unity" -name 'unity_*_cxx.cxx' | wc -l)
[ "$batches" = 1 ] || fail "expected the library in one unity batch, found $batches"
included=$(grep -c '^#include' "$T/one/CMakeFiles/secpe_lib.dir/Unity/unity_0_cxx.cxx")
[ "$included" -ge 100 ] || fail "the one batch includes only $included sources"
make -C "$T/one" secpe_build_info >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "the generated build-info header"; }
make -C "$T/one" Unity/unity_0_cxx.o >>"$T/build.log" 2>&1 ||
  { grep -E 'error|note: .*previous' "$T/build.log" | head -40; fail "two library sources clash in one unity batch (see above)"; }
echo "unity_names: $included sources compiled as one batch (CUDA $cuda), no clash"
