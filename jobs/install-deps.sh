#!/usr/bin/env bash
# Installs the Debian packages secpe needs, by group; each group includes the one before it:
#   build      compile and run secpe: the quickstart (the default)
#   analysis   also the studies' tables and plots (analysis/, jobs/*-study.sh)
#   tests      also every test, the sanitizer and fuzzing stage, the Slurm and two-host tests,
#              the FAISS benchmark and CI's fresh root (tests/run.sh, .ci/run)
# The one place that lists packages: tests/e2e/install_deps.sh fails when a script, test or
# analysis file uses a program or Python module that its group does not bring. Skips apt entirely
# when everything is already installed (fast on a warm machine).
# Usage: install-deps.sh [GROUP]      install GROUP (build when none is given)
#        install-deps.sh --list GROUP print GROUP's packages, install nothing
set -euo pipefail

BUILD=(
  build-essential cmake pkg-config
  openmpi-bin libopenmpi-dev
  libhdf5-dev libeigen3-dev libboost-program-options-dev
  libopenblas-dev coinor-libclp-dev libcurl4-openssl-dev
  libsodium-dev            # ChaCha20 keystream for the secret noise key
  nlohmann-json3-dev
  python3                  # Debian's /usr/bin/python3: the scripts call it by that path
)
ANALYSIS=(
  python3-matplotlib python3-numpy   # analysis/*.py: the studies' plots and tables
  time                     # /usr/bin/time: wall and peak memory in analysis/figures' scripts
)
TESTS=(
  libgtest-dev googletest
  zlib1g-dev               # the HTTP client test's gzip bomb
  python3-scipy python3-mpmath       # tests/data/make_*.py: reference values of the unit tests
  libfaiss-dev             # secpe bench faiss
  procps iproute2          # pgrep/pkill and ip netns in the Slurm, two-host and serve tests
  slurm-wlm munge          # the Slurm end-to-end test
  openssh-server openssh-client   # tests/e2e/two_hosts.sh: mpirun --host between two hosts made here
  git                      # tests/e2e/install.sh installs from a clean checkout
  lmod                     # tests/e2e/install.sh: the installed modulefile, loaded as a site would
  clang-14 libclang-rt-14-dev llvm-14   # tests/sanitize.sh: ASan/UBSan, libFuzzer, llvm-symbolizer
  shfmt                    # tests/e2e/install_deps.sh reads the scripts' syntax trees
  debootstrap              # .ci/fresh-root.sh: a fresh Debian 12 root
)

packages_of() {
  case "$1" in
    build) echo "${BUILD[@]}" ;;
    analysis) echo "${BUILD[@]}" "${ANALYSIS[@]}" ;;
    tests) echo "${BUILD[@]}" "${ANALYSIS[@]}" "${TESTS[@]}" ;;
    *) echo "install-deps: unknown group '$1' (build, analysis or tests)" >&2; return 2 ;;
  esac
}

if [ "${1:-}" = --list ]; then
  packages_of "${2:?install-deps: --list needs a group}" | tr ' ' '\n'
  exit 0
fi
read -r -a PACKAGES <<<"$(packages_of "${1:-build}")"

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}" >&2
$SUDO apt-get update -qq
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$LOG" 2>&1 ||
  { tail -40 "$LOG" >&2; echo "install-deps: apt-get install failed (its last lines above)" >&2; exit 1; }
