#!/usr/bin/env bash
# `secpe audit`: a small audit of the real release passes (the measured leakage stays within the
# accountant's certificate, exit 0), the same audit of a deliberately broken release (half the
# noise) fails (exit 3), so does the audit of three runs against a ledger that counts them as one,
# the result does not depend on the rank or thread count, and bad options
# are errors.
source "$(dirname "$0")/lib/preamble.sh"
SMALL=(--trials 40000 --iterations 2 --p 1e-3 --r-over-p 10)

"$SECPE" audit "${SMALL[@]}" --out "$T/ok.json" > "$T/ok.txt" 2> "$T/ok.err"; rc=$?
[ $rc = 0 ] || { cat "$T/ok.txt" "$T/ok.err"; fail "the real mechanism's audit exited $rc (3: it leaks more than certified)"; }
grep -q "verdict: pass" "$T/ok.txt" || fail "no pass verdict: $(cat "$T/ok.txt")"
# Progress on stderr (each stage's closing line always prints; rate and ETA at most once a second).
for stage in "audit: thresholds" "audit: trials"; do
  grep -q "^secpe: \[$stage.*\] done" "$T/ok.err" || fail "no '$stage' progress on stderr: $(cat "$T/ok.err")"
done
grep -q "secpe:" "$T/ok.txt" && fail "progress on stdout"
python3 - "$T/ok.json" <<'PY' || fail "pass report"
import json, sys
j = json.load(open(sys.argv[1]))
v, rows = j["verdict"], j["thresholds"]
assert v["exceeds"] is False and v["worst_ratio"] <= 1.0, v
assert v["implied_b_at_p_lower"] <= v["certified_r"] <= 1e-2 * (1 + 1e-9), v
assert all(r["tpr_lower"] <= r["certified_tpr"] and r["fpr"] <= r["fpr_upper"] and r["tpr_lower"] <= r["tpr"] for r in rows)
# The attack is strong: its curve reaches most of the certified one where the bounds are tight.
assert v["worst_ratio"] > 0.9, v
assert j["statistics"]["smallest_resolved_fpr"] < j["accountant"]["p"]
assert j["release"]["noise_multiplier"] == 1.0
PY

# Half the noise in the release, the accountant still told the calibrated sigma: must be caught.
"$SECPE" audit "${SMALL[@]}" --noise-multiplier 0.5 --out "$T/broken.json" > "$T/broken.txt"; rc=$?
[ $rc = 3 ] || { cat "$T/broken.txt"; fail "the broken mechanism's audit exited $rc, not 3"; }
grep -q "verdict: EXCEEDS" "$T/broken.txt" || fail "no EXCEEDS verdict: $(cat "$T/broken.txt")"
python3 - "$T/broken.json" <<'PY' || fail "broken report"
import json, sys
j = json.load(open(sys.argv[1]))
v = j["verdict"]
assert v["exceeds"] is True and v["worst_ratio"] > 2 and v["implied_b_at_p_lower"] > v["certified_r"], v
assert "BROKEN" in j["release"]["note"]
PY

# Three runs with one key and fresh nonces (the privacy ledger's case): the audit of all their
# releases passes the ledger's cumulative certificate, and fails a ledger that counts them as one run.
"$SECPE" audit "${SMALL[@]}" --runs 3 --out "$T/runs.json" > "$T/runs.txt"; rc=$?
[ $rc = 0 ] || { cat "$T/runs.txt"; fail "the audit of 3 runs against the ledger's cumulative certificate exited $rc"; }
"$SECPE" audit "${SMALL[@]}" --runs 3 --certified-runs 1 --out "$T/undercount.json" > "$T/undercount.txt"; rc=$?
[ $rc = 3 ] || { cat "$T/undercount.txt"; fail "a ledger counting 3 runs as one was not caught (exit $rc, not 3)"; }
python3 - "$T/ok.json" "$T/runs.json" "$T/undercount.json" <<'PY' || fail "runs reports"
import json, sys
one, three, under = (json.load(open(f)) for f in sys.argv[1:])
assert three["setting"]["runs"] == 3 and three["accountant"]["certified_runs"] == 3, three["setting"]
# The cumulative certificate of three runs is well above one run's, and the attack reaches it.
assert three["accountant"]["certified_r"] > 2.5 * one["accountant"]["certified_r"], (three["accountant"], one["accountant"])
assert three["verdict"]["worst_ratio"] > 0.9, three["verdict"]
assert under["accountant"]["certified_r"] == one["accountant"]["certified_r"], under["accountant"]
assert under["verdict"]["exceeds"] is True and "UNDERCOUNTED" in under["accountant"]["runs_note"]
PY

# The same audit on 2 ranks, on 3 threads, and on 2 ranks of 2 threads (trials split, counts summed
# exactly): the same report as 1 rank of 1 thread.
"$SECPE" audit "${SMALL[@]}" --threads 1 --out "$T/ok1.json" > /dev/null || fail "1-thread audit"
"$SECPE" audit "${SMALL[@]}" --threads 3 --out "$T/ok3.json" > /dev/null || fail "3-thread audit"
mpirun -n 2 --oversubscribe "$SECPE" audit "${SMALL[@]}" --threads 1 --out "$T/ok2.json" > /dev/null || fail "2-rank audit"
mpirun -n 2 --oversubscribe "$SECPE" audit "${SMALL[@]}" --threads 2 --out "$T/ok22.json" > /dev/null || fail "2-rank 2-thread audit"
python3 - "$T/ok1.json" "$T/ok3.json" "$T/ok2.json" "$T/ok22.json" <<'PY' || fail "rank- or thread-count dependence"
import json, sys
reports = [json.load(open(f)) for f in sys.argv[1:]]
assert [(j["setting"]["ranks"], j["setting"]["threads_per_rank"]) for j in reports] == [(1, 1), (1, 3), (2, 1), (2, 2)]
for j in reports:
    j.pop("timing"); j["setting"].pop("ranks"); j["setting"].pop("threads_per_rank")
assert all(j == reports[0] for j in reports), "reports differ"
PY

# Bad options: clear messages, exit code 2.
expect2() { local pattern=$1; shift; out=$("$@" 2>&1); rc=$?; [ $rc = 2 ] || fail "'$*' exited $rc: $out"; grep -q -- "$pattern" <<<"$out" || fail "'$*': $out"; }
expect2 "--holders must be in" "$SECPE" audit --holders 0
expect2 "--rho must be in (0, 1]" "$SECPE" audit --rho 1.5
expect2 "--trials must be in" "$SECPE" audit --trials 10
expect2 "--noise-multiplier must be finite and > 0" "$SECPE" audit --noise-multiplier 0
expect2 "--certified-runs must be in" "$SECPE" audit --runs 2 --certified-runs 3
expect2 "r must be in (p, 1)" "$SECPE" audit --r-over-p 1
expect2 "--threads must be in" "$SECPE" audit --threads -1
expect2 "unrecognised option\|unrecognized option" "$SECPE" audit --bogus 1
echo "audit: ok"
