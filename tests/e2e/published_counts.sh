#!/usr/bin/env bash
# Published files hold no unnoised private count (issue 25, item 2).
#  * Under --calibration public-profile, two datasets that differ only in private records (a third
#    of them removed) give run.json and privacy.json that are identical but for the released texts'
#    leak-scan counts, timings and the import time: nothing published depends on the private
#    records beyond the noisy releases.
#  * Under the default (exact) calibration, privacy.json and run.json carry no private count, no
#    batch actually used, no LP, no sigma 0 for a label without private records, no path; they say
#    that sigma depends on the private data; the calibration's inputs are in the private state
#    folder (calibration.json, 0600, shown by `secpe inspect`).
#  * Data that break the public caps are refused before any work, without a count in the message.
#  * No published file times private work (issue 43): every published timing is one docs/privacy.md
#    lists as published, in both datasets' runs or in neither; the rest is in OUT.state/timings.json.
source "$(dirname "$0")/lib/preamble.sh"
set -e  # setup and runs are not checked one by one: any that fails ends the test
source "$LIB/demo_scratch.sh" 1200
# The second corpus: every third record holding a planted secret left out; the public records,
# hence the labels and their public counts, stay.
mkdir a b
cp corpus.csv a/corpus.csv
python3 "$LIB/without_private.py" corpus.csv corpus.secrets.txt b/corpus.csv --every 3
for d in a b; do
  demo_import $d/corpus.csv $d/data.h5 --allow-private-labels >/dev/null 2>&1
done
[ "$(stat -c %a a/data.h5)" = 600 ] || fail "secpe import wrote the dataset (private texts) with mode $(stat -c %a a/data.h5), not 0600"
[ "$(stat -c %a corpus.csv)" = 600 ] || fail "secpe corpus wrote the stand-in private corpus with mode $(stat -c %a corpus.csv)"
holders=$(python3 - corpus.csv corpus.secrets.txt <<'PY'
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))[1:]
secrets = [s.strip() for s in open(sys.argv[2]) if s.strip() and not s.startswith('#')]
print(max(sum(bool(re.search(r'\b' + re.escape(s) + r'\b', r[0], re.I)) for r in rows) for s in secrets))
PY
)
PP=(--calibration public-profile --max-holders-per-secret "$holders" --sampling-rate 0.5)
RUN=(run --config "$INI" --noise-key-file "$T/noise.key" --seed 3 --iterations 2 --synthetic 60)
PP_QUIET=(--quiet)
for d in a b; do "$SECPE" "${RUN[@]}" "${PP[@]}" "${PP_QUIET[@]}" --data $d/data.h5 --out $d/pp; done
python3 - a/pp b/pp <<'PY' || fail "public profile: a published file depends on the private records"
import json, sys
def strip(d):
    if isinstance(d, dict):
        return {k: strip(v) for k, v in d.items()
                if not k.endswith('seconds') and k not in ('leak_scan', 'created_utc', 'noise_nonce', 'out', 'data', 'state-dir', 'noise-nonce')}
    return [strip(v) for v in d] if isinstance(d, list) else d
for name in ('privacy.json', 'run.json'):
    one, two = (strip(json.load(open(f'{d}/{name}'))) for d in sys.argv[1:])
    if name == 'run.json':
        for r in (one, two): r.pop('provenance', None)
    if one != two:
        for k in one:
            if one.get(k) != two.get(k): print(f'{name}: "{k}" differs:', json.dumps(one.get(k))[:300], json.dumps(two.get(k))[:300])
        sys.exit(1)
p = json.load(open(sys.argv[1] + '/privacy.json'))
assert p['calibration']['mode'] == 'public-profile' and p['calibration']['sigma_depends_on_private_data'] is False
assert len({l['sigma'] for l in p['labels'] if 'sigma' in l}) == 1, 'labels have different sigmas'
assert p['all_secrets_within_budget'] is True
PY
cmp -s a/pp/synthetic.csv b/pp/synthetic.csv && fail "the two datasets gave the same synthetic texts: is the noise keyed by the data?"
# Timings (issue 43): only those docs/privacy.md lists as published (the private work's go to the
# state folder), each in both runs or in neither.
DOCS=$SRC/docs/privacy.md
python3 "$LIB/published_timings.py" "$DOCS" a/pp b/pp || fail "SecPE: a published timing depends on the private records"

# The caps are checked before any work; the message names the cap, not a count.
rc=0; out=$("$SECPE" "${RUN[@]}" --calibration public-profile --max-holders-per-secret 1 --data a/data.h5 --out a/capped 2>&1) || rc=$?
[ $rc = 2 ] || fail "data over the holder cap: exit code $rc: $out"
grep -q "held by more than 1 records, the public cap on holders per secret" <<<"$out" || fail "cap refusal: $out"
[ "$(grep 'error:' <<<"$out" | sed 's/data\.h5//g' | grep -o '[0-9]\+' | sort -u | tr '\n' ' ')" = "1 " ] ||
  fail "the cap refusal printed a number other than the cap: $out"
