#!/usr/bin/env bash
# `secpe privacy` (simulated and from a dataset), per-secret budget files, the paper and exact
# calibrations of `secpe run`, and their bad inputs.
source "$(dirname "$0")/lib/preamble.sh"

# Simulated appendix B.1 setup (small): exact sigma >= paper sigma, and the paper's sigma overshoots r.
"$SECPE" privacy --simulate --records 600 --secrets 20 --inclusion 0.02 --iterations 5 --out "$T/sim.json" > "$T/sim.txt" || fail "privacy --simulate"
python3 - "$T/sim.json" <<'PY' || fail "privacy JSON"
import json, sys
j = json.load(open(sys.argv[1]))
s = j["sigma"]
assert s["exact"] >= s["paper"] > 0 and s["gdp"] > 0, s
assert len(j["secrets"]) == 20
assert all(x["sigma_exact"] is not None and x["sigma_paper"] > 0 for x in j["secrets"])
assert j["secrets_over_budget_at_sigma"] > 0, "the paper's sigma should under-protect here"
assert j["group_sigma_ratio"]["exact"] > 0
PY
grep -q "worst achieved r/p at that sigma" "$T/sim.txt" || fail "privacy summary line"

# From a dataset, with a per-secret budget file; then runs with both calibrations.
source "$LIB/demo_scratch.sh" 600
demo_import corpus.csv demo.h5 2>/dev/null || fail import
first=$(grep -v '^#' "$T/corpus.secrets.txt" | head -1)
printf 'secret,p,r\n%s,1e-3,2e-2\n#1,1e-4,5e-3\n' "$first" > "$T/budgets.csv"
"$SECPE" privacy --data "$T/demo.h5" --budgets "$T/budgets.csv" --iterations 3 --out "$T/data.json" >/dev/null || fail "privacy --data"
python3 -c "import json; j=json.load(open('$T/data.json')); s=j['secrets']; assert s[0]['r']==2e-2 and s[1]['r']==5e-3 and s[2]['r']==1e-3, s[:3]" || fail "per-secret budgets"
grep -q -i -F "$first" "$T/data.json" && fail "a secret name reached the privacy JSON"

"$SECPE" run --data "$T/demo.h5" --out "$T/exact" --seed 2 --iterations 2 --synthetic 40 --budgets "$T/budgets.csv" --quiet || fail "run exact"
# The paper's formula leaves secrets over their budget: the outputs are written, stderr says how
# many and the worst r/p against the target, and the exit code is 4 (0 with --allow-over-budget).
rc=0; "$SECPE" run --data "$T/demo.h5" --out "$T/paper" --seed 2 --iterations 2 --synthetic 40 --calibration paper --votes-per-center 3 --quiet 2> "$T/paper.err" || rc=$?
[ $rc = 4 ] || { cat "$T/paper.err" >&2; fail "run paper: exit code $rc, expected 4 (secrets over budget)"; }
grep -q "secret(s) get more than their budget (worst: secret #[0-9]* gets r/p = [0-9.]* where r/p = 10 was asked" "$T/paper.err" || fail "run paper: no over-budget message"
[ -f "$T/paper/run.json" ] && [ -f "$T/paper/synthetic.csv" ] || fail "run paper: an over-budget run must still write its outputs"
python3 - "$T/exact/privacy.json" "$T/paper/privacy.json" <<'PY' || fail "calibration reports"
import json, sys
e, p = (json.load(open(f)) for f in sys.argv[1:])
assert e["calibration"]["mode"] == "exact" and e["all_secrets_within_budget"] is True
assert e["budget"]["per_secret_file"].endswith("budgets.csv")
assert e["secrets"][0]["r"] == 2e-2
assert p["calibration"]["mode"] == "paper" and "NOT an upper bound" in p["calibration"]["description"]
assert all(s["r_achieved"] > 0 for s in p["secrets"])
PY

