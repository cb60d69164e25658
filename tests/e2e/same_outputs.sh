#!/usr/bin/env bash
# End to end: a refactoring changes no output. A fixed set of runs (the quickstart's settings at 1,
# 2 and 4 ranks, a pooled run, an Aug-PE run and a control run) on a fixed demo corpus, with a fixed
# test key, nonce and seed, must give the same bytes as the binary they were recorded with
# (tests/data/same_outputs.sha256: synthetic.csv, initial.csv, privacy.json, and metrics.jsonl and
# run.json without what legitimately changes: timings, versions, the machine). The digests hold for
# the CPU they were recorded on (a different OpenBLAS core may round the embedder differently):
# on another CPU the test says so and is skipped. The dataset is imported with a fixed
# SOURCE_DATE_EPOCH, so that its bytes (which key the noise) are the same at every import.
#   same_outputs.sh SECPE [SHARED] [--record [RUNNER]]: --record writes the digests of RUNNER's runs
#   (default SECPE) on SECPE's import: to show that a change keeps the outputs, record with the
#   binary before the change as RUNNER, then test the binary after it, and commit the digests.
# History: recorded by the binary before issue 38 (df41c45); privacy.json and run.json recorded
# again with issue 39, which added the cumulative figures (across_runs, r_cumulative) and the
# --experiment option, and run.json again with --generator-topics auto (its option recorded as
# given, the topics used in the summary), and SecPE's run.json again with summary.kmeans (issue 41:
# the k-means' seeding and iterations), and the pooled and Aug-PE runs' privacy.json again when the
# ledger's coarse pass went onto the grid ladder (their r_cumulative moved by -0.07 % to +0.008 %,
# nothing else), and again when the ladder multiplied the transforms of releases of one count PMF
# group by group (round-off: r_cumulative moved by -4e-10 to +1.1e-9 relative, nothing else), and
# again when the ladder cut the tail mass on powers of 2^8 and its Chernoff windows summed groups'
# log-MGFs, each release's by Horner's rule (r_cumulative moved by -4.2e-9 to -1.6e-12 relative,
# nothing else), and again when the coarse pass aimed at twice the slack and left more of the tails
# out (kCoarseGrid: the coarse r_cumulative moved by 0 to +0.47 %, and across_runs.bounds says how
# much looser coarse figures are, nothing else), and the pooled run's again when the coarse pass found
# its cuts and spreads at less precision (kCoarseGrid's cut_tolerance and spread_points: one coarse
# r_cumulative moved by -2.4e-7 relative, nothing else);
# synthetic.csv, initial.csv and metrics.jsonl are still df41c45's. The runs share one privacy
# ledger (the preamble's): the three rank counts are one release, counted once, so their
# privacy.json files are identical.
source "$(dirname "$0")/lib/preamble.sh"
set -e  # every run below must succeed; its digests are the check
GOLDEN=$SRC/tests/data/same_outputs.sha256
RECORD=${3:-}
RUNNER=$SECPE
[ "$RECORD" = --record ] && [ -n "${4:-}" ] && RUNNER=$(readlink -f "$4")
cpu=$(LC_ALL=C lscpu | sed -n 's/^\(Model name\|CPU family\|Model\): *//p' | paste -sd' ')
if [ "$RECORD" != --record ]; then
  [ -f "$GOLDEN" ] || fail "no recorded digests: $GOLDEN"
  recorded=$(sed -n 's/^# cpu: //p' "$GOLDEN")
  if [ "$recorded" != "$cpu" ]; then
    echo "same_outputs: digests recorded on '$recorded', this CPU is '$cpu': comparison skipped"
    exit 77
  fi
fi
source "$LIB/demo_scratch.sh" 1200
SOURCE_DATE_EPOCH=1700000000 demo_import corpus.csv demo.h5 >/dev/null 2>&1 || fail "secpe import"
# A fixed test key (never a real one): the runs must be repeatable from the test alone.
(umask 077 && printf '%064d\n' 7 >test.key)
COMMON=(--config "$INI" --data demo.h5 --noise-key-file test.key --noise-nonce 00112233445566778899aabbccddeeff --seed 3
  --iterations 2 --synthetic 90 --quiet)
run() {  # run NAME RANKS OPTIONS...
  local name=$1 np=$2; shift 2
  mpirun -n "$np" --oversubscribe "$RUNNER" run "${COMMON[@]}" --out "$name" "$@" >/dev/null 2>"$name.log" || { local rc=$?; cat "$name.log" >&2; fail "run $name exited $rc"; }
}
run secpe1 1
run secpe2 2
run secpe4 4
run pooled 2 --generator-labels pooled --generator-topics 4
run augpe 2 --method augpe --allow-over-budget
run random 1 --method random
digests() {
  for out in secpe1 secpe2 secpe4 pooled augpe random; do
    for f in synthetic.csv initial.csv privacy.json; do echo "$(sha256sum <"$out/$f" | cut -c1-64)  $out/$f"; done
    python3 - "$out" <<'PY'
import hashlib, json, sys
out = sys.argv[1]
lines = [json.loads(l) for l in open(out + "/metrics.jsonl")]
for line in lines:
    for k in [k for k in line if k.endswith("_seconds")]: del line[k]
run = json.load(open(out + "/run.json"))
for k in ("provenance", "versions"): run.pop(k)
for name, value in (("metrics.jsonl", lines), ("run.json", run)):
    print(hashlib.sha256(json.dumps(value).encode()).hexdigest() + "  " + out + "/" + name + " (timings, versions, machine left out)")
PY
  done
}
if [ "$RECORD" = --record ]; then
  { echo "# cpu: $cpu"; digests; } >"$GOLDEN"
  echo "same_outputs: recorded $GOLDEN"
  exit 0
fi
digests >now.sha256
diff <(grep -v '^#' "$GOLDEN") now.sha256 || fail "outputs differ from those recorded in tests/data/same_outputs.sha256 (above: recorded, then now)"
echo "same_outputs: all $(wc -l <now.sha256) digests match"
