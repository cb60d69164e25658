# Sourced by the job and Slurm scripts: where secpe's files and binary are, in a source tree or in
# an install (cmake --install build --prefix PREFIX puts these scripts under PREFIX/share/secpe).
#   SECPE_ROOT       the folder holding jobs/, slurm/ and analysis/: the source tree, or
#                    PREFIX/share/secpe (found from this file's own place, so always absolute)
#   SECPE            the binary: $SECPE when set; ROOT/build/secpe in a source tree (built or not);
#                    PREFIX/bin/secpe when installed; else the secpe on PATH (module load secpe)
#   SECPE_INSTALLED  1 when ROOT is an install, 0 in a source tree
#   SECPE_WORKDIR    where a script writes its outputs: the source tree (as it always has), or the
#                    current folder when installed (the install tree is not the user's)
SECPE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ -f "$SECPE_ROOT/CMakeLists.txt" ]; then
  SECPE_INSTALLED=0 SECPE_WORKDIR=$SECPE_ROOT
  SECPE=${SECPE:-$SECPE_ROOT/build/secpe}
else
  SECPE_INSTALLED=1 SECPE_WORKDIR=$PWD
  if [ -z "${SECPE:-}" ]; then
    SECPE=$(cd "$SECPE_ROOT/../.." && pwd)/bin/secpe
    [ -x "$SECPE" ] || SECPE=$(command -v secpe) ||
      { echo "secpe: no binary beside $SECPE_ROOT nor on PATH: module load secpe, or set SECPE" >&2; return 2; }
  fi
fi
export SECPE_ROOT SECPE
