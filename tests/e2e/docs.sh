#!/usr/bin/env bash
# The user docs stay true (docs/testing.md): every link, repository path, secpe command and option
# named in README.md, DEVELOPERS.md, data/README.md and docs/*.md exists (tests/e2e/lib/docs_check.py),
# and the README's "your own corpus" walk-through runs command by command, each exiting 0, on a
# small demo corpus (800 records, 2 iterations) in a scratch folder.
source "$(dirname "$0")/lib/preamble.sh"
CHECK=$LIB/docs_check.py

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

# docs/performance.md's reproduce block (the headline figures' commands are lines of it), at a
# test's size: every size option made small, one repetition. It starts where a user stands after
# the quickstart, with the demo dataset made (here from a small corpus).
mkdir -p "$T/repro/build"
ln -s "$SECPE" "$T/repro/build/secpe"
ln -s "$SRC/jobs" "$T/repro/jobs"
cd "$T/repro" || fail "scratch folder"
"$SECPE" corpus --config jobs/quickstart.ini --records 800 >/dev/null 2>&1 &&
  "$SECPE" import --config jobs/quickstart.ini >/dev/null 2>&1 || fail "the quickstart's dataset"
python3 "$CHECK" "$SRC" "$SECPE" --reproduce > "$T/reproduce.sh" || fail "no reproduce block in docs/performance.md"
faiss=yes; "$SECPE" --version | grep -q 'FAISS.*yes' || faiss=no
shrink_bench() {  # shrink_bench LINE: the same command at a test's size
  local line
  line=$(sed -E -e 's/--records [0-9]+/--records 3000/' -e 's/--dim [0-9]+/--dim 32/' \
    -e 's/--rows [0-9]+/--rows 200/' -e 's/--centres [0-9]+/--centres 300/' -e 's/--queries [0-9]+/--queries 100/' \
    -e 's/--synthetic [0-9]+/--synthetic 200/' -e 's/--clusters [0-9]+/--clusters 4/' \
    -e 's/--secrets [0-9]+/--secrets 40/' -e 's/--repeats [0-9]+/--repeats 1/' <<<"$1")
  case "$line" in
    *"secpe bench faiss"*) for option in "--queries 100" "--candidates 300" "--dim 32" "--kmeans-points 2000" "--clusters 8"; do
        grep -q -- "${option% *} " <<<"$line" || line="$line $option"
      done ;;
  esac
  case "$line" in *"secpe bench "*) grep -q -- "--repeats " <<<"$line" || line="$line --repeats 1" ;; esac
  echo "$line"
}
n=0
while IFS= read -r line; do
  n=$((n + 1))
  [ "$faiss" = no ] && [[ "$line" == *"bench faiss"* ]] && { echo "docs: skipped without FAISS: $line"; continue; }
  small=$(shrink_bench "$line")
  eval "$small" < /dev/null > "$T/repro$n.log" 2>&1
  rc=$?
  [ "$rc" = 0 ] || fail "docs/performance.md's reproduce line $n exited $rc: $small
$(tail -20 "$T/repro$n.log")"
done < "$T/reproduce.sh"
echo "docs: docs/performance.md's reproduce block ran ($n commands, each exit 0)"
