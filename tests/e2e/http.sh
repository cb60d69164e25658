#!/usr/bin/env bash
# End to end over real HTTP on 127.0.0.1 against `secpe serve`: import with the HTTP embedder,
# run with the HTTP generator (Aug-PE-style Yelp prompts), byte-identical synthetic.csv at 1 and
# 2 ranks and with labels side by side or alone (also stopped between rounds and resumed), a
# rerun served from the private response cache with the server gone, and faults
# (429, 500, dropped connections, slow and truncated answers, connection refused): retries, then
# clear errors naming the URL and the status. The API key never appears in an output, the
# private state's other files, a log or an error message.
source "$(dirname "$0")/lib/preamble.sh"
source "$LIB/serve.sh"
export SECPE_E2E_KEY="sk-e2e-KEYVALUE-7f3a9c1d5e"

# start NAME ARGS...: a server on a free port (the OS picks it); sets PORT_NAME and PID_NAME.
start() {
  local name=$1; shift
  serve "$name" "$SECPE" serve --corpus "$T/public.csv" --dim 64 --api-key-env SECPE_E2E_KEY "$@"
  eval "PORT_$name=$PORT PID_$name=$PID"
}

source "$LIB/demo_scratch.sh" 600
# The server's generator learns from public texts: a separate public corpus (another seed).
"$SECPE" corpus --records 400 --seed 11 --secret-rate 0 --out "$T/public.csv" 2>/dev/null
start main
URL=http://127.0.0.1:$PORT_main/v1

# Import with the HTTP embedder: the dataset records the model, its dimension and the URL.
demo_import "$T/corpus.csv" "$T/demo.h5" \
  --embedder http --embedding-dim 64 --embed-url "$URL" --embed-model secpe-builtin --embed-api-key-env SECPE_E2E_KEY --concurrency 4 --embed-batch 16 \
  2>"$T/import.log" || fail "import with the HTTP embedder: $(cat "$T/import.log")"
"$SECPE" inspect "$T/demo.h5" | grep -q 'http(model=secpe-builtin, d=64)' || fail "the dataset does not record the HTTP embedder"
[ "$(stat -c %a "$T/demo.h5.state")" = 700 ] || fail "the import's private state folder is not 0700"
for f in "$T"/demo.h5.state/http-cache.*; do [ "$(stat -c %a "$f")" = 600 ] || fail "$f is not 0600"; done

# Run with the HTTP generator at 1 and 2 ranks: byte-identical outputs.
sed "s#\"dir\": \"../../../shared/data/yelp\"#\"dir\": \"$SHARED/data/yelp\"#" "$SRC/jobs/prompts/yelp.json" > "$T/yelp.json"
SETTINGS=(run --config "$INI" --data "$T/demo.h5" --noise-key-file "$T/noise.key" --noise-nonce 0123456789abcdef0123456789abcdef --seed 5
          --iterations 2 --synthetic 60 --generator http --gen-model secpe-builtin --prompts "$T/yelp.json" --gen-api-key-env SECPE_E2E_KEY
          --embed-api-key-env SECPE_E2E_KEY --http-backoff 0.02)
RUN=("${SETTINGS[@]}" --concurrency 8)
for np in 1 2; do
  mpirun -n $np --oversubscribe "$SECPE" "${RUN[@]}" --gen-url "$URL" --out "$T/out$np" 2>"$T/run$np.log" || fail "run at $np ranks: $(cat "$T/run$np.log")"
done
cmp "$T/out1/synthetic.csv" "$T/out2/synthetic.csv" || fail "synthetic.csv differs between 1 and 2 ranks over HTTP"
cmp "$T/out1/privacy.json" "$T/out2/privacy.json" || fail "privacy.json differs between 1 and 2 ranks over HTTP"
grep -q '"generator": "http(chat, model=secpe-builtin' "$T/out1/run.json" || fail "run.json does not name the HTTP generator"
[ "$(wc -l < "$T/out1/synthetic.csv")" -ge 61 ] || fail "too few synthetic texts"
grep -q 'http generate\|http embed' "$T/run1.log" || true

