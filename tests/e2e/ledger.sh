#!/usr/bin/env bash
# Privacy across runs (docs/privacy.md, "Across runs"), on the demo corpus. Every completed run on a
# dataset is recorded in its privacy ledger and composes with the runs before it; the test fails
#   - if a run's cumulative figure is not its own (first run; after a control run, which adds nothing)
#     or does not grow as runs add up (three runs at r/p 10: about 40, by the exact accountant);
#   - if a copy of the dataset under another name escapes the count;
#   - if a repeat of one run (same key, inputs, nonce) or a stopped and resumed run is counted twice;
#   - if a run beyond --total-r-over-p is not refused (before calibration when the runs so far have
#     spent it, before any release when this run would exceed it), or a refused run spends anything;
#   - if the plan of `secpe privacy plan` does not fit its total, or an --experiment is not marked
#     not for publication and left out of the count;
#   - if a public-profile run publishes cumulative figures that an earlier exact run enters;
#   - if an edited, cut or partly lost ledger does not stop the next run, a ledger folder open to
#     others does not stop it before its work, or outputs the ledger could not count stay.
source "$(dirname "$0")/lib/preamble.sh"
source "$LIB/demo_scratch.sh" 1200
demo_import corpus.csv demo.h5 >/dev/null 2>&1 || fail "secpe import"
BASE=("$SECPE" run --config "$INI" --noise-key-file "$T/noise.key" --quiet)
RUN=("${BASE[@]}" --iterations 2 --synthetic 100)
field() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
runs() { "$SECPE" ledger --data "$1" | sed -n 's/^dataset .*: \([0-9]*\) run(s)$/\1/p'; }
ok_run() { "${RUN[@]}" "$@" 2>"$T/run.log" || { cat "$T/run.log" >&2; fail "run $*: exit code $?"; }; }

# A control run spends nothing: the SecPE run after it counts it and gets its own figures back.
ok_run --data demo.h5 --method random --out c0
ok_run --data demo.h5 --out a1
[ "$(field a1/privacy.json "len(j['across_runs']['earlier_counted_runs'])")" = 1 ] || fail "a1: the control run is not counted"
[ "$(field a1/privacy.json "all(s['r_cumulative'] == s['r_achieved'] for s in j['secrets'])")" = True ] ||
  fail "a1: after a control run, r_cumulative differs from r_achieved"
ok_run --data demo.h5 --out a2
ok_run --data demo.h5 --out a3
for out in a2 a3; do
  [ "$(field $out/privacy.json "all(s['r_cumulative'] >= s['r_achieved'] for s in j['secrets'])")" = True ] || fail "$out: a cumulative r below the run's own"
done
w2=$(field a2/privacy.json "j['across_runs']['worst_r_cumulative_over_p']")
w3=$(field a3/privacy.json "j['across_runs']['worst_r_cumulative_over_p']")
python3 -c "import sys; sys.exit(not (15 < $w2 < 25 and 30 < $w3 < 45))" || fail "two and three runs at r/p 10 give r/p $w2 and $w3, expected about 22 and 40"

# A copy under another name is the same data.
cp demo.h5 renamed.h5
ok_run --data renamed.h5 --out b1
[ "$(field b1/privacy.json "len(j['across_runs']['earlier_counted_runs'])")" = 4 ] || fail "the renamed copy escaped the count"
[ "$(runs demo.h5)" = 5 ] || fail "secpe ledger --data: $(runs demo.h5) runs, expected 5"

# The very same run again is the same release: not counted twice.
ok_run --data demo.h5 --out a1again --seed "$(field a1/run.json "j['seed']")" --noise-nonce "$(field a1/run.json "j['noise_nonce']")"
for f in synthetic.csv privacy.json; do cmp -s a1/$f a1again/$f || fail "the repeated run's $f differs from the original's"; done
[ "$(runs demo.h5)" = 5 ] || fail "a repeat of a recorded run was counted again"

# The total: spent already (refused before calibration), or spent by this run (before any release).
expect 2 "after the 5 run(s) on this dataset .* nothing is left .*where --total-r-over-p allows 30" -- "${RUN[@]}" --data demo.h5 --out over1 --total-r-over-p 30
[ ! -e over1 ] && [ ! -e over1.state ] && [ "$(runs demo.h5)" = 5 ] || fail "a refused run left files or was counted"
export SECPE_LEDGER_DIR=$T/ledger2
ok_run --data demo.h5 --out x1 --total-r-over-p 15
expect 2 "would leave secret #[0-9]* at r/p 22.* where --total-r-over-p allows 15; nothing was released" -- "${RUN[@]}" --data demo.h5 --out x2 --total-r-over-p 15
[ ! -e x2/run.json ] && [ "$(runs demo.h5)" = 1 ] || fail "a run over the total wrote outputs or was counted"
ok_run --data demo.h5 --out x2 --total-r-over-p 15 --allow-over-budget
[ "$(runs demo.h5)" = 2 ] || fail "--allow-over-budget: the run was not recorded"
# Per-secret totals in the budgets file: secret #0 may take r/p 25 over all runs; a third run takes it
# to about 38.
printf 'secret,p,r,total_r
#0,1e-4,1e-3,2.5e-3
' >totals.csv
expect 2 "secret #0 at r/p .* where its total_r in the budgets file allows 25" -- "${RUN[@]}" --data demo.h5 --out x2b --budgets totals.csv
[ ! -e x2b/run.json ] || fail "a run over a secret's total_r wrote outputs"

