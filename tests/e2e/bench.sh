#!/usr/bin/env bash
# One benchmark harness: every `secpe bench` mode takes --out, --kernel, --threads, --repeats and
# --seed with one meaning (--repeats: timed repetitions; --iterations, where a benchmark has it,
# is T), honours --kernel, and defines its metrics as fields (name, unit, definition).
# Small sizes: this checks the harness, never timing.
source "$(dirname "$0")/lib/preamble.sh"
set -e  # setup and runs are not checked one by one: any that fails ends the test
check() {  # check FILE PYTHON-EXPRESSION-ON-j
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert $2, j" "$1" || fail "$1: $2"
}
metrics_ok='all(set(m) == {"name", "unit", "definition"} for m in j["metrics"]) and len(j["metrics"]) >= 2'

# Progress (rank 0, stderr only: stdout stays the JSON report, as --out writes it). A stage prints
# its rate and ETA at most once a second and always its closing "done" line, the one checked here.
progress() {  # progress NAME STDOUT STDERR JSON STAGE...
  local name=$1 out=$2 err=$3 json=$4; shift 4
  python3 -c "import json,sys; assert json.load(open(sys.argv[1])) == json.load(open(sys.argv[2]))" "$out" "$json" ||
    fail "$name: stdout is not the JSON report alone"
  for stage in "$@"; do grep -q "^secpe: \[$stage\] done" "$err" || fail "$name: no '$stage' progress on stderr: $(cat "$err")"; done
}
"$SECPE" bench kernel --rows 64 --centres 96 --dim 16 --kernel reference --repeats 2 --out "$T/kernel.json" >"$T/kernel.out" 2>"$T/kernel.err"
check "$T/kernel.json" 'j["kernel"] == "reference" and j["figures"]["verified_against_reference"]'
progress "bench kernel" "$T/kernel.out" "$T/kernel.err" "$T/kernel.json" "bench kernel"
check "$T/kernel.json" "$metrics_ok"

"$SECPE" bench privacy --records 1500 --secrets 20 --iterations 2 --repeats 1 --out "$T/privacy.json" >/dev/null 2>&1
check "$T/privacy.json" 'j["figures"]["iterations"] == 2 and len(j["figures"]["exact"]["seconds"]) == 1'
check "$T/privacy.json" "$metrics_ok"
"$SECPE" bench privacy --releases 2 >/dev/null 2>&1 && fail "bench privacy took the old --releases"
# Secrets planted as the demo corpus plants them, certified in the bulk regime (forced): every
# secret gets a bound of some kind.
"$SECPE" bench privacy --records 3000 --labels 10 --secrets 200 --holders demo --private-fraction 0.25 --exact-profiles 0 \
  --iterations 2 --repeats 1 --out "$T/privacy_bulk.json" >/dev/null 2>&1 || fail "bench privacy --holders demo"
check "$T/privacy_bulk.json" 'j["figures"]["holders"] == "demo" and sum(j["figures"]["exact"]["bounds"].values()) == 200'
check "$T/privacy_bulk.json" 'j["figures"]["exact"]["bounds"]["coarse-accountant"] > 0 and j["figures"]["exact"]["worst_r_achieved_over_p"] <= 10'
# The ledger's composition with earlier runs alike and with runs at more noise: those keep their
# releases apart and compose to less than copies of the run would.
for step in 0 0.5; do
  "$SECPE" bench privacy --records 3000 --labels 10 --secrets 200 --holders demo --private-fraction 0.25 --iterations 2 --repeats 1 \
    --ledger-runs 2 --ledger-noise-step $step --ledger-check-every 7 --out "$T/privacy_ledger_$step.json" >/dev/null 2>&1 ||
    fail "bench privacy --ledger-noise-step $step"
  check "$T/privacy_ledger_$step.json" 'j["figures"]["ledger"]["earlier_runs"] == 2 and j["figures"]["ledger"]["worst_r_cumulative_over_p"] > 10'
