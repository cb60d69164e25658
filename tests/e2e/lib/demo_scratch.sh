# Sourced after preamble.sh, as `source "$LIB/demo_scratch.sh" RECORDS`, by the end-to-end scripts
# that work on the quickstart's demo corpus (not a test itself: ctest runs tests/e2e/*.sh only).
# Sets INI (the quickstart's settings), makes T the current folder and writes there the demo corpus
# of RECORDS records, corpus.csv, its planted secrets, corpus.secrets.txt, and a noise key file,
# noise.key; defines demo_import.
INI=$SRC/jobs/quickstart.ini
cd "$T"
"$SECPE" corpus --config "$INI" --records "$1" --out corpus.csv >/dev/null 2>&1 || fail "secpe corpus"
"$SECPE" keygen --out noise.key >/dev/null 2>&1 || fail "secpe keygen"
# demo_import INPUT OUT [OPTION...]: imports INPUT (corpus.csv, or a corpus made from it) into OUT
# as the quickstart does, with the planted secrets.
demo_import() {
  local input=$1 out=$2; shift 2
  "$SECPE" import --config "$INI" --input "$input" --secrets-file "$T/corpus.secrets.txt" --out "$out" "$@"
}
