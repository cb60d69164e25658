#!/bin/bash
# One composition of the paper's Yelp-scale plan with 10 earlier runs:
#   composition_bench.sh DIR BINARY TAG STEP
# where STEP is --ledger-noise-step (0: the earlier runs alike; 0.02: at 1.02 to 1.2 times the
# noise). Run from the source tree after source jobs/mpi-env.sh; writes DIR/bench-TAG.json and
# DIR/log-TAG.txt (stderr, with each rank's peak memory: the calibration's and the composition's)
# and prints the figures.
dir=$1
mpirun -n 2 bash -c 'exec /usr/bin/time -f "rank peak %M KiB" "$@" 2>>"'"$dir/log-$3.txt"'"' _ "$2" bench privacy --records 1939290 \
  --secrets 48916 --holders demo --private-fraction 0.25 --ledger-runs 10 --threads 1 --repeats 1 --ledger-noise-step "$4" \
  --out "$dir/bench-$3.json" >/dev/null
python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['figures']; print(sys.argv[2], 'calibration', round(d['exact']['seconds_best'],1), 's, composition', round(d['ledger']['seconds'],1), 's, worst cumulative r/p', round(d['ledger']['worst_r_cumulative_over_p'],3))" "$dir/bench-$3.json" "$3"
grep -h "rank peak" "$dir/log-$3.txt"
