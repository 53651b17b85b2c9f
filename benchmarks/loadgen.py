"""What the HTTP benchmarks share: running wrk against a local server and reading its
report, or running keep-alive asyncio clients, into one Result (requests per second,
p50 and p99 latency)."""

from __future__ import annotations

import asyncio
import re
import statistics
import subprocess
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass


@dataclass
class Result:
    rps: float
    p50_ms: float
    p99_ms: float
    requests: int


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    match = re.fullmatch(r"([0-9.]+)(us|ms|s)", text.strip())
    if not match:
        raise ValueError(f"wrk latency {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def run_wrk(wrk: str, url: str, seconds: float, connections: int, extra: list[str]) -> Result:
    """One wrk run (one thread, `connections` keep-alive connections, latency report)
    with the options in `extra` (headers, a Lua script); SystemExit on any error seen."""
    out = subprocess.run(
        [wrk, "-t1", f"-c{connections}", f"-d{seconds:g}s", "--latency", *extra, url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    if re.search(r"Non-2xx or 3xx responses|Socket errors", out):
        raise SystemExit(f"wrk saw errors:\n{out}")
    rps = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))  # type: ignore[union-attr]
    p50 = _ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1))  # type: ignore[union-attr]
    p99 = _ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))  # type: ignore[union-attr]
    total = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    return Result(rps, p50, p99, total)


def run_clients(client: Callable[[float, list[float]], Awaitable[None]], seconds: float, connections: int) -> Result:
    """`connections` copies of `client(stop_at, latencies)` at once for `seconds`; each
    appends the latency of every request it made."""
    latencies: list[float] = []

    async def main() -> float:
        began = time.perf_counter()
        stop_at = began + seconds
        await asyncio.gather(*(client(stop_at, latencies) for _ in range(connections)))
        return time.perf_counter() - began

    elapsed = asyncio.run(main())
    ordered = sorted(latencies)
    return Result(
        rps=len(ordered) / elapsed,
        p50_ms=1000 * statistics.median(ordered),
        p99_ms=1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
        requests=len(ordered),
    )
