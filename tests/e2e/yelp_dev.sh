#!/usr/bin/env bash
# The real Yelp dev set (5,000 reviews, 50 labels) from ../shared: import with random-word
# secrets, check counts and labels, then a short 2-rank SecPE run; and the default import run at
# 1, 2 and 4 ranks with one key file gives byte-identical outputs (real data once exposed a
# rank-count difference that the demo did not). Skipped without ../shared.
set -euo pipefail
SECPE=$1
DEV=${2:-}/data/yelp/dev.csv
if [ ! -f "$DEV" ]; then echo "yelp_dev: SKIPPED: $DEV not found (the shared folder is not beside the checkout)"; exit 0; fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$SECPE" import --input "$DEV" --out "$T/dev.h5" --secret-count 100
"$SECPE" inspect "$T/dev.h5" > "$T/inspect.txt"
grep -q '^records      5000 ' "$T/inspect.txt" || fail "expected 5000 records"
grep -q '^labels       50 ' "$T/inspect.txt" || fail "expected 50 labels"
grep -q 'Restaurants | 5.0' "$T/inspect.txt" || fail "label Restaurants | 5.0 missing"
mpirun -n 2 --oversubscribe "$SECPE" run --data "$T/dev.h5" --out "$T/out" --seed 5 --iterations 2 --synthetic 200 --quiet
[ "$(python3 -c "import csv,sys; print(len(list(csv.reader(open('$T/out/synthetic.csv'))))-1)")" = 200 ] || fail "expected 200 synthetic texts"
"$SECPE" import --input "$DEV" --out "$T/default.h5"
"$SECPE" keygen --out "$T/noise.key"
for np in 1 2 4; do
  mpirun -n $np --oversubscribe "$SECPE" run --data "$T/default.h5" --out "$T/r$np" --noise-key-file "$T/noise.key" \
    --method secpe --r-over-p 2 --synthetic 2000 --iterations 10 --variations 3 --clusters 20 --threads 1 --seed 1 --quiet
done
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