done
check "$T/privacy_ledger_0.5.json" 'j["figures"]["ledger"]["earlier_noise_step"] == 0.5'
# The coarse figures against full precision on every 7th secret: never below, the median within the
# coarse pass's slack target (2e-2), none as far as the 5 % from which the worst is refined.
check "$T/privacy_ledger_0.5.json" '(l := j["figures"]["ledger"]["coarse_looser"])["secrets"] > 10 and 0 <= l["median"] <= min(l["p90"], 2e-2) and l["p90"] <= l["max"] < 5e-2'
"$SECPE" bench privacy --ledger-check-every 7 2>"$T/check.err" >/dev/null && fail "bench privacy took --ledger-check-every without --ledger-runs"
grep -q -- "--ledger-check-every needs --ledger-runs" "$T/check.err" || fail "bench privacy: the error does not name --ledger-check-every: $(cat "$T/check.err")"
python3 -c "import json,sys; w=[json.load(open(f))['figures']['ledger']['worst_r_cumulative_over_p'] for f in sys.argv[1:]]; sys.exit(0 if w[1] < w[0] else 1)" \
  "$T/privacy_ledger_0.json" "$T/privacy_ledger_0.5.json" || fail "bench privacy: earlier runs at more noise did not compose to less"
"$SECPE" bench privacy --ledger-runs 2 --ledger-noise-step=-1 2>"$T/step.err" >/dev/null && fail "bench privacy took --ledger-noise-step -1"
grep -q -- "--ledger-noise-step" "$T/step.err" || fail "bench privacy: the error does not name --ledger-noise-step: $(cat "$T/step.err")"
"$SECPE" bench privacy --secrets 100001 >/dev/null 2>&1 && fail "bench privacy took --secrets 100001"
"$SECPE" bench privacy --holders uniform >/dev/null 2>&1 && fail "bench privacy took --holders uniform"

"$SECPE" synth-embeddings --records 3000 --dim 16 --labels 4 --secrets 10 --out "$T/e.h5" >/dev/null 2>"$T/synth.err"
grep -q "^secpe: \[synth-embeddings: generate\] done 3000 " "$T/synth.err" || fail "synth-embeddings: no progress on stderr: $(cat "$T/synth.err")"
"$SECPE" bench privacy --data "$T/e.h5" --iterations 2 --repeats 1 --out "$T/privacy_data.json" >/dev/null 2>&1 || fail "bench privacy --data"
check "$T/privacy_data.json" 'j["figures"]["data"] == "e.h5" and j["figures"]["secrets"] == 10 and j["figures"]["records"] == 3000'
"$SECPE" bench privacy --data "$T/missing.h5" >/dev/null 2>&1 && fail "bench privacy took a missing --data"
mpirun -n 2 --oversubscribe "$SECPE" bench histogram --data "$T/e.h5" --synthetic 200 --clusters 8 --method both --repeats 2 \
  --out "$T/histogram.json" >/dev/null 2>&1 || fail "bench histogram at 2 ranks"
check "$T/histogram.json" 'len(j["figures"]["secpe"]["iteration_seconds"]) == 2 and j["ranks"] == 2 and j["figures"]["augpe_over_secpe"] > 0'
check "$T/histogram.json" 'j["figures"]["augpe"]["gemm_floor_seconds"] > 0 and j["figures"]["augpe"]["over_gemm_floor"] > 0'
check "$T/histogram.json" "$metrics_ok"
check "$T/histogram.json" 'j["figures"]["secpe"]["kmeans_init"] == "random"'
# Private signal per r/p: noise calibrated per r/p (more noise at a smaller r/p), agreement shares
# in [0, 1], at 2 ranks (the benchmark draws a fresh noise key, so runs differ in their noise).
mpirun -n 2 --oversubscribe "$SECPE" bench histogram --data "$T/e.h5" --synthetic 200 --clusters 8 --repeats 1 \
  --r-over-p 2,none --iterations 5 --calibration paper --out "$T/signal.json" >/dev/null 2>&1 || fail "bench histogram --r-over-p"
check "$T/signal.json" 'len(j["figures"]["private_signal"]) == 2 and j["figures"]["private_signal"][1]["r_over_p"] == 9999'
check "$T/signal.json" 'j["figures"]["private_signal"][0]["secpe"]["sigma_max"] > j["figures"]["private_signal"][1]["secpe"]["sigma_max"] > 0'
check "$T/signal.json" 'all(0 <= p[m][k] <= 1 for p in j["figures"]["private_signal"] for m in ("secpe", "augpe") for k in p[m] if "agreement" in k)'
# A subject only the private records hold (--private-components), candidates near the data.
"$SECPE" synth-embeddings --records 3000 --dim 16 --labels 4 --secrets 10 --private-components 2 --out "$T/p.h5" >/dev/null 2>&1 ||
  fail "synth-embeddings --private-components"
