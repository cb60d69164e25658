#!/usr/bin/env bash
# Installs every Debian package that building, running and testing secpe needs.
# The one place that lists them: jobs/quickstart.sh, tests/run.sh and .ci/run all call it.
# Skips apt entirely when everything is already installed (fast on a warm machine).
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  openmpi-bin libopenmpi-dev
  libhdf5-dev libeigen3-dev libboost-program-options-dev
  libgtest-dev googletest
  libopenblas-dev coinor-libclp-dev libcurl4-openssl-dev
  zlib1g-dev               # the HTTP client test's gzip bomb
  libsodium-dev            # ChaCha20 keystream for the secret noise key
  nlohmann-json3-dev python3
  libfaiss-dev             # secpe bench faiss
  slurm-wlm munge          # the Slurm end-to-end test
  openssh-server           # tests/e2e/two_hosts.sh: mpirun --host between two hosts made on this machine
  lmod                     # tests/e2e/install.sh: the installed modulefile, loaded as a site would
  clang-14 libclang-rt-14-dev llvm-14   # tests/sanitize.sh: ASan/UBSan, libFuzzer, llvm-symbolizer
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