# Labels side by side (evolve/label_windows.hpp): at --concurrency 8 a round asks for several labels'
# texts together; at --concurrency 1 each label evolves alone; by label at 2 ranks each rank's labels
# go side by side. The outputs are the same.
grep -q "labels side by side in" "$T/run1.log" || fail "at --concurrency 8 no labels evolved side by side: $(cat "$T/run1.log")"
"$SECPE" "${SETTINGS[@]}" --concurrency 1 --gen-url "$URL" --out "$T/alone" 2>"$T/alone.log" || fail "run at --concurrency 1: $(cat "$T/alone.log")"
grep -q "labels side by side" "$T/alone.log" && fail "at --concurrency 1 labels evolved side by side"
mpirun -n 2 --oversubscribe "$SECPE" "${RUN[@]}" --shard-by label --gen-url "$URL" --out "$T/by-label" 2>"$T/by-label.log" ||
  fail "run by label at 2 ranks: $(cat "$T/by-label.log")"
# Stopped after the first round, its window's labels in progress (the request comes while the
# round waits for a slow server), then resumed: the same outputs.
start slowish --delay-ms 20
"$SECPE" "${RUN[@]}" --gen-url "http://127.0.0.1:$PORT_slowish/v1" --out "$T/stopped" 2>"$T/stopped.log" & pid=$!
for _ in $(seq 1 600); do grep -q "labels side by side" "$T/stopped.log" && break; sleep 0.05; done
kill -USR1 $pid
rc=0; wait $pid || rc=$?
[ $rc = 75 ] || fail "stopped mid-window: exit code $rc, expected 75: $(cat "$T/stopped.log")"
grep -q "stopped after a round of labels" "$T/stopped.log" || fail "the stop does not name the round's labels: $(cat "$T/stopped.log")"
[ -f "$T/stopped.state/progress.json" ] || fail "stopped mid-window: no progress.json holds the labels in progress"
"$SECPE" "${RUN[@]}" --gen-url "http://127.0.0.1:$PORT_slowish/v1" --out "$T/stopped" --resume 2>"$T/resumed.log" ||
  fail "resumed mid-window: $(cat "$T/resumed.log")"
for out in alone by-label stopped; do
  for f in synthetic.csv initial.csv; do cmp "$T/out1/$f" "$T/$out/$f" || fail "$out: $f differs from the run at 1 rank"; done
  # privacy.json names the generator's URL, whose port differs by server
  [ "$(sed 's/127.0.0.1:[0-9]*/SERVER/' "$T/out1/privacy.json")" = "$(sed 's/127.0.0.1:[0-9]*/SERVER/' "$T/$out/privacy.json")" ] ||
    fail "$out: privacy.json differs from the run at 1 rank"
done

# A rerun pays for nothing twice: with the server gone, everything comes from the private cache.
kill "$PID_main"; wait "$PID_main" 2>/dev/null
"$SECPE" "${RUN[@]}" --gen-url "$URL" --out "$T/again" --state-dir "$T/out1.state" 2>"$T/again.log" || fail "rerun from the cache: $(cat "$T/again.log")"
cmp "$T/out1/synthetic.csv" "$T/again/synthetic.csv" || fail "the cached rerun differs"

# Connection refused (the server is gone): retries, then a clear error naming the URL.
expect 2 "$URL/chat/completions: .*after 3 attempt" -- "$SECPE" "${RUN[@]}" --gen-url "$URL" --out "$T/refused" --http-retries 2
[ -e "$T/refused/synthetic.csv" ] && fail "a failed run left synthetic.csv"

