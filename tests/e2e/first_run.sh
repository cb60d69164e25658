#!/usr/bin/env bash
# A newcomer's first hour (issue 31): every check that can fail a run comes before the work and
# leaves no secret behind; the default secrets keep a usable public share; labels come back as
# they were given (CSV prefixes, JSONL numbers) and secpe eval reads JSONL; an interrupted run
# names --resume and counts labels as inspect does, and a corrected --eval-real file may resume;
# a completed output folder is neither overwritten nor redone; Aug-PE over its budget exits 4;
# the slow commands show progress and take --threads.
source "$(dirname "$0")/lib/preamble.sh"
at_exit 'pkill -9 -f "^$SECPE run.*$T/" 2>/dev/null'  # this test's runs only: an interrupted one may outlive it
public_share() {  # public_share DATA.h5: the share of records without a secret, from inspect
  "$SECPE" inspect "$1" | python3 -c "import re,sys; m=re.search(r'records +(\d+) \((\d+) public', sys.stdin.read()); print(int(m.group(2)) / int(m.group(1)))"
}

# ---- default secrets keep a usable public share; a label without public text is refused at import ----
"$SECPE" corpus --records 1200 --out "$T/demo.csv" 2>/dev/null || fail corpus
"$SECPE" import --input "$T/demo.csv" --out "$T/rw.h5" 2>/dev/null || fail "default import of the demo corpus"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 0.69 else 'public share %s' % sys.argv[1])" "$(public_share "$T/rw.h5")" ||
  fail "the default secrets left less than 70% of the demo corpus public"
# A small corpus of few distinct words: the 100 words near the 0.2 quantile are in nearly every record.
python3 - "$T/small.csv" <<'PY'
import csv, random, sys
random.seed(3)
common = "good food nice staff slow fast cheap price clean dirty friendly rude tasty cold warm fresh loud quiet busy empty".split()
rare = ["word%s%s" % (a, b) for a in "abcdefghij" for b in "klmnopqrst"]  # 100 rarer words, Zipf-like weights
weights = [1.0 / (k + 1) for k in range(len(rare))]
with open(sys.argv[1], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["text", "label1", "label2"])
    for i in range(400):
        text = [random.choice(common) for _ in range(10)] + random.choices(rare, weights, k=2)
        w.writerow([" ".join(text), "Business Category: " + "AB"[i % 2], "Review Stars: %d.0" % (1 + i % 3)])
PY
out=$("$SECPE" import --input "$T/small.csv" --out "$T/small.h5" 2>&1) || fail "default import of a small-vocabulary corpus: $out"
grep -q "secret words asked for were taken" <<<"$out" || fail "import does not say it took fewer secret words: $out"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 0.69 else 'public share %s' % sys.argv[1])" "$(public_share "$T/small.h5")" ||
  fail "the default secrets left less than 70% of a small-vocabulary corpus public"
expect 2 "label(s) have no public record.*'A | 1.0'.*--secret-count, --secret-quantile.*--allow-private-labels" -- \
  "$SECPE" import --input "$T/small.csv" --out "$T/all.h5" --secret-max-private-share 1
[ -e "$T/all.h5" ] && fail "a refused import wrote its dataset"
expect 0 "less than 90% public records (--min-public-share)" -- "$SECPE" import --input "$T/demo.csv" --out "$T/x.h5" --min-public-share 0.9
"$SECPE" import --input "$T/small.csv" --out "$T/all.h5" --secret-max-private-share 1 --allow-private-labels 2>/dev/null || fail "--allow-private-labels"
# The demo corpus keeps public reviews in every label at any size: a small one imports with its
# planted secrets, and with PII detection too, as it is.
"$SECPE" corpus --records 150 --out "$T/tiny.csv" 2>/dev/null || fail "tiny corpus"
for secrets in list pii,list; do
  out=$("$SECPE" import --input "$T/tiny.csv" --out "$T/tiny.h5" --secrets "$secrets" --secrets-file "$T/tiny.secrets.txt" 2>&1) ||
    fail "a 150-record demo corpus does not import with --secrets $secrets: $out"
  rm -f "$T/tiny.h5"
done

# ---- a run that cannot succeed fails before any work and leaves no secret behind ----
expect 2 "every record holds a secret.*secpe import --secret-count" -- "$SECPE" run --data "$T/all.h5" --out "$T/allrun" --quiet
[ -e "$T/allrun.state" ] || [ -e "$T/allrun" ] && fail "a run refused before any work left $(ls -d "$T"/allrun*)"
"$SECPE" corpus --records 300 --seed 9 --out "$T/heldout.csv" 2>/dev/null || fail "held-out corpus"
sed 's/Business Category: [^,]*/Business Category: Nowhere/' "$T/heldout.csv" > "$T/wrong-labels.csv"
expect 2 "match none of the dataset's values of label column 'label1' (the dataset: 'Arts & Entertainment', .*; the file: 'Nowhere')" -- \
  "$SECPE" run --data "$T/rw.h5" --out "$T/bad" --eval-real "$T/wrong-labels.csv" --quiet
[ -e "$T/bad.state" ] || [ -e "$T/bad" ] && fail "a run refused for its --eval-real file left $(ls -d "$T"/bad*)"

# A run that fails after drawing its noise key (here: a generator corpus without a text column,
# read with the models), before any release, deletes that key and its empty state folder.
printf 'review,label1,label2\nnice,Business Category: Bars,Review Stars: 5.0\n' > "$T/no-text.csv"
expect 2 "no-text.csv:1: the header has no column 'text'" -- "$SECPE" run --data "$T/rw.h5" --out "$T/late" --generator-corpus "$T/no-text.csv" --quiet
[ -e "$T/late.state/noise.key" ] && fail "a run that failed before any release left its noise key"
[ -e "$T/late.state" ] && fail "a run that failed before any release left its state folder: $(ls -A "$T/late.state")"

