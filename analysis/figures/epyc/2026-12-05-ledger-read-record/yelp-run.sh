#!/usr/bin/env bash
# What the privacy ledger adds to the paper's Yelp run (2 ranks x 1 thread, the demo corpus at Yelp
# scale: yelp.h5 and noise.key in the current folder, as in ../2026-12-04-yelp-run), the binaries
# $OLD and $NEW. $NEW first runs with an empty ledger; ../2026-12-05-ledger-lines/make_ledger.py
# repeats its line ten times; then two rounds (OLD, NEW; NEW, OLD), each run from a copy of that
# ledger. Then `secpe ledger` on it, three times each in turn. Run after source jobs/mpi-env.sh;
# prints one line per run, with $NEW's ledger stages from its timings.json.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../../paper_yelp_run.sh"
run() {  # run BINARY OUT LEDGER_DIR, then NEW's ledger stages from its timings.json
  paper_yelp_run "$@"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['run']; print('  ', ', '.join(f'{k} {v:.2f}' for k, v in r.items() if k.startswith('ledger') or k in ('outputs_seconds', 'wall_seconds')))" $2.state/timings.json
  cp $2.state/timings.json "$here/run-timings-$2.json"
}
rm -rf one.led ten.led; mkdir -m 700 one.led
run "$NEW" empty one.led
python3 "$here/../2026-12-05-ledger-lines/make_ledger.py" one.led ten.led 10
for out in ten-OLD-1 ten-NEW-1 ten-NEW-2 ten-OLD-2; do  # two rounds in turn, each from a copy of ten.led
  binary=${out#ten-}; binary=${binary%-*}
  rm -rf $out.led; cp -a ten.led $out.led
  run "${!binary}" $out $out.led
done
cmp ten-OLD-1/synthetic.csv ten-NEW-1/synthetic.csv && cmp ten-OLD-1/privacy.json ten-NEW-1/privacy.json && echo "synthetic.csv and privacy.json: the same bytes"
for k in 1 2 3; do
  for b in OLD NEW; do /usr/bin/time -f "secpe ledger ($b): %e s wall, %U s user, %M KB" "${!b}" ledger --ledger-dir ten.led > /dev/null; done
done
