# Sourced first by every end-to-end script (not a test itself: ctest runs tests/e2e/*.sh only),
# which ctest runs as `bash tests/e2e/NAME.sh SECPE SHARED` with SECPE_SOURCE_DIR set. It sets
#   SECPE   the secpe binary ($1), made absolute: several scripts run it from their scratch folder;
#   SHARED  the shared folder beside the checkout ($2, absolute where it exists; may be empty);
#   SRC     the source tree: SECPE_SOURCE_DIR, else the tree this file is in;
#   LIB     this folder, tests/e2e/lib;
#   T       a scratch folder, removed at exit;
# exports SECPE_LEDGER_DIR=$T/ledger, so that each script's runs compose only with each other (the
# privacy ledger, evolve/dataset_ledger.hpp), never with the user's or another test's;
# and defines fail and expect (expect.sh) and at_exit.
# Shell options: -u (an unset variable is a mistake in the test) and pipefail (a pipe fails when
# any command in it does), but not -e: most scripts run commands that must fail and check exit
# codes themselves (expect, `|| fail`, rc=$?), and under -e such a test would end at the first
# one, without saying why. A script that instead relies on every unchecked command succeeding (its
# setup and runs) adds `set -e` right after sourcing this.
set -uo pipefail
SECPE=${1:-}
[ -z "$SECPE" ] || SECPE=$(cd "$(dirname "$SECPE")" && pwd)/$(basename "$SECPE")
SHARED=${2:-}
[ ! -d "$SHARED" ] || SHARED=$(cd "$SHARED" && pwd)
LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=${SECPE_SOURCE_DIR:-$(cd "$LIB/../../.." && pwd)}
source "$LIB/expect.sh"

T=$(mktemp -d)
export SECPE_LEDGER_DIR=$T/ledger
AT_EXIT=()
# at_exit COMMAND: runs the string COMMAND (eval, so its variables expand then) at exit, before T
# is removed; the last one added runs first, and one that fails does not stop the others.
at_exit() { AT_EXIT=("$1" "${AT_EXIT[@]}"); }
trap 'for at_exit_command in "${AT_EXIT[@]}"; do eval "$at_exit_command" || true; done; rm -rf "$T"' EXIT
