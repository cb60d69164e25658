#!/usr/bin/env bash
# End to end: the quickstart job (jobs/quickstart.ini) on a small demo corpus, run at 1, 2 and 4
# ranks (sharded by label) and at 2 by record, with one noise key file and one nonce (--noise-nonce: the
# runs are meant to be the same run). Checks every output file, the label mix, byte-identical results
# across rank counts, and that no planted secret reaches any output.
source "$(dirname "$0")/lib/preamble.sh"
set -e  # setup and runs are not checked one by one: any that fails ends the test
source "$LIB/demo_scratch.sh" 1200
demo_import "$T/corpus.csv" "$T/demo.h5"
NONCE=(--noise-nonce 0123456789abcdef0123456789abcdef)
for np in 1 2 4; do
  mpirun -n $np --oversubscribe "$SECPE" run --config "$INI" --data "$T/demo.h5" --out "$T/out$np" --noise-key-file "$T/noise.key" "${NONCE[@]}" \
    --iterations 3 --synthetic 120 --quiet $( [ $np = 2 ] && echo --verify )
done

for np in 1 2 4; do
  for f in synthetic.csv privacy.json metrics.jsonl run.json; do
    [ -s "$T/out$np/$f" ] || fail "out$np/$f missing or empty"
  done
  ls -a "$T/out$np" | grep -q '\.tmp\.' && fail "temporary file left in out$np"
  grep -q "\"ranks\": $np" "$T/out$np/run.json" || fail "run.json of out$np does not record $np ranks"
done
cmp "$T/out1/synthetic.csv" "$T/out2/synthetic.csv" || fail "synthetic.csv differs between 1 and 2 ranks"
cmp "$T/out1/synthetic.csv" "$T/out4/synthetic.csv" || fail "synthetic.csv differs between 1 and 4 ranks"
cmp "$T/out1/privacy.json" "$T/out2/privacy.json" || fail "privacy.json differs between 1 and 2 ranks"
cmp "$T/out1/privacy.json" "$T/out4/privacy.json" || fail "privacy.json differs between 1 and 4 ranks"
# Several ranks shard by label here (every rank evolves its own labels); by record, every label is
# evolved by both ranks together. The outputs are the same.
grep -q '"shard_by": "record"' "$T/out1/run.json" || fail "one rank did not shard by record"
grep -q '"shard_by": "label"' "$T/out4/run.json" || fail "4 ranks on the demo did not shard by label"
mpirun -n 2 --oversubscribe "$SECPE" run --config "$INI" --data "$T/demo.h5" --out "$T/rec2" --noise-key-file "$T/noise.key" "${NONCE[@]}" \
  --iterations 3 --synthetic 120 --quiet --shard-by record
grep -q '"shard_by": "record"' "$T/rec2/run.json" || fail "--shard-by record was not taken"
for f in synthetic.csv initial.csv privacy.json; do cmp "$T/out1/$f" "$T/rec2/$f" || fail "$f differs between 1 rank and 2 ranks by record"; done

# Label mix: 120 texts, header first, every label from the corpus's label set, several labels.
python3 - "$T/out1/synthetic.csv" "$T/corpus.csv" "$T/out1/metrics.jsonl" "$T/out1/privacy.json" <<'PY' || fail "output content check"
import csv, json, sys
syn = list(csv.reader(open(sys.argv[1], newline='')))
src = list(csv.reader(open(sys.argv[2], newline='')))
assert syn[0] == ['text', 'label1', 'label2'], syn[0]
rows = syn[1:]
assert len(rows) == 120, len(rows)
labels = {(r[1], r[2]) for r in src[1:]}
assert all((r[1], r[2]) in labels for r in rows), "unknown label in synthetic.csv"
assert len({(r[1], r[2]) for r in rows}) >= 10, "too few labels"
assert all(len(r[0].split()) >= 3 for r in rows), "empty synthetic text"
restaurants = sum(r[1] == 'Business Category: Restaurants' for r in rows)
assert restaurants > len(rows) / 3, "label mix does not follow the corpus (restaurants %d)" % restaurants
metrics = [json.loads(l) for l in open(sys.argv[3])]
assert len(metrics) > 0 and all('vote_seconds' in m for m in metrics)
p = json.load(open(sys.argv[4]))
assert p['method'] == 'secpe' and p['iterations'] == 3
assert all('sigma' in l for l in p['labels'] if 'skipped' not in l)
assert len(p['releases']) == len(metrics)
assert p['calibration']['mode'] == 'exact' and p['calibration']['lambda'] > 0
assert p['all_secrets_within_budget'] is True
assert all(s['r_achieved'] <= s['r'] and s['mu'] > 0 for s in p['secrets'])
assert all(r['label'] >= 0 and r['sigma'] >= 0 for r in p['releases'])
PY

