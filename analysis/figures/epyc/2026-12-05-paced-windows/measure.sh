#!/usr/bin/env bash
# The binaries $OLD and $NEW in turn: the paper's Yelp settings on the demo corpus at Yelp scale
# (yelp.h5 and noise.key in this folder, as in ../2026-12-04-yelp-run), three rounds in
# alternating order, then the ledger's composition with 10 earlier runs at 2 ranks x 1 thread.
# Run after source jobs/mpi-env.sh. Each run gets a ledger folder of its own.
set -u
binary() { if [ "$1" = old ]; then echo "$OLD"; else echo "$NEW"; fi; }
round=0
for pair in "old new" "new old" "old new"; do
  round=$((round + 1))
  for b in $pair; do
    o=ab_${b}_$round; rm -rf $o $o.state $o.led; mkdir -m 700 $o.led
    SECPE_LEDGER_DIR=$PWD/$o.led /usr/bin/time -f "%e s wall, %M KB" -o $o.time mpirun -n 2 --oversubscribe "$(binary $b)" run --data yelp.h5 --out $o --state-dir $o.state --noise-key-file noise.key --noise-nonce 00112233445566778899aabbccddeeff --r-over-p 10 --seed 1 --threads 1 --synthetic 5000 --clusters 600 --variations 6 --iterations 5 --max-words 64 --generator-labels pooled --generator-topics 50 --quiet > /dev/null 2>&1
    echo "$o rc=$? $(cat $o.time)"
    cp $o.state/timings.json run-timings-$b-$round.json
  done
done
for b in old new; do
  /usr/bin/time -f "%e s wall, %U s user, %M KB" -o ledger-2x1-$b.time mpirun -n 2 --oversubscribe "$(binary $b)" bench privacy --records 1939290 --secrets 48916 --holders demo --private-fraction 0.25 --ledger-runs 10 --threads 1 --repeats 1 --out ledger-2x1-$b.json > ledger-2x1-$b.log 2>&1
  echo "ledger-2x1-$b rc=$? $(cat ledger-2x1-$b.time)"
done
echo done
