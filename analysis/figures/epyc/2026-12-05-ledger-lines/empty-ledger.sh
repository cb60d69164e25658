#!/bin/bash
# The paper's Yelp run with an empty ledger, $OLD and $NEW in turn, three rounds (in a folder with
# yelp.h5 and noise.key, as measure.sh; run after source jobs/mpi-env.sh)
binary() { if [ "$1" = old ]; then echo "$OLD"; else echo "$NEW"; fi; }
round=0
for pair in "old new" "new old" "old new"; do
  round=$((round + 1))
  for b in $pair; do
    o=e-$b-$round; rm -rf $o $o.state $o.led; mkdir -m 700 $o.led
    SECPE_LEDGER_DIR=$PWD/$o.led /usr/bin/time -f "%e s wall, %M KB" -o $o.time mpirun -n 2 --oversubscribe $(binary $b) run --data yelp.h5 --out $o --state-dir $o.state --noise-key-file noise.key --noise-nonce 00112233445566778899aabbccddeeff --r-over-p 10 --seed 1 --threads 1 --synthetic 5000 --clusters 600 --variations 6 --iterations 5 --max-words 64 --generator-labels pooled --generator-topics 50 --quiet > $o.log 2>&1
    echo "$o rc=$? $(cat $o.time)"
    cp $o.state/timings.json empty-ledger-timings-$b-$round.json
  done
done
cmp e-old-1/privacy.json e-new-1/privacy.json && cmp e-old-1/synthetic.csv e-new-1/synthetic.csv && echo "same bytes"
echo done
