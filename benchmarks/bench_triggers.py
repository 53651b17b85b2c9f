"""Trigger benchmark: what TRIGGER costs a put when nothing fires. Puts of 1 KB to a z/OS
queue with TRIGGER TRIGTYPE(FIRST) (its process and initiation queue defined, a trigger
monitor holding the initiation queue open, the queue not empty: the common case while
an application works) against the same puts to a queue without TRIGGER, in the same run:

1. non-persistent puts, committed in batches of 100 (the cheapest puts: where a
   per-put check shows most):  target triggered cost <= 1.2x the plain cost;
2. persistent puts, each committed on its own:  target <= 1.2x.

Rounds alternate the sides so machine noise hits them alike; each ratio is taken within
a round and the median ratio counts. Each side runs on a new store in its own folder.

Run:  python benchmarks/bench_triggers.py [--puts 5000] [--rounds 7]
Figures are also printed on `RESULT ` lines (benchmarks/run.py collects them).
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.core.message import PutOptions
from mqtool.engine.platforms import open_queue
from mqtool.session import Session
from mqtool.state import Store

PAYLOAD = b"x" * 1024
BATCH = 100
COMMON = (
    "-CSQ1 DEFINE PROCESS(BENCH.PROC) APPLICID('bench') APPLTYPE(UNIX)",
    "-CSQ1 DEFINE QLOCAL(BENCH.INITQ)",
)
SIDES: dict[str, tuple[str, ...]] = {
    "plain": ("-CSQ1 DEFINE QLOCAL(Q1)",),
    "triggered": ("-CSQ1 DEFINE QLOCAL(Q1) TRIGGER TRIGTYPE(FIRST) PROCESS(BENCH.PROC) INITQ(BENCH.INITQ)",),
}


def puts_per_second(folder: Path, side: str, count: int, persistent: bool) -> float:
    clock = Clock()
    store = Store.open(folder)
    ensure_complex(store, clock.timestamp())
    session = Session(store, clock)
    for line in (*COMMON, *SIDES[side]):
        outcome = session.execute(line)
        if outcome.status != "ok":
            raise SystemExit("\n".join(outcome.lines))
    monitor = open_queue(store, clock, "CSQ1", "BENCH.INITQ")
    handle = open_queue(store, clock, "CSQ1", "Q1")
    with store.transaction() as tx:
        monitor.open(tx, "get")  # a trigger monitor is running
        handle.open(tx)
    options = PutOptions(persistent=persistent)

    def put_some(number: int) -> None:
        if persistent:
            for _ in range(number):
                handle.put_committed(PAYLOAD, options)
            return
        for start in range(0, number, BATCH):
            with store.transaction() as tx:
                for _ in range(min(BATCH, number - start)):
                    handle.put(tx, PAYLOAD, options)

    put_some(200)  # the first put triggers; the queue is then not empty, as in use
    started = time.perf_counter()
    put_some(count)
    elapsed = time.perf_counter() - started
    store.close()
    return count / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--puts", type=int, default=5000, help="non-persistent puts per side and round")
    parser.add_argument("--persistent-puts", type=int, default=800, help="persistent puts per side and round")
    parser.add_argument("--rounds", type=int, default=7, help="rounds (the median ratio counts)")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="mqtool-bench-triggers-"))
    missed = False
    try:
        for persistent, count in ((False, args.puts), (True, args.persistent_puts)):
            kind = "persistent" if persistent else "non-persistent"
            figures: dict[str, list[float]] = {side: [] for side in SIDES}
            for number in range(args.rounds):
                order = list(SIDES) if number % 2 == 0 else list(reversed(SIDES))
                for side in order:
                    folder = work / f"{side}-{kind}-{number}"
                    figures[side].append(puts_per_second(folder, side, count, persistent))
                    shutil.rmtree(folder, ignore_errors=True)
            ratio = statistics.median(p / t for p, t in zip(figures["plain"], figures["triggered"], strict=True))
            ok = ratio <= 1.2
            missed |= not ok
            print(f"{kind} 1 KB puts, median of {args.rounds} rounds of {count}:")
            for side, values in figures.items():
                spread = ", ".join(f"{v:,.0f}" for v in values)
                print(f"   {side:<10} {statistics.median(values):>9,.0f} puts/s   ({spread})")
            print(f"   triggered cost / plain cost {ratio:5.2f}x  (target <= 1.2x) {'ok' if ok else 'MISSED'}")
            print(f"RESULT triggers {kind} put cost with TRIGGER: {ratio:.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
