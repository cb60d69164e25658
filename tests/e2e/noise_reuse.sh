#!/usr/bin/env bash
# The two-run cancellation attack of issue 25, from published files only. Pairs of runs share one
# noise key file (and, where the binary has it, one --noise-nonce: the strongest case) and differ in
#   (a) --r-over-p (SecPE): M = (s2 T1 - s1 T2) / (s2 - s1) from each label-iteration's
#       released_vote_total (metrics.jsonl) and the label's sigma (privacy.json);
#   (b) --seed (Aug-PE), (c) the dataset (a neighbouring one: one private record removed; Aug-PE,
#       whose sigma does not depend on the data), (d) the generator's texts (--variation):
#       T1 - T2, or the formula of (a) where the sigmas differ.
# If one key drew the same noise for both runs, these come out as integers (the unnoised totals,
# or the difference of two integer histograms; 0 when the totals cancel exactly). The test fails
# when more than half of a pair's label-iterations land within 0.01 of an integer; independent
# noise puts about 2% there. Label-iterations whose two totals are both integers are left out:
# there SecPE's release estimate (evolve/release_estimate.hpp) fell back to the public sizes, or
# every Aug-PE bin was clipped to 0, so nothing released shows in the total. Run on a binary without release keys (main before issue 25), it
# fails: see the last lines of its output.
source "$(dirname "$0")/lib/preamble.sh"
set -e  # setup and runs are not checked one by one: any that fails ends the test
source "$LIB/demo_scratch.sh" 1200
# The neighbouring dataset: the corpus without its last record that holds a planted secret.
python3 "$LIB/without_private.py" corpus.csv corpus.secrets.txt corpus2.csv --last
ALLOW=()  # the demo's small labels may hold no public record: imported all the same
if grep -q -- --allow-private-labels <<<"$("$SECPE" import --help 2>&1)"; then ALLOW=(--allow-private-labels); fi
for c in corpus corpus2; do
  demo_import $c.csv $c.h5 "${ALLOW[@]}" >/dev/null 2>&1
done
NONCE=()
help=$("$SECPE" run --help 2>&1)  # whole, then searched: grep -q on a pipe would cut it short (SIGPIPE)
if grep -q -- --noise-nonce <<<"$help"; then NONCE=(--noise-nonce 00112233445566778899aabbccddeeff); fi
OVER=()  # Aug-PE's secrets exceed their budget by design (record-level GDP): such a run ends with exit 4 unless accepted
if grep -q -- --allow-over-budget <<<"$help"; then OVER=(--allow-over-budget); fi
BASE=(run --config "$INI" --noise-key-file "$T/noise.key" --quiet "${NONCE[@]}")
SECPE_RUN=("${BASE[@]}" --data corpus.h5 --seed 7 --iterations 3 --synthetic 120)
# Aug-PE with few candidates per label: almost every bin holds many votes, so clipping at 0 rarely
# hides a difference and equal totals cancel exactly.
AUGPE_RUN=("${BASE[@]}" "${OVER[@]}" --method augpe --iterations 3 --synthetic 20 --variations 1 --r-over-p 50)
"$SECPE" "${SECPE_RUN[@]}" --r-over-p 10 --out a1
"$SECPE" "${SECPE_RUN[@]}" --r-over-p 50 --out a2
"$SECPE" "${AUGPE_RUN[@]}" --data corpus.h5 --seed 1 --out b1
"$SECPE" "${AUGPE_RUN[@]}" --data corpus.h5 --seed 2 --out b2
"$SECPE" "${AUGPE_RUN[@]}" --data corpus2.h5 --seed 1 --out c2
"$SECPE" "${AUGPE_RUN[@]}" --data corpus.h5 --seed 1 --variation span --out d2

python3 - <<'PY' || fail "the two-run attack recovered unnoised totals (see above)"
import json, sys

