#!/usr/bin/env bash
# PII secrets, the leak scan and imported embeddings, end to end: `secpe import --secrets pii`
# (alone and combined), `secpe inspect` counts per category without a value, a run whose public
# records hold planted PII (the leak scan counts it in privacy.json, --drop-leaking drops it, the
# exact-secret counts stay in the private state folder), and .npy/.h5 embeddings imported and refused by
# `secpe run` until an embedding endpoint serves their model.
source "$(dirname "$0")/lib/preamble.sh"

"$SECPE" corpus --records 300 --out "$T/c.csv" 2>/dev/null || fail "corpus"
# The demo corpus plants phone numbers, emails and names; collect them to check no output shows one.
grep -oE '[0-9]{3}-555-[0-9]{4}|[A-Za-z0-9._]+@[A-Za-z0-9.]+\.[a-z]+' "$T/c.csv" | sort -u >"$T/values"
[ -s "$T/values" ] || fail "the demo corpus plants no PII any more"

# ---- import --secrets pii, inspect ----
"$SECPE" import --input "$T/c.csv" --out "$T/pii.h5" --secrets pii 2>/dev/null || fail "import --secrets pii"
"$SECPE" inspect "$T/pii.h5" >"$T/inspect.txt" 2>&1 || fail "inspect"
for category in PHONENUMBER EMAIL PERSON; do
  grep -qE "^ +[0-9]+ +[0-9]+  $category\$" "$T/inspect.txt" || fail "inspect shows no $category count: $(cat "$T/inspect.txt")"
done
grep -q "secret_mode = pii" "$T/inspect.txt" || fail "provenance secret_mode"
grep -qE "public +private +label" "$T/inspect.txt" || fail "inspect has no private column per label"
grep -qiFf "$T/values" "$T/inspect.txt" && fail "inspect printed a secret value"

printf 'zorbalicious\n' >"$T/list.txt"
"$SECPE" import --input "$T/c.csv" --out "$T/combo.h5" --secrets pii,random-word --secret-count 5 2>/dev/null || fail "pii,random-word"
"$SECPE" inspect "$T/combo.h5" | grep -qE "  RANDOM_WORD$" || fail "pii,random-word: no RANDOM_WORD category"
"$SECPE" import --input "$T/c.csv" --out "$T/list.h5" --secrets list,pii --secrets-file "$T/list.txt" --pii-categories EMAIL 2>/dev/null || fail "list,pii"
"$SECPE" inspect "$T/list.h5" >"$T/list.txt.out"
grep -qE "  LIST$" "$T/list.txt.out" && grep -qE "  EMAIL$" "$T/list.txt.out" || fail "list,pii categories: $(cat "$T/list.txt.out")"
grep -qE "  PERSON$" "$T/list.txt.out" && fail "--pii-categories EMAIL still detected names"
expect 2 "--secrets: unknown mode 'names'" -- "$SECPE" import --input "$T/c.csv" --out "$T/x.h5" --secrets pii,names
expect 2 "--secrets: 'pii' is named twice" -- "$SECPE" import --input "$T/c.csv" --out "$T/x.h5" --secrets pii,pii
expect 2 "--pii-categories: unknown PII category 'NAME'" -- "$SECPE" import --input "$T/c.csv" --out "$T/x.h5" --secrets pii --pii-categories NAME
expect 2 "--pii-categories applies to --secrets pii only" -- "$SECPE" import --input "$T/c.csv" --out "$T/x.h5" --pii-categories EMAIL
expect 2 "--secrets list and --secrets-file FILE come together" -- "$SECPE" import --input "$T/c.csv" --out "$T/x.h5" --secrets pii,list
expect 2 "no PII of the chosen categories" -- "$SECPE" import --input "$T/c.csv" --out "$T/x.h5" --secrets pii --pii-categories IBAN
[ -e "$T/x.h5" ] && fail "a refused import left a dataset behind"

