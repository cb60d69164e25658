#!/usr/bin/env bash
# The real Yelp dev set (5,000 reviews, 50 labels) from ../shared: import with random-word
# secrets, check counts and labels, then a short 2-rank SecPE run. Skipped without ../shared.
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
echo "yelp_dev: ok"
