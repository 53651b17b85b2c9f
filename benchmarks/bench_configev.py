"""Configuration-event benchmark: what the CONFIGEV hook costs a DEFINE. z/OS DEFINE
QLOCAL through a Session, three sides in the same run, each on a new store in /dev/shm
(or the temp folder):

1. the DEFINE handler wrapped as before the hook (active_only);
2. the handler as shipped (with_events) with CONFIGEV(DISABLED), the default:
   target <= 1.05x side 1 (the hook is one dictionary look-up on the queue manager
   record active_only already read);
3. with CONFIGEV(ENABLED): reported, no target (each DEFINE also puts a Create object
   event on SYSTEM.ADMIN.CONFIG.EVENT in its unit of work).

Rounds alternate the sides so machine noise hits them alike; each ratio is taken within
a round and the median ratio counts.

Run:  python benchmarks/bench_configev.py [--defines 400] [--rounds 7]
Figures are also printed on `RESULT ` lines (benchmarks/run.py collects them).
Exit status 1 when the target is missed.
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
from typing import Any

import mqtool.commands.zos.define as define
from mqtool.clock import Clock
from mqtool.commands.zos import active_only
from mqtool.complex import ensure_complex
from mqtool.session import Session
from mqtool.state import Store

TARGET = 1.05


def _unhooked() -> Callable[[Any, Any], Any]:
    """DEFINE's handler under active_only, as it was wrapped before the hook."""
    cells = define.handle.__closure__ or ()
    inner = next(cell.cell_contents for cell in cells if callable(cell.cell_contents))
    return active_only(inner)


def _side(handler: Callable[[Any, Any], Any], defines: int, enabled: bool) -> float:
    """Microseconds per DEFINE QLOCAL with `handler` as DEFINE's handler."""
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(dir=shm if shm.is_dir() else None))
    hooked = define.handle
    define.handle = handler
    try:
        store = Store.open(folder)
        clock = Clock()
        ensure_complex(store, clock.timestamp())
        session = Session(store, clock, "CSQ1")
        if enabled:
            session.execute("ALTER QMGR CONFIGEV(ENABLED)")
        start = time.perf_counter()
        for number in range(defines):
            assert session.execute(f"DEFINE QLOCAL(BENCH.Q{number})").status == "ok"
        elapsed = time.perf_counter() - start
        store.close()
        return elapsed / defines * 1e6
    finally:
        define.handle = hooked
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--defines", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    before, shipped = _unhooked(), define.handle
    disabled: list[float] = []
    enabled: list[float] = []
    for _ in range(args.rounds):
        base = _side(before, args.defines, False)
        disabled.append(_side(shipped, args.defines, False) / base)
        enabled.append(_side(shipped, args.defines, True) / base)
    ratio = statistics.median(disabled)
    print(f"DEFINE QLOCAL, CONFIGEV(DISABLED) vs before the hook: {ratio:.3f}x (target <= {TARGET}x)")
    print(f"DEFINE QLOCAL, CONFIGEV(ENABLED) vs before the hook: {statistics.median(enabled):.2f}x (no target)")
    print(f"RESULT configev DEFINE cost with CONFIGEV(DISABLED): {ratio:.3f}x")
    print(f"RESULT configev DEFINE cost with CONFIGEV(ENABLED): {statistics.median(enabled):.2f}x")
    return 1 if ratio > TARGET else 0


if __name__ == "__main__":
    sys.exit(main())
