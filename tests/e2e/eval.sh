#!/usr/bin/env bash
# secpe eval on small generated corpora (two seeds of `secpe corpus`): the report's fields, a set
# against itself (FID 0, precision and recall 1), the same figures at 1 and 2 ranks, and bad
# input (exit code 2, the file or option named, no output left behind).
source "$(dirname "$0")/lib/preamble.sh"

"$SECPE" corpus --records 600 --seed 1 --out "$T/s.csv" 2>/dev/null || fail "corpus 1"
"$SECPE" corpus --records 900 --seed 2 --out "$T/r.csv" 2>/dev/null || fail "corpus 2"

"$SECPE" eval --synthetic "$T/s.csv" --real "$T/r.csv" --out "$T/e1.json" --features tfidf,embeddings \
  --chunk-records 64 --sample 300 --next-word > "$T/e1.txt" 2>"$T/e1.log" || fail "eval: $(cat "$T/e1.log")"
grep -q "label1:  tfidf .* embeddings .* majority .Restaurants." "$T/e1.txt" || fail "summary: $(cat "$T/e1.txt")"
grep -q "eval: real set" "$T/e1.log" || fail "no progress on stderr"
python3 - "$T/e1.json" <<'PY' || fail "report fields"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["synthetic"]["records"] == 600 and j["real"]["records"] == 900, j["synthetic"]
assert j["seed"] == 1 and j["embedder"].startswith("hashing")
for col in ("label1", "label2"):
    c = j["classification"][col]
    assert c["majority"]["class"] in c["classes"]
    for f in ("tfidf", "embeddings"):
        s = c[f]
        assert 0 <= s["accuracy"] <= 1 and 0 <= s["macro_f1"] <= 1 and s["records"] == 900 and s["features"] > 0, s
        # Per class, in the order of "classes": its real records, predictions and correct ones.
        pc = s["per_class"]
        assert [p["class"] for p in pc] == c["classes"], pc
        assert sum(p["predicted"] for p in pc) == 900 and sum(p["real"] for p in pc) <= 900, pc
        assert abs(sum(p["correct"] for p in pc) / 900 - s["accuracy"]) < 1e-12, pc
        assert all(p["recall"] is None if p["real"] == 0 else p["recall"] == p["correct"] / p["real"] for p in pc), pc
    # Same generator, different seeds: the classifier beats always answering the majority class.
    assert c["tfidf"]["accuracy"] > c["majority"]["accuracy"], (col, c)
assert "Restaurants" in j["classification"]["label1"]["classes"]  # Aug-PE prefixes stripped
assert j["fid"] > 0
k = j["knn"]
assert k["k"] == 3 and k["synthetic"] == k["real"] == 300 and 0 < k["precision"] <= 1 and 0 < k["recall"] <= 1, k
L = j["length_words"]
assert L["synthetic"]["texts"] == 600 and L["real"]["texts"] == 900 and L["wasserstein1"] >= 0
assert set(L["synthetic"]["quantiles"]) == {"p0", "p5", "p25", "p50", "p75", "p95", "p100"}
d = j["diversity"]
assert d["synthetic"]["texts"] == 600 and 0 < d["synthetic"]["distinct_1"] < d["synthetic"]["distinct_2"] <= 1
assert 0 <= d["synthetic"]["near_duplicate_rate"] <= 1 and d["real_sample"]["texts"] == 300
m = j["mauve"]
assert m["clusters"] == 30 and 0 < m["score"] <= 1, m
n = j["next_word"]  # asked for (--next-word): the real sample's 300 texts
assert n["real_texts"] == 300 and 0 < n["accuracy"] < 1 and n["loss_nats"] > 0 and n["perplexity"] > 1, n
assert 0 < n["out_of_vocabulary"] < n["real_words"] and n["vocabulary"] > 0, n
assert j["run"]["ranks"] == 1 and j["run"]["seconds"]["total"] > 0
PY
grep -q "MAUVE 0\.[0-9]* (30 clusters)" "$T/e1.txt" && grep -q "^next word (a trigram model" "$T/e1.txt" || fail "summary: $(cat "$T/e1.txt")"

# Rank-count independence: every figure but "run" (ranks, timings) is identical.
mpirun -n 2 --oversubscribe "$SECPE" eval --synthetic "$T/s.csv" --real "$T/r.csv" --out "$T/e2.json" \
  --features tfidf,embeddings --chunk-records 64 --sample 300 --next-word --quiet > /dev/null || fail "eval at 2 ranks"
python3 - "$T/e1.json" "$T/e2.json" <<'PY' || fail "1 and 2 ranks differ"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert b["run"]["ranks"] == 2
a.pop("run"); b.pop("run")
assert a == b, [k for k in a if a[k] != b[k]]
PY

