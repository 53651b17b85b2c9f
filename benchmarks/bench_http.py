"""HTTP server benchmark: requests per second and latency of the z/TPF HTTP server
engine serving /sample/20000 with gzip, against nginx with 1 and 2 worker processes and
uvicorn + Starlette's GZipMiddleware, all serving the same bytes at the same gzip level
(6), measured in the same run.

    python benchmarks/bench_http.py                    # wrk when installed, else asyncio client
    python benchmarks/bench_http.py --seconds 10 --connections 64 --rounds 5
    python benchmarks/bench_http.py --steps            # also what each of nginx's ways is worth
    python benchmarks/bench_http.py --before TREE      # also mqtool from another source tree

Servers (each in its own processes, measured one after another in each round; the
figure of a server is its median over --rounds, a ratio the median of its same-round
ratios):

- starlette: uvicorn (h11, asyncio loop: the same HTTP implementation and event loop
  as mqtool) with GZipMiddleware(minimum_size=0, compresslevel=6), whose gzip is the
  standard library's zlib at level 6;
- mqtool-zlib6: mqtool's HttpServer with its GZIP codec swapped for the standard
  library's zlib at level 6, so both compress the same bytes the same way;
- mqtool: mqtool's HttpServer at its default GZIP codec (zlib-ng level 6);
- nginx-1, nginx-2: nginx (`apt-get install nginx`) with worker_processes 1 and 2, run
  as this user from a temporary configuration on 127.0.0.1 (a port the system chose),
  gzip on at level 6 with gzip_min_length equal to the mqtool servers' COMPSIZESW,
  sendfile on, serving the sample as a file of the same bytes. Without nginx those
  figures and the http_nginx2 goal are skipped, with a note saying how to install it.

Targets: mqtool-zlib6 >= 0.8x starlette (issue 4); mqtool >= 0.5x nginx-2 (issue 19,
GOAL http_nginx2). The load generator is wrk (`apt-get install wrk`) or, without it,
an asyncio keep-alive client in this process; both run on the same machine as the
servers. Every server is checked first: its body must decode to the exact bytes.

--steps measures, in the same rounds, what nginx does that mqtool's server did not
(see benchmarks/README.md for the figures): mqtool-nocache (no cache of generated and
compressed bodies: every response compressed again), mqtool-noheads (the response
head's h11 event built for every response), mqtool-2proc (two server processes on one
port with SO_REUSEPORT, as nginx's workers), "close" (a new connection per request,
wrk sending Connection: close) and "file" (a 1 MiB file without gzip: sendfile against
mqtool-nosendfile's reads and writes). The steps need wrk.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import re
import shutil
import socket
import statistics
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
#: --steps: (label, server, request): "gzip" /sample/N with gzip on keep-alive
#: connections, "close" the same with a connection per request, "file" FILE_NAME without gzip
STEPS = (
    ("mqtool-nocache", "mqtool-nocache", "gzip"),
    ("mqtool-noheads", "mqtool-noheads", "gzip"),
    ("mqtool-2proc", "mqtool-2proc", "gzip"),
    ("mqtool close", "mqtool", "close"),
    ("nginx-2 close", "nginx-2", "close"),
    ("mqtool file", "mqtool", "file"),
    ("mqtool-nosendfile file", "mqtool-nosendfile", "file"),
    ("nginx-2 file", "nginx-2", "file"),
)
MQTOOL_VARIANTS = ("mqtool", "mqtool-zlib6", "mqtool-nocache", "mqtool-noheads", "mqtool-2proc", "mqtool-nosendfile")
FILE_NAME = "big.txt"
FILE_BYTES = 1024 * 1024
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


def serve_mqtool(port: int, variant: str, docroot: Path) -> None:
    from mqtool.engine import codecs
    from mqtool.engine.http import server as server_module
    from mqtool.engine.http.config import ServerOptions
    from mqtool.engine.http.server import HttpServer
    from mqtool.engine.http.stats import HttpStats

    if variant == "mqtool-zlib6":

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
    elif variant == "mqtool-nocache":
        from mqtool.engine.http import bodycache

        for cache in (bodycache._compressed, bodycache._samples):
            cache.limit = 0  # nothing is kept: every body generated and compressed again
    elif variant == "mqtool-noheads":
        server_module._response = server_module._response.__wrapped__  # type: ignore[attr-defined]
    elif variant == "mqtool-nosendfile":
        server_module._SENDFILE = False  # type: ignore[attr-defined]
    elif variant == "mqtool-2proc":
        # the listener as nginx's workers share theirs: each process binds the port
        # with SO_REUSEPORT and the kernel spreads new connections over them
        listen = server_module._listen

        def reuse_port(ip: str, port: int, backlog: int) -> socket.socket:
            original = socket.socket.bind

            def bind(sock: socket.socket, address: object) -> None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
                original(sock, address)

            socket.socket.bind = bind  # type: ignore[method-assign]
            try:
                return listen(ip, port, backlog)
            finally:
                socket.socket.bind = original  # type: ignore[method-assign]

        server_module._listen = reuse_port
    options = ServerOptions(
        name="BENCH",
        port=port,
        ip="127.0.0.1",
        docroot=docroot,
        maxconn=10000,
        timeout=60.0,
        comp=("gzip",),
        compsizehw=0,
        compsizesw=MIN_LENGTH,
        path=docroot / "BENCH.conf",
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
        root {www};
    }}
}}
"""