# Aug-PE states what it gives: record-level GDP, every record voting, and per secret the exact r
# its holders get, flagging the secrets over budget (the demo plants secrets in several records).
"$SECPE" run --data "$T/demo.h5" --out "$T/aug" --method augpe --seed 2 --iterations 2 --synthetic 40 --quiet --allow-over-budget || fail "run augpe"
"$SECPE" run --data "$T/demo.h5" --out "$T/augall" --method augpe --seed 2 --iterations 1 --synthetic 40 --epsilon 1000 --delta 1e-5 --quiet --allow-over-budget || fail "run augpe, all voters"
"$SECPE" run --data "$T/demo.h5" --out "$T/augpri" --method augpe --seed 2 --iterations 1 --synthetic 40 --epsilon 1000 --delta 1e-5 --augpe-voters private --quiet --allow-over-budget || fail "run augpe, private voters"
python3 - "$T/aug/privacy.json" "$T/augall" "$T/augpri" <<'PY' || fail "augpe report"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["guarantee"].startswith("record-level mu-GDP") and "not (p, r)-secret protection" in p["guarantee"], p["guarantee"]
assert p["calibration"]["mode"] == "gdp" and "every record" in p["calibration"]["voters"]
assert p["equivalent_dp"]["epsilon"] > 0
over = [s for s in p["secrets"] if not s["within_budget"]]
assert over and p["secrets_over_budget"] == len(over) and p["all_secrets_within_budget"] is False, "several holders must exceed r"
assert all(s["r_achieved"] > s["r"] for s in over)
assert all(s["mu"] >= p["calibration"]["mu"] * 0.999999 for s in p["secrets"] if s["r_achieved"] > s["p"])
assert all(l["voters"] == "all" for l in p["labels"] if "skipped" not in l)
# Almost no noise: the released votes count the voters. Every record of a label votes, not only
# the private quarter.
def votes(d): return sum(json.loads(l)["released_vote_total"] for l in open(d + "/metrics.jsonl"))
total_all, total_private = votes(sys.argv[2]), votes(sys.argv[3])
assert total_all > 0.75 * 600 and total_all > 3 * total_private, (total_all, total_private)  # labels without public records are skipped
PY

# The no-private-data control: same generator and loop, uniform selection, nothing private
# released (no ledger entry, every secret at its prior); rank-count independent.
"$SECPE" run --data "$T/demo.h5" --out "$T/rnd1" --method random --seed 2 --iterations 2 --synthetic 40 --quiet || fail "run random"
mpirun -n 2 --oversubscribe "$SECPE" run --data "$T/demo.h5" --out "$T/rnd2" --method random --seed 2 --iterations 2 --synthetic 40 --quiet || fail "run random, 2 ranks"
cmp -s "$T/rnd1/synthetic.csv" "$T/rnd2/synthetic.csv" || fail "random: synthetic.csv differs between 1 and 2 ranks"
python3 - "$T/rnd1" <<'PY' || fail "random report"
import csv, json, sys
p = json.load(open(sys.argv[1] + "/privacy.json"))
assert p["method"] == "random" and p["guarantee"].startswith("no private data used"), p["guarantee"]
assert p["calibration"]["mode"] == "none" and p["releases"] == [] and p["all_secrets_within_budget"] is True
assert all(s["r_achieved"] == s["p"] for s in p["secrets"])
rows = list(csv.reader(open(sys.argv[1] + "/synthetic.csv", newline='')))[1:]
assert len(rows) == 40, len(rows)
PY