[ -e a/capped.state/calibration.json ] && fail "the cap was checked after the calibration"
rc=0; out=$("$SECPE" "${RUN[@]}" --calibration public-profile --data a/data.h5 --out a/x 2>&1) || rc=$?
[ $rc = 2 ] && grep -q -- "--max-holders-per-secret" <<<"$out" || fail "public-profile without a cap: $rc $out"
rc=0; out=$("$SECPE" "${RUN[@]}" --sampling-rate 0.5 --data a/data.h5 --out a/x 2>&1) || rc=$?
[ $rc = 2 ] && grep -q -- "--sampling-rate is a setting of secpe's --calibration public-profile only" <<<"$out" || fail "--sampling-rate alone: $rc $out"

# The default calibration: nothing of the calibration's private inputs in the published files.
for m in secpe augpe; do
  "$SECPE" "${RUN[@]}" --method $m --data a/data.h5 --out a/$m --allow-over-budget 2> a/$m.log
  python3 - a/$m <<'PY' || fail "$m: a published file holds a private count"
import json, sys
out = sys.argv[1]
p, r = json.load(open(out + '/privacy.json')), json.load(open(out + '/run.json'))
for l in p['labels']:
    for k in ('private_batch_used', 'private_batch_note', 'sampling_lp', 'sigma_paper', 'private_records'):
        assert k not in l, (k, l)
    assert 'skipped' in l or l['sigma'] > 0, ('sigma 0 published', l)
assert all(rel['sigma'] > 0 for rel in p['releases'])
if p['method'] == 'secpe':
    assert p['calibration']['sigma_depends_on_private_data'] is True and 'private' in p['calibration']['sigma_note']
s = r['summary']
assert 'records' not in s and 'bytes_sent_rank0' not in s and s['public_records'] > 0, s
# SecPE's public k-means says how it ran (public rows only); Aug-PE has none.
k = s.get('kmeans')
assert (k is None) if p['method'] == 'augpe' else (k['init'] == 'random' and k['labels'] == sum('skipped' not in l for l in p['labels']) and
                                                  1 <= k['iterations']['min'] <= k['iterations']['max'] <= k['max_iterations']), k
prov = s['dataset_provenance']
assert prov['source'] == 'corpus.csv' and 'bad_records_skipped' not in prov, prov
assert '/' not in r['options']['data'] and '/' not in (p['budget']['per_secret_file'] or ''), r['options']['data']
text = open(out + '/privacy.json').read() + open(out + '/run.json').read() + open(out + '/metrics.jsonl').read()
assert '/tmp' not in text, 'an absolute path in a published file'
PY
  grep -E " [0-9]+ records|lowered for" a/$m.log && fail "$m: the log shows a count involving private records"
done
# Aug-PE's voters are private records: its voting is timed in the state folder only.
"$SECPE" "${RUN[@]}" --method augpe --data b/data.h5 --out b/augpe --allow-over-budget 2>/dev/null
python3 "$LIB/published_timings.py" "$DOCS" a/augpe b/augpe || fail "Aug-PE: a published timing depends on the private records"
grep -q vote_seconds a/augpe/metrics.jsonl && fail "Aug-PE's vote_seconds (its private voters' work) was published"
[ "$(stat -c %a a/secpe.state/calibration.json)" = 600 ] || fail "calibration.json is not 0600"
[ "$(stat -c %a a/secpe.state/timings.json)" = 600 ] || fail "timings.json is not 0600"
python3 - a/secpe.state/timings.json a/augpe.state/timings.json <<'PY' || fail "timings.json lacks the private work's timings"
import json, sys
s, a = (json.load(open(f)) for f in sys.argv[1:])
assert s['note'].startswith('PRIVATE') and s['run']['calibration_seconds'] >= 0 and s['run']['wall_seconds'] > 0, s['run']
# What the privacy ledger costs a run, stage by stage: reading it, composing, recording.
assert all(s['run'][k] >= 0 for k in ('ledger_read_seconds', 'ledger_compose_seconds', 'ledger_record_seconds')), s['run']
assert s['iterations'] and all('release_seconds' in i and 'iteration_seconds' in i for i in s['iterations']), s['iterations'][:2]
assert {'generate_seconds', 'embed_seconds', 'release_seconds', 'vote_seconds', 'select_seconds'} <= set(s['evolve_steps']), s['evolve_steps']
assert all('release_seconds' in i for i in a['iterations']), a['iterations'][:2]
PY
python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))
assert c['note'].startswith('PRIVATE') and sum(l['private_records'] for l in c['labels']) > 0 and all('private_batch_used' in l for l in c['labels'])
" a/secpe.state/calibration.json || fail "calibration.json lacks the per-label inputs"
"$SECPE" inspect a/secpe.state > inspect.txt || fail "secpe inspect of the state folder"
grep -q "private  batch used" inspect.txt || fail "secpe inspect of the state folder shows no calibration inputs"
grep -q "calibration_seconds" inspect.txt && grep -q "release_seconds" inspect.txt || fail "secpe inspect of the state folder shows no timings: $(cat inspect.txt)"
echo "published_counts: ok"
