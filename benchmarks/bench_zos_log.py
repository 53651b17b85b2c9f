"""z/OS log and statistics benchmark: what the log and the statistics cost a persistent
put+get pair on a z/OS queue, against the same engine without them, in the same run.

Durable pairs: persistent put + get of 1 KB messages, each in its own committed
transaction (synchronous=FULL), through the engine (QueueHandle) on queue manager CSQ1:

- "log+stats": the log records of every put and get (log.py) and the queue's
  statistics (START TRACE(STAT) CLASS(1,5), STATQ ON: stats.py), added up by the
  handle and written in groups;
- "log": the log records only (no STAT trace);
- "neither": the same engine with the handle's log and statistics accounting
  (`Figures`) made to do nothing: the baseline.

The three stores are open side by side and the pairs run in slices of --slice pairs,
the three taking turns (the order rotates each cycle), so that the noise of a shared
disk hits them alike; --blocks blocks of such cycles each give a ratio, and the median
block counts. Two phases:

1. durable: synchronous=FULL, as the engine runs. A pair's time is mostly its two
   fsyncs. Target: log+stats pairs/s >= 0.95x neither's (median block).
2. engine: the same pairs with synchronous=OFF, so that no disk wait hides the
   accounting's CPU: what log+stats adds to a pair, in microseconds and as a share
   of a durable pair's time. Target: <= 5%.

WAL frames (pages written, checkpoints off) per pair are shown for the durable phase:
a handle's group adds two row writes per 32 messages.

Run:  python benchmarks/bench_zos_log.py [--blocks 9] [--cycles 8] [--slice 25]
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.core.message import PutOptions
from mqtool.engine.payload import generate
from mqtool.engine.platforms import open_queue
from mqtool.session import Session
from mqtool.state import Store

TARGET = 0.95
SETUPS = {
    "log+stats": ["ALTER QMGR STATQ(ON)", "START TRACE(STAT) CLASS(1,5)"],
    "log": [],
    "neither": [],
}
_HOOKS = ("opened", "put", "got", "closed", "refused", "expired", "rolled_back", "restored")


def _noop(*_args: object, **_kwargs: object) -> None:
    return None


@dataclass
class Setup:
    store: Store
    handle: Any
    folder: Path
    wall: float = 0.0
    cpu: float = 0.0
    frames: int = 0


def setup(folder: Path, name: str) -> Setup:
    """A new store with queue Q1 on CSQ1, set up as `name` says, and a handle open on it."""
    clock = Clock()
    store = Store.open(folder)
    ensure_complex(store, clock.timestamp())
    session = Session(store, clock, "CSQ1")
    for command in ["-CSQ1 DEFINE QLOCAL(Q1) DEFPSIST(YES)", *(f"-CSQ1 {c}" for c in SETUPS[name])]:
        outcome = session.execute(command)
        if outcome.status != "ok":
            raise SystemExit("\n".join(outcome.lines))
    handle = open_queue(store, clock, "CSQ1", "Q1", "zos")
    if name == "neither":
        figures = handle.ledger.figures  # type: ignore[attr-defined]
        for hook in _HOOKS:
            setattr(figures, hook, _noop)  # this handle's only
    with store.transaction() as tx:
        handle.open(tx)
    return Setup(store, handle, folder)


def run_pairs(found: Setup, payload: bytes, count: int, measured: bool) -> None:
    options = PutOptions(persistent=True)
    put, get = found.handle.put_committed, found.handle.get_committed
    wall, cpu = time.perf_counter(), time.thread_time()
    for _ in range(count):
        put(payload, options)
        get()
    if measured:
        found.wall += time.perf_counter() - wall
        found.cpu += time.thread_time() - cpu


def _wal_frames(path: Path, page_size: int) -> int:
    size = path.stat().st_size if path.exists() else 0
    return max(0, size - 32) // (page_size + 24)  # WAL header, then frames of header + page


def phase(names: list[str], payload: bytes, work: Path, options: argparse.Namespace, durable: bool) -> dict[str, Any]:
    """Rates per block (pairs/s), CPU per pair, and WAL frames per pair, by setup."""
    setups = {name: setup(work / f"{name}-{'full' if durable else 'off'}", name) for name in names}
    blocks: dict[str, list[float]] = {name: [] for name in names}
    count = options.cycles * options.slice
    try:
        for found in setups.values():
            if not durable:
                found.store.conn.execute("PRAGMA synchronous = OFF")
            run_pairs(found, payload, 200, measured=False)  # the tables reach their working shape
            found.store.conn.execute("PRAGMA wal_autocheckpoint = 0")
            found.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        for _ in range(options.blocks):
            before = {name: found.wall for name, found in setups.items()}
            for cycle in range(options.cycles):
                for name in names[cycle % 3 :] + names[: cycle % 3]:
                    run_pairs(setups[name], payload, options.slice, measured=True)
            for name, found in setups.items():
                blocks[name].append(count / (found.wall - before[name]))
        total = options.blocks * count
        frames = {}
        for name, found in setups.items():
            page_size = found.store.conn.execute("PRAGMA page_size").fetchone()[0]
            frames[name] = _wal_frames(found.folder / "mqtool.db-wal", page_size) / total
            with found.store.transaction() as tx:
                found.handle.close(tx)
    finally:
        for found in setups.values():
            found.store.close()
    return {
        "blocks": blocks,
        "rate": {name: statistics.median(rates) for name, rates in blocks.items()},
        "micros": {name: found.wall / total * 1e6 for name, found in setups.items()},
        "cpu": {name: found.cpu / total * 1e6 for name, found in setups.items()},
        "frames": frames,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--blocks", type=int, default=9, help="blocks of cycles; the median block counts")
    parser.add_argument("--cycles", type=int, default=8, help="cycles a block: each setup runs a slice in turn")
    parser.add_argument("--slice", type=int, default=25, help="pairs a setup runs before the next takes its turn")
    options = parser.parse_args()
    payload = generate("xml", 1024, 0, 0)
    names = list(SETUPS)
    base = "neither"
    work = Path(tempfile.mkdtemp(prefix="mqtool-bench-zoslog-"))
    try:
        durable = phase(names, payload, work, options, durable=True)
        engine = phase(names, payload, work, options, durable=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    count = options.blocks * options.cycles * options.slice
    print(f"persistent 1 KB put+get pairs on z/OS ({count} pairs a setup, {options.blocks} blocks, slices of "
          f"{options.slice})")  # fmt: skip
    print(f"1. durable (synchronous=FULL)  {'median block':>14} {'WAL pages':>10}")
    ok = True
    for name in names:
        rate, frames = durable["rate"][name], durable["frames"][name]
        print(f"   {name:<28} {rate:7.0f} pairs/s {frames:6.2f}/pair")
        print(f"RESULT zos durable pairs {name}: {rate:.0f} pairs/s, {frames:.2f} pages")
    for name in ("log+stats", "log"):
        ratios = [a / b for a, b in zip(durable["blocks"][name], durable["blocks"][base], strict=True)]
        ratio = statistics.median(ratios)
        met = ratio >= TARGET
        ok &= met or name != "log+stats"
        verdict = "ok" if met else "MISSED"
        print(f"   {name} / {base}: {ratio:5.3f}x (blocks {min(ratios):.2f}-{max(ratios):.2f}; target >= {TARGET}) "
              f"{verdict}")  # fmt: skip
        print(f"RESULT zos durable pairs {name} / {base}: {ratio:.3f}x (target >= {TARGET}x)")
    durable_micros = durable["micros"][base]
    print(f"2. engine (synchronous=OFF)    {'per pair':>14}")
    for name in names:
        micros = engine["micros"][name]
        print(f"   {name:<28} {micros:7.1f} us")
        print(f"RESULT zos engine pairs {name}: {micros:.1f} us a pair")
    for name in ("log+stats", "log"):
        added = engine["micros"][name] - engine["micros"][base]
        share = added / durable_micros
        met = share <= 1 - TARGET
        ok &= met or name != "log+stats"
        verdict = "ok" if met else "MISSED"
        print(f"   {name} adds {added:5.1f} us: {share:6.2%} of a durable pair ({durable_micros:.0f} us; target <= "
              f"{1 - TARGET:.0%}) {verdict}")  # fmt: skip
        print(f"RESULT zos {name} adds {added:.1f} us a pair, {share:.2%} of a durable pair (target <= 5%)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