# Faults a run survives: every 3rd request rate-limited, every 4th connection dropped.
start flaky --fail-every 3 --fail-status 429
start dropping --drop-every 4
for name in flaky dropping; do
  eval "port=\$PORT_$name"
  "$SECPE" "${RUN[@]}" --gen-url "http://127.0.0.1:$port/v1" --embed-url "http://127.0.0.1:$port/v1" --out "$T/$name" \
    2>"$T/$name.run.log" || fail "run against the $name server: $(cat "$T/$name.run.log")"
  grep -q "retrying in" "$T/$name.run.log" || fail "no retry logged against the $name server"
  cmp "$T/out1/synthetic.csv" "$T/$name/synthetic.csv" || fail "the $name server's run differs"
done
grep -q "HTTP 429" "$T/flaky.run.log" || fail "the 429 is not named"

# Embeddings computed outside secpe (here: the HTTP import's own, read back from its dataset),
# imported under their model's name: the run embeds its candidates at an endpoint serving that
# model (the rows are re-normalised at import, so the outputs need not equal the HTTP import's
# to the bit); without an endpoint it refuses, and another model is refused.
"$SECPE" import --input "$T/corpus.csv" --secrets list --secrets-file "$T/corpus.secrets.txt" --out "$T/imported.h5" \
  --embeddings "$T/demo.h5" --embeddings-model secpe-builtin 2>"$T/imported.log" \
  || fail "import of precomputed embeddings: $(cat "$T/imported.log")"
IMPORTED_RUN=("${RUN[@]/#$T\/demo.h5/$T/imported.h5}")
"$SECPE" "${IMPORTED_RUN[@]}" --gen-url "http://127.0.0.1:$PORT_flaky/v1" --embed-url "http://127.0.0.1:$PORT_flaky/v1" \
  --out "$T/imported" 2>"$T/imported.run.log" || fail "run on imported embeddings: $(cat "$T/imported.run.log")"
[ "$(wc -l < "$T/imported/synthetic.csv")" -ge 61 ] || fail "too few synthetic texts from imported embeddings"
grep -q '"embedder": "http(model=secpe-builtin, d=64)"' "$T/imported/run.json" || fail "run.json does not name the endpoint's embedder"
expect 2 "embeddings imported from model secpe-builtin; secpe run needs an embedding endpoint serving secpe-builtin" -- \
  "$SECPE" run --config "$INI" --data "$T/imported.h5" --noise-key-file "$T/noise.key" --out "$T/x"
expect 2 "imported from model 'secpe-builtin', not 'other'" -- "$SECPE" "${IMPORTED_RUN[@]}" \
  --gen-url "http://127.0.0.1:$PORT_flaky/v1" --embed-url "http://127.0.0.1:$PORT_flaky/v1" --embed-model other --out "$T/x"

# Faults that stop a run with a clear error: a server that always fails, a slow one (timeout),
# a truncated answer (invalid JSON), a wrong key, a model the dataset was not embedded with.
start failing --fail-every 1 --fail-status 500
start slow --delay-ms 3000
start truncating --truncate
F=(--out "$T/failed" --http-retries 1)
expect 2 "127.0.0.1:$PORT_failing/v1/chat/completions: HTTP 500 after 2 attempt(s)" -- "$SECPE" "${RUN[@]}" --gen-url "http://127.0.0.1:$PORT_failing/v1" "${F[@]}"
expect 2 "127.0.0.1:$PORT_slow/v1/chat/completions: .*[Tt]imeout.* after 2 attempt(s)" -- "$SECPE" "${RUN[@]}" --gen-url "http://127.0.0.1:$PORT_slow/v1" --http-timeout 0.5 "${F[@]}"
expect 2 "127.0.0.1:$PORT_truncating/v1/chat/completions: malformed completion response: not JSON" -- "$SECPE" "${RUN[@]}" --gen-url "http://127.0.0.1:$PORT_truncating/v1" "${F[@]}"
expect 2 "malformed embeddings response: not JSON" -- demo_import "$T/corpus.csv" "$T/trunc.h5" \
  --embedder http --embedding-dim 64 --embed-url "http://127.0.0.1:$PORT_truncating/v1" --embed-model secpe-builtin --embed-api-key-env SECPE_E2E_KEY
