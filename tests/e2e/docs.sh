#!/usr/bin/env bash
# The user docs stay true (docs/testing.md): every link, repository path, secpe command and option
# named in README.md, DEVELOPERS.md, data/README.md and docs/*.md exists (tests/e2e/lib/docs_check.py),
# and the README's "your own corpus" walk-through runs command by command, each exiting 0, on a
# small demo corpus (800 records, 2 iterations) in a scratch folder.
set -uo pipefail
SECPE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=${SECPE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CHECK=$SRC/tests/e2e/lib/docs_check.py
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
source "$(dirname "$0")/lib/expect.sh"

python3 "$CHECK" "$SRC" "$SECPE" > "$T/check.txt" 2>&1 || fail "the docs name what does not exist:
$(cat "$T/check.txt")"
tail -1 "$T/check.txt"

# The walk-through, as the README writes it, with smaller sizes: the corpus's record count, and
# runs with few iterations and texts. The scratch folder looks like the repository root to it.
python3 "$CHECK" "$SRC" "$SECPE" --walkthrough > "$T/walkthrough.sh" || fail "no walk-through in README.md"
for step in "secpe corpus" "heldout_split.py" "secpe import" "secpe keygen" "secpe run" "secpe inspect" "secpe eval"; do
  grep -q "$step" "$T/walkthrough.sh" || fail "the README's walk-through lost its '$step' step"
done
mkdir -p "$T/root/build"
ln -s "$SECPE" "$T/root/build/secpe"
ln -s "$SRC/jobs" "$T/root/jobs"
ln -s "$SRC/analysis" "$T/root/analysis"
cd "$T/root" || fail "scratch folder"
shrink() {  # shrink LINE: the same command at a test's size
  local line
  line=$(sed -E 's/--records [0-9]+/--records 800/' <<<"$1")
  if grep -q 'secpe run ' <<<"$line"; then
    for option in "--iterations 2" "--synthetic 100" "--threads 1"; do
      grep -q -- "${option% *} " <<<"$line" || line="$line $option"
    done
  fi
  echo "$line"
}
n=0
while IFS= read -r line; do
  n=$((n + 1))
  small=$(shrink "$line")
  eval "$small" < /dev/null > "$T/step$n.log" 2>&1
  rc=$?
  [ "$rc" = 0 ] || fail "walk-through step $n exited $rc: $small
$(tail -20 "$T/step$n.log")"
done < "$T/walkthrough.sh"
echo "docs: the README's walk-through ran ($n commands, each exit 0)"