# A set against itself: perfect classifiers, FID 0, precision and recall 1, no length distance.
"$SECPE" eval --synthetic "$T/r.csv" --real "$T/r.csv" --out "$T/self.json" --quiet > /dev/null || fail "self eval"
python3 - "$T/self.json" <<'PY' || fail "self eval figures"
import json, sys
j = json.load(open(sys.argv[1]))
assert abs(j["fid"]) < 1e-9 and j["knn"]["precision"] == 1 and j["knn"]["recall"] == 1, (j["fid"], j["knn"])
assert j["length_words"]["wasserstein1"] == 0
assert abs(j["mauve"]["score"] - 1) < 1e-9, j["mauve"]
assert j["next_word"] is None  # a labelled corpus: only on request
PY

# A real value the synthetic set lacks is counted (and scored as an error), not refused.
python3 - "$T/r.csv" "$T/zoo.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
for r in rows[1:51]: r[1] = "Business Category: Zoo"
csv.writer(open(sys.argv[2], "w", newline=""), lineterminator="\n").writerows(rows)
PY
"$SECPE" eval --synthetic "$T/s.csv" --real "$T/zoo.csv" --out "$T/zoo.json" --quiet > "$T/zoo.txt" || fail "eval with an unseen value"
python3 -c "import json; c=json.load(open('$T/zoo.json'))['classification']['label1']; assert c['real_records_unseen']==50 and c['real_values_unseen']==['Zoo'], c" || fail "unseen value count"
grep -q "50 real records hold one of 1 values the synthetic set lacks" "$T/zoo.txt" || fail "unseen values not in the summary"

# Bad input: exit code 2, the option or file named, no report written.
printf 'text,label1,label2\n' > "$T/empty.csv"
: > "$T/zero.csv"
printf 'text,stars\nnice place,5\n' > "$T/nocommon.csv"
printf 'text,label1,label2\nnice place,Business Category: Nowhere,Review Stars: 9.0\n' > "$T/nooverlap.csv"
printf 'text,label1,label2\nok,A,B\n"unterminated,A,B\n' > "$T/bad.csv"
expect 2 "--real FILE (.csv or .jsonl) is required" -- "$SECPE" eval --synthetic "$T/s.csv"
expect 2 "--synthetic: cannot read '$T/nope.csv'" -- "$SECPE" eval --synthetic "$T/nope.csv" --real "$T/r.csv"
expect 2 "$T/empty.csv: no records" -- "$SECPE" eval --synthetic "$T/empty.csv" --real "$T/r.csv" --out "$T/x.json"
expect 2 "$T/empty.csv: no records" -- "$SECPE" eval --synthetic "$T/s.csv" --real "$T/empty.csv" --out "$T/x.json"
expect 2 "$T/zero.csv: empty file (no header row)" -- "$SECPE" eval --synthetic "$T/s.csv" --real "$T/zero.csv" --out "$T/x.json"
expect 2 "no label column common to --synthetic $T/s.csv and --real $T/nocommon.csv" -- "$SECPE" eval --synthetic "$T/s.csv" --real "$T/nocommon.csv"
expect 2 "$T/s.csv:1: the header has no column 'stars'" -- "$SECPE" eval --synthetic "$T/s.csv" --real "$T/nocommon.csv" --label-columns stars
expect 2 "$T/nocommon.csv:1: the header has no column 'label1'" -- "$SECPE" eval --synthetic "$T/s.csv" --real "$T/nocommon.csv" --label-columns label1
expect 2 "label column 'label1': no value of $T/s.csv ('Arts & Entertainment', .*) occurs in $T/nooverlap.csv ('Nowhere')" -- "$SECPE" eval --synthetic "$T/s.csv" --real "$T/nooverlap.csv" --out "$T/x.json"
expect 2 "$T/bad.csv:3: unterminated quoted field" -- "$SECPE" eval --synthetic "$T/s.csv" --real "$T/bad.csv" --out "$T/x.json"
expect 2 "--features: classifier features must be tfidf or embeddings, not 'words'" -- "$SECPE" eval --synthetic "$T/s.csv" --real "$T/r.csv" --features words
expect 2 "--knn must be at least 1" -- "$SECPE" eval --synthetic "$T/s.csv" --real "$T/r.csv" --knn 0
expect 2 "unknown compute kernel 'fast'" -- "$SECPE" eval --synthetic "$T/s.csv" --real "$T/r.csv" --kernel fast
expect 2 "$T/bad.csv:3:" -- mpirun -n 2 --oversubscribe "$SECPE" eval --synthetic "$T/s.csv" --real "$T/bad.csv" --out "$T/x.json" --chunk-records 1
[ -e "$T/x.json" ] && fail "a failed eval left a report behind"
ls "$T" | grep -q '\.tmp\.' && fail "temporary file left behind"
echo "eval: ok"
