#!/usr/bin/env bash
# Bad command lines and bad files give a clear message and exit code 2, never a crash, and leave
# no output behind.
source "$(dirname "$0")/lib/preamble.sh"
expect 0 "commands:" -- "$SECPE" --help
expect 2 "unknown command 'frobnicate'" -- "$SECPE" frobnicate
expect 0 "private-batch.*(=1000)" -- "$SECPE" run --help
expect 0 "--secret-quantile.*(=0.2)" -- "$SECPE" import --help
expect 2 "unrecognised option '--bogus'" -- "$SECPE" run --bogus 1
expect 2 "--iterations" -- "$SECPE" run --iterations abc
expect 2 "cannot read 'nope.h5'" -- "$SECPE" run --data nope.h5
expect 2 "cannot read 'missing.ini'" -- "$SECPE" run --config missing.ini
printf '[run]\niterations = 2\nbogus-key = 1\n' > "$T/bad.ini"
expect 2 "bad.ini:3:" -- "$SECPE" run --config "$T/bad.ini"
printf '[rnu]\niterations = 2\n' > "$T/section.ini"
expect 2 "section.ini:1: unknown section \[rnu\]" -- "$SECPE" run --config "$T/section.ini"
printf 'text,text,label1,label2\na,b,c,d\n' > "$T/dup.csv"
expect 2 "dup.csv:1: the header names column 'text' twice" -- "$SECPE" import --input "$T/dup.csv" --out "$T/dup.h5"
printf '[run]\nquiet = maybe\n' > "$T/switch.ini"
expect 2 "switch.ini:2: 'quiet' takes true or false" -- "$SECPE" run --config "$T/switch.ini"
printf 'text,label1,label2\n"unterminated,Business Category: Bars,Review Stars: 5.0\n' > "$T/bad.csv"
expect 2 "bad.csv:2: " -- "$SECPE" import --input "$T/bad.csv" --out "$T/bad.h5"
[ -e "$T/bad.h5" ] && fail "import left an output behind after an error"
ls "$T" | grep -q '\.tmp\.' && fail "temporary file left behind"
expect 2 "--format must be" -- "$SECPE" import --input "$T/bad.csv" --format xml --out "$T/x.h5"
expect 2 "--records must be in \[1, 1000000000\], not 0" -- "$SECPE" corpus --records 0 --out "$T/c.csv"
expect 2 "not a secpe dataset" -- "$SECPE" inspect "$T/bad.csv"
"$SECPE" corpus --records 200 --out "$T/c.csv" 2>/dev/null || fail "corpus"
"$SECPE" import --input "$T/c.csv" --out "$T/c.h5" --secret-count 20 2>/dev/null || fail "import"
# An existing dataset or corpus is never replaced unasked: a second import, corpus or
# synth-embeddings to the same file is refused before any work (here before reading a missing
# --input), naming the option and the file, and leaves the file byte for byte; --force replaces it.
cp "$T/c.h5" "$T/c.h5.first"
expect 2 "--out: '$T/c.h5' exists: .*--force" -- "$SECPE" import --input "$T/c.csv" --out "$T/c.h5" --embedding-dim 16
expect 2 "--out: '$T/c.h5' exists" -- "$SECPE" import --input "$T/missing.csv" --out "$T/c.h5"
cmp -s "$T/c.h5" "$T/c.h5.first" || fail "a refused import changed the existing dataset"
ls "$T" | grep -q '\.tmp\.' && fail "a refused import left a temporary file"
expect 0 "wrote $T/c.h5" -- "$SECPE" import --input "$T/c.csv" --out "$T/c.h5" --embedding-dim 16 --force
"$SECPE" inspect "$T/c.h5" | grep -q "embedding_dim = 16" || fail "import --force did not replace the dataset"
# SOURCE_DATE_EPOCH fixes the creation time the dataset records, its only time: the same input
# then imports to the same bytes (a run's noise is keyed by them).
expect 2 "SOURCE_DATE_EPOCH must be a count of seconds, not 'soon'" -- env SOURCE_DATE_EPOCH=soon "$SECPE" import --input "$T/c.csv" --out "$T/e.h5"
[ -e "$T/e.h5" ] && fail "a refused import left a dataset"
for i in 1 2; do
  SOURCE_DATE_EPOCH=1700000000 "$SECPE" import --input "$T/c.csv" --out "$T/same$i.h5" --secret-count 20 >/dev/null 2>&1 || fail "import same$i"
  sleep 1
