"""Platform benchmark: one message core, two storage models, no platform paying for the
other. Durable put+get pairs (persistent 1 KB messages, each put and each get in its
own committed transaction, synchronous=FULL) through the engine on

1. a z/OS queue against a z/TPF queue, in the same run:  target z/OS >= 0.9x z/TPF;
2. a z/OS queue with a streaming queue (STREAMQ, BESTEF: every put also puts its copy)
   against the same queue without one:  target streamed cost <= 2.2x the plain one
   (the MQ for z/OS 9.4 performance report measured about 2x).

Rounds alternate the sides so machine noise hits them alike; each ratio is taken within
a round (the sides of one round ran back to back) and the median ratio counts. Each
side runs on a new store in its own folder.

Run:  python benchmarks/bench_platforms.py [--pairs 1500] [--rounds 5]
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
from collections.abc import Callable
from pathlib import Path

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.core.message import PutOptions
from mqtool.engine.platforms import open_queue
from mqtool.session import Session
from mqtool.state import Store

PAYLOAD = b"x" * 1024

# side -> (system, definitions, queue)
SIDES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "z/TPF": ("TPF1", ("ZMQSC DEFINE QL-Q1 DEFPSIST-YES",), "Q1"),
    "z/OS": ("CSQ1", ("-CSQ1 DEFINE QLOCAL(Q1) DEFPSIST(YES)",), "Q1"),
    "z/OS streamed": (
        "CSQ1",
        ("-CSQ1 DEFINE QLOCAL(COPIES)", "-CSQ1 DEFINE QLOCAL(Q1) DEFPSIST(YES) STREAMQ(COPIES) STRMQOS(BESTEF)"),
        "Q1",
    ),
}


def pairs_per_second(folder: Path, side: str, count: int) -> float:
    system, definitions, queue = SIDES[side]
    clock = Clock()
    store = Store.open(folder)
    ensure_complex(store, clock.timestamp())
    session = Session(store, clock)
    for line in definitions:
        outcome = session.execute(line)
        if outcome.status != "ok":
            raise SystemExit("\n".join(outcome.lines))
    handle = open_queue(store, clock, system, queue)
    with store.transaction() as tx:
        handle.open(tx)
    options = PutOptions(persistent=True)
    put, get = handle.put_committed, handle.get_committed
    for _ in range(50):  # the tables and the WAL reach their working shape
        put(PAYLOAD, options)
        get()
    started = time.perf_counter()
    for _ in range(count):
        put(PAYLOAD, options)
        get()
    elapsed = time.perf_counter() - started
    store.close()
    return count / elapsed


def _rounds(work: Path, sides: list[str], count: int, rounds: int) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {side: [] for side in sides}
    for number in range(rounds):
        order = sides if number % 2 == 0 else list(reversed(sides))
        for side in order:
            folder = work / f"{side.replace('/', '').replace(' ', '-')}-{number}"
            figures[side].append(pairs_per_second(folder, side, count))
            shutil.rmtree(folder, ignore_errors=True)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=1500, help="put+get pairs per side and round")
    parser.add_argument("--rounds", type=int, default=9, help="rounds (the median ratio counts)")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="mqtool-bench-platforms-"))
    try:
        figures = _rounds(work, list(SIDES), args.pairs, args.rounds)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    median = {side: statistics.median(values) for side, values in figures.items()}
    print(f"durable 1 KB put+get pairs, median of {args.rounds} rounds of {args.pairs}:")
    for side, value in median.items():
        spread = ", ".join(f"{v:,.0f}" for v in figures[side])
        print(f"   {side:<15} {value:>8,.0f} pairs/s   ({spread})")

    def paired(top: str, bottom: str) -> float:
        return statistics.median(a / b for a, b in zip(figures[top], figures[bottom], strict=True))

    checks: list[tuple[str, float, Callable[[float], bool], str]] = [
        ("z/OS / z/TPF", paired("z/OS", "z/TPF"), lambda r: r >= 0.9, ">= 0.9x"),
        ("streamed cost / plain cost", paired("z/OS", "z/OS streamed"), lambda r: r <= 2.2, "<= 2.2x"),
    ]
    missed = False
    for name, ratio, good, target in checks:
        ok = good(ratio)
        missed |= not ok
        print(f"   {name:<28} {ratio:5.2f}x  (target {target}) {'ok' if ok else 'MISSED'}")
        print(f"RESULT platforms {name}: {ratio:.2f}x")
    for side, value in median.items():
        print(f"RESULT platforms {side} pairs: {value:.0f} pairs/s")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
