"""Publish/subscribe benchmark: a publication to 10 subscribers against one put, measured
in the same run on the z/OS engine. Each side commits every message on its own
(persistent, synchronous=FULL), as `mqtool put --persistent` does, through the same
put stream: one side puts 2 KB messages to a local queue, the other publishes them on a
topic string with 10 durable subscriptions (10 copies, the savepoint, the figures of
DISPLAY TPSTATUS and SBSTATUS, all in the publication's transaction). Rounds alternate
the sides; the median ratio of the rounds counts. Target: <= 12x one put.

Run:  python benchmarks/bench_pubsub.py [--rounds 5] [--messages 300] [--subscribers 10]
Prints `RESULT ` lines; exit status 1 when the target is missed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.core.message import PutOptions
from mqtool.engine.core.streams import put_stream
from mqtool.engine.platforms import open_queue, open_topic
from mqtool.session import Session
from mqtool.state import Store

TARGET = 12.0


def _store(parent: Path, name: str, subscribers: int) -> tuple[Store, Clock]:
    clock = Clock()
    store = Store.open(parent / name)
    ensure_complex(store, clock.timestamp())
    session = Session(store, clock)
    commands = ["-CSQ1 DEFINE QLOCAL(ONE)"]
    for number in range(subscribers):
        commands += [f"-CSQ1 DEFINE QLOCAL(SUB{number})",
                     f"-CSQ1 DEFINE SUB(SUB{number}) TOPICSTR('Bench/#') DEST(SUB{number})"]  # fmt: skip
    for command in commands:
        assert session.execute(command).status == "ok", command
    return store, clock


def _time(store: Store, clock: Clock, handle: object, messages: int) -> float:
    payload = b"x" * 2048
    options = PutOptions(persistent=True)
    started = time.perf_counter()
    result = put_stream(handle, ((payload, options) for _ in range(messages)), lambda _: None)  # type: ignore[arg-type]
    elapsed = time.perf_counter() - started
    assert result.error is None and result.count == messages, result.error
    return elapsed / messages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--messages", type=int, default=300)
    parser.add_argument("--subscribers", type=int, default=10)
    args = parser.parse_args()
    ratios, puts, pubs = [], [], []
    with tempfile.TemporaryDirectory() as temp:
        parent = Path(temp)
        store, clock = _store(parent, "state", args.subscribers)
        for round_number in range(args.rounds):
            queue = open_queue(store, clock, "CSQ1", "ONE", "zos")
            topic = open_topic(store, clock, "CSQ1", "Bench/Prices", "zos")
            sides = [("put", queue), ("publish", topic)]
            if round_number % 2:
                sides.reverse()
            figures = {name: _time(store, clock, handle, args.messages) for name, handle in sides}
            puts.append(figures["put"])
            pubs.append(figures["publish"])
            ratios.append(figures["publish"] / figures["put"])
            with store.transaction() as tx:  # keep the queues small between rounds
                tx.conn.execute("DELETE FROM messages WHERE system = 'CSQ1' AND id NOT IN "
                                "(SELECT qkey << 44 FROM queue_marks)")  # fmt: skip
        store.close()
    ratio = statistics.median(ratios)
    print(f"one persistent put:                 {statistics.median(puts) * 1e6:9.1f} us (median of {args.rounds})")
    print(f"publication to {args.subscribers:2d} subscribers:     {statistics.median(pubs) * 1e6:9.1f} us")
    print(f"ratio (median of rounds' ratios):  {ratio:9.2f}x   target <= {TARGET}x")
    print(f"RESULT pubsub_ratio {ratio:.2f}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
