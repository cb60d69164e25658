#!/usr/bin/env bash
# Hostile and damaged inputs (issue 15): damaged datasets and checkpoints, budgets-file indices,
# label columns, output paths, disk full, NUL bytes and numeric options. Each must end in a clear
# message and exit code 2, never a crash, a wrong answer or a secret in a message.
source "$(dirname "$0")/lib/preamble.sh"
source "$LIB/demo_scratch.sh" 300
demo_import corpus.csv demo.h5 2>/dev/null || fail "import"
RUN=(run --data "$T/demo.h5" --quiet)

# ---- numeric options: finite, in range, no wrap-around ----
expect 2 "--synthetic must be a whole number, 0 or more, not '-1'" -- "$SECPE" "${RUN[@]}" --out "$T/o" --synthetic -1
expect 2 "--threshold must be a finite number, not nan" -- "$SECPE" "${RUN[@]}" --out "$T/o" --threshold nan
expect 2 "--threshold must be a finite number, not inf" -- "$SECPE" "${RUN[@]}" --out "$T/o" --threshold inf
expect 2 "--kmeans-iterations must be in \[0, 1000000\], not -1" -- "$SECPE" "${RUN[@]}" --out "$T/o" --kmeans-iterations -1
expect 2 "--kmeans-tolerance must be a finite number" -- "$SECPE" "${RUN[@]}" --out "$T/o" --kmeans-tolerance nan
expect 2 "'1e7') for option '--synthetic' is invalid" -- "$SECPE" "${RUN[@]}" --out "$T/o" --synthetic 1e7
expect 2 "--seed must be a whole number" -- "$SECPE" "${RUN[@]}" --out "$T/o" --seed -1
RUN+=(--seed 1)
expect 2 "candidates in one label, more than the 2^31 - 1" -- "$SECPE" "${RUN[@]}" --out "$T/o" --synthetic 100000 --variations 100000
expect 2 "GB per rank.*more than the .* GB of memory this rank has" -- "$SECPE" "${RUN[@]}" --out "$T/o" --synthetic 100000000 --variations 20
printf '[run]\nsynthetic = -3\n' > "$T/neg.ini"
expect 2 "neg.ini:2: --synthetic must be a whole number" -- "$SECPE" "${RUN[@]}" --out "$T/o" --config "$T/neg.ini"
expect 2 "--iterations must be in \[1, 100000\], not 0" -- "$SECPE" "${RUN[@]}" --out "$T/o" --iterations 0
RUN+=(--iterations 1)
expect 2 "--records must be in" -- "$SECPE" privacy --simulate --records 1000000000000
expect 2 "--inclusion must be a finite number" -- "$SECPE" privacy --simulate --inclusion nan
expect 2 "--secret-rate must be a finite number" -- "$SECPE" corpus --out "$T/x.csv" --secret-rate inf
expect 2 "--secret-count must be in" -- "$SECPE" import --input "$T/corpus.csv" --out "$T/x.h5" --secret-count -5
[ -e "$T/o" ] && fail "a refused run left an output folder"
RUN+=(--synthetic 40)

# ---- budgets files: only '#' and plain decimal digits is a secret index ----
for key in '#-1' '#abc' '#1.5' '#0x1' '#1e300' '#18446744073709551616'; do
  printf 'secret,p,r\n%s,1e-4,1e-3\n' "$key" > "$T/budgets.csv"
  expect 2 "budgets.csv:2: a secret index is '#' followed by decimal digits only" -- \
    "$SECPE" privacy --data "$T/demo.h5" --budgets "$T/budgets.csv"
done

# ---- label columns ----
expect 2 "'text' is the text column" -- "$SECPE" import --input "$T/corpus.csv" --out "$T/x.h5" --label-columns label1,text
(cat "$T/corpus.secrets.txt"; echo "Restaurants") > "$T/with-label.txt"
out=$("$SECPE" import --input "$T/corpus.csv" --out "$T/x.h5" --secrets list --secrets-file "$T/with-label.txt" 2>&1) && fail "a label holding a secret was imported"
grep -q "a value of label column 'label1' contains secret #" <<<"$out" || fail "label secret: $out"
grep -qi "restaurants" <<<"$out" && fail "the secret was quoted: $out"
[ -e "$T/x.h5" ] && fail "a refused import left a dataset"

