#!/usr/bin/env bash
# Why runs must be counted (docs/privacy.md, "Across runs"): K runs on one dataset with one key file
# and fresh nonces release K independent noisy views of the same private values, and their average
# sheds the noise as 1/sqrt(K). Here 16 Aug-PE runs of one demo dataset with one seed: their first
# iteration votes on the same candidates (the seed's), so each label's released vote total is the
# same function of the private votes plus fresh noise in every run. The test fails unless the
# spread of K-run averages is 1/sqrt(K) of single runs' (K = 2, 4, 8; within 40 %), and unless the
# last run's privacy.json counts the 16 runs exactly as this attack sees them: every secret's
# r_cumulative is the Gaussian bound at sqrt(16) times its per-run mu.
source "$(dirname "$0")/lib/preamble.sh"
set -e  # setup and runs are not checked one by one: any that fails ends the test
source "$LIB/demo_scratch.sh" 1200
# A fixed dataset, test key and nonces (fresh for every run, as the OS would draw them): the test is
# repeatable, not at the mercy of a random draw.
SOURCE_DATE_EPOCH=1700000000 demo_import corpus.csv demo.h5 >/dev/null 2>&1
(umask 077 && printf '%064d\n' 11 >test.key)
for k in $(seq 1 16); do
  "$SECPE" run --config "$INI" --data demo.h5 --noise-key-file test.key --noise-nonce "$(printf '%032x' "$k")" --seed 1 \
    --method augpe --allow-over-budget --iterations 2 --synthetic 100 --quiet --out run$k 2>/dev/null
done
python3 - <<'PY' || fail "see above"
import json, statistics, sys
from statistics import NormalDist

def first_totals(out):
    lines = [json.loads(l) for l in open(out + "/metrics.jsonl")]
    return {m["label"]: m["released_vote_total"] for m in lines if m.get("iteration") == 0 and "released_vote_total" in m}

runs = [first_totals("run%d" % k) for k in range(1, 17)]
labels = sorted(set.intersection(*(set(r) for r in runs)))
def spread(size):  # pooled within-label variance of the means of disjoint groups of `size` runs
    total, dof = 0.0, 0
    for l in labels:
        means = [statistics.fmean(r[l] for r in runs[g:g + size]) for g in range(0, 16, size)]
        total += statistics.variance(means) * (len(means) - 1)
        dof += len(means) - 1
    return (total / dof) ** 0.5
one, failed = spread(1), False
for size in (2, 4, 8):
    ratio = spread(size) / one
    ok = 0.6 < ratio * size ** 0.5 < 1.4
    failed |= not ok
    print("runs_average: %d-run averages: noise %.3f of one run's (1/sqrt(%d) = %.3f)%s" % (size, ratio, size, size ** -0.5, "" if ok else "  FAIL"))

# The ledger: 16 Gaussian runs of mu_j each compose to the Gaussian at 4 mu_j: never below it, within
# 1e-4 at full precision and 2e-2 on the coarse grid (r_cumulative_bound: coarse-accountant; its slack target).
last = json.load(open("run16/privacy.json"))
assert len(last["across_runs"]["earlier_counted_runs"]) == 15, last["across_runs"]
z = NormalDist()
worst = {True: 0.0, False: 0.0}
for s in last["secrets"]:
    if s["mu"] <= 0:
        continue
    exact = 1 - z.cdf(z.inv_cdf(1 - s["p"]) - 4 * s["mu"])
    coarse = s.get("r_cumulative_bound") == "coarse-accountant"
    failed |= s["r_cumulative"] < exact * (1 - 1e-9)
    worst[coarse] = max(worst[coarse], s["r_cumulative"] / exact - 1)
print("runs_average: the ledger's r_cumulative after 16 runs is the Gaussian bound at 4 mu, looser by at most %.1e at full "
      "precision and %.1e on the coarse grid" % (worst[False], worst[True]))
failed |= worst[False] > 1e-4 or worst[True] > 2e-2
sys.exit(1 if failed else 0)
PY
echo "runs_average: ok"
