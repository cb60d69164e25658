#!/usr/bin/env bash
# The paper's Yelp run (2 ranks x 1 thread, the demo corpus at Yelp scale: yelp.h5 and noise.key in
# the current folder, as in ../2026-12-04-yelp-run) with 10 earlier runs in the privacy ledger, the
# binaries $OLD and $NEW in turn, two rounds. $NEW first records one run in an empty ledger;
# ../2026-12-05-ledger-lines/make_ledger.py repeats its line ten times; every measured run starts
# from a copy of that ledger. Run after source jobs/mpi-env.sh; prints one line per run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../../paper_yelp_run.sh"
run() {  # run BINARY OUT LEDGER_DIR
  paper_yelp_run "$@"
}
rm -rf one.led ten.led; mkdir -m 700 one.led
run "$NEW" one one.led
python3 "$here/../2026-12-05-ledger-lines/make_ledger.py" one.led ten.led 10
round=0
for pair in "OLD NEW" "NEW OLD"; do
  round=$((round + 1))
  for b in $pair; do
    rm -rf l-$b-$round.led; cp -a ten.led l-$b-$round.led
    run "${!b}" ab-$b-$round l-$b-$round.led
    cp ab-$b-$round.state/timings.json "$here/run-timings-$b-$round.json"
  done
done
python3 - <<'PY'
import json
a, b = (json.load(open(f'ab-{x}-1/privacy.json')) for x in ('OLD', 'NEW'))
q = [t['r_cumulative'] / s['r_cumulative'] for s, t in zip(a['secrets'], b['secrets'])]
print(f"r_cumulative, NEW / OLD over {len(q)} secrets: min {min(q):.6f}, max {max(q):.7f}, mean {sum(q)/len(q):.6f}")
strip = lambda d: {k: ([{f: v for f, v in s.items() if not f.startswith('r_cumulative')} for s in v] if k == 'secrets' else v) for k, v in d.items()}
print("privacy.json otherwise the same:", strip(a) == strip(b))
PY
