"""Engine benchmark: the z/TPF MQ put/get path against baselines measured in the same run.

1. Durable pairs: persistent put + get of 2 KB messages, each in its own committed
   transaction (synchronous=FULL), through the engine (QueueHandle), against a bare
   SQLite WAL table doing the same insert / select / delete, and against
   persist-queue's SQLiteQueue (auto_commit). Rounds alternate the three so machine
   noise hits them alike; the median round counts.
   Targets: >= 0.7x the bare table, >= 1.0x persist-queue.
2. Bulk: `mqtool put Q --pattern xml --size 2048 --count 100000 --non-persistent`
   as a whole process (start-up included), acknowledgement lines to /dev/null.
   Target: >= 30,000 messages/s.
3. Compression overhead: persistent puts of 32 KB XML with COMPSIZE on, against the
   codec's own compress time plus the same puts with COMPSIZE 0. Target: <= 1.3x.
4. Memory: `mqtool get Q --all` of 1 GB of queued messages, payloads to /dev/null;
   the child's peak RSS (wait4). Target: < 200 MB.

Run:  python benchmarks/bench_engine.py [--quick] [--skip-memory] [--gigabytes 1]
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine import codecs
from mqtool.engine.payload import generate
from mqtool.engine.queue import QUEUE_CODEC, PutOptions, QueueHandle
from mqtool.session import Session
from mqtool.state import Store

MQTOOL = [sys.executable, "-m", "mqtool"]


def _fresh(parent: Path, name: str) -> Path:
    path = parent / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


# -- 1. durable pairs ----------------------------------------------------------------
def pairs_bare(folder: Path, payload: bytes, count: int) -> float:
    conn = sqlite3.connect(str(folder / "bare.db"), isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("CREATE TABLE q (id INTEGER PRIMARY KEY AUTOINCREMENT, queue TEXT NOT NULL, payload BLOB NOT NULL)")
    conn.execute("CREATE INDEX q_order ON q (queue, id)")
    started = time.perf_counter()
    for _ in range(count):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO q (queue, payload) VALUES (?, ?)", ("Q1", payload))
        conn.execute("COMMIT")
        conn.execute("BEGIN IMMEDIATE")
        row = conn.execute("SELECT id, payload FROM q WHERE queue = ? ORDER BY id LIMIT 1", ("Q1",)).fetchone()
        conn.execute("DELETE FROM q WHERE id = ?", (row[0],))
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - started
    conn.close()
    return elapsed


def pairs_persist_queue(folder: Path, payload: bytes, count: int) -> float:
    import persistqueue

    queue = persistqueue.SQLiteQueue(str(folder / "pq"), auto_commit=True, multithreading=False)
    started = time.perf_counter()
    for _ in range(count):
        queue.put(payload)
        queue.get()
    return time.perf_counter() - started


def _engine(folder: Path, definition: str) -> tuple[Store, Clock, QueueHandle]:
    clock = Clock()
    store = Store.open(folder)
    ensure_complex(store, clock.timestamp())
    outcome = Session(store, clock).execute(definition)
    if outcome.status != "ok":
        raise SystemExit("\n".join(outcome.lines))
    name = definition.split("QL-")[1].split()[0]
    handle = QueueHandle(store, clock, "TPF1", name)
    with store.transaction() as tx:
        handle.open(tx)
    return store, clock, handle


def pairs_engine(folder: Path, payload: bytes, count: int) -> float:
    store, _clock, handle = _engine(folder, "ZMQSC DEFINE QL-Q1 DEFPSIST-YES")
    options = PutOptions(persistent=True)
    started = time.perf_counter()
    for _ in range(count):
        handle.put_committed(payload, options)
        handle.get_committed()
    elapsed = time.perf_counter() - started
    store.close()
    return elapsed


def bench_pairs(work: Path, rounds: int, count: int) -> dict[str, float]:
    payload = generate("xml", 2048, 0, 0)
    runners: dict[str, Callable[[Path, bytes, int], float]] = {
        "bare sqlite": pairs_bare,
        "persist-queue": pairs_persist_queue,
        "mqtool engine": pairs_engine,
    }
    times: dict[str, list[float]] = {name: [] for name in runners}
    names = list(runners)
    for round_number in range(rounds):
        order = names[round_number % 3 :] + names[: round_number % 3]
        for name in order:
            folder = _fresh(work, f"pairs-{name.replace(' ', '-')}")
            times[name].append(runners[name](folder, payload, count))
    return {name: count / statistics.median(values) for name, values in times.items()}


# -- 2. bulk put through the CLI ------------------------------------------------------
def bench_bulk(work: Path, count: int) -> float:
    state = _fresh(work, "bulk")
    env = dict(os.environ, MQTOOL_STATE=str(state))
    env.pop("MQTOOL_CLOCK", None)
    subprocess.run([*MQTOOL, "cmd", "ZMQSC DEFINE QL-BULK"], env=env, check=True, stdout=subprocess.DEVNULL)
    args = ["put", "BULK", "--pattern", "xml", "--size", "2048", "--count", str(count), "--non-persistent"]
    started = time.perf_counter()
    subprocess.run([*MQTOOL, *args], env=env, check=True, stdout=subprocess.DEVNULL)
    return count / (time.perf_counter() - started)


# -- 3. compression overhead -----------------------------------------------------------
def _put_all(folder: Path, definition: str, payloads: list[bytes]) -> float:
    store, _clock, handle = _engine(folder, definition)
    options = PutOptions(persistent=True)
    started = time.perf_counter()
    for payload in payloads:
        with store.transaction() as tx:
            handle.put(tx, payload, options)
    elapsed = time.perf_counter() - started
    store.close()
    return elapsed


def bench_compression(work: Path, rounds: int, count: int) -> tuple[float, float, float]:
    payloads = [generate("xml", 32768, 0, index) for index in range(count)]
    on: list[float] = []
    off: list[float] = []
    codec: list[float] = []
    for _ in range(rounds):
        off.append(_put_all(_fresh(work, "comp-off"), "ZMQSC DEFINE QL-PLAIN COMPSIZE-0", payloads))
        on.append(_put_all(_fresh(work, "comp-on"), "ZMQSC DEFINE QL-PACKED COMPSIZE-16000", payloads))
        started = time.perf_counter()
        for payload in payloads:
            codecs.compress(QUEUE_CODEC, payload)
        codec.append(time.perf_counter() - started)
    return statistics.median(on), statistics.median(off), statistics.median(codec)


# -- 4. memory of get --all ------------------------------------------------------------
def bench_memory(work: Path, gigabytes: float) -> tuple[int, float, int]:
    state = _fresh(work, "memory")
    env = dict(os.environ, MQTOOL_STATE=str(state))
    env.pop("MQTOOL_CLOCK", None)
    subprocess.run(
        [*MQTOOL, "cmd", "ZMQSC DEFINE QL-BIG MAXMSGL-4194304"], env=env, check=True, stdout=subprocess.DEVNULL
    )
    size = 1 << 20
    count = int(gigabytes * (1 << 30)) // size
    # Random payloads do not compress, so the store really holds the bytes.
    args = ["put", "BIG", "--pattern", "random", "--size", str(size), "--count", str(count), "--non-persistent", "-q"]
    subprocess.run([*MQTOOL, *args], env=env, check=True, stdout=subprocess.DEVNULL)
    started = time.perf_counter()
    child = subprocess.Popen([*MQTOOL, "get", "BIG", "--all", "-q"], env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("mqtool get --all failed")
    peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    return peak, elapsed, count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="Smaller counts (a smoke run, not a measurement).")
    parser.add_argument("--skip-memory", action="store_true", help="Skip the 1 GB get --all measurement.")
    parser.add_argument("--gigabytes", type=float, default=1.0, help="Queued data for the memory measurement.")
    options = parser.parse_args()
    quick = options.quick
    failed = False
    with tempfile.TemporaryDirectory(prefix="mqtool-bench-") as temp:
        work = Path(temp)

        rates = bench_pairs(work, rounds=3 if quick else 7, count=300 if quick else 2000)
        engine = rates["mqtool engine"]
        print("1. durable put+get pairs of 2 KB messages (median of rounds)")
        for name, rate in rates.items():
            print(f"   {name:<15} {rate:9.0f} pairs/s")
        for name, target in (("bare sqlite", 0.7), ("persist-queue", 1.0)):
            ratio = engine / rates[name]
            ok = ratio >= target
            failed |= not ok
            print(f"   engine / {name:<15} {ratio:5.2f}x  (target >= {target}x) {'ok' if ok else 'MISSED'}")

        count = 10_000 if quick else 100_000
        bulk = bench_bulk(work, count)
        ok = bulk >= 30_000
        failed |= not ok and not quick
        print(f"2. bulk non-persistent put, {count} x 2 KB, whole process: {bulk:9.0f} msg/s "
              f"(target >= 30000) {'ok' if ok else 'MISSED'}")  # fmt: skip

        on, off, codec = bench_compression(work, rounds=3, count=50 if quick else 300)
        ratio = on / (codec + off)
        ok = ratio <= 1.3
        failed |= not ok
        print("3. persistent puts of 32 KB XML")
        print(
            f"   COMPSIZE 0 {off * 1e3:8.1f} ms, codec alone {codec * 1e3:8.1f} ms, COMPSIZE 16000 {on * 1e3:8.1f} ms"
        )
        print(f"   overhead {ratio:5.2f}x of codec + plain put (target <= 1.3x) {'ok' if ok else 'MISSED'}")

        if not options.skip_memory:
            gigabytes = 0.1 if quick else options.gigabytes
            peak, elapsed, messages = bench_memory(work, gigabytes)
            ok = peak < 200 * (1 << 20)
            failed |= not ok
            print(f"4. get --all of {messages} x 1 MB ({gigabytes:g} GB): {elapsed:6.1f} s, "
                  f"peak RSS {peak / (1 << 20):6.1f} MB (target < 200 MB) {'ok' if ok else 'MISSED'}")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
