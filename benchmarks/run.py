"""Runs the benchmark suite: every benchmarks/bench_*.py (or the ones named), each in its
own process, then a summary. A benchmark reports its figures on lines starting with
`RESULT ` and exits non-zero when it misses its target.

Run:  python benchmarks/run.py                 (all)
      python benchmarks/run.py startup define  (bench_startup.py, bench_define.py)
      python benchmarks/run.py define -- --commands 2000   (arguments after -- go to each bench)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def discover(names: list[str]) -> list[Path]:
    found = sorted(HERE.glob("bench_*.py"))
    if not names:
        return found
    chosen = []
    for name in names:
        stem = name.removesuffix(".py").removeprefix("bench_")
        path = HERE / f"bench_{stem}.py"
        if path not in found:
            known = ", ".join(p.stem.removeprefix("bench_") for p in found)
            raise SystemExit(f"run.py: no benchmark {name!r}; known: {known}")
        chosen.append(path)
    return chosen


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    extra: list[str] = []
    if "--" in args:
        cut = args.index("--")
        args, extra = args[:cut], args[cut + 1 :]
    parser = argparse.ArgumentParser(description="Run mqtool's benchmarks and print a summary.")
    parser.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    options = parser.parse_args(args)
    summary: list[tuple[str, int, float, list[str]]] = []
    for path in discover(options.names):
        name = path.stem.removeprefix("bench_")
        print(f"=== {name}: {sys.executable} {path.name} {' '.join(extra)}".rstrip(), flush=True)
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, str(path), *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        assert process.stdout is not None
        results = []
        for line in process.stdout:
            print(line, end="", flush=True)
            if line.startswith("RESULT "):
                results.append(line[len("RESULT ") :].rstrip())
        code = process.wait()
        summary.append((name, code, time.perf_counter() - started, results))
        print(flush=True)
    print("=== summary")
    for name, code, seconds, results in summary:
        status = "ok" if code == 0 else f"MISSED (exit {code})"
        print(f"{name:<10} {status:<16} {seconds:7.1f}s")
        for result in results:
            print(f"    {result}")
    return 0 if all(code == 0 for _, code, _, _ in summary) else 1


if __name__ == "__main__":
    sys.exit(main())
