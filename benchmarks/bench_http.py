"""HTTP server benchmark: requests per second and latency of the z/TPF HTTP server
engine serving /sample/20000 with gzip, against uvicorn + Starlette's GZipMiddleware
serving the same bytes at the same compression level, measured in the same run.

    python benchmarks/bench_http.py                    # wrk when installed, else asyncio client
    python benchmarks/bench_http.py --seconds 10 --connections 64 --rounds 3
    python benchmarks/bench_http.py --client asyncio

Servers (each in its own process, measured one after another, best of --rounds):

- starlette: uvicorn (h11, asyncio loop: the same HTTP implementation and event loop
  as mqtool) with GZipMiddleware(minimum_size=0, compresslevel=6), whose gzip is the
  standard library's zlib at level 6;
- mqtool-zlib6: mqtool's HttpServer with its GZIP codec swapped for the standard
  library's zlib at level 6, so both compress the same bytes the same way;
- mqtool: mqtool's HttpServer at its default GZIP codec (zlib-ng level 6).

The target is mqtool-zlib6 >= 0.8x starlette. The load generator is wrk (`apt-get
install wrk`) or, without it, an asyncio keep-alive client in this process; both run
on the same machine as the server. Every server is checked first: its gzip body must
decode to the exact sample bytes.

Measured on the shared 2-CPU development machine (load average 2-3 from other work,
so runs vary by +-30%), wrk 4.1.0, 32 connections, 5 s, best of 3:

    server        req/s  x starlette  p50 ms  p99 ms  gzip bytes
    starlette      2478      1.00      12.30   23.90      5773
    mqtool-zlib6   2144      0.87      12.18   34.10      5773
    mqtool         3335      1.35       8.06   22.40      5774

Both zlib-6 servers are bound by compression (about 0.41 ms per 20000-byte body with
the standard library, 0.19 ms with zlib-ng), which is why mqtool's default codec wins.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import loadgen
from loadgen import Result

ROOT = Path(__file__).resolve().parent.parent
SERVERS = ("starlette", "mqtool-zlib6", "mqtool", "nginx-1", "nginx-2")
TARGET = 0.8
#: issue 19: mqtool (its default codec, level 6) against nginx with 2 workers, gzip level 6
NGINX_TARGET = 0.5
LEVEL = 6
#: COMPSIZESW of the mqtool servers, and nginx's gzip_min_length: the same threshold
MIN_LENGTH = 1
NGINX_MISSING = (
    "nginx is not installed, so the nginx figures (and the http_nginx2 goal) are skipped;"
    " install it with: apt-get update && apt-get install -y nginx"
)


# ----------------------------------------------------------------- servers
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_starlette(port: int) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.gzip import GZipMiddleware
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from mqtool.engine.payload import generate

    async def sample(request: Request) -> Response:
        size = int(request.path_params["size"])
        return Response(generate("xml", size), media_type="application/xml")

    app = Starlette(
        routes=[Route("/sample/{size:int}", sample)],
        middleware=[Middleware(GZipMiddleware, minimum_size=0, compresslevel=LEVEL)],
    )
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, http="h11", loop="asyncio", log_level="warning", access_log=False
    )
    uvicorn.Server(config).run()


def serve_mqtool(port: int, stdlib: bool) -> None:
    from mqtool.engine import codecs
    from mqtool.engine.http import server as server_module
    from mqtool.engine.http.config import ServerOptions
    from mqtool.engine.http.server import HttpServer
    from mqtool.engine.http.stats import HttpStats

    if stdlib:

        def stdlib_compress(technique: str, data: bytes) -> bytes:
            wbits = 31 if technique == "GZIP" else 15
            packer = zlib.compressobj(LEVEL, zlib.DEFLATED, wbits)
            return packer.compress(data) + packer.flush()

        class StdlibCompressor:
            """The streaming form (bodies over BODY_BUFFER), also the standard library's."""

            def __init__(self, technique: str) -> None:
                self._packer = zlib.compressobj(LEVEL, zlib.DEFLATED, 31 if technique == "GZIP" else 15)

            def compress(self, data: bytes) -> bytes:
                return self._packer.compress(data)

            def flush(self) -> bytes:
                return self._packer.flush()

        # where this tree's server compresses whole bodies (its cache of compressed
        # bodies calls codecs.compress; an older tree called server.compress)
        codecs.compress = stdlib_compress  # type: ignore[assignment]
        server_module.compress = stdlib_compress  # type: ignore[attr-defined]
        server_module.Compressor = StdlibCompressor  # type: ignore[assignment,misc]
    folder = Path(os.environ.get("TMPDIR", "/tmp"))
    options = ServerOptions(
        name="BENCH",
        port=port,
        ip="127.0.0.1",
        docroot=folder,
        maxconn=10000,
        timeout=60.0,
        comp=("gzip",),
        compsizehw=0,
        compsizesw=MIN_LENGTH,
        path=folder / "BENCH.conf",
    )

    async def main() -> None:
        server = HttpServer(lambda: options, lambda: False, HttpStats())
        await server.start()
        await asyncio.Event().wait()

    asyncio.run(main())


