"""Start-up benchmark (issues 2 and 19): how long `mqtool cmd 'ZMQSC DISPLAY QL-*'`
takes, as a whole process, on a store holding 10 queues, against `python -c "import
click"` measured in the same run, and proof that rich and prompt_toolkit stay unloaded
on that path (DESIGN.md: lazy imports at the edge). The z/OS display `-CSQ1 DISPLAY
QLOCAL(*)` on the same store is timed in the same rounds and reported beside it.

Target (issue 19): median(mqtool) / median(python -c "import click") <= 1.5, printed
as the GOAL line `startup`. Exit status 1 when the target is missed or a heavy module
is imported.

The CPU time (user + system) of the same runs is printed beside them, for context.

Run:  python benchmarks/bench_startup.py [--runs 10] [--importtime]
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

from userenv import user_env

TARGET_RATIO = 1.5
QUEUES = 10
FORBIDDEN = ("rich", "prompt_toolkit")


CPU: dict[tuple[str, ...], list[float]] = {}  # CPU time (user + system) of each timed run, by command


def wall(argv: list[str]) -> float:
    """Wall time of one run of the command; its CPU time is kept in CPU (steadier than
    wall time on a machine shared with other work)."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=user_env())
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, argv)
    CPU.setdefault(tuple(argv), []).append(usage.ru_utime + usage.ru_stime)
    return elapsed


def imported_modules(argv: list[str]) -> dict[str, int]:
    """Top-level modules imported by the command, with their cumulative import time (us)."""
    result = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]], capture_output=True, text=True, env=user_env(), check=True
    )
    found: dict[str, int] = {}
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        parts = [part.strip() for part in line[len("import time:") :].split("|")]
        if not parts[1].isdigit():
            continue  # the header line
        name = parts[2]
        found[name] = max(found.get(name, 0), int(parts[1]))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="timed runs of each command (median reported)")
    parser.add_argument("--importtime", action="store_true", help="also list the 15 slowest imports")
    options = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="mqtool-bench-") as tmp:
        state = Path(tmp) / "state"
        script = Path(tmp) / "queues.mqsc"
        script.write_text("".join(f"ZMQSC DEFINE QL-BENCH.Q{i:02d}\n" for i in range(QUEUES)), encoding="utf-8")
        subprocess.run(
            [sys.executable, "-m", "mqtool", "--state", str(state), "run", str(script)],
            stdout=subprocess.DEVNULL,
            env=user_env(),
            check=True,
        )
        subprocess.run(
            [sys.executable, "-m", "mqtool", "--state", str(state), "cmd", "-CSQ1 DEFINE QLOCAL(BENCH.Q)"],
            stdout=subprocess.DEVNULL,
            env=user_env(),
            check=True,
        )
        mqtool = [sys.executable, "-m", "mqtool", "--state", str(state), "cmd", "ZMQSC DISPLAY QL-*"]
        zos = [sys.executable, "-m", "mqtool", "--state", str(state), "cmd", "-CSQ1 DISPLAY QLOCAL(*)"]
        baseline = [sys.executable, "-c", "import click"]
        output = subprocess.run(mqtool, capture_output=True, text=True, env=user_env(), check=True).stdout
        assert output.count("QUEUE BENCH.Q") == QUEUES, output
        output = subprocess.run(zos, capture_output=True, text=True, env=user_env(), check=True).stdout
        assert "QUEUE(BENCH.Q)" in output, output

        # Interleaved, after one warm-up each, so that drift on a shared machine hits both alike.
        wall(mqtool), wall(zos), wall(baseline)
        CPU.clear()
        mqtool_times, zos_times, baseline_times = [], [], []
        for _ in range(options.runs):
            mqtool_times.append(wall(mqtool))
            baseline_times.append(wall(baseline))
            zos_times.append(wall(zos))
        modules = imported_modules(mqtool)
        zos_modules = imported_modules(zos)

    mqtool_median = statistics.median(mqtool_times)
    zos_median = statistics.median(zos_times)
    baseline_median = statistics.median(baseline_times)
    ratio = mqtool_median / baseline_median
    zos_ratio = zos_median / baseline_median
    heavy = [name for name in FORBIDDEN if any(m == name or m.startswith(name + ".") for m in {*modules, *zos_modules})]

    print(f"command:  python -m mqtool --state DIR cmd 'ZMQSC DISPLAY QL-*'  ({QUEUES} queues)")
    print(f"mqtool    median {mqtool_median * 1000:7.1f} ms  min {min(mqtool_times) * 1000:7.1f} ms")
    print(
        f"baseline  median {baseline_median * 1000:7.1f} ms  min {min(baseline_times) * 1000:7.1f} ms  (import click)"
    )
    print(
        f"z/OS      median {zos_median * 1000:7.1f} ms  min {min(zos_times) * 1000:7.1f} ms  (-CSQ1 DISPLAY QLOCAL(*))"
    )
    print(
        f"modules imported by mqtool: {len(modules)} (z/OS display: {len(zos_modules)}); "
        f"rich/prompt_toolkit: {', '.join(heavy) or 'none'}"
    )
    if options.importtime:
        print("slowest imports (cumulative us):")
        for name, micros in sorted(modules.items(), key=lambda item: -item[1])[:15]:
            print(f"  {micros:8d}  {name}")
    ok = ratio <= TARGET_RATIO and not heavy
    verdict = "ok" if ratio <= TARGET_RATIO else "MISSED"
    print(f"RESULT startup ratio {ratio:.2f} (target <= {TARGET_RATIO}) {verdict}")
    print(f"RESULT startup z/OS display ratio {zos_ratio:.2f} (-CSQ1 DISPLAY QLOCAL(*), for context)")
    cpu = {
        name: statistics.median(CPU[tuple(argv)])
        for name, argv in (("mqtool", mqtool), ("zos", zos), ("click", baseline))
    }
    print(
        f"RESULT startup CPU ratio {cpu['mqtool'] / cpu['click']:.2f}, z/OS {cpu['zos'] / cpu['click']:.2f} "
        f"(user + system, medians {cpu['mqtool'] * 1000:.0f} / {cpu['zos'] * 1000:.0f} / {cpu['click'] * 1000:.0f} ms, "
        "for context)"
    )
    print(f"RESULT startup heavy modules: {', '.join(heavy) or 'none'} {'ok' if not heavy else 'MISSED'}")
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"GOAL startup {ratio:.2f} <= {TARGET_RATIO} {verdict} mqtool cmd {mqtool_median * 1000:.0f} ms vs "
        f'python -c "import click" {baseline_median * 1000:.0f} ms (z/OS DISPLAY QLOCAL {zos_median * 1000:.0f} ms), '
        f"median of {options.runs} interleaved runs, load {load}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
