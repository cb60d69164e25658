# Sourced by the end-to-end scripts that start `secpe serve` (not a test itself: ctest runs
# tests/e2e/*.sh only): a scratch folder $T, removed at exit with every server started.
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
T=$(mktemp -d)
SERVERS=()
trap 'for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
# serve NAME COMMAND...: runs COMMAND --port 0 --port-file F in the background (its log in
# $T/NAME.log) and waits until it listens; sets PORT and PID.
serve() {
  local name=$1; shift
  "$@" --port 0 --port-file "$T/$name.port" >"$T/$name.log" 2>&1 &
  PID=$!
  SERVERS+=("$PID")
  for _ in $(seq 100); do [ -s "$T/$name.port" ] && break; sleep 0.1; done
  [ -s "$T/$name.port" ] || fail "server $name did not start: $(cat "$T/$name.log")"
  PORT=$(cat "$T/$name.port")
}
