#!/usr/bin/env bash
# jobs/paper-preset.sh: the paper's PubMed settings on 300 + 100 real abstracts from ../shared,
# scaled to them (N_syn capped at the 300 training records; K 2,000 lowered to the public records
# by k-means), with one iteration instead of five for time: the run's options are the benchmark's,
# every iteration is scored on the held-out file, and eval.json gives next-word prediction and
# MAUVE, naming its files without their paths. Aug-PE at r/p 2, over budget for some secrets (exit 4, outputs written), is scored all the
# same and the script exits 4. An unknown benchmark and a missing file are refused. Skipped
# without ../shared.
source "$(dirname "$0")/lib/preamble.sh"
TRAIN=$SHARED/data/pubmed/train.csv DEV=$SHARED/data/pubmed/dev.csv
if [ ! -f "$TRAIN" ]; then echo "paper_preset: SKIPPED: $TRAIN not found (the shared folder is not beside the checkout)"; exit 77; fi
PRESET=$SRC/jobs/paper-preset.sh
export SECPE
expect 2 "the benchmark is yelp, openreview or pubmed, not 'imdb'" -- bash "$PRESET" imdb "$TRAIN" "$T/x"
expect 2 "TRAIN.csv '$T/none.csv' not found" -- bash "$PRESET" pubmed "$T/none.csv" "$T/x"
python3 - "$TRAIN" "$DEV" "$T" <<'PY'
import csv, sys
for src, out, n in ((sys.argv[1], 'train.csv', 300), (sys.argv[2], 'dev.csv', 100)):
    rows = list(csv.reader(open(src, newline='')))
    csv.writer(open(f'{sys.argv[3]}/{out}', 'w', newline='')).writerows(rows[:n + 1])
PY
ITERATIONS=1 THREADS=2 bash "$PRESET" pubmed "$T/train.csv" "$T/out" "$T/dev.csv" 2> "$T/preset.err" || fail "preset: $(tail -5 "$T/preset.err")"
grep -q "paper-preset: pubmed: N_syn 300, K 2000, L 6, 1 iterations, --max-words 448, secpe at r/p 10" "$T/preset.err" || fail "preset: $(head -3 "$T/preset.err")"
[ "$(stat -c %a "$T/out.private")" = 700 ] || fail "the private folder is not 0700"
python3 - "$T/out" <<'PY' || fail "the preset's run"
import json, sys
out = sys.argv[1]
o = json.load(open(f'{out}/run.json'))['options']
want = {'synthetic': '300', 'clusters': '2000', 'variations': '6', 'iterations': '1', 'max-words': '448', 'generator-labels': 'pooled',
        'generator-topics': '50', 'method': 'secpe', 'r-over-p': '10'}
assert all(str(o.get(k)) == v for k, v in want.items()), {k: o.get(k) for k in want}
evals = [l['eval'] for l in map(json.loads, open(f'{out}/metrics.jsonl')) if 'eval' in l]
assert len(evals) == 2 and all(e['next_word']['accuracy'] > 0 for e in evals), len(evals)
e = json.load(open(f'{out}/eval.json'))
assert e['next_word']['real_texts'] == 100 and 0 < e['mauve']['score'] <= 1, (e['next_word'], e['mauve'])
# Published beside the outputs, the report names its files, never their paths.
assert (e['synthetic']['file'], e['real']['file']) == ('synthetic.csv', 'dev.csv'), (e['synthetic'], e['real'])
PY
rc=0; METHOD=augpe R_OVER_P=2 ITERATIONS=1 THREADS=2 bash "$PRESET" pubmed "$T/train.csv" "$T/augpe" "$T/dev.csv" 2> "$T/augpe.err" || rc=$?
[ $rc = 4 ] || fail "Aug-PE at r/p 2: exit $rc, expected 4 (over budget): $(tail -3 "$T/augpe.err")"
[ -f "$T/augpe/eval.json" ] || fail "Aug-PE at r/p 2 over budget: no eval.json"
echo "paper_preset: ok"