def releases(out):
    sigma = {l['id']: l['sigma'] for l in json.load(open(out + '/privacy.json'))['labels'] if 'sigma' in l}
    totals = {}
    for line in open(out + '/metrics.jsonl'):
        m = json.loads(line)
        if 'released_vote_total' in m:
            totals[(m['label'], m['iteration'])] = (m['released_vote_total'], sigma[m['label']])
    return totals

def is_integer(x):
    return abs(x - round(x)) <= 1e-9

def recovered(one, two):
    out = []
    for key in sorted(set(one) & set(two)):
        (t1, s1), (t2, s2) = one[key], two[key]
        if is_integer(t1) and is_integer(t2):
            continue  # both fell back to the public counts (SecPE's estimate) or to 0: nothing released
        if s1 == s2:
            out.append(t1 - t2)                         # same noise: the unnoised difference
        elif abs(s2 - s1) > 1e-3 * max(s1, s2):
            out.append((s2 * t1 - s1 * t2) / (s2 - s1))  # same normals, other scales: the unnoised total
    return out

failed = False
for name, a, b in [('(a) r/p 10 vs 50, SecPE', 'a1', 'a2'), ('(b) seed 1 vs 2, Aug-PE', 'b1', 'b2'),
                   ('(c) neighbouring dataset, Aug-PE', 'b1', 'c2'), ('(d) generator texts (--variation), Aug-PE', 'b1', 'd2')]:
    values = recovered(releases(a), releases(b))
    near = sum(abs(v - round(v)) <= 0.01 for v in values)
    share = near / max(1, len(values))
    verdict = 'NOISE CANCELS' if share > 0.5 else 'ok'
    print('%-45s %3d of %3d label-iterations within 0.01 of an integer (%.0f%%): %s' % (name, near, len(values), 100 * share, verdict))
    failed = failed or share > 0.5 or len(values) < 10
sys.exit(1 if failed else 0)
PY
[ ${#NONCE[@]} -gt 0 ] || fail "this binary has no --noise-nonce (no release keys)"

# The nonce record: a second, different run with the same key and nonce in one state folder is
# refused before any work (exit 2, naming the option); the same run again is not.
"$SECPE" "${SECPE_RUN[@]}" --r-over-p 10 --out e1 --state-dir shared.state
rc=0; out=$("$SECPE" "${SECPE_RUN[@]}" --r-over-p 50 --out e2 --state-dir shared.state 2>&1) || rc=$?
[ $rc = 2 ] || fail "a second run with the same key and nonce: exit code $rc, expected 2: $out"
grep -q -- "--noise-nonce: the state folder" <<<"$out" || fail "the refusal does not name --noise-nonce: $out"
[ -e e2/run.json ] && fail "a refused run wrote outputs"
"$SECPE" "${SECPE_RUN[@]}" --r-over-p 10 --out e3 --state-dir shared.state
for f in synthetic.csv privacy.json; do cmp -s e1/$f e3/$f || fail "the same key, nonce and inputs: $f differs"; done
cmp -s a1/synthetic.csv e1/synthetic.csv || fail "the same run in another state folder: synthetic.csv differs"
# Without --noise-nonce every run draws its own nonce (run.json), so the same key file gives other noise.
"$SECPE" run --config "$INI" --noise-key-file "$T/noise.key" --quiet --data corpus.h5 --seed 7 --iterations 3 --synthetic 120 --out f1
"$SECPE" run --config "$INI" --noise-key-file "$T/noise.key" --quiet --data corpus.h5 --seed 7 --iterations 3 --synthetic 120 --out f2
n1=$(python3 -c "import json; print(json.load(open('f1/run.json'))['noise_nonce'])")
n2=$(python3 -c "import json; print(json.load(open('f2/run.json'))['noise_nonce'])")
[ "$n1" != "$n2" ] && [ ${#n1} = 32 ] || fail "run.json nonces: '$n1', '$n2'"
votes() { python3 -c "import json,sys; print([json.loads(l)['released_vote_total'] for l in open(sys.argv[1])])" "$1/metrics.jsonl"; }
[ "$(votes f1)" != "$(votes f2)" ] || fail "two runs without --noise-nonce drew the same noise"
echo "noise_reuse: ok"
