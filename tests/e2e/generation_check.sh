#!/usr/bin/env bash
# jobs/generation-check.sh: a run against `secpe serve` standing in for a model with a latency,
# small (300 real Yelp reviews from ../shared, N_syn 100, one iteration): generation.json counts
# the requests (N_syn x L at iteration 0) and gives the measured and ideal generation time per
# rank with the command; the dataset, key and state stay in the 0700 private folder; a missing
# file is refused. Timing is not checked. Skipped without ../shared.
source "$(dirname "$0")/lib/preamble.sh"
DEV=$SHARED/data/yelp/dev.csv
if [ ! -f "$DEV" ]; then echo "generation_check: SKIPPED: $DEV not found (the shared folder is not beside the checkout)"; exit 77; fi
CHECK=$SRC/jobs/generation-check.sh
export SECPE
expect 2 "TRAIN.csv '$T/none.csv' not found" -- bash "$CHECK" "$T/none.csv" "$T/x"
python3 - "$DEV" "$T/train.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
csv.writer(open(sys.argv[2], 'w', newline='')).writerows(rows[:301])
PY
SYNTHETIC=100 ITERATIONS=1 CLUSTERS=10 LATENCY_MS=5 RANKS=2 CONCURRENCY=4 bash "$CHECK" "$T/train.csv" "$T/out" 2>"$T/check.err" ||
  fail "generation-check: $(tail -5 "$T/check.err")"
[ "$(stat -c %a "$T/out.private")" = 700 ] || fail "the private folder is not 0700"
python3 - "$T/out/generation.json" <<'PY' || fail "generation.json"
import json, sys
g = json.load(open(sys.argv[1]))
assert g["requests"] == 600, g["requests"]
assert (g["ranks"], g["concurrency_per_rank"], g["latency_ms"]) == (2, 4, 5), g
assert g["ideal_seconds_per_rank"] == 600 / 2 / 4 * 0.005 and g["generate_seconds_per_rank"] > 0 and g["ratio"] > 0, g
assert "--generator http" in g["command"] and "--concurrency 4" in g["command"], g["command"]
PY
grep -q '"publication": "NOT FOR PUBLICATION: an experiment' "$T/out/run.json" || fail "the check's run is not marked an experiment"
echo "generation_check: ok"
