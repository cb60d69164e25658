# Makes a privacy ledger folder of K runs from a folder holding one recorded run: that run's line
# repeated with fresh release ids and nonces, MACed as evolve/dataset_ledger.cpp does (BLAKE2b-256
# keyed by ledger.key over the purpose's length, 8 bytes little-endian, the purpose, the JSON).
# A measuring aid: the ledger folder is private, and this reads its key.
# usage: make_ledger.py SRC_LEDGER_DIR DST_DIR K
import hashlib, json, os, sys, shutil
src, dst, K = sys.argv[1], sys.argv[2], int(sys.argv[3])
key = bytes.fromhex(open(os.path.join(src, 'ledger.key')).read().strip())
P = b'secpe dataset ledger v1'
def mac(data):
    h = hashlib.blake2b(digest_size=32, key=key)
    h.update(len(P).to_bytes(8, 'little')); h.update(P); h.update(data.encode())
    return h.hexdigest()
line = open(os.path.join(src, 'ledger.jsonl')).readline().rstrip('\n')
body = json.loads(line.split(' ', 1)[1])
run_text = line.split(' ', 1)[1]
# keep the run's JSON text byte for byte apart from the fields changed (doubles as written)
i = run_text.index('"run":') + len('"run":')
run_json = run_text[i:-1]
os.makedirs(dst, mode=0o700, exist_ok=True)
shutil.copy(os.path.join(src, 'ledger.key'), dst); os.chmod(os.path.join(dst, 'ledger.key'), 0o600)
open(os.path.join(dst, 'ledger.lock'), 'w').close()
prev = 'none'; out = []
for k in range(1, K + 1):
    rel = hashlib.sha256(b'fake release %d' % k).hexdigest()
    nonce = hashlib.sha256(b'fake nonce %d' % k).hexdigest()[:32]
    rj = run_json.replace(body['run']['release'], rel, 1).replace(body['run']['nonce'], nonce, 1)
    js = '{"number":%d,"previous":"%s","run":%s}' % (k, prev, rj)
    m = mac(js); out.append(m + ' ' + js); prev = m
with open(os.path.join(dst, 'ledger.jsonl'), 'w') as f:
    for l in out: f.write(l + '\n')
head = '{"lines":%d,"last":"%s"}' % (K, prev)
with open(os.path.join(dst, 'ledger.head'), 'w') as f: f.write(mac(head) + ' ' + head + '\n')
for n in ('ledger.jsonl', 'ledger.head'): os.chmod(os.path.join(dst, n), 0o600)
