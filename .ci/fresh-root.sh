#!/usr/bin/env bash
# "Passes on a fresh machine", tested: a minimal Debian 12 root made with debootstrap, entered with
# chroot in a mount namespace of its own, where a copy of this checkout runs what a new user runs:
# jobs/install-deps.sh (through the quickstart), jobs/quickstart.sh, then install-deps.sh's tests
# group and the end-to-end tests named by TESTS (a ctest -R pattern: those that call jobs/,
# analysis/ and slurm/ scripts). Nothing of this machine leaks in but the kernel, DNS, the apt
# sources and ../shared (read-only): no /usr/local, no pyenv, no package installed by hand.
# Downloaded packages are kept in CACHE (reused by the next run, so that only the first one waits
# for the mirror); the root itself is new every time and removed at the end.
# Usage: .ci/fresh-root.sh TESTS     (as root; SECPE_FRESH_ROOT_CACHE: the package cache)
set -euo pipefail
TESTS=${1:?usage: fresh-root.sh CTEST_PATTERN}
SRC=$(cd "$(dirname "$0")/.." && pwd)
SHARED=$(cd "$SRC/../shared" && pwd)
CACHE=${SECPE_FRESH_ROOT_CACHE:-/var/cache/secpe-fresh-root}
SUITE=bookworm
[ "$(id -u)" = 0 ] || { echo "fresh-root: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
log() { echo "fresh-root: $* ($((SECONDS / 60)) min $((SECONDS % 60)) s)"; }

command -v debootstrap >/dev/null || bash "$SRC/jobs/install-deps.sh" tests
# The mirror this machine's apt uses (deb822 or one-line sources), so the root reaches the same one.
MIRROR=$(grep -hsE '^(URIs:|deb) ' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list |
  grep -oE 'https?://[^ ]+/debian/?' | grep -v security | head -1 || true)
MIRROR=${MIRROR:-http://deb.debian.org/debian}

ROOT=$(mktemp -d /var/tmp/secpe-fresh-root.XXXXXX)
chmod 755 "$ROOT"  # it becomes /: the packages' own users (munge, slurm) must reach /bin
cleanup() {
  # Daemons a test left behind (munged, slurmd, sshd) would keep files open: end every process
  # whose root is the fresh one. The mounts live only in the namespace below, so removing the root
  # cannot reach the checkout, ../shared or the cache bound into it.
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] && kill -9 "${p#/proc/}" 2>/dev/null
  done
  sleep 1
  rm -rf --one-file-system "$ROOT"
}
trap cleanup EXIT

mkdir -p "$CACHE/archives/partial"
log "debootstrap $SUITE (minbase) from $MIRROR into $ROOT"
debootstrap --variant=minbase --cache-dir="$CACHE/archives" "$SUITE" "$ROOT" "$MIRROR" \
  >"$ROOT.debootstrap.log" 2>&1 || { tail -20 "$ROOT.debootstrap.log"; exit 1; }
rm -f "$ROOT.debootstrap.log"
# apt as configured here (sources, and options such as a snapshot mirror's validity), without
# the image's own clean-up hooks, which would empty the shared cache after every install.
cp -a /etc/apt/sources.list.d "$ROOT/etc/apt/" 2>/dev/null || true
cp /etc/apt/sources.list "$ROOT/etc/apt/sources.list" 2>/dev/null || : >"$ROOT/etc/apt/sources.list"
for f in /etc/apt/apt.conf.d/*; do
  case "$(basename "$f")" in docker-*) ;; *) cp "$f" "$ROOT/etc/apt/apt.conf.d/" ;; esac
done
cp /etc/resolv.conf /etc/hosts /etc/hostname "$ROOT/etc/"  # the network as a new machine's
# The cache is shared with the machine and owned by root, so apt downloads as root.
echo 'APT::Sandbox::User "root";' >"$ROOT/etc/apt/apt.conf.d/90secpe-fresh-root"
printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"  # packages start no service here
chmod 755 "$ROOT/usr/sbin/policy-rc.d"
# The checkout as CI has it: its commit, and the working tree's tracked and untracked files.
mkdir -p "$ROOT/ci/shared"
git clone --quiet "$SRC" "$ROOT/ci/main"
(cd "$SRC" && git ls-files -z -co --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$ROOT/ci/main"

cat >"$ROOT/ci/steps.sh" <<'STEPS'
set -euo pipefail
cd /ci/main
log() { echo "fresh-root: $* ($((SECONDS / 60)) min $((SECONDS % 60)) s in the root)"; }
start=$SECONDS
bash jobs/quickstart.sh >/ci/quickstart.log 2>&1 || { tail -40 /ci/quickstart.log; exit 1; }
log "jobs/quickstart.sh passed in $((SECONDS - start)) s, apt and build included"
bash jobs/install-deps.sh tests
# The tests' configuration, and secpe again: FAISS is there now, so bench faiss is built in.
cmake -S . -B build -DSECPE_TESTS=ON >/ci/configure.log 2>&1 || { cat /ci/configure.log; exit 1; }
cmake --build build -j "$(nproc)" --target secpe >/ci/rebuild.log 2>&1 || { tail -40 /ci/rebuild.log; exit 1; }
source jobs/mpi-env.sh
log "install-deps.sh tests and the FAISS benchmark done; the tests that call jobs/, analysis/ and slurm/ scripts"
cd build && ctest --output-on-failure --timeout 900 -R "$1"
STEPS

unshare --mount --propagation private bash -euo pipefail -c '
  ROOT=$1 SRC=$2 SHARED=$3 CACHE=$4 TESTS=$5
  mount --bind "$ROOT" "$ROOT"  # / a mount point, as on a machine: ip netns and unshare need it
  mount -t proc proc "$ROOT/proc"
  mount --rbind /sys "$ROOT/sys"
  mount --rbind /dev "$ROOT/dev"
  mount -t tmpfs tmpfs "$ROOT/run"
  mount --bind "$CACHE/archives" "$ROOT/var/cache/apt/archives"
  mount --bind -o ro "$SHARED" "$ROOT/ci/shared"
  chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 CI=true TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash /ci/steps.sh "$TESTS"
' fresh-root "$ROOT" "$SRC" "$SHARED" "$CACHE" "$TESTS"
log "passed"
