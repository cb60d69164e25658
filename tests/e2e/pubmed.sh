#!/usr/bin/env bash
# An unlabelled corpus is first class (issue 40, item 1), on real PubMed abstracts (text only) from
# ../shared, cut to 800 + 200 for time: a text-only CSV imports by itself and says so; a header with
# other columns but no label column is refused, naming its columns and --label-columns; inspect
# lists the random words chosen as secrets on request (--secrets) and refuses --secrets elsewhere;
# a 2-rank run with --eval-real gives label-blind figures per iteration (the held-out file named,
# not its path) with next-word prediction; a run stopped by SIGUSR1 resumes with --resume and the same options; inspect of
# the output and secpe eval work. Skipped without ../shared.
source "$(dirname "$0")/lib/preamble.sh"
set -e  # setup and runs are not checked one by one: any that fails ends the test
TRAIN=$SHARED/data/pubmed/train.csv DEV=$SHARED/data/pubmed/dev.csv
if [ ! -f "$TRAIN" ]; then echo "pubmed: SKIPPED: $TRAIN not found (the shared folder is not beside the checkout)"; exit 77; fi
at_exit 'pkill -9 -f "^$SECPE run.*$T/" 2>/dev/null'  # this test's runs only, should one outlive it
cd "$T"
python3 - "$TRAIN" "$DEV" <<'PY'
import csv, sys
for src, out, n in ((sys.argv[1], 'train.csv', 800), (sys.argv[2], 'dev.csv', 200)):
    rows = list(csv.reader(open(src, newline='')))
    assert rows[0] == ['text'], rows[0]
    csv.writer(open(out, 'w', newline='')).writerows(rows[:n + 1])
PY

"$SECPE" import --input train.csv --out p.h5 2> import.err || fail "import of a text-only CSV: $(cat import.err)"
grep -q "holds the text column 'text' alone: imported as one unlabelled corpus" import.err || fail "import did not say what it did: $(cat import.err)"
printf 'text,topic\nsome words here,x\n' > other.csv
rc=0; out=$("$SECPE" import --input other.csv --out other.h5 2>&1) || rc=$?
[ $rc = 2 ] && grep -q "its columns are 'text', 'topic': name the label columns with --label-columns" <<<"$out" ||
  fail "a header without label columns: exit $rc: $out"
[ -e other.h5 ] && fail "a refused import left other.h5"

"$SECPE" inspect p.h5 > inspect.txt || fail "inspect of the dataset"
grep -q '^labels       1 (columns:)' inspect.txt || fail "inspect: $(head -5 inspect.txt)"
grep -q RANDOM_WORD inspect.txt || fail "inspect: no secret category"
"$SECPE" inspect p.h5 --secrets > secrets.txt || fail "inspect --secrets"
grep -q "PRIVATE: never publish this listing" secrets.txt || fail "inspect --secrets: no PRIVATE banner"
[ "$(grep -c ' RANDOM_WORD ' secrets.txt)" = 100 ] || fail "inspect --secrets: expected the 100 random-word secrets: $(tail -3 secrets.txt)"
grep -q -- "--secrets lists a dataset's secrets" <("$SECPE" inspect . --secrets 2>&1) || fail "inspect --secrets of a folder was not refused"

"$SECPE" keygen --out noise.key >/dev/null 2>&1
RUN=(mpirun -n 2 --oversubscribe "$SECPE" run --data "$T/p.h5" --seed 4 --synthetic 100 --eval-real dev.csv --noise-key-file noise.key
     --noise-nonce 00000000000000000000000000000009)
"${RUN[@]}" --iterations 2 --out "$T/o" 2> run.err || fail "run with --eval-real: $(tail -3 run.err)"
grep -q "label 0 ()" run.err && fail "progress names an unlabelled corpus 'label 0 ()'"
python3 - o/metrics.jsonl <<'PY' || fail "--eval-real on an unlabelled corpus"
import json, sys
evals = [l['eval'] for l in map(json.loads, open(sys.argv[1])) if 'eval' in l]
assert len(evals) == 3, len(evals)
for e in evals:
    assert e['classification'] == {} and e['fid'] > 0 and 0 <= e['knn']['precision'] <= 1, e
    assert e['real']['file'] == 'dev.csv' and e['real']['records'] == 200, e['real']
    n = e['next_word']
    assert n['real_texts'] == 200 and n['real_words'] > 10000 and 0 < n['accuracy'] < 1 and n['perplexity'] > 1, n
PY
"$SECPE" inspect o > out.txt || fail "inspect of the output: $(cat out.txt)"
grep -q '^synthetic    100 texts in 1 labels' out.txt || fail "inspect of the output: $(tail -4 out.txt)"
"$SECPE" eval --synthetic o/synthetic.csv --real dev.csv > eval.txt 2>&1 || fail "secpe eval: $(tail -3 eval.txt)"
grep -q "downstream: none (no label column to classify" eval.txt && grep -q "^FID " eval.txt || fail "secpe eval: $(cat eval.txt)"
grep -q "^next word (a trigram model of the synthetic texts, on [0-9]* real words): accuracy " eval.txt || fail "secpe eval: no next-word line: $(cat eval.txt)"
# The ceiling: the same model trained on real abstracts predicts better than on 100 synthetic ones.
"$SECPE" eval --synthetic train.csv --real dev.csv --out ceiling.json > /dev/null 2>&1 || fail "secpe eval of the real training texts"
"$SECPE" eval --synthetic o/synthetic.csv --real dev.csv --out synthetic.json > /dev/null 2>&1
python3 - ceiling.json synthetic.json <<'PY' || fail "next-word: real training texts are not above synthetic ones"
import json, sys
c, s = (json.load(open(f))['next_word'] for f in sys.argv[1:])
assert c['accuracy'] > s['accuracy'] and c['loss_nats'] < s['loss_nats'], (c, s)
PY

# Stopped by SIGUSR1 after an iteration, resumed: the evaluation of every iteration comes out.
"${RUN[@]}" --iterations 40 --out "$T/s" 2> stop.err & pid=$!
for _ in $(seq 1 600); do [ -f s.state/progress.json ] && break; sleep 0.05; done
kill -USR1 $pid
rc=0; wait $pid || rc=$?
[ $rc = 75 ] || fail "SIGUSR1: exit code $rc, expected 75: $(tail -3 stop.err)"
"${RUN[@]}" --iterations 40 --out "$T/s" --resume 2> resume.err || fail "--resume: $(tail -3 resume.err)"
[ "$(grep -c '"population"' s/metrics.jsonl)" = 41 ] || fail "--resume: expected 41 evaluations in metrics.jsonl"
echo "pubmed: ok"
