#!/usr/bin/env bash
# `secpe serve` under hostile load on 127.0.0.1 (tests/e2e/lib/serve_load.py): hundreds of idle
# connections reopened as fast as they are closed, slow clients sending a byte every 0.5 s,
# oversized batches, bad Content-Lengths, all at once for about 12 s while honest clients make
# embeddings and chat requests. The server stays up, every honest request is answered, the
# server's threads stay at its worker count plus one, and its peak RSS (VmHWM) stays within
# 128 MiB of what it held before the load. Then, with its descriptor table full (ulimit -n 64),
# it neither dies nor spins (under half a core while 100 connections wait), and serves again
# once they close.
source "$(dirname "$0")/lib/preamble.sh"
source "$LIB/serve.sh"
command -v python3 >/dev/null || { echo "serve_load: skipped (no python3)"; exit 0; }
export SECPE_LOAD_KEY="sk-load-$RANDOM$RANDOM"
LIMITS=(--workers 4 --max-connections 256 --request-timeout 2 --idle-timeout 1 --max-body-bytes 262144 --max-inputs 64
        --max-request-tokens 20000 --max-response-bytes 1048576)

"$SECPE" corpus --records 300 --seed 3 --secret-rate 0 --out "$T/public.csv" 2>/dev/null || fail "corpus"
# start NAME LAUNCHER...: a server with the limits above on a free port; sets PORT and PID.
start() {
  local name=$1; shift
  serve "$name" "$@" serve --corpus "$T/public.csv" --dim 64 --api-key-env SECPE_LOAD_KEY "${LIMITS[@]}"
}
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
honest_ok() {
  python3 - "$1" <<'PY'
import http.client, json, os, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
c.request("POST", "/v1/embeddings", json.dumps({"model": "secpe-builtin", "input": ["hello"]}),
          {"Authorization": "Bearer " + os.environ["SECPE_LOAD_KEY"], "Content-Type": "application/json"})
r = c.getresponse()
sys.exit(0 if r.status == 200 and len(json.loads(r.read())["data"]) == 1 else 1)
PY
}

start load "$SECPE"
honest_ok "$PORT" || fail "the server does not answer before the load"
before=$(rss_kib "$PID")
figures=$(python3 "$LIB/serve_load.py" "$PORT" "$PID" "$SECPE_LOAD_KEY") || fail "load: $figures; $(tail -5 "$T/load.log")"
echo "serve_load: $figures (RSS before the load: $before KiB)"
kill -0 "$PID" 2>/dev/null || fail "the server died under load: $(tail -5 "$T/load.log")"
honest_ok "$PORT" || fail "the server does not answer after the load"
python3 - "$figures" "$before" <<'PY' || fail "limits not held: $figures"
import json, sys
f, before = json.loads(sys.argv[1]), int(sys.argv[2])
assert f["most_threads"] <= 4 + 1 + 1, f"{f['most_threads']} threads"   # workers + the socket thread + main
assert f["hwm_kib"] - before <= 128 * 1024, f"peak RSS grew by {f['hwm_kib'] - before} KiB"
assert f["answers"].get("413", 0) > 0 and f["answers"].get("400", 0) > 0, "oversized batches or bad lengths were not refused"
assert f["honest_served"] >= 20, f"only {f['honest_served']} honest requests served"
PY

# A full descriptor table: accept fails with EMFILE; the server pauses accepting instead of
# spinning or starting work on a bad descriptor, and serves again when connections close.
start fds bash -c 'ulimit -n 64 && exec "$0" "$@"' "$SECPE"
python3 - "$PORT" "$PID" <<'PY' || fail "with its descriptor table full the server spun or died: $(tail -3 "$T/fds.log")"
import os, socket, sys, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
ticks = lambda: sum(int(x) for x in open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[11:13])
conns = []
for _ in range(100):
    s = socket.socket(); s.settimeout(2); s.connect(("127.0.0.1", port)); conns.append(s)
time.sleep(0.5)
t0 = ticks(); time.sleep(2); used = (ticks() - t0) / os.sysconf("SC_CLK_TCK")
print(f"serve_load: {used:.2f} s of CPU in 2 s with 100 connections against ulimit -n 64")
for s in conns: s.close()
sys.exit(0 if used < 1.0 else 1)
PY
sleep 1.5
honest_ok "$PORT" || fail "the server does not answer once the descriptors are free: $(tail -3 "$T/fds.log")"
grep -q "cannot accept a connection" "$T/fds.log" || fail "the full descriptor table was not logged"
echo "serve_load: ok"
