#!/usr/bin/env bash
# The install as a site makes it (docs/install.md): `cmake --install` of this build into a scratch
# prefix, its Lmod modulefile loaded with Debian's lmod, then, from another folder, the installed
# quickstart at a small size (the demo corpus, 1 iteration, 60 texts, 2 ranks) and the Slurm run
# script as sbatch runs it (a copy in a spool folder, the submit folder elsewhere). Checks the
# outputs land in the user's folder and nothing in the install tree, `secpe --version`, the
# modulefile, that the prefix holds every path docs/install.md names and nothing build-only, and
# the permissions. Skipped (exit 77) without lmod.
source "$(dirname "$0")/lib/preamble.sh"
BUILD=$(dirname "$SECPE")
LMOD_INIT=/usr/share/lmod/lmod/init/bash
[ -f "$LMOD_INIT" ] || { echo "install: SKIPPED: no Lmod ($LMOD_INIT; bash jobs/install-deps.sh installs Debian's lmod)"; exit 77; }
P=$T/prefix
VERSION=$(sed -nE 's/^project\(secpe VERSION ([0-9.]+).*/\1/p' "$SRC/CMakeLists.txt")

cmake --install "$BUILD" --prefix "$P" > "$T/install.log" 2>&1 || fail "cmake --install: $(tail -5 "$T/install.log")"
touch "$T/installed"

# What docs/install.md says the prefix holds (every `bin/...` and `share/...` it names), and no
# script that needs a source or build tree.
mapfile -t listed < <(grep -oE '`(bin|share)/[^` ]+`' "$SRC/docs/install.md" | tr -d '`' | sed "s/VERSION/$VERSION/" | sort -u)
[ "${#listed[@]}" -ge 10 ] || fail "docs/install.md names ${#listed[@]} installed paths; expected its list of the install"
for path in "${listed[@]}"; do [ -e "$P/$path" ] || fail "docs/install.md names $path, not installed"; done
for path in jobs/build.sh jobs/install-deps.sh jobs/gpu-check.sh analysis/run.sh; do
  [ ! -e "$P/share/secpe/$path" ] || fail "$path needs a source tree but was installed"
done
writable=$(find "$P" -perm /022 -printf '%m %P\n')
[ -z "$writable" ] || fail "group- or world-writable in the install: $writable"
not_executable=$(find "$P/bin" "$P/share/secpe/jobs" "$P/share/secpe/slurm" -maxdepth 1 -type f \
  \( -name secpe -o -name '*.sh' -o -name '*.sbatch' \) ! -perm -755 -printf '%m %P\n')
[ -z "$not_executable" ] || fail "installed programs not mode 755: $not_executable"

# The module, as a user loads it.
set +u  # from here on: Lmod's shell functions use unset variables
source "$LMOD_INIT"
export LMOD_IGNORE_CACHE=1
module use "$P/share/modulefiles" && module load secpe || fail "module load secpe"
[ "$(command -v secpe)" = "$P/bin/secpe" ] || fail "module load secpe: secpe on PATH is $(command -v secpe)"
[ "${SECPE_ROOT:-}" = "$P/share/secpe" ] || fail "module load secpe: SECPE_ROOT is '${SECPE_ROOT:-}'"
module whatis secpe 2>&1 | grep -q "MPI: built with" || fail "the module's whatis does not name the MPI: $(module whatis secpe 2>&1)"

# secpe --version: the version, the commit (one of this repository's, or unknown outside git) and
# the build options.
secpe --version > "$T/version.txt" || fail "secpe --version exited $?"
[ "$(head -1 "$T/version.txt")" = "secpe $VERSION" ] || fail "secpe --version: $(head -1 "$T/version.txt"), expected secpe $VERSION"
commit=$(sed -n 's/^commit: //p' "$T/version.txt")
grep -qE '^([0-9a-f]{12}(-dirty)?|unknown)$' <<<"$commit" || fail "secpe --version: commit '$commit'"
if [ "$commit" != unknown ] && git -C "$SRC" rev-parse 2>/dev/null; then
  git -C "$SRC" cat-file -e "${commit%-dirty}^{commit}" 2>/dev/null || fail "secpe --version: $commit is no commit of $SRC"
fi
for option in "build type" compiler MPI CUDA NCCL FAISS sanitizers; do
  grep -q "^$option: ." "$T/version.txt" || fail "secpe --version does not say '$option': $(cat "$T/version.txt")"
done

# The installed quickstart, from the user's own folder.
mkdir -p "$T/work" && cd "$T/work" || fail "scratch folder"
SECPE_RANKS=2 bash "$SECPE_ROOT/jobs/quickstart.sh" --iterations 1 --synthetic 60 --quiet > quickstart.log 2>&1 ||
  fail "the installed quickstart exited $?: $(tail -20 quickstart.log)"
grep -q "outputs in $T/work/out/quickstart/" quickstart.log || fail "the quickstart did not write into the current folder: $(tail -3 quickstart.log)"
[ -s data/demo/demo.h5 ] || fail "the quickstart's dataset is not in the current folder"
for f in synthetic.csv initial.csv privacy.json metrics.jsonl run.json; do [ -s "out/quickstart/$f" ] || fail "out/quickstart/$f missing"; done
python3 - "$commit" <<'PY' || fail "the quickstart's outputs"
import csv, json, sys
run = json.load(open("out/quickstart/run.json"))
assert run["ranks"] == 2, run["ranks"]
assert run["provenance"]["git_commit"] == sys.argv[1], run["provenance"]["git_commit"]
assert run["versions"]["build"]["CUDA"], run["versions"]
rows = list(csv.reader(open("out/quickstart/synthetic.csv", newline="")))
assert rows[0] == ["text", "label1", "label2"] and len(rows) == 61, len(rows)
PY

# The run script as sbatch starts it: a copy in a spool folder, run in the submit folder; it finds
# secpe's files through the module's SECPE_ROOT, and the config named relative to them.
mkdir -p "$T/spool/job1" && cp "$SECPE_ROOT/slurm/secpe-run.sbatch" "$T/spool/job1/slurm_script"
SLURM_SUBMIT_DIR=$T/work SLURM_NTASKS=2 bash "$T/spool/job1/slurm_script" jobs/quickstart.ini --out out/job --iterations 1 \
  --synthetic 60 --quiet > job.log 2>&1 || fail "the spooled secpe-run.sbatch exited $?: $(tail -20 job.log)"
for f in synthetic.csv privacy.json run.json; do [ -s "out/job/$f" ] || fail "the job's out/job/$f missing"; done
mkdir -p "$T/elsewhere"
expect 2 "module load secpe" -- env -u SECPE_ROOT SLURM_SUBMIT_DIR="$T/elsewhere" bash "$T/spool/job1/slurm_script"

changed=$(find "$P" -newer "$T/installed" -printf '%P\n')
[ -z "$changed" ] || fail "the installed scripts wrote into the install tree: $changed"
module unload secpe
[ -z "${SECPE_ROOT:-}" ] && ! command -v secpe >/dev/null || fail "module unload secpe left SECPE_ROOT or secpe on PATH"
echo "install: ok (${#listed[@]} documented paths installed; module loaded; quickstart and a spooled job ran from $T/work; $(head -2 "$T/version.txt" | tr '\n' ' '))"
