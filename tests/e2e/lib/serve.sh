# Sourced after preamble.sh by the end-to-end scripts that start `secpe serve` (not a test itself:
# ctest runs tests/e2e/*.sh only). Every server started is stopped at exit.
# serve NAME COMMAND...: runs COMMAND --port 0 --port-file F in the background (its log in
# $T/NAME.log) and waits until it listens; sets PORT and PID.
serve() {
  local name=$1; shift
  "$@" --port 0 --port-file "$T/$name.port" >"$T/$name.log" 2>&1 &
  PID=$!
  at_exit "kill $PID 2>/dev/null"
  for _ in $(seq 100); do [ -s "$T/$name.port" ] && break; sleep 0.1; done
  [ -s "$T/$name.port" ] || fail "server $name did not start: $(cat "$T/$name.log")"
  PORT=$(cat "$T/$name.port")
}