# ---- stopped, then resumed with a corrected --eval-real file; counts as inspect does ----
RUN=(run --data "$T/rw.h5" --seed 5 --iterations 10 --synthetic 300 --out "$T/long")
"$SECPE" "${RUN[@]}" --eval-real "$T/heldout.csv" --quiet 2> "$T/long.log" & pid=$!
for _ in $(seq 1 600); do [ -f "$T/long.state/progress.json" ] && break; sleep 0.05; done
kill -USR1 $pid
rc=0; wait $pid || rc=$?
[ $rc = 75 ] || { cat "$T/long.log" >&2; fail "SIGUSR1: exit code $rc, expected 75"; }
grep -q "with [0-9]* of [0-9]* labels finished; progress kept.*run the same command again with --resume.*Exit code 75" "$T/long.log" ||
  fail "the stop message does not count finished labels or name --resume: $(cat "$T/long.log")"
said=$(grep -o "with [0-9]* of" "$T/long.log" | grep -o "[0-9]*")
if [ -f "$T/long.state/checkpoint.json" ]; then
  shown=$("$SECPE" inspect "$T/long.state/checkpoint.json" | awk '/^finished/{print $2}')
  [ "$said" = "$shown" ] || fail "the stop message says $said labels finished, inspect says $shown"
fi
cp "$T/heldout.csv" "$T/heldout-fixed.csv"
"$SECPE" "${RUN[@]}" --eval-real "$T/heldout-fixed.csv" --resume --quiet 2> "$T/resume.log" || { cat "$T/resume.log" >&2; fail "--resume with a corrected --eval-real file"; }
grep -q '"population":"selected"' "$T/long/metrics.jsonl" || fail "the resumed run did not evaluate"
# A completed folder: a new run there is refused (before any work), --resume does nothing.
cp "$T/long/run.json" "$T/run.json.before"
expect 2 "holds a completed run (its run.json): give a new --out, or remove that folder" -- "$SECPE" "${RUN[@]}" --quiet
expect 0 "already holds the completed run.*nothing redone" -- "$SECPE" "${RUN[@]}" --resume
cmp -s "$T/long/run.json" "$T/run.json.before" || fail "--resume on a completed run rewrote it"

# ---- over budget: Aug-PE's record-level accounting leaves secrets over theirs: exit 4, outputs kept ----
rc=0; "$SECPE" run --data "$T/rw.h5" --out "$T/aug" --method augpe --seed 1 --iterations 1 --synthetic 40 --quiet 2> "$T/aug.log" || rc=$?
[ $rc = 4 ] || fail "augpe over budget: exit code $rc, expected 4"
grep -q "secret(s) get more than their budget.*Exit code 4; --allow-over-budget" "$T/aug.log" || fail "augpe over budget: $(cat "$T/aug.log")"
[ -f "$T/aug/run.json" ] || fail "augpe over budget: outputs not written"

# ---- labels round trip: plain CSV columns stay plain, JSON numbers stay as written ----
python3 - "$T/demo.csv" "$T/plain.csv" "$T/numbers.jsonl" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))[:600]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["review", "category", "stars"])
    for r in rows:
        w.writerow([r["text"], r["label1"].split(": ")[1], r["label2"].split(": ")[1]])
with open(sys.argv[3], "w") as f:
    for r in rows:  # stars as a JSON number written 5.0: json.dumps(5.0) == "5.0"
        f.write(json.dumps({"text": r["text"], "label1": r["label1"].split(": ")[1], "label2": float(r["label2"].split(": ")[1])}) + "\n")
PY
"$SECPE" import --input "$T/plain.csv" --text-column review --label-columns category,stars --out "$T/plain.h5" 2>/dev/null || fail "import plain"
"$SECPE" run --data "$T/plain.h5" --out "$T/plainrun" --seed 1 --iterations 1 --synthetic 40 --quiet 2>/dev/null || fail "run plain"
head -1 "$T/plainrun/synthetic.csv" | grep -qx "text,category,stars" || fail "plain: header $(head -1 "$T/plainrun/synthetic.csv")"
grep -q "Business Category: \|Review Stars: " "$T/plainrun/synthetic.csv" && fail "plain labels came back with Aug-PE's prefixes"
grep -q ",[1-5]\.0$" "$T/plainrun/synthetic.csv" || fail "plain: the stars did not come back as written"
"$SECPE" import --input "$T/numbers.jsonl" --out "$T/numbers.h5" 2>/dev/null || fail "import jsonl"
"$SECPE" run --data "$T/numbers.h5" --out "$T/numrun" --seed 1 --iterations 1 --synthetic 40 --quiet 2>/dev/null || fail "run jsonl"
grep -q ",[1-5]\.0$" "$T/numrun/synthetic.csv" || fail "jsonl: 5.0 did not come back as 5.0"
expect 0 "accuracy" -- "$SECPE" eval --synthetic "$T/numrun/synthetic.csv" --real "$T/numbers.jsonl" --threads 1
expect 2 "no value of .* occurs in .*wrong-labels.csv (.Nowhere.)" -- "$SECPE" eval --synthetic "$T/numrun/synthetic.csv" --real "$T/wrong-labels.csv" --label-columns label1 --format augpe-csv

# ---- progress and threads on the commands that compute ----
expect 0 "\[privacy: exact sigma per secret\] done" -- "$SECPE" privacy --simulate --records 2000 --secrets 40 --iterations 2 --threads 1
expect 0 "\[import: embed\] done" -- "$SECPE" import --input "$T/demo.csv" --out "$T/t.h5" --threads 1
echo "first_run: ok"