# The Yelp dev set (the per-category figures in docs/corpora.md): names, times and dates, few else.
DEV=$SHARED/data/yelp/dev.csv
if [ -f "$DEV" ]; then
  "$SECPE" import --input "$DEV" --out "$T/dev.h5" --secrets pii 2>/dev/null || fail "import dev --secrets pii"
  "$SECPE" inspect "$T/dev.h5" >"$T/dev.txt"
  python3 - "$T/dev.txt" <<'PY' || fail "dev.csv PII counts: $(cat "$T/dev.txt")"
import re, sys
text = open(sys.argv[1]).read()
private = int(re.search(r"records +5000 \((\d+) public, (\d+) private\)", text).group(2))
holders = {m.group(2): int(m.group(1)) for m in re.finditer(r"^ +\d+ +(\d+)  ([A-Z_]+)$", text, re.M)}
assert 500 <= private <= 1000, private  # 766 when written
assert set(holders) <= {"PERSON", "TIME", "DATE", "URL", "STREET", "EMAIL", "PHONENUMBER", "ZIPCODE"}, holders
assert 350 <= holders["PERSON"] <= 650 and 150 <= holders["TIME"] <= 350, holders
PY
fi

# ---- the leak scan: public records (random-word secrets) holding planted PII ----
cp "$T/c.csv" "$T/leaky.csv"
for i in $(seq 1 80); do
  echo "\"Great food. Email jane.doe@example.com for the catering menu. Friendly staff.\",Business Category: Restaurants,Review Stars: 5.0" >>"$T/leaky.csv"
done
"$SECPE" import --input "$T/leaky.csv" --out "$T/leaky.h5" --secret-count 20 2>/dev/null || fail "import leaky"
RUN=(run --data "$T/leaky.h5" --seed 5 --iterations 2 --synthetic 120 --quiet)
"$SECPE" "${RUN[@]}" --out "$T/keep" 2>"$T/keep.log" || fail "run: $(cat "$T/keep.log")"
python3 - "$T/keep/privacy.json" <<'PY' || fail "leak scan without --drop-leaking"
import json, sys
scan = json.load(open(sys.argv[1]))["leak_scan"]
assert scan["drop_leaking"] is False and "dropped" not in scan, scan
assert scan["initial"]["by_category"]["EMAIL"] > 0, scan   # the generator learned the public email
assert scan["initial"]["flagged"] >= scan["initial"]["by_category"]["EMAIL"], scan
assert set(scan["synthetic"]["by_category"]) >= {"EMAIL", "PHONENUMBER", "PERSON", "IBAN"}, scan
# Counts of the dataset's own secrets are an unnoised private statistic: only a note here, the
# counts themselves go to the private state folder (checked below).
for part in ("initial", "synthetic"):
    assert not {"RANDOM_WORD", "LIST", "UNKNOWN"} & set(scan[part]["by_category"]), scan
assert isinstance(scan["exact_secrets"], str), scan
assert "RANDOM_WORD" not in json.dumps(scan), scan
PY
STATE=$T/keep.state/leak_scan.json  # the default state folder is OUT.state
[ -f "$STATE" ] || fail "no private leak_scan.json in the state folder"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert 'PRIVATE' in r['note'] and 'RANDOM_WORD' in r['synthetic']['by_category']" "$STATE" ||
  fail "private leak_scan.json: $(cat "$STATE")"
[ -e "$T/keep/leak_scan.json" ] && fail "the private leak scan landed in the output folder"

"$SECPE" "${RUN[@]}" --out "$T/drop" --drop-leaking 2>"$T/drop.log" || fail "run --drop-leaking: $(cat "$T/drop.log")"
python3 - "$T/drop/privacy.json" "$T/drop/initial.csv" "$T/drop/synthetic.csv" "$T/keep/initial.csv" <<'PY' || fail "--drop-leaking"
import csv, json, sys
scan = json.load(open(sys.argv[1]))["leak_scan"]
assert scan["drop_leaking"] is True and scan["dropped"]["initial"] == scan["initial"]["flagged"] > 0, scan
rows = lambda p: list(csv.DictReader(open(p)))
kept_initial = rows(sys.argv[4])
assert len(rows(sys.argv[2])) == len(kept_initial) - scan["dropped"]["initial"], (len(rows(sys.argv[2])), len(kept_initial))
for p in sys.argv[2:4]:
    assert "jane.doe@example.com" not in open(p).read(), p
