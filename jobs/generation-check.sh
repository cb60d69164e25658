#!/usr/bin/env bash
# How close a run's generation comes to what a model server can do. `secpe serve` stands in for a
# model with a fixed latency (--delay-ms) and a bounded batch (--workers: requests answered at
# once) on loopback; `secpe run --generator http` makes the paper's Yelp settings (N_syn 5,000,
# L 6, 5 iterations, K 600) from TRAIN.csv against it, RANKS ranks x CONCURRENCY requests in
# flight each, and the server's workers match them. The ideal generation time per rank is its
# requests / CONCURRENCY x the latency; OUT/generation.json gives the measured one (summed from
# metrics.jsonl's generate_seconds, per rank), their ratio, the command and the machine.
# The run is an experiment (--experiment): recorded in the privacy ledger, not counted.
#
# usage: bash jobs/generation-check.sh TRAIN.csv OUT [-- more secpe run options]
#   OUT/ holds the run's outputs and generation.json; OUT.private/ (mode 0700) the dataset, the
#   noise key, the run's state and the server's log.
# Knobs (environment): LATENCY_MS (50), RANKS (2), CONCURRENCY (32 per rank), SYNTHETIC (5000),
#   VARIATIONS (6), ITERATIONS (5), CLUSTERS (600), THREADS (1), SECPE (jobs/lib/locate.sh).
set -euo pipefail
source "$(dirname "$0")/lib/locate.sh"
usage="usage: bash jobs/generation-check.sh TRAIN.csv OUT [-- secpe run options]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
TRAIN=$1 OUT=$2; shift 2
[ "${1:-}" = -- ] && shift
[ -f "$TRAIN" ] || { echo "generation-check: TRAIN.csv '$TRAIN' not found" >&2; exit 2; }
[ -e "$OUT/run.json" ] && { echo "generation-check: $OUT holds a completed run: give a new OUT" >&2; exit 2; }
LATENCY_MS=${LATENCY_MS:-50} RANKS=${RANKS:-2} CONCURRENCY=${CONCURRENCY:-32}
SYNTHETIC=${SYNTHETIC:-5000} VARIATIONS=${VARIATIONS:-6} ITERATIONS=${ITERATIONS:-5} CLUSTERS=${CLUSTERS:-600} THREADS=${THREADS:-1}
[ -x "$SECPE" ] || bash "$SECPE_ROOT/jobs/build.sh" secpe >/dev/null
source "$SECPE_ROOT/jobs/mpi-env.sh"
source "$SECPE_ROOT/jobs/blas-core.sh"

PRIVATE=$OUT.private
mkdir -p "$OUT" "$PRIVATE"
chmod 700 "$PRIVATE"
[ -f "$PRIVATE/data.h5" ] || "$SECPE" import --input "$TRAIN" --out "$PRIVATE/data.h5"
[ -f "$PRIVATE/noise.key" ] || "$SECPE" keygen --out "$PRIVATE/noise.key" >/dev/null 2>&1

rm -f "$PRIVATE/port"
"$SECPE" serve --data "$PRIVATE/data.h5" --port 0 --port-file "$PRIVATE/port" --workers $((RANKS * CONCURRENCY)) \
  --delay-ms "$LATENCY_MS" 2>"$PRIVATE/serve.log" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$PRIVATE/port" ] && break; sleep 0.1; done
[ -s "$PRIVATE/port" ] || { echo "generation-check: secpe serve did not start: $(cat "$PRIVATE/serve.log")" >&2; exit 1; }

command=(mpirun -n "$RANKS" --oversubscribe "$SECPE" run --data "$PRIVATE/data.h5" --noise-key-file "$PRIVATE/noise.key"
         --synthetic "$SYNTHETIC" --variations "$VARIATIONS" --iterations "$ITERATIONS" --clusters "$CLUSTERS" --max-words 64
         --generator http --gen-url "http://127.0.0.1:$(cat "$PRIVATE/port")/v1" --gen-model secpe-builtin
         --prompts "$SECPE_ROOT/jobs/prompts/yelp.json" --concurrency "$CONCURRENCY" --threads "$THREADS"
         --experiment --out "$OUT" --state-dir "$PRIVATE/run.state" "$@")
echo "generation-check: ${command[*]}" >&2
"${command[@]}"

python3 - "$OUT" "$RANKS" "$CONCURRENCY" "$LATENCY_MS" "${command[*]}" <<'PY'
import json, platform, subprocess, sys
out, ranks, concurrency, latency_ms, command = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
lines = [json.loads(line) for line in open(f"{out}/metrics.jsonl")]
run = json.load(open(f"{out}/run.json"))
# Iteration 0's candidates are all requests; later, each parent is kept and its L variations asked for.
variations = int(run["options"]["variations"])
requests = sum(l["candidates"] if l["iteration"] == 0 else l["candidates"] // (1 + variations) * variations for l in lines)
generate = sum(l.get("generate_seconds", 0.0) for l in lines)
# By label, each label's lines come from the rank that evolved it: the sum is every rank's time.
# By record, from rank 0, which generates its share of every label.
per_rank = generate / ranks if run["summary"]["shard_by"] == "label" else generate
ideal = requests / ranks / concurrency * latency_ms / 1000.0
cpu = subprocess.run(["sh", "-c", "LC_ALL=C lscpu | sed -n 's/^Model name: *//p'"], capture_output=True, text=True).stdout.strip()
report = {"command": command, "machine": {"cpu": cpu, "host": platform.node()}, "ranks": ranks, "concurrency_per_rank": concurrency,
          "latency_ms": latency_ms, "shard_by": run["summary"]["shard_by"], "requests": requests,
          "generate_seconds_per_rank": round(per_rank, 3), "ideal_seconds_per_rank": round(ideal, 3), "ratio": round(per_rank / ideal, 3)}
json.dump(report, open(f"{out}/generation.json", "w"), indent=2)
print(f"generation-check: {requests} requests, generation {per_rank:.1f} s per rank against the ideal {ideal:.1f} s "
      f"({per_rank / ideal:.2f}x): {out}/generation.json")
PY