done
cmp -s "$T/same1.h5" "$T/same2.h5" || fail "two imports of one input with one SOURCE_DATE_EPOCH differ"
"$SECPE" inspect "$T/same1.h5" | grep -q "created_utc = 2023-11-14T22:13:20Z" || fail "SOURCE_DATE_EPOCH not recorded as created_utc"
cp "$T/c.csv" "$T/c.csv.first"
expect 2 "--out: '$T/c.csv' exists: .*--force" -- "$SECPE" corpus --records 100 --out "$T/c.csv"
expect 2 "--secrets-out: '$T/c.secrets.txt' exists" -- "$SECPE" corpus --records 100 --out "$T/c2.csv" --secrets-out "$T/c.secrets.txt"
[ -e "$T/c2.csv" ] && fail "a refused corpus wrote its --out"
cmp -s "$T/c.csv" "$T/c.csv.first" || fail "a refused corpus changed the existing one"
"$SECPE" corpus --records 200 --out "$T/c.csv" --force 2>/dev/null || fail "corpus --force"
cmp -s "$T/c.csv" "$T/c.csv.first" || fail "corpus --force: not the same corpus for the same options"
"$SECPE" synth-embeddings --records 20 --dim 4 --labels 2 --secrets 3 --out "$T/s.h5" 2>/dev/null || fail "synth-embeddings"
expect 2 "--out: '$T/s.h5' exists: .*--force" -- "$SECPE" synth-embeddings --records 20 --dim 4 --labels 2 --secrets 3 --out "$T/s.h5"
expect 0 "wrote $T/s.h5" -- "$SECPE" synth-embeddings --records 30 --dim 4 --labels 2 --secrets 3 --out "$T/s.h5" --force
"$SECPE" inspect "$T/s.h5" | grep -Eq "records +30 \(" || fail "synth-embeddings --force did not replace the dataset: $("$SECPE" inspect "$T/s.h5")"
expect 2 "--r (or p \* --r-over-p) must be in (p, 1)" -- "$SECPE" run --data "$T/c.h5" --r-over-p 0.5 --out "$T/o"
expect 2 "--method must be secpe, augpe or random" -- "$SECPE" run --data "$T/c.h5" --method foo --out "$T/o"
[ -e "$T/o" ] && fail "a failed run left an output folder"
# The OpenBLAS core check runs its self-test and says which core runs; an unexpected core fails.
expect 0 "self-test      pass" -- "$SECPE" blas-check
expect 3 "self-test      not run" -- "$SECPE" blas-check --expect-core NoSuchCore
# auto's screen: measured tiers (SCREEN:MIN_CENTRES,...), then the narrow screens' speeds
# (;SCREEN=SPEEDUP,...) on stdout, which blas-check reads back; a bad SECPE_BLAS_SCREEN_AUTO is named.
screen=$("$SECPE" blas-check --choose-screen 2>/dev/null)
echo "$screen" | grep -Eq '^[a-z0-9-]+:[0-9]+(,[a-z0-9-]+:[0-9]+)*(;[a-z0-9]+=[0-9.]+(,[a-z0-9]+=[0-9.]+)*)?$' || fail "blas-check --choose-screen: $screen"
SECPE_BLAS_SCREEN_AUTO=$screen expect 0 "self-test      pass" -- "$SECPE" blas-check
SECPE_BLAS_SCREEN_AUTO=int8 expect 2 "SECPE_BLAS_SCREEN_AUTO: 'int8'" -- "$SECPE" blas-check
echo "cli_errors: ok"