# Privacy: no planted secret appears in any output file.
grep -v '^#' "$T/corpus.secrets.txt" | sed '/^$/d' > "$T/secrets.lst"
[ -s "$T/secrets.lst" ] || fail "no planted secrets"
if grep -i -F -w -f "$T/secrets.lst" "$T/out1"/* >/dev/null; then fail "a planted secret reached an output file"; fi

# Aug-PE baseline runs and is rank-count independent too.
for np in 1 2; do
  mpirun -n $np --oversubscribe "$SECPE" run --config "$INI" --data "$T/demo.h5" --out "$T/aug$np" --noise-key-file "$T/noise.key" "${NONCE[@]}" \
    --method augpe --iterations 2 --synthetic 60 --quiet --allow-over-budget
done
cmp "$T/aug1/synthetic.csv" "$T/aug2/synthetic.csv" || fail "augpe synthetic.csv differs between 1 and 2 ranks"
grep -q '"shard_by": "record"' "$T/aug2/run.json" || fail "augpe at 2 ranks did not shard by record (auto)"
mpirun -n 2 --oversubscribe "$SECPE" run --config "$INI" --data "$T/demo.h5" --out "$T/augl2" --noise-key-file "$T/noise.key" "${NONCE[@]}" \
  --method augpe --iterations 2 --synthetic 60 --quiet --shard-by label --allow-over-budget
for f in synthetic.csv privacy.json; do cmp "$T/aug1/$f" "$T/augl2/$f" || fail "augpe $f differs between 1 rank and 2 ranks by label"; done
grep -q '"method": "augpe"' "$T/aug1/privacy.json" || fail "augpe privacy.json"
# The learned embedder (fitted on the public records at import, stored in the dataset): runs are
# rank-count independent with it too, and record its identity.
demo_import "$T/corpus.csv" "$T/svd.h5" --embedder tfidf-svd --embedding-dim 64
for np in 1 2; do
  mpirun -n $np --oversubscribe "$SECPE" run --config "$INI" --data "$T/svd.h5" --out "$T/svd$np" --noise-key-file "$T/noise.key" "${NONCE[@]}" \
    --iterations 2 --synthetic 60 --quiet
done
cmp "$T/svd1/synthetic.csv" "$T/svd2/synthetic.csv" || fail "tfidf-svd synthetic.csv differs between 1 and 2 ranks"
cmp "$T/svd1/privacy.json" "$T/svd2/privacy.json" || fail "tfidf-svd privacy.json differs between 1 and 2 ranks"
grep -q '"embedder": "tfidf-svd(d=64, V=' "$T/svd1/run.json" || fail "run.json does not name the tfidf-svd embedder"
"$SECPE" inspect "$T/out2" | grep -q 'synthetic    120 texts' || fail "inspect of an output folder"
"$SECPE" inspect "$T/demo.h5" | grep -q 'records      1200' || fail "inspect of a dataset"
# Resume: keep the first 10 finished labels of the checkpoint (in the private state folder), as if
# the job had been killed; --resume finishes the rest and gives the same outputs as the
# uninterrupted run. (The checksum and the MAC cover the content's bytes as stored; the MAC's key is
# derived from the noise key, which this test holds: src/evolve/checkpoint.hpp.)
[ -e "$T/out2/checkpoint.json" ] && fail "the checkpoint is in the publishable output folder"
mkdir -p "$T/resumed.state" && chmod 700 "$T/resumed.state"
python3 - "$T/out2.state/checkpoint.json" "$T/resumed.state/checkpoint.json" "$T/noise.key" <<'PY' || fail "checkpoint truncation"
import hashlib, json, struct, sys
def kdf(key, purpose, data):  # derive_noise_key (core/secret_key.hpp): keyed BLAKE2b-256
    return hashlib.blake2b(struct.pack('<Q', len(purpose)) + purpose + data, key=key, digest_size=32).digest()
c = json.load(open(sys.argv[1]))
assert c['format'] == 'secpe-checkpoint'
c['content']['labels'] = c['content']['labels'][:10]
text = json.dumps(c['content']).encode()
digest = hashlib.blake2b(text, digest_size=32).hexdigest()
mac_key = kdf(bytes.fromhex(open(sys.argv[3]).read().strip()), b'secpe private state MAC v1', b'')
mac = kdf(mac_key, b'secpe state file checkpoint.json', text).hex()
open(sys.argv[2], 'w').write('{"format":"secpe-checkpoint","format_version":4,"checksum":"blake2b-256:%s","mac":"blake2b-256-keyed:%s","content":%s}\n'
                             % (digest, mac, text.decode()))
PY
"$SECPE" inspect "$T/resumed.state/checkpoint.json" | grep -q 'finished     10 label' || fail "inspect of a checkpoint"
mpirun -n 2 --oversubscribe "$SECPE" run --config "$INI" --data "$T/demo.h5" --out "$T/resumed" --noise-key-file "$T/noise.key" \
  --iterations 3 --synthetic 120 --quiet --resume
grep -q '"noise_nonce_source": "the interrupted run.s (--resume)"' "$T/resumed/run.json" || fail "the resumed run did not take the interrupted run's nonce"
cmp "$T/out1/synthetic.csv" "$T/resumed/synthetic.csv" || fail "resumed synthetic.csv differs"
cmp "$T/out1/privacy.json" "$T/resumed/privacy.json" || fail "resumed privacy.json differs"
# The ledger: a resumed run may not add iterations to labels whose budget is spent.
out=$("$SECPE" run --config "$INI" --data "$T/demo.h5" --out "$T/resumed" --noise-key-file "$T/noise.key" --iterations 4 --synthetic 120 --quiet --resume 2>&1) && fail "resume with more iterations succeeded"
grep -q "release more than their budget allows" <<<"$out" || fail "resume with more iterations: $out"
# ... nor with another noise key (the noise of the finished labels would not match), and the
# refusal never prints anything derived from the key.
"$SECPE" keygen --out "$T/other.key"
out=$("$SECPE" run --config "$INI" --data "$T/demo.h5" --out "$T/resumed" --noise-key-file "$T/other.key" --iterations 3 --synthetic 120 --quiet --resume 2>&1) && fail "resume with another key succeeded"
grep -q "different noise key" <<<"$out" || fail "resume with another key: $out"
echo "quickstart_ranks: ok"
