#!/bin/bash
# One composition of the paper's Yelp-scale plan with 10 earlier runs: measure.sh BINARY TAG STEP,
# where STEP is --ledger-noise-step (0: the earlier runs alike; 0.02: at 1.02 to 1.2 times the
# noise): ../../../composition_bench.sh, writing here.
here=$(dirname "$0")
exec "$here/../../../composition_bench.sh" "$here" "$@"