_NGINX_CONF = """\
{user}worker_processes {workers};
daemon off;
master_process on;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    default_type application/xml;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 60s;
    gzip on;
    gzip_comp_level {level};
    gzip_min_length {min_length};
    gzip_types application/xml;
    gzip_vary on;
    server {{
        listen 127.0.0.1:{port};
        root {folder}/www;
    }}
}}
"""


def nginx_command(nginx: str, folder: Path, port: int, workers: int, size: int) -> list[str]:
    """Writes nginx's configuration and the sample file (the same bytes mqtool
    generates) into `folder`, and returns the command that runs nginx in the
    foreground as this user on 127.0.0.1:`port` with `workers` worker processes."""
    from mqtool.engine.payload import generate

    (folder / "www" / "sample").mkdir(parents=True, exist_ok=True)
    (folder / "www" / "sample" / str(size)).write_bytes(generate("xml", size))
    # nginx started by root switches its workers to "nobody", who cannot read a
    # private temporary folder: name root itself (the directive is ignored otherwise).
    user = "user root;\n" if os.geteuid() == 0 else ""
    conf = folder / "nginx.conf"
    conf.write_text(
        _NGINX_CONF.format(user=user, workers=workers, folder=folder, level=LEVEL, min_length=MIN_LENGTH, port=port)
    )
    return [nginx, "-p", str(folder), "-c", str(conf), "-e", str(folder / "error.log")]


def start_server(kind: str, size: int, folder: Path, before: Path | None) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    env = None
    if kind.startswith("nginx-"):
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        command = nginx_command(nginx, folder / kind, port, int(kind.split("-")[1]), size)
    else:
        command = [sys.executable, str(Path(__file__).resolve()), "--serve", kind, "--port", str(port)]
        if kind.endswith("@before"):
            assert before is not None
            env = {**os.environ, "PYTHONPATH": str(before)}
            command[3] = kind.removesuffix("@before")
    child = subprocess.Popen(command, cwd=ROOT, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return child, port
        except OSError:
            if child.poll() is not None:
                raise SystemExit(f"the {kind} server exited with {child.returncode}") from None
            time.sleep(0.05)
    child.kill()
    raise SystemExit(f"the {kind} server did not start listening")


def check(port: int, size: int) -> int:
    """One request: the body must be gzip and decode to the sample; returns its size."""
    import http.client

    from mqtool.engine.payload import generate

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", f"/sample/{size}", headers={"Accept-Encoding": "gzip"})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    if response.status != 200 or response.getheader("Content-Encoding") != "gzip":
        raise SystemExit(f"port {port}: expected a gzip 200, got {response.status} {response.getheaders()}")
    if gzip.decompress(body) != generate("xml", size):
        raise SystemExit(f"port {port}: the gzip body does not decode to the sample")
    return len(body)


# ------------------------------------------------------------------- load
def run_wrk(wrk: str, port: int, size: int, seconds: float, connections: int) -> Result:
    url = f"http://127.0.0.1:{port}/sample/{size}"
    return loadgen.run_wrk(wrk, url, seconds, connections, ["-H", "Accept-Encoding: gzip"])


async def _client(port: int, request: bytes, stop_at: float, latencies: list[float]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.perf_counter() < stop_at:
            began = time.perf_counter()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))  # type: ignore[union-attr]
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - began)
    finally:
        writer.close()


def run_asyncio(port: int, size: int, seconds: float, connections: int) -> Result:
    request = f"GET /sample/{size} HTTP/1.1\r\nHost: bench\r\nAccept-Encoding: gzip\r\n\r\n".encode()
    return loadgen.run_clients(
        lambda stop_at, latencies: _client(port, request, stop_at, latencies), seconds, connections
    )


