#!/usr/bin/env bash
# The noise is secret: it comes from a 256-bit key that no publishable output contains, not from
# the public --seed. Same seed + other key: other noise; same seed + same key file + same nonce
# (run.json): the same outputs; same key file without --noise-nonce: other noise (each run draws
# its nonce); the key (and its check value) appear in no output; the private state folder is 0700
# (an existing one open to others is refused, not changed) and keeps an OS-drawn key only until
# the run completes.
source "$(dirname "$0")/lib/preamble.sh"
set -e  # setup and runs are not checked one by one: any that fails ends the test
source "$LIB/demo_scratch.sh" 400
demo_import corpus.csv demo.h5 2>/dev/null
"$SECPE" keygen --out "$T/a.key" 2>/dev/null
"$SECPE" keygen --out "$T/b.key" 2>/dev/null
[ "$(stat -c %a "$T/a.key")" = 600 ] || fail "keygen: the key file is not mode 0600"
RUN=(run --data "$T/demo.h5" --seed 3 --iterations 2 --synthetic 60 --quiet --allow-over-budget)  # Aug-PE: record-level only
for m in secpe augpe; do
  "$SECPE" "${RUN[@]}" --method $m --out "$T/$m-a1" --noise-key-file "$T/a.key"
  nonce=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['noise_nonce'])" "$T/$m-a1/run.json")
  "$SECPE" "${RUN[@]}" --method $m --out "$T/$m-a2" --noise-key-file "$T/a.key" --noise-nonce "$nonce"
  "$SECPE" "${RUN[@]}" --method $m --out "$T/$m-a3" --noise-key-file "$T/a.key"
  "$SECPE" "${RUN[@]}" --method $m --out "$T/$m-b" --noise-key-file "$T/b.key"
  "$SECPE" "${RUN[@]}" --method $m --out "$T/$m-os1"
  "$SECPE" "${RUN[@]}" --method $m --out "$T/$m-os2"
  # Released noisy votes: the same for the same key, different for another key or an OS key,
  # although the seed (public, in run.json) is the same.
  votes() { python3 -c "import json,sys; print([round(json.loads(l)['released_vote_total'], 9) for l in open(sys.argv[1])])" "$1/metrics.jsonl"; }
  [ "$(votes "$T/$m-a1")" = "$(votes "$T/$m-a2")" ] || fail "$m: same key file and nonce, different noise"
  cmp -s "$T/$m-a1/synthetic.csv" "$T/$m-a2/synthetic.csv" || fail "$m: same key file and nonce, different synthetic.csv"
  [ "$(votes "$T/$m-a1")" != "$(votes "$T/$m-a3")" ] || fail "$m: same key file, a fresh nonce, yet the same noise"
  [ "$(votes "$T/$m-a1")" != "$(votes "$T/$m-b")" ] || fail "$m: another key gave the same noise: it is not keyed by the secret key"
  [ "$(votes "$T/$m-os1")" != "$(votes "$T/$m-os2")" ] || fail "$m: two OS keys gave the same noise"
  grep -q '"seed": 3' "$T/$m-b/run.json" || fail "$m: run.json does not record the public seed"
  grep -q 'key file (--noise-key-file)' "$T/$m-a1/run.json" || fail "$m: run.json does not say a key file was used"
  grep -q 'a.key' "$T/$m-a1/run.json" && fail "$m: run.json names the key file"
  # No output or log contains the key, in hex or raw, or the checkpoint's key check value.
  for key in "$T/a.key" "$T/b.key"; do
    hex=$(tr -d '\n' < "$key")
    grep -rqi "$hex" "$T/$m-a1" "$T/$m-b" && fail "$m: the key reached an output"
    python3 - "$hex" "$T/$m-a1" "$T/$m-b" <<'PY' || fail "$m: raw key bytes in an output"
import os, sys
raw = bytes.fromhex(sys.argv[1])
for d in sys.argv[2:]:
    for f in os.listdir(d):
        assert raw not in open(os.path.join(d, f), 'rb').read(), f
PY
  done
  check=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['content']['fingerprint']['noise_key_check'])" "$T/$m-a1.state/checkpoint.json")
  [ -n "$check" ] || fail "$m: no key check in the checkpoint"
  grep -rq "$check" "$T/$m-a1" && fail "$m: the key check value reached an output"
  # The private state folder: 0700, checkpoint 0600, an OS key deleted once the run completed.
  [ "$(stat -c %a "$T/$m-os1.state")" = 700 ] || fail "$m: state folder is not 0700"
  [ "$(stat -c %a "$T/$m-os1.state/checkpoint.json")" = 600 ] || fail "$m: checkpoint is not 0600"
  [ -e "$T/$m-os1.state/noise.key" ] && fail "$m: the OS key outlived the run"
  ls "$T/$m-os1" | grep -qv -E '^(synthetic.csv|initial.csv|privacy.json|metrics.jsonl|run.json)$' && fail "$m: unexpected file in the output folder"
done
# Published files name input files, never their paths: the dataset's provenance (shown in run.json)
# holds the corpus's and the secrets list's names only, and so does the dataset itself.
python3 - "$T/secpe-a1/run.json" <<'PY' || fail "a path in run.json's dataset provenance"
import json, sys
prov = json.load(open(sys.argv[1]))['summary']['dataset_provenance']
assert prov['secret_mode'] == 'list:corpus.secrets.txt' and prov['source'] == 'corpus.csv', prov
assert not any('/' in v for v in prov.values() if isinstance(v, str)), prov
PY
"$SECPE" inspect "$T/demo.h5" | grep -E "^ +(source|secret_mode|embeddings_file) = .*/" && fail "a path in the dataset's provenance"
# left as it was (a folder others could read may already have been read: the user decides).
mkdir -p "$T/open.state"; chmod 755 "$T/open.state"
out=$("$SECPE" "${RUN[@]}" --out "$T/o3" --state-dir "$T/open.state" 2>&1) && fail "a state folder open to others was accepted"
grep -q "is open to other users (mode 0755).*chmod 700 '$T/open.state'" <<<"$out" || fail "open state folder: $out"
[ "$(stat -c %a "$T/open.state")" = 755 ] || fail "the state folder's mode was changed"
[ -e "$T/o3/run.json" ] && fail "a refused run wrote outputs"
# A state folder inside the publishable output folder is refused before any work.
out=$("$SECPE" "${RUN[@]}" --out "$T/o" --state-dir "$T/o/state" 2>&1) && fail "state folder inside --out accepted"
grep -q "is inside the output folder" <<<"$out" || fail "state inside out: $out"
# A key file readable by others is refused, naming the file but not its content.
cp "$T/a.key" "$T/open.key"; chmod 644 "$T/open.key"
out=$("$SECPE" "${RUN[@]}" --out "$T/o2" --noise-key-file "$T/open.key" 2>&1) && fail "a world-readable key file was accepted"
grep -q "chmod 600" <<<"$out" || fail "open key file: $out"
grep -qi "$(tr -d '\n' < "$T/a.key")" <<<"$out" && fail "the error printed the key"
[ -e "$T/o2/synthetic.csv" ] && fail "a refused run wrote outputs"
echo "noise_key: ok"
