"""Declarative apply benchmark (issue 12): `mqtool apply` of a 2,000-object complex
document on a fresh store (every object created, each DEFINE its own committed
transaction), then the same document again on the result (the no-op plan: read and
validate the document, compare every object, run nothing). Both as whole processes.

Baseline: the first apply is the baseline of the second, in the same trial. The
document has z/TPF queues, remote queues naming transmission queues, aliases and
sender channels, and z/OS queues, aliases, storage classes and channels, so the plan
orders references as a real one does.

Target: the no-op apply takes < 0.5x the time of the first (median over the trials).
Exit status 1 when missed, when the first apply did not create every object, or when
the second planned anything.

Run:  python benchmarks/bench_apply.py [--objects 2000] [--trials 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from userenv import init_store, user_env

TARGET = 0.5


def document(objects: int) -> dict[str, Any]:
    """A complex of `objects` definitions, half on TPF1 and half on CSQ1 (plus the
    built-in ones each system has anyway)."""
    tpf: dict[str, dict[str, Any]] = {"QL": {}, "QR": {}, "QA": {}, "CHL": {}}
    zos: dict[str, dict[str, Any]] = {"STGCLASS": {}, "QLOCAL": {}, "QALIAS": {}, "CHANNEL": {}}
    half = objects // 2
    for i in range(half // 5):  # per 5: 2 local queues (one an XMITQ), a remote, an alias, a channel
        tpf["QL"][f"APP.Q{i:04d}"] = {"COMPSIZE": 0, "MAXDEPTH": 1000 + i, "MAXMSGL": 4194304, "DESCR": f"queue {i}"}
        tpf["QL"][f"XMIT.Q{i:04d}"] = {"COMPSIZE": 0, "MAXMSGL": 4194304, "USAGE": "XMITQ"}
        tpf["QR"][f"REMOTE.Q{i:04d}"] = {"RNAME": f"THEIR.Q{i}", "RQMNAME": "CSQ1", "XMITQ": f"XMIT.Q{i:04d}"}
        tpf["QA"][f"ALIAS.Q{i:04d}"] = {"TARGQ": f"APP.Q{i:04d}"}
        tpf["CHL"][f"TO.CSQ1.{i:04d}"] = {
            "CHLTYPE": "SDR",
            "CONNAME": "127.0.0.1(1414)",
            "XMITQ": f"XMIT.Q{i:04d}",
            "BATCHSZ": 50,
            "MAXMSGL": 4194304,
        }
    rest = objects - half
    zos["STGCLASS"]["BENCH"] = {"PSID": 2, "DESCR": "bench"}
    for i in range((rest - 1) // 4):
        zos["QLOCAL"][f"ORDERS.{i:04d}"] = {"MAXDEPTH": 5000 + i, "STGCLASS": "BENCH"}
        zos["QLOCAL"][f"COPY.{i:04d}"] = {"DESCR": f"stream target {i}"}
        zos["QALIAS"][f"ORDERS.A{i:04d}"] = {"TARGET": f"ORDERS.{i:04d}"}
        zos["CHANNEL"][f"IN.{i:04d}"] = {"CHLTYPE": "RCVR", "BATCHSZ": 20}
    for i in range(rest - 1 - 4 * ((rest - 1) // 4)):  # up to the exact count
        zos["QLOCAL"][f"EXTRA.{i}"] = {"MAXDEPTH": 10}
    return {
        "kind": "mqtool-complex",
        "version": 1,
        "systems": {
            "TPF1": {"platform": "ztpf", "objects": tpf},
            "CSQ1": {"platform": "zos", "objects": zos},
        },
    }


def count(doc: dict[str, Any]) -> int:
    return sum(len(names) for system in doc["systems"].values() for names in system["objects"].values())


def apply(state: Path, path: Path, report: Path) -> tuple[float, str]:
    argv = [sys.executable, "-m", "mqtool", "--state", str(state), "apply", str(path)]
    with report.open("w", encoding="utf-8") as out:
        started = time.perf_counter()
        code = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, env=user_env()).returncode
        seconds = time.perf_counter() - started
    text = report.read_text(encoding="utf-8")
    assert code == 0, text[-2000:]
    return seconds, text


def trial(folder: Path, path: Path, objects: int) -> tuple[float, float]:
    state = folder / "state"
    init_store(state)
    first, text = apply(state, path, folder / "first.txt")
    created = text.count("\nCREATED ")
    assert created == objects, f"the first apply created {created} of {objects} objects"
    second, text = apply(state, path, folder / "second.txt")
    assert "\nNothing to change: " in text, "the second apply planned something:\n" + text[:2000]
    return first, second


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--objects", type=int, default=2000)
    parser.add_argument("--trials", type=int, default=3)
    options = parser.parse_args()
    import yaml

    doc = document(options.objects)
    objects = count(doc)
    base = Path(os.environ.get("MQTOOL_BENCH_DIR") or tempfile.gettempdir())
    firsts, seconds = [], []
    with tempfile.TemporaryDirectory(prefix="mqtool-bench-apply-", dir=base) as tmp:
        path = Path(tmp) / "complex.yaml"
        path.write_text(yaml.safe_dump(doc, sort_keys=True), encoding="utf-8")
        for number in range(options.trials):
            folder = Path(tmp) / f"trial{number}"
            folder.mkdir()
            first, second = trial(folder, path, objects)
            firsts.append(first)
            seconds.append(second)
            print(
                f"trial {number + 1}: first apply {first:.2f}s, no-op apply {second:.2f}s, ratio {second / first:.2f}"
            )
    first, second = statistics.median(firsts), statistics.median(seconds)
    ratio = second / first
    print(f"RESULT apply of {objects} objects on an empty store: {first:.2f}s ({objects / first:.0f} objects/s)")
    print(f"RESULT the same document again (no-op plan): {second:.2f}s")
    print(f"RESULT no-op / first = {ratio:.2f} (target < {TARGET})")
    return 0 if ratio < TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
