#!/usr/bin/env bash
# The paper's Yelp settings on the demo corpus at Yelp scale, the binaries $OLD and $NEW in turn,
# twice; run in a folder holding yelp.h5 and noise.key (README.md), after
# source jobs/mpi-env.sh. Each run gets a ledger folder of its own, so none composes with another.
for round in 1 2; do for b in old new; do
  S=$OLD; [ $b = new ] && S=$NEW
  o=ab_${b}_$round; rm -rf $o $o.state $o.led; mkdir -m 700 $o.led
  SECPE_LEDGER_DIR=$PWD/$o.led /usr/bin/time -f "%e s wall, %M KB" -o $o.time mpirun -n 2 --oversubscribe $S run --data yelp.h5 --out $o --state-dir $o.state --noise-key-file noise.key --noise-nonce 00112233445566778899aabbccddeeff --r-over-p 10 --seed 1 --threads 1 --synthetic 5000 --clusters 600 --variations 6 --iterations 5 --max-words 64 --generator-labels pooled --generator-topics 50 --quiet > /dev/null 2>&1
  echo "$o rc=$? $(cat $o.time)"
done; done
echo done
