# Sourced by the job scripts (not by the tests): when neither the user nor the machine set
# OPENBLAS_CORETYPE, choose the fastest OpenBLAS core that this CPU supports and that passes
# `secpe blas-check` (a build older than the CPU falls back to slow generic kernels; a forced core
# is never used without its self-test, since some builds compute wrong results on some CPUs).
# SECPE names the binary (default ./build/secpe). bench JSON records the core and who chose it.
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  _secpe=${SECPE:-./build/secpe}
  for _core in $("$_secpe" blas-check --candidates 2>/dev/null); do
    if OPENBLAS_CORETYPE=$_core "$_secpe" blas-check --expect-core "$_core" >/dev/null 2>&1; then
      export OPENBLAS_CORETYPE=$_core SECPE_BLAS_CORE_CHOSEN=1
      echo "blas-core: OpenBLAS core $_core (passed secpe blas-check)" >&2
      break
    fi
    echo "blas-core: core $_core failed secpe blas-check; not used" >&2
  done
  unset _secpe _core
fi