def write_www(www: Path, size: int) -> None:
    """The files served: the sample as nginx serves it (the same bytes mqtool
    generates for /sample/N) and FILE_NAME for the "file" step."""
    from mqtool.engine.payload import generate

    (www / "sample").mkdir(parents=True, exist_ok=True)
    (www / "sample" / str(size)).write_bytes(generate("xml", size))
    (www / FILE_NAME).write_bytes(generate("text", FILE_BYTES))


def nginx_command(nginx: str, folder: Path, www: Path, port: int, workers: int) -> list[str]:
    """Writes nginx's configuration into `folder` and returns the command that runs
    nginx in the foreground as this user on 127.0.0.1:`port` with `workers` worker
    processes, serving `www`."""
    folder.mkdir(exist_ok=True)
    # nginx started by root switches its workers to "nobody", who cannot read a
    # private temporary folder: name root itself (the directive is ignored otherwise).
    user = "user root;\n" if os.geteuid() == 0 else ""
    conf = folder / "nginx.conf"
    conf.write_text(
        _NGINX_CONF.format(
            user=user, workers=workers, folder=folder, www=www, level=LEVEL, min_length=MIN_LENGTH, port=port
        )
    )
    return [nginx, "-p", str(folder), "-c", str(conf), "-e", str(folder / "error.log")]


def start_server(server: str, folder: Path, before: Path | None) -> tuple[list[subprocess.Popen[bytes]], int]:
    """Starts `server` (a name of SERVERS or MQTOOL_VARIANTS, "@before" for the
    other tree) serving folder/www; returns its processes and port."""
    port = _free_port()
    env = None
    www = folder / "www"
    if server.startswith("nginx-"):
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        commands = [nginx_command(nginx, folder / server, www, port, int(server.split("-")[1]))]
    else:
        name = server.removesuffix("@before")
        command = [sys.executable, str(Path(__file__).resolve()), "--serve", name, "--port", str(port)]
        command += ["--docroot", str(www)]
        if name != server:
            assert before is not None
            env = {**os.environ, "PYTHONPATH": str(before)}
        commands = [command] * (2 if name == "mqtool-2proc" else 1)
    children: list[subprocess.Popen[bytes]] = []
    try:
        for command in commands:
            children.append(subprocess.Popen(command, cwd=ROOT, env=env))
            _wait_listening(server, port, children[-1], len(children))
    except BaseException:
        stop(children)
        raise
    return children, port


