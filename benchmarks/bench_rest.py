"""REST API benchmark: requests per second of runCommandJSON `DISPLAY QLOCAL` of one
queue through the MQ REST API stand-in, 32 keep-alive clients, against the same
command run in process through Session.execute (and through command_json, which adds
the JSON rendering REST does) on the same store, measured in the same run.

The same display asked again and again (a monitor polling a queue) is answered from
the listener's answer cache while nothing in the store changes (server.AnswerCache);
the "every body new" run sends each request with a body no earlier one had (blanks
added), so every request runs the command (on the listener's event loop, over its
read-only connection: rest/reader.py): that figure prices the HTTP path plus the
command, and is the target's.

    python benchmarks/bench_rest.py                    # wrk (with a Lua script) when installed
    python benchmarks/bench_rest.py --seconds 10 --connections 32 --rounds 3
    python benchmarks/bench_rest.py --client asyncio

The REST listener runs in a process of its own (an event loop thread and the store
thread, as under `mqtool serve`); the load comes from wrk (`apt-get install wrk`) or,
without it, from an asyncio keep-alive client in this process. Every run checks one
answer first: HTTP 200 with the queue's parameters. Target (issues 12 and 19): REST
with every body new (no cached answer) >= 0.5x the in-process Session.execute rate,
the median of the rounds' ratios, each round measuring both; printed as the GOAL line
`rest_ratio` (the cached figure is reported beside it).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import loadgen
from loadgen import Result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TARGET = 0.5
QUEUE = "BENCH.Q"
LINE = f"DISPLAY QLOCAL({QUEUE})"
USER, PASSWORD = "bench", "bench-password"
PATH = "/ibmmq/rest/v2/admin/action/qmgr/CSQ1/mqsc"
BODY = json.dumps({"type": "runCommandJSON", "command": "DISPLAY", "qualifier": "QLOCAL", "name": QUEUE})
# Every body new: blanks before (n // FRESH) and after (n % FRESH) the JSON, so that a
# body comes again only after FRESH**2 requests (minutes at these rates; the answer
# cache keeps an answer to the end of its second) and bodies average FRESH blanks.
FRESH = 500
AUTH = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()


# ------------------------------------------------------------------ set-up
def prepare(state_dir: Path) -> None:
    """A store with the default complex, the queue, and a REST configuration (port 0)."""
    from mqtool.clock import Clock
    from mqtool.complex import ensure_complex
    from mqtool.rest.config import RestConfig, RestUser, hash_password, write
    from mqtool.session import Session
    from mqtool.state import Store

    store = Store.open(state_dir)
    try:
        clock = Clock()
        ensure_complex(store, clock.timestamp())
        outcome = Session(store, clock).execute(f"-CSQ1 DEFINE QLOCAL({QUEUE}) MAXDEPTH(5000) DESCR('bench')")
        assert outcome.status == "ok", outcome.lines
    finally:
        store.close()
    user = RestUser(USER, ("MQWebAdmin",), hash_password(PASSWORD))
    write(state_dir, RestConfig(port=0, maxconn=256, users=(user,)))


def in_process(state_dir: Path, seconds: float, json_too: bool) -> float:
    """Session.execute (or command_json) of the command, in a loop: calls per second
    (and the CPU time of each call in CPU_US)."""
    from mqtool.clock import Clock
    from mqtool.render.json import command_json
    from mqtool.session import Session
    from mqtool.state import Store

    store = Store.open(state_dir)
    try:
        session = Session(store, Clock(), "CSQ1")
        calls = 0
        began = time.perf_counter()
        cpu = time.process_time()
        stop_at = began + seconds
        while time.perf_counter() < stop_at:
            for _ in range(50):
                if json_too:
                    command_json(session, LINE)
                else:
                    session.execute(LINE)
            calls += 50
        CPU_US["json" if json_too else "execute"].append((time.process_time() - cpu) / calls * 1e6)
        return calls / (time.perf_counter() - began)
    finally:
        store.close()


# CPU time in microseconds: of one in-process call ("execute", "json"), and of the REST
# server process per request ("rest", "rest_fresh"), one figure per round.
CPU_US: dict[str, list[float]] = {"execute": [], "json": [], "rest": [], "rest_fresh": []}


def process_cpu(pid: int) -> float:
    """Seconds of CPU (user and system) a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve(state_dir: Path) -> None:
    """The REST listener of `state_dir` until standard input closes."""
    from mqtool.clock import Clock
    from mqtool.rest.service import RestService

    with RestService(state_dir, Clock()) as service:
        print(service.port, flush=True)
        sys.stdin.read()


