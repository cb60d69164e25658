#!/usr/bin/env bash
# The paper's Yelp run (2 ranks x 1 thread, the demo corpus at Yelp scale: yelp.h5 and noise.key
# in this folder, as in ../2026-12-04-yelp-run) with 10 earlier runs in the privacy ledger, the
# binaries $OLD and $NEW in turn, two rounds. Each binary first records one run in an empty
# ledger; make_ledger.py repeats that run's line ten times (each binary's own line form); the
# measured runs start from a copy of that ledger. Last, $NEW on the old binary's ledger (lines of
# the first form). Run after source jobs/mpi-env.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
binary() { if [ "$1" = old ]; then echo "$OLD"; else echo "$NEW"; fi; }
run() {  # run BINARY OUT LEDGER_DIR
  rm -rf $2 $2.state
  SECPE_LEDGER_DIR=$PWD/$3 /usr/bin/time -f "%e s wall, %M KB" -o $2.time mpirun -n 2 --oversubscribe /usr/bin/time -f "rank: %e s wall, %M KB" -a -o $2.ranks "$1" run --data yelp.h5 --out $2 --state-dir $2.state --noise-key-file noise.key --noise-nonce 00112233445566778899aabbccddeeff --r-over-p 10 --seed 1 --threads 1 --synthetic 5000 --clusters 600 --variations 6 --iterations 5 --max-words 64 --generator-labels pooled --generator-topics 50 > $2.log 2>&1
  echo "$2 rc=$? $(cat $2.time); $(grep -h 'privacy across runs' $2.log | sed 's/.*secpe: //')"
}
for b in old new; do
  rm -rf one-$b.led ten-$b.led; mkdir -m 700 one-$b.led
  run "$(binary $b)" one-$b one-$b.led
  python3 "$here/make_ledger.py" one-$b.led ten-$b.led 10
  echo "ledger line of $b: $(head -1 one-$b.led/ledger.jsonl | wc -c) bytes"
done
round=0
for pair in "old new" "new old"; do
  round=$((round + 1))
  for b in $pair; do
    rm -rf l-$b-$round.led; cp -a ten-$b.led l-$b-$round.led; rm -f l-$b-$round.ranks
    run "$(binary $b)" ab-$b-$round l-$b-$round.led
    cp ab-$b-$round.state/timings.json run-timings-$b-$round.json
  done
done
rm -rf l-mixed.led; cp -a ten-old.led l-mixed.led
run "$NEW" mixed l-mixed.led
cmp mixed/privacy.json ab-old-1/privacy.json && cmp ab-new-1/privacy.json ab-old-1/privacy.json && echo "privacy.json: the same bytes"
echo done