"$SECPE" bench histogram --data "$T/p.h5" --synthetic 200 --clusters 8 --repeats 1 --r-over-p 10 --signal-candidates centres \
  --out "$T/signal_centres.json" >/dev/null 2>&1 || fail "bench histogram --signal-candidates centres"
check "$T/signal_centres.json" 'j["figures"]["private_signal_candidates"] == "centres" and j["figures"]["private_records"] > 0'
check "$T/signal_centres.json" 'all(0 <= v <= 1 for m in ("secpe", "augpe") for k, v in j["figures"]["private_signal"][0][m].items() if "agreement" in k)'
# Who may read a report (docs/privacy.md, "Timings"): synth-embeddings data is synthetic, published
# whole; any other dataset's report times and counts its private records: written 0600, not printed.
check "$T/histogram.json" 'j["data"]["publishable"] is True and j["data"]["kind"].startswith("synthetic")'
[ "$(stat -c %a "$T/histogram.json")" != 600 ] || fail "a synthetic dataset's report was written private (0600)"
"$SECPE" corpus --records 400 --out "$T/real.csv" >/dev/null 2>&1 || fail "secpe corpus"
"$SECPE" import --input "$T/real.csv" --secrets list --secrets-file "$T/real.secrets.txt" --embedding-dim 8 --out "$T/real.h5" >/dev/null 2>&1 ||
  fail "secpe import of the demo corpus"
"$SECPE" bench privacy --data "$T/real.h5" --iterations 2 --repeats 1 --out "$T/real-privacy.json" >"$T/real.out" 2>"$T/real.err" ||
  fail "bench privacy on a real dataset: $(cat "$T/real.err")"
[ -s "$T/real.out" ] && fail "bench privacy printed a real dataset's private report"
grep -q "is private (real data" "$T/real.err" || fail "bench privacy did not say the report is private: $(cat "$T/real.err")"
[ "$(stat -c %a "$T/real-privacy.json")" = 600 ] || fail "a real dataset's report is not 0600"
check "$T/real-privacy.json" 'j["data"]["publishable"] is False and j["data"]["file"] == "real.h5"'
"$SECPE" bench histogram --data "$T/real.h5" --synthetic 40 --clusters 4 --repeats 1 --synthetic-data --out "$T/declared.json" >/dev/null 2>&1 ||
  fail "bench histogram --synthetic-data"
check "$T/declared.json" 'j["data"]["publishable"] is True and "declared" in j["data"]["kind"]'
err=$("$SECPE" bench privacy --synthetic-data 2>&1) && fail "bench privacy took --synthetic-data without --data"
grep -q -- "--synthetic-data applies to --data only" <<<"$err" || fail "bench privacy --synthetic-data: unclear error: $err"
err=$("$SECPE" bench histogram --data "$T/e.h5" --signal-candidates centres 2>&1) && fail "bench histogram took --signal-candidates without --r-over-p"
grep -q -- "--signal-candidates applies to --r-over-p only" <<<"$err" || fail "bench histogram --signal-candidates: unclear error: $err"
err=$("$SECPE" bench histogram --data "$T/e.h5" --r-over-p 2 --signal-candidates near 2>&1) && fail "bench histogram took --signal-candidates near"
grep -q -- "--signal-candidates must be random or centres" <<<"$err" || fail "bench histogram --signal-candidates near: unclear error: $err"
err=$("$SECPE" synth-embeddings --records 10 --private-components -1 --out "$T/x.h5" 2>&1) && fail "synth-embeddings took --private-components -1"
err=$("$SECPE" bench histogram --data "$T/e.h5" --r-over-p 0.5 2>&1) && fail "bench histogram took --r-over-p 0.5"
grep -q -- "--r-over-p: '0.5' is not a ratio" <<<"$err" || fail "bench histogram --r-over-p: unclear error: $err"