PY
"$SECPE" inspect "$T/drop" | grep -qE "^leak scan +[0-9]+ of 120 synthetic texts show a PII pattern \(dropped\)" || fail "inspect of the output: $("$SECPE" inspect "$T/drop")"
# No output, log or report holds a secret (the random-word secrets of leaky.h5 are not known
# here, so check the planted PII values and the private state file's absence instead).
for f in "$T/drop/privacy.json" "$T/drop/run.json" "$T/drop/metrics.jsonl" "$T/drop.log"; do
  grep -qiF "jane.doe" "$f" && fail "$f names a planted value"
done

# ---- imported embeddings ----
N=$(python3 -c "import csv,sys; print(sum(1 for _ in csv.DictReader(open(sys.argv[1]))))" "$T/c.csv")
python3 - "$T/e.npy" "$N" 8 <<'PY'
import struct, sys, random
path, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (n, d)
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
random.seed(1)
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%df" % (n * d), *[random.uniform(0.1, 1) for _ in range(n * d)]))
PY
"$SECPE" import --input "$T/c.csv" --out "$T/imported.h5" --embeddings "$T/e.npy" --embeddings-model acme-embed-v2 2>/dev/null ||
  fail "import --embeddings .npy"
"$SECPE" inspect "$T/imported.h5" >"$T/imported.txt"
grep -q "embedding_model = acme-embed-v2" "$T/imported.txt" && grep -q "embeddings   8-d" "$T/imported.txt" && grep -q "embedder = imported" "$T/imported.txt" ||
  fail "inspect of the imported dataset: $(cat "$T/imported.txt")"
expect 2 "embeddings imported from model acme-embed-v2; secpe run needs an embedding endpoint serving acme-embed-v2" -- \
  "$SECPE" run --data "$T/imported.h5" --out "$T/imported-run" --quiet
[ -e "$T/imported-run/synthetic.csv" ] && fail "a refused run wrote synthetic text"
"$SECPE" synth-embeddings --records "$N" --dim 12 --labels 3 --out "$T/e.h5" 2>/dev/null || fail "synth-embeddings"
"$SECPE" import --input "$T/c.csv" --out "$T/imported-h5.h5" --embeddings "$T/e.h5" --embeddings-model m1 2>/dev/null || fail "import --embeddings .h5"
"$SECPE" inspect "$T/imported-h5.h5" | grep -q "embeddings   12-d" || fail "imported .h5 width"
expect 2 "e.h5: no dataset 'vectors'" -- "$SECPE" import --input "$T/c.csv" --out "$T/x.h5" --embeddings "$T/e.h5" --embeddings-model m1 --embeddings-dataset vectors
expect 2 "--embeddings needs --embeddings-model NAME" -- "$SECPE" import --input "$T/c.csv" --out "$T/x.h5" --embeddings "$T/e.npy"
expect 2 "--embedder and --embeddings exclude each other" -- "$SECPE" import --input "$T/c.csv" --out "$T/x.h5" --embeddings "$T/e.npy" --embeddings-model m --embedder tfidf-svd
expect 2 "--embeddings and --on-bad-record skip exclude each other" -- "$SECPE" import --input "$T/c.csv" --out "$T/x.h5" --embeddings "$T/e.npy" --embeddings-model m --on-bad-record skip
expect 2 "--embeddings-model applies to --embeddings only" -- "$SECPE" import --input "$T/c.csv" --out "$T/x.h5" --embeddings-model m
expect 2 "e.npy: $N embedding rows for $((N + 80)) records" -- "$SECPE" import --input "$T/leaky.csv" --out "$T/x.h5" --embeddings "$T/e.npy" --embeddings-model m
[ -e "$T/x.h5" ] && fail "a refused import left a dataset behind"
echo "pii_leak_scan: ok"
