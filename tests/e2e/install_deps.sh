#!/usr/bin/env bash
# jobs/install-deps.sh installs every program and Python module that the repository's scripts,
# tests and analysis files use, each in the group that its file needs (tests/e2e/lib/deps_check.py
# traces them to Debian packages through dpkg's file lists). The checker is first shown a copy of
# the scripts whose install-deps.sh has lost packages, and must name what they provided, so a
# checker that stopped seeing uses cannot pass.
source "$(dirname "$0")/lib/preamble.sh"
CHECK=$LIB/deps_check.py
command -v shfmt >/dev/null || fail "no shfmt (bash jobs/install-deps.sh tests installs it)"

# A copy without python3-matplotlib (analysis' plots) and git (the install test's clean checkout), and
# with a study script that runs analysis with whatever python3 comes first on PATH.
mkdir -p "$T/copy"
(cd "$SRC" && git ls-files -z -co --exclude-standard -- jobs analysis tests slurm .ci | grep -zv '^tests/data/' |
  xargs -0 cp --parents -t "$T/copy") || fail "copying the scripts"
sed -i -e 's/python3-matplotlib //' -e 's/^  git  /  /' "$T/copy/jobs/install-deps.sh"
sed -i 's|/usr/bin/python3 "$SECPE_ROOT/analysis/scaling.py"|python3 "$SECPE_ROOT/analysis/scaling.py"|' \
  "$T/copy/jobs/scaling-study.sh"
/usr/bin/python3 "$CHECK" "$T/copy" >"$T/out.txt" 2>&1
[ $? = 1 ] || fail "the checker passed a copy whose install-deps.sh lost packages: $(cat "$T/out.txt")"
for pattern in "^analysis/scaling.py:1: Python module 'matplotlib' comes from Debian's python3-matplotlib, which install-deps.sh's 'analysis' group" \
               "^tests/e2e/.*: program 'git' comes from Debian's git, which install-deps.sh's 'tests' group" \
               "^jobs/scaling-study.sh:.*: python3 with 'matplotlib': call /usr/bin/python3"; do
  grep -q "$pattern" "$T/out.txt" || fail "the checker did not report /$pattern/: $(cat "$T/out.txt")"
done

/usr/bin/python3 "$CHECK" "$SRC" || fail "install-deps.sh misses what the scripts above use: add each to its group"