# k-means on a dataset's clustered data: the public rows of its largest label only
if "$SECPE" bench faiss --help >/dev/null 2>&1; then
  "$SECPE" bench faiss --queries 50 --candidates 100 --dim 16 --kmeans-data "$T/e.h5" --kmeans-points 200 --clusters 8 \
    --kmeans-init parallel --repeats 1 --out "$T/faiss.json" >"$T/faiss.out" 2>"$T/faiss.err" || fail "bench faiss --kmeans-data"
  progress "bench faiss" "$T/faiss.out" "$T/faiss.err" "$T/faiss.json" "bench faiss: search" "bench faiss: k-means"
  check "$T/faiss.json" 'j["figures"]["kmeans"]["points"] == 200 and j["figures"]["kmeans"]["dim"] == 16 and "public rows of label" in j["figures"]["kmeans"]["data"]'
  check "$T/faiss.json" 'j["figures"]["kmeans"]["secpe_init"] == "parallel" and 0 < j["figures"]["kmeans"]["secpe_mean_cosine"] <= 1'
  # All of the largest label's points, and only its public ones: as many as inspect counts public.
  public=$("$SECPE" inspect "$T/e.h5" | awk '$1 ~ /^[0-9]+$/ && NF >= 5 && $4 ~ /^[0-9]+$/ {if ($3 > m) m = $3} END {print m}')
  "$SECPE" bench faiss --queries 50 --candidates 100 --dim 16 --kmeans-data "$T/e.h5" --kmeans-points 100000 --clusters 8 \
    --repeats 1 --out "$T/faiss-all.json" >/dev/null 2>&1 || fail "bench faiss --kmeans-data, all rows"
  check "$T/faiss-all.json" "j['figures']['kmeans']['points'] == $public and j['figures']['kmeans']['secpe_init'] == 'random'"
  # --repeats runs FAISS and secpe back to back that many times; --screen picks the blas kernel's screen.
  "$SECPE" bench faiss --queries 50 --candidates 100 --dim 16 --kmeans-points 300 --clusters 8 --repeats 2 --screen int8-emulated \
    --out "$T/faiss-int8.json" >/dev/null 2>&1 || fail "bench faiss --screen int8-emulated"
  check "$T/faiss-int8.json" 'len(j["figures"]["search"]["secpe_seconds_all"]) == 2 and j["figures"]["search"]["same_nearest_fraction"] == 1'
  check "$T/faiss-int8.json" 'j["figures"]["search"]["secpe_screen"] == "int8 (emulated)" and j["figures"]["search"]["speedup"]["min"] <= j["figures"]["search"]["speedup"]["median"]'
  check "$T/faiss-int8.json" 'len(j["figures"]["kmeans"]["secpe_over_faiss"]["all"]) == 2 and "choice" in j["machine"]["blas_screen_auto"]'
  # --search-data: the search on the dataset's public rows too; --screen-shift off; the screens' counts.
  "$SECPE" bench faiss --queries 50 --candidates 100 --search-data "$T/e.h5" --kmeans-data "$T/e.h5" --kmeans-points 200 --clusters 8 \
    --repeats 1 --screen int8-emulated --screen-shift off --out "$T/faiss-data.json" >/dev/null 2>&1 || fail "bench faiss --search-data"
  check "$T/faiss-data.json" '"public rows of label" in j["figures"]["search"]["data"] and j["figures"]["search"]["dim"] == 16'
  check "$T/faiss-data.json" 'j["figures"]["search"]["secpe_screens"]["rows"]["int8"] == 50 and j["figures"]["search"]["secpe_screens"]["rescored_per_row"] >= 1'
  "$SECPE" bench faiss --screen-shift maybe >/dev/null 2>&1 && fail "bench faiss took --screen-shift maybe"
  err=$("$SECPE" bench faiss --queries 5000 --candidates 100 --search-data "$T/e.h5" 2>&1) && fail "bench faiss searched more rows than the label has"
  echo "$err" | grep -q "fewer than --candidates plus --queries" || fail "bench faiss --search-data error: $err"
  "$SECPE" bench faiss --screen half >/dev/null 2>&1 && fail "bench faiss took --screen half"
  err=$("$SECPE" bench faiss --queries 50 --candidates 100 --dim 16 --kmeans-data "$T/e.h5" --clusters 5000 2>&1) && fail "bench faiss took more clusters than rows"
  grep -q "e.h5: .* public rows in its largest label, fewer than --clusters 5000" <<<"$err" || fail "bench faiss: unclear error: $err"
fi
echo "bench: ok"
