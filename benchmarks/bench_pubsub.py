"""Publish/subscribe benchmark: a publication to 10 subscribers against one put, measured
in the same run on the z/OS engine. Each side commits every message on its own
(persistent, synchronous=FULL), as `mqtool put --persistent` does, through the same
put stream: one side puts 2 KB messages to a local queue, the other publishes them on a
topic string with 10 durable subscriptions (10 copies, the savepoint, the figures of
DISPLAY TPSTATUS and SBSTATUS, all in the publication's transaction). A third side
publishes the same on a store whose queue manager runs START TRACE(STAT) CLASS(1), so
that each publication also adds to the topic manager's statistics (SMF 115 QTST, one
statement in its transaction). Rounds alternate the sides; the median ratio of the
rounds counts. Target: <= 12x one put, with and without the statistics.

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


def _store(parent: Path, name: str, subscribers: int, statistics_on: bool = False) -> tuple[Store, Clock]:
    clock = Clock()
    store = Store.open(parent / name)
    ensure_complex(store, clock.timestamp())
    session = Session(store, clock)
    commands = ["-CSQ1 DEFINE QLOCAL(ONE)"] + (["-CSQ1 START TRACE(STAT) CLASS(1)"] if statistics_on else [])
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
    ratios, counted_ratios, puts, pubs, counted = [], [], [], [], []
    with tempfile.TemporaryDirectory() as temp:
        parent = Path(temp)
        store, clock = _store(parent, "state", args.subscribers)
        traced, traced_clock = _store(parent, "traced", args.subscribers, statistics_on=True)
        for round_number in range(args.rounds):
            queue = open_queue(store, clock, "CSQ1", "ONE", "zos")
            topic = open_topic(store, clock, "CSQ1", "Bench/Prices", "zos")
            with_stats = open_topic(traced, traced_clock, "CSQ1", "Bench/Prices", "zos")
            sides = [("put", store, clock, queue), ("publish", store, clock, topic),
                     ("counted", traced, traced_clock, with_stats)]  # fmt: skip
            if round_number % 2:
                sides.reverse()
            figures = {name: _time(where, at, handle, args.messages) for name, where, at, handle in sides}
            puts.append(figures["put"])
            pubs.append(figures["publish"])
            counted.append(figures["counted"])
            ratios.append(figures["publish"] / figures["put"])
            counted_ratios.append(figures["counted"] / figures["put"])
            for where in (store, traced):
                with where.transaction() as tx:  # keep the queues small between rounds
                    tx.conn.execute("DELETE FROM messages WHERE system = 'CSQ1' AND id NOT IN "
                                    "(SELECT qkey << 44 FROM queue_marks)")  # fmt: skip
        store.close()
        traced.close()
    ratio = statistics.median(ratios)
    counted_ratio = statistics.median(counted_ratios)
    print(f"one persistent put:                 {statistics.median(puts) * 1e6:9.1f} us (median of {args.rounds})")
    print(f"publication to {args.subscribers:2d} subscribers:     {statistics.median(pubs) * 1e6:9.1f} us")
    print(f"  with STAT class 1 (QTST counted): {statistics.median(counted) * 1e6:9.1f} us")
    print(f"ratio (median of rounds' ratios):  {ratio:9.2f}x   target <= {TARGET}x")
    print(f"  with the statistics:             {counted_ratio:9.2f}x   target <= {TARGET}x")
    print(f"RESULT pubsub_ratio {ratio:.2f}")
    print(f"RESULT pubsub_ratio_statistics {counted_ratio:.2f}")
    return 0 if ratio <= TARGET and counted_ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
