"""Hostile load on `secpe serve` over loopback, for tests/e2e/serve_load.sh (not a test itself).

    python3 serve_load.py PORT PID KEY

At once, for about 12 s: hundreds of idle connections, slow clients sending a byte at a time,
oversized batches, bad Content-Lengths, and a stream of honest clients (embeddings and chat
completions, retrying a 503 after its Retry-After as OpenAI's clients do). Prints one JSON line of
figures (honest requests served, answers by status, the server's threads and peak RSS from
/proc/PID/status) and exits 1 when an honest request went unanswered or the server died.
"""
import asyncio
import json
import sys
import time

PORT, PID, KEY = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
DURATION = 12.0
IDLE, SLOW, OVERSIZED, BAD_LENGTH, HONEST = 300, 40, 30, 30, 8


def proc_status():
    fields = {}
    with open(f"/proc/{PID}/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            fields[name] = value.strip()
    return {"threads": int(fields["Threads"]), "rss_kib": int(fields["VmRSS"].split()[0]), "hwm_kib": int(fields["VmHWM"].split()[0])}


def request(path, body):
    data = json.dumps(body).encode()
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {KEY}\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
    return head.encode() + data


async def read_answer(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = 0
    retry_after = 0.0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
        elif name.lower() == b"retry-after":
            retry_after = float(value)
    body = await reader.readexactly(length)
    return status, body, retry_after


statuses = {}


def count(status):
    statuses[status] = statuses.get(status, 0) + 1


async def hold_idle(stop):
    """A connection that sends nothing, opened again whenever the server closes it."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        while not stop.is_set():
            try:
                if await asyncio.wait_for(reader.read(1), 0.5) == b"":
                    break
            except asyncio.TimeoutError:
                continue
            except OSError:
                break
        writer.close()


async def slow_client(stop):
    """A request that never finishes: one byte every 0.5 s (the server's deadline is 2 s)."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
            data = request("/v1/embeddings", {"model": "secpe-builtin", "input": ["slow"]})
            for byte in data[:-1]:
                if stop.is_set() or reader.at_eof():
                    break
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(0.5)
            writer.close()
        except (OSError, asyncio.IncompleteReadError):
            await asyncio.sleep(0.1)


async def one_shot(stop, data):
    """Sends `data` on fresh connections again and again, counting the answers."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
            writer.write(data)
            await writer.drain()
            status, _, _ = await asyncio.wait_for(read_answer(reader), 10)
            count(status)
            writer.close()
        except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError):
            count("dropped")
        await asyncio.sleep(0.05)


served = []
failures = []


async def honest(stop, k):
    bodies = [("/v1/embeddings", {"model": "secpe-builtin", "input": [f"honest text {k} {i}" for i in range(8)]}),
              ("/v1/chat/completions", {"model": "secpe-builtin", "messages": [{"role": "user", "content": "a review"}], "max_tokens": 20, "seed": k})]
    n = 0
    while not stop.is_set():
        path, body = bodies[n % 2]
        n += 1
        start = time.monotonic()
        for attempt in range(20):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
                writer.write(request(path, body))
                await writer.drain()
                status, answer, retry_after = await asyncio.wait_for(read_answer(reader), 10)
                writer.close()
            except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError):
                status, retry_after = "dropped", 0.2
            if status == 200:
                json.loads(answer)
                served.append(time.monotonic() - start)
                break
            if status not in (503, "dropped"):
                failures.append(f"{path}: {status}")
                break
            await asyncio.sleep(retry_after)
        else:
            failures.append(f"{path}: no answer after 20 attempts")


async def main():
    stop = asyncio.Event()
    oversized = request("/v1/embeddings", {"model": "secpe-builtin", "input": ["x"] * 20000})
    too_many_tokens = request("/v1/embeddings", {"model": "secpe-builtin", "input": ["word " * 4000] * 8})
    bad_length = b"POST /v1/embeddings HTTP/1.1\r\nContent-Length: 2abc\r\n\r\n{}"
    tasks = [asyncio.create_task(hold_idle(stop)) for _ in range(IDLE)]
    tasks += [asyncio.create_task(slow_client(stop)) for _ in range(SLOW)]
    tasks += [asyncio.create_task(one_shot(stop, oversized)) for _ in range(OVERSIZED // 2)]
    tasks += [asyncio.create_task(one_shot(stop, too_many_tokens)) for _ in range(OVERSIZED // 2)]
    tasks += [asyncio.create_task(one_shot(stop, bad_length)) for _ in range(BAD_LENGTH)]
    tasks += [asyncio.create_task(honest(stop, k)) for k in range(HONEST)]
    most_threads = 0
    end = time.monotonic() + DURATION
    while time.monotonic() < end:
        await asyncio.sleep(0.5)
        most_threads = max(most_threads, proc_status()["threads"])
    stop.set()
    await asyncio.wait(tasks, timeout=15)
    figures = proc_status()
    figures.update({"most_threads": most_threads, "honest_served": len(served), "honest_failures": failures[:5],
                    "honest_worst_s": round(max(served, default=0), 3), "answers": {str(k): v for k, v in statuses.items()}})
    print(json.dumps(figures))
    return 0 if served and not failures else 1


sys.exit(asyncio.run(main()))
