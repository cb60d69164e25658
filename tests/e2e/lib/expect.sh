# Sourced by preamble.sh, which every end-to-end script sources first (not a test itself: ctest
# runs tests/e2e/*.sh only): fail, and expect to check exit codes and messages.
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect CODE PATTERN -- command...: the command exits with CODE and prints PATTERN (grep).
expect() {
  local code=$1 pattern=$2; shift 3
  local out; out=$("$@" 2>&1); local rc=$?
  [ "$rc" = "$code" ] || fail "'$*' exited $rc, expected $code: $out"
  grep -q -- "$pattern" <<<"$out" || fail "'$*' printed '$out', expected /$pattern/"
}
