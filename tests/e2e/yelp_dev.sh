#!/usr/bin/env bash
# The real Yelp dev set (5,000 reviews, 50 labels) from ../shared: import with random-word
# secrets, check counts and labels, then a short 2-rank SecPE run; and the default import run at
# 1, 2 and 4 ranks with one key file gives byte-identical outputs (real data once exposed a
# rank-count difference that the demo did not), including the per-iteration evaluation
# (--eval-real, here against a held-out fifth of the dev set). Skipped without ../shared.
source "$(dirname "$0")/lib/preamble.sh"
set -e  # setup and runs are not checked one by one: any that fails ends the test
DEV=$SHARED/data/yelp/dev.csv
if [ ! -f "$DEV" ]; then echo "yelp_dev: SKIPPED: $DEV not found (the shared folder is not beside the checkout)"; exit 0; fi
"$SECPE" import --input "$DEV" --out "$T/dev.h5" --secret-count 100
"$SECPE" inspect "$T/dev.h5" > "$T/inspect.txt"
grep -q '^records      5000 ' "$T/inspect.txt" || fail "expected 5000 records"
grep -q '^labels       50 ' "$T/inspect.txt" || fail "expected 50 labels"
grep -q 'Restaurants | 5.0' "$T/inspect.txt" || fail "label Restaurants | 5.0 missing"
mpirun -n 2 --oversubscribe "$SECPE" run --data "$T/dev.h5" --out "$T/out" --seed 5 --iterations 2 --synthetic 200 --quiet
for f in synthetic initial; do
  [ "$(python3 -c "import csv,sys; print(len(list(csv.reader(open('$T/out/$f.csv'))))-1)")" = 200 ] || fail "expected 200 texts in $f.csv"
done
python3 "$SRC/analysis/heldout_split.py" "$DEV" "$T/train.csv" "$T/heldout.csv" >/dev/null
"$SECPE" import --input "$T/train.csv" --out "$T/default.h5"
"$SECPE" keygen --out "$T/noise.key"
for np in 1 2 4; do
  mpirun -n $np --oversubscribe "$SECPE" run --data "$T/default.h5" --out "$T/r$np" --noise-key-file "$T/noise.key" --noise-nonce 5ec9e5ec9e5ec9e5ec9e5ec9e5ec9e00 \
    --method secpe --r-over-p 2 --synthetic 2000 --iterations 10 --variations 3 --clusters 20 --threads 1 --seed 1 --quiet \
    --eval-real "$T/heldout.csv"
done
python3 - "$T/r1/metrics.jsonl" <<'PY' || fail "--eval-real: expected the initial population and 10 iterations, each with its report"
import json, sys
evals = [l for l in map(json.loads, open(sys.argv[1])) if "eval" in l]
assert [e["population"] for e in evals] == ["initial"] + ["selected"] * 10, evals
assert [e.get("iteration") for e in evals[1:]] == list(range(10))
for e in evals:
    assert 0 < e["eval"]["classification"]["label1"]["tfidf"]["accuracy"] <= 1
    assert e["eval"]["real"]["records"] == 1000 and "run" not in e["eval"]
assert evals[-1]["eval"]["diversity"]["synthetic"]["near_duplicate_rate"] == 0, "selection kept near-duplicates"
PY
for np in 2 4; do
  for f in synthetic.csv privacy.json metrics.jsonl; do
    if [ $f = metrics.jsonl ]; then  # timings differ; everything else must not
      strip() { python3 -c "import json,sys; [print(json.dumps({k: v for k, v in json.loads(l).items() if not k.endswith('seconds')})) for l in open(sys.argv[1])]" "$1"; }
      [ "$(strip "$T/r1/$f")" = "$(strip "$T/r$np/$f")" ] || fail "real data: $f differs between 1 and $np ranks"
    else
      cmp "$T/r1/$f" "$T/r$np/$f" || fail "real data: $f differs between 1 and $np ranks"
    fi
  done
done
echo "yelp_dev: ok"