[ -e "$T/trunc.h5" ] && fail "a failed import left its dataset"
SECPE_E2E_KEY=wrong-key expect 2 "HTTP 401 after 1 attempt" -- "$SECPE" "${RUN[@]}" --gen-url "http://127.0.0.1:$PORT_flaky/v1" "${F[@]}"
SECPE_E2E_KEY= expect 2 "SECPE_E2E_KEY named for the API key is not set or empty" -- "$SECPE" "${RUN[@]}" --gen-url "http://127.0.0.1:$PORT_flaky/v1" "${F[@]}"
expect 2 "come from model 'secpe-builtin', not 'other'" -- "$SECPE" "${RUN[@]}" --gen-url "$URL" --embed-model other "${F[@]}"
# Credentials: one key per endpoint (the generator's never reaches the embedding endpoint, which
# here requires a key of its own), no shared option, no passwords in URLs.
GEN_ONLY=()
for ((i = 0; i < ${#RUN[@]}; ++i)); do
  if [ "${RUN[i]}" = --embed-api-key-env ]; then i=$((i + 1)); else GEN_ONLY+=("${RUN[i]}"); fi
done
start plain
expect 2 "127.0.0.1:$PORT_plain/v1/embeddings: HTTP 401 after 1 attempt" -- "$SECPE" "${GEN_ONLY[@]}" --gen-url "http://127.0.0.1:$PORT_plain/v1" \
  --embed-url "http://127.0.0.1:$PORT_plain/v1" "${F[@]}"
expect 2 "replaced by two options, one per endpoint: --gen-api-key-env NAME (generation) and --embed-api-key-env" -- \
  "$SECPE" "${RUN[@]}" --gen-url "$URL" --api-key-env SECPE_E2E_KEY "${F[@]}"
out=$("$SECPE" "${RUN[@]}" --gen-url "http://me:hunter2-secret@127.0.0.1:$PORT_flaky/v1" "${F[@]}" 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- "--gen-url: the API URL holds credentials" <<<"$out" || fail "a URL with a password was not refused: $out"
grep -q hunter2 <<<"$out" && fail "the refused URL's password was printed"
expect 2 "--embed-url: the API URL has a query" -- demo_import "$T/corpus.csv" "$T/q.h5" \
  --embedder http --embed-url "http://127.0.0.1:1/v1?key=x" --embed-model m
expect 2 "--temperature applies to --generator http only" -- "$SECPE" run --data "$T/demo.h5" --temperature 0.5 --out "$T/x"
expect 2 "--generator http needs --gen-model" -- "$SECPE" run --data "$T/demo.h5" --generator http --gen-url "$URL" --out "$T/x"
[ -e "$T/failed/synthetic.csv" ] && fail "a failed run left synthetic.csv"

# The key never appears anywhere: outputs, private state, logs, the errors above (expect printed
# nothing: its output is checked here again for the key by rerunning one failure).
out=$("$SECPE" "${RUN[@]}" --gen-url "http://127.0.0.1:$PORT_failing/v1" "${F[@]}" 2>&1)
grep -q "$SECPE_E2E_KEY" <<<"$out" && fail "the API key appears in an error message"
if grep -r -l -F "$SECPE_E2E_KEY" "$T" --exclude='*.port'; then fail "the API key appears in a file"; fi

# Default job: no server needed (the built-in generator and a hashing dataset).
demo_import "$T/corpus.csv" "$T/plain.h5" 2>/dev/null
"$SECPE" run --config "$INI" --data "$T/plain.h5" --noise-key-file "$T/noise.key" --iterations 1 --synthetic 20 --out "$T/plain" --quiet \
  || fail "the default job failed"
echo "http: ok"
