#!/usr/bin/env bash
# `secpe privacy calibrate`: the sigma for given holders' rho, the paper's sigma and what it really
# gives, r at a given sigma, several labels, the JSON, and bad inputs (exit 2 naming the option).
source "$(dirname "$0")/lib/preamble.sh"

# A fixed count (rho = 1) is a Gaussian mechanism: sigma = sqrt(T) sqrt(2) N / eta.
"$SECPE" privacy calibrate --holders 3 --rho 1 --iterations 5 --r-over-p 2 --sigma 60 --out "$T/fixed.json" > "$T/fixed.txt" || fail "holders"
grep -q "^certified sigma" "$T/fixed.txt" || fail "summary line: $(cat "$T/fixed.txt")"
python3 - "$T/fixed.json" <<'PY' || fail "fixed-count JSON"
import json, sys, math
from statistics import NormalDist
j = json.load(open(sys.argv[1]))
eta = NormalDist().inv_cdf(1 - 1e-4) - NormalDist().inv_cdf(1 - 2e-4)
want = math.sqrt(5) * math.sqrt(2) * 3 / eta
c = j["certified"]
assert abs(c["sigma"] / want - 1) < 2e-5 and c["sigma"] >= want * (1 - 1e-9), (c, want)
assert c["bound_B_p"] <= 2e-4 and j["holders"] == 3 and j["mean_count"] == 3
assert abs(j["paper"]["sigma"] * math.sqrt(2) / want - 1) < 1e-9, j["paper"]      # the paper leaves out sqrt(2)
assert j["paper"]["r_achieved"] > 2e-4 and "sqrt(2)" in j["paper"]["description"]
assert j["at_sigma"]["r"] < 2e-4                                                  # 60 is more than the 53 needed
PY

# A list, a file with the same rho, and scale 1: the list and the file agree; scale 1 needs less.
"$SECPE" privacy calibrate --rho 0.2,0.2,0.5 --iterations 10 --p 1e-4 --r 1e-3 --out "$T/list.json" >/dev/null || fail "rho list"
printf '# holders of one secret\n0.2\n0.2, 0.5\n\n' > "$T/rho.txt"
"$SECPE" privacy calibrate --rho-file "$T/rho.txt" --iterations 10 --p 1e-4 --r 1e-3 --out "$T/file.json" >/dev/null || fail "rho file"
"$SECPE" privacy calibrate --rho 0.2,0.2,0.5 --iterations 10 --p 1e-4 --r 1e-3 --scale 1 --out "$T/one.json" >/dev/null || fail "scale 1"
# Two labels: the second one's noise twice the common sigma; composing them needs more noise.
"$SECPE" privacy calibrate --rho 0.2,0.2,0.5 --release 0.7@2 --iterations 10 --p 1e-4 --r 1e-3 --out "$T/two.json" >/dev/null || fail "release"
python3 - "$T" <<'PY' || fail "list / file / scale / releases"
import json, sys, math
d = sys.argv[1]
l, f, o, t = (json.load(open(f"{d}/{n}.json")) for n in ("list", "file", "one", "two"))
assert l["certified"] == f["certified"], (l["certified"], f["certified"])
assert abs(o["certified"]["sigma"] * math.sqrt(2) / l["certified"]["sigma"] - 1) < 1e-4, (o["certified"], l["certified"])
assert l["paper"]["sigma"] == o["paper"]["sigma"] and l["paper"]["r_achieved"] > o["paper"]["r_achieved"]
assert len(t["setup"]["releases"]) == 2 and t["setup"]["releases"][1]["noise_factor"] == 2
assert t["certified"]["sigma"] > l["certified"]["sigma"]
PY

# `secpe privacy` still works, and reports the sigma its LP choice saves.
"$SECPE" privacy --simulate --records 2000 --secrets 100 --inclusion 0.01 --iterations 3 --r-over-p 2 --summary-only --out "$T/sim.json" > "$T/sim.txt" || fail "privacy --simulate"
grep -q "^LP solution: concentrated" "$T/sim.txt" || fail "LP choice line: $(cat "$T/sim.txt")"
python3 -c "
import json; c = json.load(open('$T/sim.json'))['lp_choice']
assert c['sigma_saved_by_lp_choice'] > 0 and c['sigma_exact_spread'] > c['sigma_exact'] > 0, c
assert c['weighted_records'] < c['weighted_records_spread'], c" || fail "lp_choice in the JSON"

# Bad inputs: exit 2 and a message naming the option.
expect2() { local pattern=$1; shift; out=$("$@" 2>&1); rc=$?; [ $rc = 2 ] || fail "'$*' exited $rc: $out"; grep -q -- "$pattern" <<<"$out" || fail "'$*': $out"; }
C="$SECPE privacy calibrate"
expect2 "give the holders" $C --iterations 3
expect2 "give --rho or --rho-file, not both" $C --rho 0.5 --rho-file "$T/rho.txt"
expect2 "--holders N needs --rho" $C --holders 3
expect2 "--rho: with --holders give one rho" $C --holders 3 --rho 0.5,0.5
expect2 "--holders must be in \[1, 10000000\]" $C --holders 0 --rho 0.5
expect2 "--rho: 'abc' is not a number" $C --rho 0.5,abc
expect2 "--rho: every rho must be in \[0, 1\]" $C --rho 1.5
printf '0.1\nx\n' > "$T/rho.bad"
expect2 "rho.bad:2: 'x' is not a number" $C --rho-file "$T/rho.bad"
expect2 "--rho-file: cannot read" $C --rho-file "$T/missing.txt"
expect2 "--release '0.5@0': the noise factor" $C --release 0.5@0
expect2 "--scale must be sqrt2 or 1" $C --rho 0.5 --scale 2
expect2 "--r-over-p: r must be in (p, 1)" $C --rho 0.5 --r-over-p 1
expect2 "--r: r must be in (p, 1)" $C --rho 0.5 --r 2
expect2 "--p must be in (0, 1)" $C --rho 0.5 --p 0
expect2 "--iterations must be in \[1, 100000\]" $C --rho 0.5 --iterations 0
expect2 "--sigma must be 0" $C --rho 0.5 --sigma -1
expect2 "unrecognised option\|unrecognized option" $C --rho 0.5 --bogus 1
echo "privacy_calibrate: ok"
