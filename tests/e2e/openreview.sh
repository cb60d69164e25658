#!/usr/bin/env bash
# OpenReview's file shape (issue 40, item 6), on a small fixture written here: the header
# text,label2,label1, reviews over many lines with "" escapes and Markdown, label values with colons
# and commas. Import by header name, run, and synthetic.csv comes back in the input's column order
# with every label value byte for byte as given; a dataset's column order is public provenance.
# The synthetic reviews keep the corpus's line breaks and Markdown (issue 40, item 2).
source "$(dirname "$0")/lib/preamble.sh"
set -e  # setup and runs are not checked one by one: any that fails ends the test
cd "$T"
python3 - <<'PY'
import csv, random
random.seed(7)
areas = ['Area: Social Aspects of Machine Learning (eg, AI safety, fairness, privacy, ...)', 'Area: Optimization: convex, "non-convex"']
recs = ['Recommendation: 8: accept, good paper', 'Recommendation: 3: reject, not good enough']
words = 'model training loss results method baseline experiments dataset clear novel theory bound'.split()
with open('reviews.csv', 'w', newline='') as f:
    w = csv.writer(f)
    w.writerow(['text', 'label2', 'label1'])
    for i in range(160):
        body = ' '.join(random.choice(words) for _ in range(30))
        secret = ' zanzibar' if i % 8 == 0 else ''
        text = f'**Strengths**\n- the "{random.choice(words)}" part{secret}\n\n**Weaknesses**\n{body}'
        w.writerow([text, areas[i % 2], recs[(i // 2) % 2]])
open('secrets.txt', 'w').write('zanzibar\n')
PY
"$SECPE" import --input reviews.csv --secrets list --secrets-file secrets.txt --label-prefixes '' --embedding-dim 16 --out r.h5 >/dev/null 2>import.err ||
  fail "import: $(cat import.err)"
"$SECPE" inspect r.h5 | grep -q "column_order = 0,2,1" || fail "the dataset does not keep the input's column order"
"$SECPE" run --data r.h5 --out o --seed 2 --iterations 1 --synthetic 40 --quiet 2>run.err || fail "run: $(tail -3 run.err)"
python3 - <<'PY' || fail "synthetic.csv is not in the input's shape"
import csv
rows = list(csv.reader(open('o/synthetic.csv', newline='')))
assert rows[0] == ['text', 'label2', 'label1'], rows[0]
given = list(csv.reader(open('reviews.csv', newline='')))[1:]
pairs = {(r[1], r[2]) for r in given}
assert len(rows) == 41 and all((r[1], r[2]) in pairs for r in rows[1:]), rows[1][1:]
PY
python3 - <<'PY' || fail "synthetic.csv loses the reviews' line breaks or Markdown"
import csv
texts = [r[0] for r in list(csv.reader(open('o/synthetic.csv', newline='')))[1:]]
assert sum('\n' in t for t in texts) > 30, texts[:2]
assert sum('**Strengths**' in t or '**Weaknesses**' in t for t in texts) > 30, texts[:2]
assert not any('* *' in t or ' \n' in t for t in texts), [t for t in texts if '* *' in t or ' \n' in t][:2]
PY
grep -q 'layout kept' o/run.json || fail "run.json does not say the generator kept the layout"
grep -q '"column_order": "0,2,1"' o/run.json || fail "run.json does not say the column order"
echo "openreview: ok"
