# Sourced by the end-to-end scripts that attack or compare runs on one demo corpus (not a test
# itself). Needs SECPE and the record count in DEMO_RECORDS; sets SRC (the source tree), LIB (this
# folder), INI (the quickstart's settings) and T (a scratch folder, removed on exit, made the
# current one), defines fail, and writes corpus.csv and its planted secrets corpus.secrets.txt.
SRC=${SECPE_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
source "$LIB/expect.sh"
cd "$T"
INI=$SRC/jobs/quickstart.ini
"$SECPE" corpus --config "$INI" --records "$DEMO_RECORDS" --out corpus.csv >/dev/null 2>&1
