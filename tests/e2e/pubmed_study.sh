#!/usr/bin/env bash
# jobs/pubmed-study.sh: the utility study in PubMed's shape (a text-only training file and a held-out
# file of its own) on 300 + 100 real abstracts from ../shared, at a tiny grid (1 seed; SecPE and
# Aug-PE at r/p 2 and none, the control, the no-private ablation; 1 iteration): the held-out file is
# used as given (nothing of the training file held out), every run is scored by next-word accuracy
# and MAUVE, and the analysis writes the PubMed table (next-word and MAUVE gains over the control),
# issue 40's targets and the plots, lengths against the real abstracts among them. A missing
# held-out file is refused before any work. Skipped without ../shared.
source "$(dirname "$0")/lib/preamble.sh"
TRAIN=$SHARED/data/pubmed/train.csv DEV=$SHARED/data/pubmed/dev.csv
if [ ! -f "$TRAIN" ]; then echo "pubmed_study: SKIPPED: $TRAIN not found (the shared folder is not beside the checkout)"; exit 77; fi
python3 - "$TRAIN" "$DEV" "$T" <<'PY'
import csv, sys
for src, out, n in ((sys.argv[1], 'train.csv', 300), (sys.argv[2], 'dev.csv', 100)):
    rows = list(csv.reader(open(src, newline='')))
    csv.writer(open(f'{sys.argv[3]}/{out}', 'w', newline='')).writerows(rows[:n + 1])
PY
export SECPE SEEDS=1 RP="2 none" SYNTHETIC=60 CLUSTERS=20 ITERATIONS=1 VARIATIONS=2 MAX_WORDS=96 THREADS=2
STUDY=$SRC/jobs/pubmed-study.sh
expect 2 "HELDOUT.csv $T/none.csv not found" -- bash "$STUDY" prepare "$T/train.csv" "$T/study" "$T/none.csv"
[ ! -e "$T/study/private/data" ] || fail "a refused prepare left a dataset"
[ "$(bash "$STUDY" points)" = 6 ] || fail "the grid: $(bash "$STUDY" grid)"
bash "$STUDY" all "$T/train.csv" "$T/study" "$T/dev.csv" > "$T/study.log" 2>&1 || fail "the study: $(tail -5 "$T/study.log")"
grep -q "300 training and 0 held-out records" "$T/study.log" || fail "the training file was split: $(grep held-out "$T/study.log")"
cmp -s "$T/dev.csv" "$T/study/private/heldout.csv" || fail "the held-out file is not the one given"
[ "$(stat -c %a "$T/study/private")" = 700 ] || fail "the private folder is not 0700"
for f in table.md table.json targets.md accuracy_vs_r_over_p.png iterations_pooled.png lengths.png; do
  [ -s "$T/study/$f" ] || fail "the analysis wrote no $f"
done
python3 - "$T/study" <<'PY' || fail "the study's table"
import json, sys
out = sys.argv[1]
table = open(f'{out}/table.md').read()
header = table.splitlines()[0]
for column in ('next-word accuracy (%)', 'MAUVE', 'next-word gain over control (points)', 'FID', 'mean words'):
    assert f'| {column} |' in header, (column, header)
assert 'category' not in header, header
for row in ('| real: the whole training set |', '| generator alone (initial population) |', '| SecPE, r/p = 2 |',
            '| Aug-PE, r/p = none |', '| control: random selection (no private data) |', '(private records left out)'):
    assert row in table, (row, table)
targets = open(f'{out}/targets.md').read()
for row in ('SecPE r/p = 2 - Aug-PE r/p = 2', 'SecPE r/p = 2 - SecPE r/p = none', 'SecPE r/p = 10 - control | not run'):
    assert row in targets, (row, targets)
for name in ('pooled-ppmi-sif-secpe-rp2-s1', 'pooled-ppmi-sif-random-s1'):
    run = json.load(open(f'{out}/runs/{name}/run.json'))
    assert run['options']['max-words'] == '96' and run['options']['clusters'] == '20', run['options']
PY
echo "pubmed_study: ok"
