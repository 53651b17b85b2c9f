"""Scripted-change benchmark (issue 2): one `mqtool run` of a file of 10,000
`ZMQSC DEFINE QL-...` commands, each its own committed transaction with
synchronous=FULL, as commands per second for the whole process (start-up included).

Baseline, measured in the same run and in the same directory: plain sqlite3 doing the
same number of one-row transactions with the same pragmas (WAL, synchronous=FULL), so
the disk's fsync cost is known; the ratio says how much of the time is mqtool's own.
Trials alternate between the two so that a busy disk hits both alike.

Target: >= 3,000 commands/s (median over the trials). Exit status 1 when missed or
when the run lost a definition.

Run:  python benchmarks/bench_define.py [--commands 10000] [--trials 3] [--profile]
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from userenv import init_store, user_env

TARGET = 3000.0


def mqtool_trial(folder: Path, script: Path, commands: int, profile: bool) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one `mqtool run` on a fresh store
    (created beforehand, not timed). CPU time is steadier than wall time on a busy
    machine; it does not include waiting for the disk."""
    state = folder / "state"
    init_store(state)
    report = folder / "report.txt"
    argv = [sys.executable, "-m", "mqtool", "--state", str(state), "run", str(script)]
    if profile:
        argv[1:3] = ["-m", "cProfile", "-o", str(folder / "define.prof"), "-m", "mqtool"]
    with report.open("w", encoding="utf-8") as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        code = subprocess.run(argv, stdout=out, env=user_env()).returncode
        seconds = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    text = report.read_text(encoding="utf-8")
    assert code == 0, text[-2000:]
    assert text.count(" COMPLETED+") == commands, "a DEFINE did not complete"
    conn = sqlite3.connect(state / "mqtool.db")
    try:
        stored = conn.execute("SELECT count(*) FROM objects WHERE type = 'QL' AND name LIKE 'BENCH.Q%'").fetchone()[0]
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()
    assert stored == commands, f"{stored} of {commands} definitions stored"
    return seconds, cpu


def sqlite_trial(folder: Path, commands: int) -> float:
    """Seconds for the same number of committed one-row transactions in plain sqlite3."""
    path = folder / "baseline.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute(
        "CREATE TABLE objects (system TEXT, type TEXT, name TEXT, attrs TEXT, PRIMARY KEY (system, type, name))"
    )
    started = time.perf_counter()
    for i in range(commands):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO objects VALUES ('TPF1', 'QL', ?, '{}')", (f"BENCH.Q{i:05d}",))
        conn.execute("COMMIT")
    seconds = time.perf_counter() - started
    conn.close()
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=10000)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile one extra mqtool run; print the top 25")
    options = parser.parse_args()
    n = options.commands

    mqtool_rates, baseline_rates, cpu_per_command = [], [], []
    with tempfile.TemporaryDirectory(prefix="mqtool-bench-", dir=os.environ.get("MQTOOL_BENCH_DIR")) as tmp:
        root = Path(tmp)
        script = root / "define.mqsc"
        script.write_text("".join(f"ZMQSC DEFINE QL-BENCH.Q{i:05d}\n" for i in range(n)), encoding="utf-8")
        for trial in range(options.trials):
            folder = root / f"trial{trial}"
            folder.mkdir()
            seconds, cpu = mqtool_trial(folder, script, n, profile=False)
            mqtool_rates.append(n / seconds)
            cpu_per_command.append(cpu / n)
            baseline_rates.append(n / sqlite_trial(folder, n))
            print(
                f"trial {trial + 1}: mqtool {mqtool_rates[-1]:8.0f}/s ({cpu_per_command[-1] * 1e6:4.0f} us CPU"
                f" per command)   sqlite3 {baseline_rates[-1]:8.0f}/s",
                flush=True,
            )
        if options.profile:
            import pstats

            folder = root / "profile"
            folder.mkdir()
            mqtool_trial(folder, script, n, profile=True)
            pstats.Stats(str(folder / "define.prof")).sort_stats("tottime").print_stats(25)

    rate = statistics.median(mqtool_rates)
    baseline = statistics.median(baseline_rates)
    print(f"file:     {n} x 'ZMQSC DEFINE QL-BENCH.Qnnnnn', one mqtool run each trial, report to a file")
    print(f"mqtool    median {rate:8.0f} commands/s  ({1e6 / rate:6.0f} us per command, start-up included)")
    print(f"baseline  median {baseline:8.0f} transactions/s  ({1e6 / baseline:6.0f} us; plain sqlite3, WAL, FULL)")
    print(f"RESULT define {rate:.0f} commands/s (target >= {TARGET:.0f}) {'ok' if rate >= TARGET else 'MISSED'}")
    print(f"RESULT define ratio to plain sqlite3 {rate / baseline:.2f}")
    print(f"RESULT define CPU {statistics.median(cpu_per_command) * 1e6:.0f} us per command (user + system)")
    return 0 if rate >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