# ---- NUL bytes are refused at import with FILE:LINE ----
printf 'text,label1,label2\nfine text,Business Category: A,Review Stars: 1.0\n"cut\0here",Business Category: A,Review Stars: 1.0\n' > "$T/nul.csv"
expect 2 "nul.csv:3: NUL byte in the record" -- "$SECPE" import --input "$T/nul.csv" --out "$T/x.h5"
printf '{"text":"fine","label1":"a","label2":"b"}\n{"text":"ok","label1":"a\\u0000b","label2":"b"}\n' > "$T/nul.jsonl"
expect 2 "nul.jsonl:2: NUL character in field 'label1'" -- "$SECPE" import --input "$T/nul.jsonl" --out "$T/x.h5"
printf 'secret one\nsec\0ret\n' > "$T/nul-secrets.txt"
expect 2 "nul-secrets.txt:2: NUL byte in the secret" -- "$SECPE" import --input "$T/corpus.csv" --out "$T/x.h5" --secrets list --secrets-file "$T/nul-secrets.txt"

# ---- output paths are checked before any work ----
expect 2 "--out: '/dev/full' is not a regular file" -- "$SECPE" import --input "$T/corpus.csv" --out /dev/full
[ -c /dev/full ] || fail "/dev/full was replaced"
expect 2 "--out: '$T' is a folder, not a file" -- "$SECPE" import --input "$T/corpus.csv" --out "$T"
mkfifo "$T/fifo"
expect 2 "--out: '$T/fifo' is not a regular file" -- "$SECPE" corpus --out "$T/fifo"
expect 2 "--secrets-out: '/dev/null' is not a regular file" -- "$SECPE" corpus --out "$T/y.csv" --secrets-out /dev/null
ln -s "$T/corpus.csv" "$T/link.json"
expect 2 "--out: '$T/link.json' is a symbolic link" -- "$SECPE" privacy --simulate --records 100 --out "$T/link.json"
expect 2 "--out: '$T/corpus.csv' exists and is not a folder" -- "$SECPE" "${RUN[@]}" --out "$T/corpus.csv"
mkdir -p "$T/o2/run.json"
expect 2 "--out: '$T/o2/run.json' is a folder, not a file" -- "$SECPE" "${RUN[@]}" --out "$T/o2"
expect 2 "is inside '$T/corpus.csv', which is not a folder" -- "$SECPE" synth-embeddings --records 10 --out "$T/corpus.csv/x.h5"
expect 2 "--out: '/dev/null' is not a regular file" -- "$SECPE" bench kernel --rows 8 --centres 8 --dim 4 --out /dev/null

# ---- disk full during import: the error, exit 2, no crash in HDF5's clean-up, nothing left ----
out=$(trap '' XFSZ; ulimit -f 100; "$SECPE" import --input "$T/corpus.csv" --out "$T/full/c.h5" 2>&1); rc=$?
[ "$rc" = 2 ] || fail "import on a full disk exited $rc: $out"
grep -q "(disk full?)" <<<"$out" || fail "disk full message: $out"
[ -n "$(ls -A "$T/full" 2>/dev/null)" ] && fail "a failed import left files: $(ls "$T/full")"

# ---- a run's outputs: run.json, written last, marks a complete set ----
"$SECPE" "${RUN[@]}" --out "$T/out" --noise-key-file "$T/noise.key" 2>/dev/null || fail "run"
for f in synthetic.csv privacy.json metrics.jsonl run.json; do [ -f "$T/out/$f" ] || fail "no $f"; done
[ -f "$T/out.state/checkpoint.json" ] || fail "no checkpoint in the state folder"
cp -r "$T/out" "$T/half" && rm "$T/half/run.json"
expect 2 "not a complete secpe output folder (no run.json, which a run writes last)" -- "$SECPE" inspect "$T/half"

