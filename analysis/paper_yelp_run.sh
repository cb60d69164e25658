# Sourced by the figure scripts that time the paper's Yelp run (Table 1's settings, 2 ranks x 1
# thread) on the demo corpus at Yelp scale: yelp.h5 and noise.key in the current folder (made as in
# analysis/figures/epyc/2026-12-04-yelp-run). Run after source jobs/mpi-env.sh.
#
# paper_yelp_run BINARY OUT LEDGER_DIR: one run into OUT (state in OUT.state, log in OUT.log, wall
# time and peak memory in OUT.time) with LEDGER_DIR as its privacy ledger; prints a line with its
# exit status, time and the log's line on the composition across runs.
paper_yelp_run() {
  rm -rf "$2" "$2.state"
  SECPE_LEDGER_DIR=$PWD/$3 /usr/bin/time -f "%e s wall, %M KB" -o "$2.time" mpirun -n 2 --oversubscribe "$1" run --data yelp.h5 \
    --out "$2" --state-dir "$2.state" --noise-key-file noise.key --noise-nonce 00112233445566778899aabbccddeeff --r-over-p 10 \
    --seed 1 --threads 1 --synthetic 5000 --clusters 600 --variations 6 --iterations 5 --max-words 64 --generator-labels pooled \
    --generator-topics 50 > "$2.log" 2>&1
  echo "$2 rc=$? $(cat "$2.time"); $(grep -h 'privacy across runs' "$2.log" | sed 's/.*secpe: //')"
}