# Bad inputs: clear messages, exit code 2.
expect2() { local pattern=$1; shift; out=$("$@" 2>&1); rc=$?; [ $rc = 2 ] || fail "'$*' exited $rc: $out"; grep -q -- "$pattern" <<<"$out" || fail "'$*': $out"; }
expect2 "give exactly one of --data" "$SECPE" privacy
expect2 "r must be in (p, 1)" "$SECPE" privacy --simulate --records 100 --r-over-p 1
expect2 "--iterations must be in .1, 100000., not 0" "$SECPE" privacy --simulate --records 100 --iterations 0
printf 'secret,p,r\nnobody at all,1e-4,1e-3\n' > "$T/bad.csv"
expect2 "bad.csv:2: the secret is not in" "$SECPE" run --data "$T/demo.h5" --out "$T/x" --budgets "$T/bad.csv" --quiet
expect2 "--calibration: SecPE.s calibration (gdp is Aug-PE.s) must be exact, paper or public-profile" "$SECPE" run --data "$T/demo.h5" --out "$T/x" --calibration fancy --quiet
expect2 "--method augpe uses --calibration gdp" "$SECPE" run --data "$T/demo.h5" --out "$T/x" --method augpe --calibration exact --quiet
expect2 "--votes-per-center must be auto or an integer in \[1, 1000000\], not '0'" "$SECPE" run --data "$T/demo.h5" --out "$T/x" --votes-per-center 0 --quiet
expect2 "--votes-per-center must be auto or an integer in \[1, 1000000\], not '2x'" "$SECPE" run --data "$T/demo.h5" --out "$T/x" --votes-per-center 2x --quiet

# --votes-per-center auto: 1 with per-label models, 4 where the generator does not know the labels
# (the same outputs as asking for 4), and run.json says which.
POOLED=(run --data "$T/demo.h5" --seed 2 --iterations 2 --synthetic 40 --generator-labels pooled --noise-key-file "$T/noise.key" --noise-nonce 0123456789abcdef0123456789abcdef --quiet)
"$SECPE" "${POOLED[@]}" --out "$T/pooled" || fail "run pooled"
"$SECPE" "${POOLED[@]}" --out "$T/pooled4" --votes-per-center 4 || fail "run pooled, 4 votes"
cmp -s "$T/pooled/synthetic.csv" "$T/pooled4/synthetic.csv" || fail "--votes-per-center auto with --generator-labels pooled is not 4"
python3 - "$T" <<'PY' || fail "votes per centre in run.json"
import json, sys
opt = lambda run: json.load(open(f"{sys.argv[1]}/{run}/run.json"))["options"]["votes-per-center"]
assert opt("exact") == "auto: 1" and opt("pooled") == "auto: 4" and opt("pooled4") == "4" and opt("paper") == "3", (opt("exact"), opt("pooled"))
PY
# --generator-topics auto: one topic per 50 public training texts, at most 50, recorded in the
# summary (the option as given) and shown by secpe inspect.
topics=$(python3 - "$T/pooled/run.json" <<'PY'
import json, re, sys
run = json.load(open(sys.argv[1]))
texts = int(re.search(r"trained on (\d+) public texts", run["summary"]["generator"]).group(1))
expected = min(50, texts // 50) if texts >= 100 else 0
assert run["options"]["generator-topics"] == "auto", run["options"]["generator-topics"]
assert run["summary"]["generator_topics"] == expected, (run["summary"]["generator_topics"], texts)
assert expected == 0 or f"{expected} latent topics" in run["summary"]["generator"], run["summary"]["generator"]
print(expected)
PY
) || fail "--generator-topics auto in run.json"
[ "$topics" -gt 0 ] || fail "the demo's pooled run chose no topics"
"$SECPE" inspect "$T/pooled" | grep -qx "generation   builtin pooled ($topics topics), variation resample, votes per centre auto: 4" || fail "secpe inspect: no generation line"
expect2 "--generator-topics must be auto or an integer in \[0, 100000\], not 'many'" "$SECPE" run --data "$T/demo.h5" --out "$T/x" --generator-labels pooled --generator-topics many --quiet
expect2 "--generator-topics applies to --generator-labels pooled only" "$SECPE" run --data "$T/demo.h5" --out "$T/x" --generator-topics 5 --quiet
"$SECPE" inspect "$T/aug" | grep -qx "generation   builtin per-label, variation resample" || fail "secpe inspect: Aug-PE's generation line"
echo "privacy_cli: ok"
