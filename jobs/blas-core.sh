# Sourced by the job scripts (not by the tests): when neither the user nor the machine set
# OPENBLAS_CORETYPE, choose the fastest OpenBLAS core that this CPU supports and that passes
# `secpe blas-check` (a build older than the CPU falls back to slow generic kernels; a forced core
# is never used without its self-test, since some builds compute wrong results on some CPUs).
# Then, unless SECPE_BLAS_SCREEN_AUTO is set, measure the blas kernel's screens on this CPU
# (`secpe blas-check --choose-screen`, a few seconds) and export the choice that `auto` uses: its
# tiers and each narrow screen's measured speed over sgemm (on the core chosen above).
# SECPE names the binary (default ./build/secpe). bench JSON records the core, the screen choice
# and who chose them.
_secpe=${SECPE:-./build/secpe}
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  for _core in $("$_secpe" blas-check --candidates 2>/dev/null); do
    if OPENBLAS_CORETYPE=$_core "$_secpe" blas-check --expect-core "$_core" >/dev/null 2>&1; then
      export OPENBLAS_CORETYPE=$_core SECPE_BLAS_CORE_CHOSEN=1
      echo "blas-core: OpenBLAS core $_core (passed secpe blas-check)" >&2
      break
    fi
    echo "blas-core: core $_core failed secpe blas-check; not used" >&2
  done
fi
if [ -z "${SECPE_BLAS_SCREEN_AUTO:-}" ]; then
  if _screen=$("$_secpe" blas-check --choose-screen 2>/dev/null) && [ -n "$_screen" ]; then
    export SECPE_BLAS_SCREEN_AUTO=$_screen
    echo "blas-core: screen auto $_screen (measured by secpe blas-check --choose-screen)" >&2
  fi
fi
unset _secpe _core _screen