# Experiments: marked, listed, not counted.
ok_run --data demo.h5 --out e1 --experiment
grep -q "NOT FOR PUBLICATION" e1/run.json && grep -q "NOT FOR PUBLICATION" e1/privacy.json || fail "an experiment's outputs are not marked"
"$SECPE" ledger --data demo.h5 | grep -q "experiment: not counted" || fail "secpe ledger does not list the experiment"
ok_run --data demo.h5 --out x3
[ "$(field x3/privacy.json "j['across_runs']['experiments_not_counted']")" = 1 ] &&
  [ "$(field x3/privacy.json "len(j['across_runs']['earlier_counted_runs'])")" = 2 ] || fail "the experiment was counted"
"$SECPE" inspect demo.h5 | grep -q "4 run(s) of this dataset recorded" || fail "secpe inspect does not show the ledger"

# Under the public profile nothing published depends on private records: after an exact run, the
# cumulative figures stay in the ledger.
export SECPE_LEDGER_DIR=$T/ledger5
ok_run --data demo.h5 --out pp1 --calibration public-profile --max-holders-per-secret 40
[ "$(field pp1/privacy.json "'r_cumulative' in j['secrets'][0]")" = True ] || fail "public profile alone: no r_cumulative"
ok_run --data demo.h5 --out ex1
ok_run --data demo.h5 --out pp2 --calibration public-profile --max-holders-per-secret 40
[ "$(field pp2/privacy.json "'withheld' in j['across_runs'] and not any('r_cumulative' in s for s in j['secrets'])")" = True ] ||
  fail "public profile after an exact run: cumulative figures that depend on private records were published"

# The plan: two runs at the r/p it gives both fit its total.
export SECPE_LEDGER_DIR=$T/ledger3
each=$("$SECPE" privacy plan --runs 2 --total-r-over-p 25 | sed -n 's/.*--r-over-p \([0-9.]*\)$/\1/p')
[ -n "$each" ] || fail "secpe privacy plan printed no r/p"
ok_run --data demo.h5 --out p1 --r-over-p "$each" --total-r-over-p 25
ok_run --data demo.h5 --out p2 --r-over-p "$each" --total-r-over-p 25

# A stopped run spends nothing; resumed, it is one run.
export SECPE_LEDGER_DIR=$T/ledger4
"${BASE[@]}" --data demo.h5 --out long --iterations 30 --synthetic 600 2>/dev/null & pid=$!
for _ in $(seq 1 600); do [ -f long.state/progress.json ] && break; sleep 0.05; done
kill -USR1 $pid
wait $pid
rc=$?
[ $rc = 75 ] || fail "SIGUSR1: exit code $rc, expected 75"
[ "$(runs demo.h5)" = 0 ] || fail "a stopped run was recorded"
"${BASE[@]}" --data demo.h5 --out long --iterations 30 --synthetic 600 --resume 2>/dev/null || fail "the resumed run failed"
[ "$(runs demo.h5)" = 1 ] || fail "a resumed run was recorded $(runs demo.h5) times"

# A ledger folder open to others refuses the run before its work. Outputs the ledger cannot count
# when the run records them (here its lock cannot be taken) are removed; --resume writes and counts
# them once it can.
export SECPE_LEDGER_DIR=$T/ledger6
mkdir -m 755 "$SECPE_LEDGER_DIR"
expect 2 "privacy ledger folder .* is open to other users" -- "${RUN[@]}" --data demo.h5 --out w1
[ ! -e w1 ] && [ ! -e w1.state ] || fail "a run refused for its open ledger folder left files"
chmod 700 "$SECPE_LEDGER_DIR" && mkdir "$SECPE_LEDGER_DIR/ledger.lock"
expect 2 "cannot lock the privacy ledger.*outputs were removed" -- "${RUN[@]}" --data demo.h5 --out w1
for f in run.json synthetic.csv privacy.json initial.csv metrics.jsonl; do [ ! -e "w1/$f" ] || fail "w1/$f stayed though the ledger did not count it"; done
rmdir "$SECPE_LEDGER_DIR/ledger.lock"
ok_run --data demo.h5 --out w1 --resume
[ -f w1/run.json ] && [ "$(runs demo.h5)" = 1 ] || fail "--resume did not write and count the withdrawn outputs"

# A damaged ledger stops the next run, which writes nothing.
export SECPE_LEDGER_DIR=$T/ledger
cp -r ledger ledger.bak
sed -i '2s/"iterations":2/"iterations":1/' ledger/ledger.jsonl
expect 2 "ledger.jsonl:2: the privacy ledger does not check" -- "${RUN[@]}" --data demo.h5 --out t1
rm -r ledger && cp -r ledger.bak ledger && sed -i '$d' ledger/ledger.jsonl
expect 2 "lines were cut" -- "${RUN[@]}" --data demo.h5 --out t1
rm -r ledger && cp -r ledger.bak ledger && rm ledger/ledger.key
expect 2 "ledger.key is missing" -- "${RUN[@]}" --data demo.h5 --out t1
[ ! -e t1 ] || fail "a run on a damaged ledger wrote outputs"
echo "ledger: ok (two runs at r/p 10: $w2, three: $w3; the plan for two runs within 25: r/p $each each)"
