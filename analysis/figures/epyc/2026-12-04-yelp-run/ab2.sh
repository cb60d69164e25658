#!/usr/bin/env bash
# Round 3: as ab.sh, once, $OLD then $NEW (README.md); source jobs/mpi-env.sh first.
for b in old flat; do
  S=$OLD; [ $b = flat ] && S=$NEW
  o=ab_${b}_3; rm -rf $o $o.state $o.led; mkdir -m 700 $o.led
  SECPE_LEDGER_DIR=$PWD/$o.led /usr/bin/time -f "%e s wall, %M KB" -o $o.time mpirun -n 2 --oversubscribe $S run --data yelp.h5 --out $o --state-dir $o.state --noise-key-file noise.key --noise-nonce 00112233445566778899aabbccddeeff --r-over-p 10 --seed 1 --threads 1 --synthetic 5000 --clusters 600 --variations 6 --iterations 5 --max-words 64 --generator-labels pooled --generator-topics 50 --quiet > /dev/null 2>&1
  echo "$o rc=$? $(cat $o.time)"
done
echo done