def start_server(state_dir: Path) -> tuple[subprocess.Popen[str], int]:
    child = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--serve", str(state_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    if not line.strip().isdigit():
        child.kill()
        raise SystemExit(f"the REST server did not start (said {line!r})")
    return child, int(line)


def check(port: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", PATH, body=BODY, headers=_headers())
    response = conn.getresponse()
    document = json.loads(response.read())
    conn.close()
    if response.status != 200 or document["commandResponse"][0]["parameters"]["queue"] != QUEUE:
        raise SystemExit(f"unexpected answer {response.status}: {document}")


def _fresh(n: int) -> str:
    return " " * (n // FRESH) + BODY + " " * (n % FRESH)


def _headers() -> dict[str, str]:
    return {"Authorization": AUTH, "ibm-mq-rest-csrf-token": "bench", "Content-Type": "application/json"}


# -------------------------------------------------------------------- load
def run_wrk(wrk: str, port: int, seconds: float, connections: int, script: Path) -> Result:
    return loadgen.run_wrk(wrk, f"http://127.0.0.1:{port}{PATH}", seconds, connections, ["-s", str(script)])


def wrk_script(folder: Path, fresh: bool = False) -> Path:
    """The Lua script that makes wrk send the POST with its body and headers; `fresh`:
    each request's body with its own blanks before and after the JSON (see _fresh)."""
    lines = ['wrk.method = "POST"', f"wrk.body = {json.dumps(BODY)}"]
    lines += [f'wrk.headers["{name}"] = {json.dumps(value)}' for name, value in _headers().items()]
    if fresh:
        lines += [
            "local n = 0",
            "request = function()",
            f"  n = (n + 1) % {FRESH * FRESH}",
            f"  local body = string.rep(' ', math.floor(n / {FRESH})) .. wrk.body .. string.rep(' ', n % {FRESH})",
            "  return wrk.format(nil, nil, nil, body)",
            "end",
        ]
    path = folder / ("fresh.lua" if fresh else "post.lua")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def _client(port: int, fresh: bool, stop_at: float, latencies: list[float]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    headers = "".join(f"{name}: {value}\r\n" for name, value in _headers().items())
    n = 0
    try:
        while time.perf_counter() < stop_at:
            body = _fresh(n) if fresh else BODY
            n = (n + 1) % (FRESH * FRESH)
            request = f"POST {PATH} HTTP/1.1\r\nHost: bench\r\n{headers}Content-Length: {len(body)}\r\n\r\n{body}"
            began = time.perf_counter()
            writer.write(request.encode())
            head = await reader.readuntil(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 200"):
                raise SystemExit(f"unexpected answer: {head!r}")
            length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))  # type: ignore[union-attr]
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - began)
    finally:
        writer.close()


def run_asyncio(port: int, seconds: float, connections: int, fresh: bool = False) -> Result:
    return loadgen.run_clients(
        lambda stop_at, latencies: _client(port, fresh, stop_at, latencies), seconds, connections
    )


# -------------------------------------------------------------------- main
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="load per measurement [5]")
    parser.add_argument("--connections", type=int, default=32, help="keep-alive connections [32]")
    parser.add_argument("--rounds", type=int, default=3, help="measurements of each; the median counts [3]")
    parser.add_argument("--client", choices=("auto", "wrk", "asyncio"), default="auto")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return 0
    wrk = shutil.which("wrk")
    client = args.client if args.client != "auto" else ("wrk" if wrk else "asyncio")
    if client == "wrk" and wrk is None:
        raise SystemExit("wrk is not installed (apt-get install wrk), use --client asyncio")
    with tempfile.TemporaryDirectory(prefix="bench-rest-") as folder:
        state_dir = Path(folder) / "state"
        prepare(state_dir)
        scripts = {False: wrk_script(Path(folder)), True: wrk_script(Path(folder), fresh=True)}
        executes: list[float] = []
        json_rates: list[float] = []
        runs: dict[bool, list[Result]] = {False: [], True: []}
        for round_ in range(args.rounds):
            execute = in_process(state_dir, args.seconds, json_too=False)
            json_rate = in_process(state_dir, args.seconds, json_too=True)
            executes.append(execute)
            json_rates.append(json_rate)
            child, port = start_server(state_dir)
            try:
                check(port)
                for fresh in (False, True):
                    if client == "wrk":
                        assert wrk is not None
                        run_wrk(wrk, port, 1, args.connections, scripts[fresh])
                        cpu = process_cpu(child.pid)
                        result = run_wrk(wrk, port, args.seconds, args.connections, scripts[fresh])
                    else:
                        run_asyncio(port, 1, args.connections, fresh)
                        cpu = process_cpu(child.pid)
                        result = run_asyncio(port, args.seconds, args.connections, fresh)
                    cpu_us = (process_cpu(child.pid) - cpu) / max(result.requests, 1) * 1e6
                    CPU_US["rest_fresh" if fresh else "rest"].append(cpu_us)
                    print(
                        f"round {round_ + 1}: execute {execute:7.0f}/s, command_json {json_rate:7.0f}/s, "
                        f"REST{' (every body new)' if fresh else ''} {result.rps:7.0f} req/s "
                        f"p50 {result.p50_ms:.2f} ms p99 {result.p99_ms:.2f} ms ({result.requests} requests, "
                        f"server CPU {cpu_us:.0f} us each)",
                        file=sys.stderr,
                    )
                    runs[fresh].append(result)
            finally:
                assert child.stdin is not None
                child.stdin.close()
                child.wait(60)
    # Same-run ratios: each round's REST rate against that round's Session.execute rate.
    ratios = {fresh: statistics.median(r.rps / e for r, e in zip(runs[fresh], executes, strict=True)) for fresh in runs}
    execute = statistics.median(executes)
    json_rate = statistics.median(json_rates)
    print(
        f"runCommandJSON {LINE}, {args.connections} keep-alive connections, {args.seconds:g} s per run, "
        f"median of {args.rounds} rounds, load from {client} on this machine ({os.cpu_count()} CPUs)"
    )
    print(f"{'path':<34}{'per second':>12}{'x execute':>11}{'p50 ms':>9}{'p99 ms':>9}")
    print(f"{'Session.execute':<34}{execute:12.0f}{1.0:11.2f}")
    print(f"{'command_json (in process)':<34}{json_rate:12.0f}{json_rate / execute:11.2f}")
    for fresh, label in ((False, "REST runCommandJSON"), (True, "REST, every body new (no cache)")):
        rps = statistics.median(r.rps for r in runs[fresh])
        p50 = statistics.median(r.p50_ms for r in runs[fresh])
        p99 = statistics.median(r.p99_ms for r in runs[fresh])
        print(f"{label:<34}{rps:12.0f}{ratios[fresh]:11.2f}{p50:9.2f}{p99:9.2f}")
    cpu = {key: statistics.median(values) for key, values in CPU_US.items()}
    print(
        f"CPU per command: Session.execute {cpu['execute']:.0f} us, command_json {cpu['json']:.0f} us; "
        f"REST server per request {cpu['rest']:.0f} us (cached answer), {cpu['rest_fresh']:.0f} us (every body new): "
        f"CPU ratio {cpu['execute'] / cpu['rest_fresh']:.2f}x (execute / REST, every body new; the client not counted)"
    )
    ratio = ratios[True]
    verdict = "ok" if ratio >= TARGET else "MISSED"
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"RESULT rest: every body new (no cached answer) {ratio:.2f}x Session.execute ({execute:.0f}/s), "
        f"target >= {TARGET}x {verdict}; the same body again (cached answer): {ratios[False]:.2f}x"
    )
    print(
        f"GOAL rest_ratio {ratio:.2f} >= {TARGET} {verdict} REST runCommandJSON {LINE} with every body new "
        f"{statistics.median(r.rps for r in runs[True]):.0f} req/s vs Session.execute {execute:.0f}/s in process; "
        f"cached answer {ratios[False]:.2f}x; median of {args.rounds} rounds, {client}, load {load}"
    )
    return 0 if ratio >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