# ---- checkpoints: edited text or an out-of-range label is refused by --resume ----
# (--resume into a folder holding a complete run does nothing: remove its run.json to resume)
expect 0 "" -- "$SECPE" "${RUN[@]}" --out "$T/out" --noise-key-file "$T/noise.key" --resume
rm "$T/out/run.json"
sed 's/"synthetic":\["[^"]*"/"synthetic":["EDITED TEXT"/' "$T/out.state/checkpoint.json" > "$T/edited.json"
cmp -s "$T/edited.json" "$T/out.state/checkpoint.json" && fail "the checkpoint edit did nothing"
cp "$T/edited.json" "$T/out.state/checkpoint.json"
expect 2 "checkpoint.json: damaged or edited checkpoint: the checksum does not match" -- "$SECPE" "${RUN[@]}" --out "$T/out" --noise-key-file "$T/noise.key" --resume
expect 2 "the checksum does not match" -- "$SECPE" inspect "$T/out.state/checkpoint.json"
# Issue 25: the same edit with its plain checksum recomputed (all that an editor without the noise
# key can do) was accepted and its text reached synthetic.csv; the MAC, keyed by a subkey of the
# noise key, refuses it, naming the file. `secpe inspect` (no key) checks the checksum only.
python3 - "$T/out.state/checkpoint.json" <<'PY' || fail "recomputing the checksum"
import hashlib, re, sys
text = open(sys.argv[1], encoding='utf-8').read()
m = re.fullmatch(r'(\{"format":"secpe-checkpoint","format_version":4,"checksum":"blake2b-256:)[0-9a-f]{64}'
                 r'(","mac":"blake2b-256-keyed:[0-9a-f]{64}","content":)(.*)\}\n', text, re.S)
content = m.group(3)
digest = hashlib.blake2b(content.encode('utf-8'), digest_size=32).hexdigest()
open(sys.argv[1], 'w', encoding='utf-8').write(m.group(1) + digest + m.group(2) + content + '}\n')
PY
"$SECPE" inspect "$T/out.state/checkpoint.json" >/dev/null || fail "inspect refused a checkpoint whose checksum matches"
expect 2 "checkpoint.json: edited outside secpe: its MAC (keyed by the noise key) does not match" -- \
  "$SECPE" "${RUN[@]}" --out "$T/out" --noise-key-file "$T/noise.key" --resume
grep -q "EDITED TEXT" "$T/out/synthetic.csv" && fail "edited checkpoint text reached synthetic.csv"

# ---- damaged datasets: a flipped bit is an error (exit 2) or changes nothing inspect shows ----
# (with an empty privacy ledger: a flipped file is another dataset by content, without the runs)
"$SECPE" inspect "$T/demo.h5" --ledger-dir "$T/no-ledger" > "$T/inspect.txt" || fail "inspect"
python3 - "$SECPE" "$T/demo.h5" "$T/flip.h5" "$T/inspect.txt" "$T/no-ledger" <<'PY' || fail "bit flips"
import subprocess, sys
secpe, src, dst, expected, no_ledger = sys.argv[1:6]
data = bytearray(open(src, 'rb').read())
want = open(expected).read().replace(src, dst)
caught = 0
for pos in range(0, len(data), max(1, len(data) // 150)):
    flipped = bytearray(data)
    flipped[pos] ^= 1 << (pos % 8)
    open(dst, 'wb').write(flipped)
    r = subprocess.run([secpe, 'inspect', dst, '--ledger-dir', no_ledger], capture_output=True, text=True)
    assert r.returncode in (0, 2), f"flip at {pos}: exit {r.returncode}: {r.stderr}"
    if r.returncode == 0:
        assert r.stdout == want, f"flip at {pos} changed what inspect reads"
    else:
        caught += 1
assert caught > 0
print(f"dataset bit flips: {caught} caught")
PY
echo "hostile_inputs: ok"