def _wait_listening(server: str, port: int, child: subprocess.Popen[bytes], sockets: int) -> None:
    """Until `sockets` sockets listen on the port (each SO_REUSEPORT process has its
    own) and a connection is accepted."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise SystemExit(f"the {server} server exited with {child.returncode}")
        if _listeners(port) >= sockets:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                pass
        time.sleep(0.05)
    child.kill()
    raise SystemExit(f"the {server} server did not start listening")


def _listeners(port: int) -> int:
    """Sockets listening on 127.0.0.1:port (from /proc/net/tcp)."""
    wanted = f"0100007F:{port:04X}"
    try:
        lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
    except OSError:  # not Linux: the connection alone tells
        return 2
    return sum(1 for line in lines if line.split()[1] == wanted and line.split()[3] == "0A")


def stop(children: list[subprocess.Popen[bytes]]) -> None:
    for child in children:
        child.terminate()
    for child in children:
        child.wait(30)


def check(port: int, request: str, size: int, www: Path) -> int:
    """One request: the body must be the sample (gzip) or the file (as stored);
    returns its size on the wire."""
    import http.client

    from mqtool.engine.payload import generate

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    if request == "file":
        conn.request("GET", f"/{FILE_NAME}")
    else:
        conn.request("GET", f"/sample/{size}", headers={"Accept-Encoding": "gzip"})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    if request == "file":
        if response.status != 200 or body != (www / FILE_NAME).read_bytes():
            raise SystemExit(f"port {port}: /{FILE_NAME} is not the file ({response.status})")
        return len(body)
    if response.status != 200 or response.getheader("Content-Encoding") != "gzip":
        raise SystemExit(f"port {port}: expected a gzip 200, got {response.status} {response.getheaders()}")
    if gzip.decompress(body) != generate("xml", size):
        raise SystemExit(f"port {port}: the gzip body does not decode to the sample")
    return len(body)


# ------------------------------------------------------------------- load
def run_wrk(wrk: str, port: int, request: str, size: int, seconds: float, connections: int) -> Result:
    if request == "file":
        return loadgen.run_wrk(wrk, f"http://127.0.0.1:{port}/{FILE_NAME}", seconds, connections, [])
    headers = ["-H", "Accept-Encoding: gzip"]
    if request == "close":
        headers += ["-H", "Connection: close"]
    return loadgen.run_wrk(wrk, f"http://127.0.0.1:{port}/sample/{size}", seconds, connections, headers)


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
Measurement = tuple[str, str, str]  # label, server, request ("gzip", "close" or "file")


def measurements(args: argparse.Namespace, client: str) -> list[Measurement]:
    names = [name for name in args.only.split(",") if name]
    unknown = set(names) - set(SERVERS)
    if unknown:
        raise SystemExit(f"unknown servers: {', '.join(sorted(unknown))}")
    chosen: list[Measurement] = [(name, name, "gzip") for name in names]
    if args.steps:
        if client != "wrk":
            raise SystemExit("--steps needs wrk (apt-get install wrk)")
        chosen += [step for step in STEPS if step[0] not in names]
    if not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()) and any(
        m[1].startswith("nginx") for m in chosen
    ):
        print(NGINX_MISSING, file=sys.stderr)
        chosen = [m for m in chosen if not m[1].startswith("nginx")]
    if args.before is not None:
        chosen += [
            (f"{label}@before", f"{server}@before", request)
            for label, server, request in chosen
            if server in ("mqtool", "mqtool-zlib6")
        ]
    return chosen


def measure(
    measurement: Measurement, args: argparse.Namespace, client: str, wrk: str | None, folder: Path
) -> tuple[Result, int]:
    _, server, request = measurement
    children, port = start_server(server, folder, args.before)
    try:
        wire = check(port, request, args.size, folder / "www")
        # a short warm-up, then the measurement
        if client == "wrk":
            assert wrk is not None
            run_wrk(wrk, port, request, args.size, 1, args.connections)
            result = run_wrk(wrk, port, request, args.size, args.seconds, args.connections)
        else:
            run_asyncio(port, args.size, 1, args.connections)
            result = run_asyncio(port, args.size, args.seconds, args.connections)
    finally:
        stop(children)
    return result, wire


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=5, help="load per measurement, whole seconds [5]")
    parser.add_argument("--connections", type=int, default=32, help="keep-alive connections [32]")
    parser.add_argument("--size", type=int, default=20000, help="sample bytes [20000]")
    parser.add_argument("--rounds", type=int, default=3, help="measurements per server; the median counts [3]")
    parser.add_argument("--client", choices=("auto", "wrk", "asyncio"), default="auto")
    parser.add_argument(
        "--only", help=f"comma-separated servers to measure, of {', '.join(SERVERS)} [all]", default=",".join(SERVERS)
    )
    parser.add_argument("--steps", action="store_true", help="also measure the steps (see the docstring); needs wrk")
    parser.add_argument(
        "--before",
        type=Path,
        metavar="TREE",
        help="also measure mqtool from another source tree (e.g. `git archive` of an older commit), same run",
    )
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--docroot", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        if args.serve == "starlette":
            serve_starlette(args.port)
        else:
            serve_mqtool(args.port, args.serve, args.docroot)
        return 0

    wrk = shutil.which("wrk")
    client = args.client if args.client != "auto" else ("wrk" if wrk else "asyncio")
    if client == "wrk" and wrk is None:
        raise SystemExit("wrk is not installed (apt-get install wrk), use --client asyncio")
    chosen = measurements(args, client)
    results: dict[str, list[Result]] = {label: [] for label, _, _ in chosen}
    wire: dict[str, int] = {}
    load: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-http-") as tmp:
        folder = Path(tmp)
        write_www(folder / "www", args.size)
        for round_ in range(args.rounds):
            for measurement in chosen:
                label = measurement[0]
                result, wire[label] = measure(measurement, args, client, wrk, folder)
                print(
                    f"round {round_ + 1} {label:<24} {result.rps:9.0f} req/s  p50 {result.p50_ms:6.2f} ms"
                    f"  p99 {result.p99_ms:6.2f} ms  ({result.requests} requests)",
                    file=sys.stderr,
                )
                results[label].append(result)
            load.append(_load())
    return report(args, client, chosen, results, wire, load)


def report(
    args: argparse.Namespace,
    client: str,
    chosen: list[Measurement],
    results: dict[str, list[Result]],
    wire: dict[str, int],
    load: list[str],
) -> int:
    median = {label: _median(runs) for label, runs in results.items()}
    print(
        f"GET /sample/{args.size} with Accept-Encoding: gzip (level {LEVEL}), {args.connections} keep-alive "
        f"connections, {args.seconds:g} s per run, median of {args.rounds}, load from {client} on this machine "
        f"({os.cpu_count()} CPUs; load average after each round: {'; '.join(load)})"
    )

    def ratio(label: str, base: str) -> float | None:
        """The median of the same-round ratios of two measurements."""
        if label not in results or base not in results:
            return None
        return statistics.median(r.rps / b.rps for r, b in zip(results[label], results[base], strict=True))

    print(f"{'measurement':<26}{'req/s':>9}{'x starlette':>13}{'x nginx-2':>11}{'p50 ms':>9}{'p99 ms':>9}{'bytes':>10}")
    for label, _, request in chosen:
        r = median[label]
        to_base = ratio(label, "starlette") if request == "gzip" else None
        to_nginx = ratio(label, {"gzip": "nginx-2", "close": "nginx-2 close", "file": "nginx-2 file"}[request])
        x_base = f"{to_base:13.2f}" if to_base is not None else f"{'-':>13}"
        x_nginx = f"{to_nginx:11.2f}" if to_nginx is not None else f"{'-':>11}"
        print(f"{label:<26}{r.rps:9.0f}{x_base}{x_nginx}{r.p50_ms:9.2f}{r.p99_ms:9.2f}{wire[label]:10d}")
    ok = True
    where = f"load average {load[-1]}"
    zlib6 = ratio("mqtool-zlib6", "starlette")
    if zlib6 is not None:
        verdict = "met" if zlib6 >= TARGET else "NOT met"
        print(f"RESULT http mqtool-zlib6 {zlib6:.2f}x starlette (target >= {TARGET}, issue 4): {verdict}")
        ok &= zlib6 >= TARGET
    uvicorn = ratio("mqtool", "starlette")
    if uvicorn is not None:
        print(f"RESULT http mqtool {uvicorn:.2f}x uvicorn+starlette (both gzip level {LEVEL})")
    nginx2 = ratio("mqtool", "nginx-2")
    if nginx2 is not None:
        met = nginx2 >= NGINX_TARGET
        ok &= met
        print(f"RESULT http mqtool {nginx2:.2f}x nginx with 2 workers (target >= {NGINX_TARGET}, issue 19)")
        print(
            f"GOAL http_nginx2 {nginx2:.2f} >= {NGINX_TARGET} {'ok' if met else 'MISSED'} mqtool"
            f" {median['mqtool'].rps:.0f} req/s vs nginx 2 workers {median['nginx-2'].rps:.0f} req/s,"
            f" /sample/{args.size} gzip level {LEVEL}"
            + (f", {uvicorn:.2f}x uvicorn+starlette" if uvicorn is not None else "")
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