# ------------------------------------------------------------------- main
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="load per measurement [5]")
    parser.add_argument("--connections", type=int, default=32, help="keep-alive connections [32]")
    parser.add_argument("--size", type=int, default=20000, help="sample bytes [20000]")
    parser.add_argument("--rounds", type=int, default=3, help="measurements per server; the median counts [3]")
    parser.add_argument("--client", choices=("auto", "wrk", "asyncio"), default="auto")
    parser.add_argument(
        "--only", help=f"comma-separated servers to measure, of {', '.join(SERVERS)} [all]", default=",".join(SERVERS)
    )
    parser.add_argument(
        "--before",
        type=Path,
        metavar="TREE",
        help="also measure mqtool from another source tree (e.g. `git archive` of an older commit), same run",
    )
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        if args.serve == "starlette":
            serve_starlette(args.port)
        else:
            serve_mqtool(args.port, stdlib=args.serve == "mqtool-zlib6")
        return 0

    wrk = shutil.which("wrk")
    client = args.client if args.client != "auto" else ("wrk" if wrk else "asyncio")
    if client == "wrk" and wrk is None:
        raise SystemExit("wrk is not installed (apt-get install wrk), use --client asyncio")
    kinds = [kind for kind in args.only.split(",") if kind]
    unknown = set(kinds) - set(SERVERS)
    if unknown:
        raise SystemExit(f"unknown servers: {', '.join(sorted(unknown))}")
    if not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()) and any(k.startswith("nginx") for k in kinds):
        print(NGINX_MISSING, file=sys.stderr)
        kinds = [kind for kind in kinds if not kind.startswith("nginx")]
    if args.before is not None:
        kinds += [f"{kind}@before" for kind in kinds if kind.startswith("mqtool")]
    results: dict[str, list[Result]] = {kind: [] for kind in kinds}
    wire: dict[str, int] = {}
    load: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-http-") as tmp:
        for round_ in range(args.rounds):
            for kind in kinds:
                child, port = start_server(kind, args.size, Path(tmp), args.before)
                try:
                    wire[kind] = check(port, args.size)
                    # a short warm-up, then the measurement
                    if client == "wrk":
                        assert wrk is not None
                        run_wrk(wrk, port, args.size, 1, args.connections)
                        result = run_wrk(wrk, port, args.size, args.seconds, args.connections)
                    else:
                        run_asyncio(port, args.size, 1, args.connections)
                        result = run_asyncio(port, args.size, args.seconds, args.connections)
                finally:
                    child.terminate()
                    child.wait(30)
                print(
                    f"round {round_ + 1} {kind:<20} {result.rps:9.0f} req/s  p50 {result.p50_ms:6.2f} ms"
                    f"  p99 {result.p99_ms:6.2f} ms  ({result.requests} requests)",
                    file=sys.stderr,
                )
                results[kind].append(result)
            load.append(_load())
    median = {kind: _median(runs) for kind, runs in results.items()}
    print(
        f"GET /sample/{args.size} with Accept-Encoding: gzip (level {LEVEL}), {args.connections} keep-alive "
        f"connections, {args.seconds:g} s per run, median of {args.rounds}, load from {client} on this machine "
        f"({os.cpu_count()} CPUs; load average after each round: {'; '.join(load)})"
    )
    base = median["starlette"].rps if "starlette" in median else None
    nginx2 = median["nginx-2"].rps if "nginx-2" in median else None
    print(f"{'server':<22}{'req/s':>9}{'x starlette':>13}{'x nginx-2':>11}{'p50 ms':>9}{'p99 ms':>9}{'gzip bytes':>12}")
    for kind in kinds:
        r = median[kind]
        x_base = f"{r.rps / base:13.2f}" if base else f"{'-':>13}"
        x_nginx = f"{r.rps / nginx2:11.2f}" if nginx2 else f"{'-':>11}"
        print(f"{kind:<22}{r.rps:9.0f}{x_base}{x_nginx}{r.p50_ms:9.2f}{r.p99_ms:9.2f}{wire[kind]:12d}")
    ok = True
    where = f"load average {load[-1]}"
    if base and "mqtool-zlib6" in median:
        ratio = median["mqtool-zlib6"].rps / base
        verdict = "met" if ratio >= TARGET else "NOT met"
        print(f"RESULT http mqtool-zlib6 {ratio:.2f}x starlette (target >= {TARGET}, issue 4): {verdict}")
        ok &= ratio >= TARGET
    if base and "mqtool" in median:
        print(f"RESULT http mqtool {median['mqtool'].rps / base:.2f}x uvicorn+starlette (both gzip level {LEVEL})")
    if nginx2 and "mqtool" in median:
        ratio = median["mqtool"].rps / nginx2
        met = ratio >= NGINX_TARGET
        ok &= met
        print(
            f"GOAL http_nginx2 {ratio:.2f} >= {NGINX_TARGET} {'ok' if met else 'MISSED'} mqtool"
            f" {median['mqtool'].rps:.0f} req/s vs nginx 2 workers {nginx2:.0f} req/s, /sample/{args.size}"
            f" gzip level {LEVEL}"
            + (f", {median['mqtool'].rps / base:.2f}x uvicorn+starlette" if base else "")
            + f", {where}"
        )
    return 0 if ok else 1


def _median(runs: list[Result]) -> Result:
    ordered = sorted(runs, key=lambda r: r.rps)
    return ordered[len(ordered) // 2]


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
