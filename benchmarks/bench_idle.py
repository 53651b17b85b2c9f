"""Idle-gap benchmark (issue 16, item 4): what the first command after a store was left
alone costs, as a whole process: wall time and store growth, after 1 hour, 1 day,
7 days and 2.5 years of frozen-clock time, on z/OS (STATIME(1), START TRACE(STAT)
CLASS(1,5), STATQ ON, EXPRYINT(5)) and on z/TPF (the MQ monitor and checkpoint, a
sender channel retrying for want of a partner, and a sweeper that cannot sweep: a
SWEEP-NO queue holds 80 of 100 SWBs).

Baseline: the same command one second after the setup, on a copy of the same store, in
the same round. Target: the first command after any gap costs at most 3x the baseline
and grows the store by at most 256 KB. Exit status 1 when a case misses it.

Run:  python benchmarks/bench_idle.py [--rounds 3] [--cap 300] [--python PATH]
(--python: the interpreter whose mqtool is measured, e.g. another version's venv)
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from userenv import user_env

START = datetime(2021, 3, 9, 15, 41, 22, tzinfo=UTC)
GAPS = {"1h": timedelta(hours=1), "1d": timedelta(days=1), "7d": timedelta(days=7), "2.5y": timedelta(days=913)}
# mqtool subcommands before the setup commands (a small SWB pool for the blocked sweeper).
BEFORE = {"zos": [], "ztpf": [["system", "alter", "TPF1", "--swbpool", "100"]]}
SETUP = {
    "zos": [
        "-CSQ1 SET SYSTEM STATIME(1)",
        "-CSQ1 START TRACE(STAT) CLASS(1,5)",
        "-CSQ1 ALTER QMGR STATQ(ON) EXPRYINT(5)",
        "-CSQ1 DEFINE QLOCAL(PAYQ)",
        "-CSQ1 DEFINE QLOCAL(AUDIT)",
        ".system CSQ1",
        ".put PAYQ count=20 persistent=yes",
        ".get PAYQ count=5",
    ],
    "ztpf": [
        "ZMQSC DEFINE QL-PAYQ",
        ".put PAYQ count=20 persistent=yes",
        ".get PAYQ count=5",
        "ZMQSC DEFINE QL-HELD SWEEP-NO",
        ".put HELD count=80 size=1000",
        "ZMQSC DEFINE QL-XQ USAGE-XMITQ",
        "ZMQSC DEFINE CHL-NOWHERE CHLTYPE-SDR CONNAME-'127.0.0.1(1499)' XMITQ-XQ",
        "ZMQSC START CHL-NOWHERE",
    ],
}
SHOW = {"zos": "-CSQ1 DISPLAY QSTATUS(PAYQ) CURDEPTH", "ztpf": "ZMQSC DISPLAY QL-PAYQ"}
TARGET_RATIO = 3.0
TARGET_GROWTH = 256 * 1024


def iso(moment: datetime) -> str:
    return f"{moment:%Y-%m-%dT%H:%M:%S}Z"


def size(state: Path) -> int:
    return sum(path.stat().st_size for path in state.glob("mqtool.db*"))


def checkpoint(state: Path) -> None:
    conn = sqlite3.connect(state / "mqtool.db")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def first_command(python: str, state: Path, moment: datetime, command: str, cap: float) -> tuple[float | None, int]:
    """Wall seconds (None: longer than `cap`) and bytes the store grew by."""
    checkpoint(state)
    before = size(state)
    started = time.perf_counter()
    try:
        subprocess.run(
            [python, "-m", "mqtool", "--state", str(state), "--clock", iso(moment), "cmd", command],
            env=user_env(),
            check=True,
            stdout=subprocess.DEVNULL,
            timeout=cap,
        )
    except subprocess.TimeoutExpired:
        return None, size(state) - before
    return time.perf_counter() - started, size(state) - before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each case (median reported)")
    parser.add_argument("--cap", type=float, default=300.0, help="seconds a first command may run before it is cut")
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose mqtool is measured")
    parser.add_argument("--only", default="zos,ztpf", help="platforms: zos,ztpf")
    options = parser.parse_args()

    missed = 0
    with tempfile.TemporaryDirectory(prefix="mqtool-bench-idle-") as tmp:
        for platform in options.only.split(","):
            template = Path(tmp) / f"{platform}-template"
            for before in BEFORE[platform]:
                subprocess.run(
                    [options.python, "-m", "mqtool", "--state", str(template), "--clock", iso(START), *before],
                    env=user_env(), check=True, stdout=subprocess.DEVNULL,
                )  # fmt: skip
            subprocess.run(
                [options.python, "-m", "mqtool", "--state", str(template), "--clock", iso(START), "cmd",
                 *SETUP[platform]],
                env=user_env(), check=True, stdout=subprocess.DEVNULL,
            )  # fmt: skip
            checkpoint(template)
            for label, gap in GAPS.items():
                walls: list[float | None] = []
                bases: list[float] = []
                growths: list[int] = []
                for round_number in range(options.rounds):
                    # Baseline and gap take turns on fresh copies of the same store.
                    base_state = Path(tmp) / f"{platform}-{label}-{round_number}-base"
                    gap_state = Path(tmp) / f"{platform}-{label}-{round_number}-gap"
                    shutil.copytree(template, base_state)
                    shutil.copytree(template, gap_state)
                    base, _ = first_command(
                        options.python, base_state, START + timedelta(seconds=1), SHOW[platform], options.cap
                    )
                    wall, growth = first_command(options.python, gap_state, START + gap, SHOW[platform], options.cap)
                    bases.append(base or options.cap)
                    walls.append(wall)
                    growths.append(growth)
                    shutil.rmtree(base_state)
                    shutil.rmtree(gap_state)
                    if wall is None:
                        break  # one cut round says enough
                base = statistics.median(bases)
                if any(wall is None for wall in walls):
                    shown, ratio = f">{options.cap:.0f}s", float("inf")
                else:
                    median = statistics.median([wall for wall in walls if wall is not None])
                    shown, ratio = f"{median:.2f}s", median / base
                growth = max(growths)
                ok = ratio <= TARGET_RATIO and growth <= TARGET_GROWTH
                missed += 0 if ok else 1
                print(
                    f"RESULT idle {platform} {label}: first command {shown} (baseline {base:.2f}s, ratio "
                    f"{ratio:.2f}), store +{growth / 1024:.0f} KB {'ok' if ok else 'MISSED'}",
                    flush=True,
                )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
