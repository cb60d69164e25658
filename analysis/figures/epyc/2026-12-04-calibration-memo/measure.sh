#!/usr/bin/env bash
# The binaries $OLD and $NEW in turn: the exact calibration of the demo corpus at Yelp scale
# ($DATA, README.md) at 1 rank x 2 threads (old, new, new, old) and 2 ranks x 1 thread, and the
# ledger's composition with 10 earlier runs (2 x 1, synthetic holders). Run in the folder that
# gets the JSON, after source jobs/mpi-env.sh.
set -u
t() { /usr/bin/time -f "%e s wall, %U s user, %M KB" -o "$1.time" "${@:2}" > "$1.log" 2>&1; echo "$1 rc=$? $(cat "$1.time")"; }
binary() { if [ "$1" = old ]; then echo "$OLD"; else echo "$NEW"; fi; }
n=0
for b in old new new old; do
  n=$((n + 1)); k=$(( (n + 1) / 2 ))
  t calib-1x2-$b-$k "$(binary $b)" bench privacy --data "$DATA" --synthetic-data --repeats 1 --threads 2 --out calib-1x2-$b-$k.json
done
for b in old new; do
  S=$(binary $b)
  t calib-2x1-$b mpirun -n 2 --oversubscribe "$S" bench privacy --data "$DATA" --synthetic-data --repeats 1 --threads 1 --out calib-2x1-$b.json
  t ledger-2x1-$b mpirun -n 2 --oversubscribe "$S" bench privacy --records 1939290 --secrets 48916 --holders demo --private-fraction 0.25 --ledger-runs 10 --threads 1 --out ledger-2x1-$b.json
done
echo done
