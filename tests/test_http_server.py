"""The z/TPF HTTP server engine over real sockets on 127.0.0.1 (http.client, raw
sockets and curl as clients); each server runs on its own event loop thread.
"""

from __future__ import annotations

import asyncio
import gzip
import http.client
import select
import socket
import subprocess
import threading
import time
import zlib
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from mqtool.engine.codecs import CodecError, Compressor, decompress
from mqtool.engine.http.config import ServerOptions
from mqtool.engine.http.server import BODY_BUFFER, BODY_LIMIT, HEAD_LIMIT, HttpServer
from mqtool.engine.http.stats import HttpStats
from mqtool.engine.payload import generate, generate_pieces

# Only a safety net so a broken server fails a test instead of hanging it; no
# assertion depends on how long anything takes.
SAFETY = 10.0


# ------------------------------------------------------------------ harness
class Running:
    """An HttpServer started on a private event loop in a background thread."""

    def __init__(
        self,
        options: ServerOptions,
        hardware: bool | Callable[[], bool],
        perf: Callable[[], float] | None,
    ) -> None:
        self.options = options
        self.hardware = hardware
        self.stats = HttpStats()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        extra: dict[str, Any] = {} if perf is None else {"perf": perf}
        self.server = HttpServer(lambda: self.options, self._is_hardware, self.stats, **extra)
        self.call(self.server.start())
        assert self.server.port
        self.port: int = self.server.port

    def _is_hardware(self) -> bool:
        return self.hardware() if callable(self.hardware) else self.hardware

    def call(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(SAFETY)

    def close(self) -> None:
        try:
            self.call(self.server.stop())
            self.call(self.loop.shutdown_default_executor())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(SAFETY)
            self.loop.close()


@pytest.fixture
def docroot(tmp_path: Path) -> Path:
    root = tmp_path / "www"
    (root / "sub").mkdir(parents=True)
    (root / "index.html").write_text("<html><body>hello</body></html>\n")
    (root / "style.css").write_text("body { color: black }\n")
    (root / "blob.zzz").write_bytes(bytes(range(256)))
    (root / "sub" / "page.txt").write_text("a page\n")
    (root / "big.txt").write_bytes(generate("text", 50_000))
    (tmp_path / "secret.txt").write_text("SECRET\n")
    (root / "link_in").symlink_to(root / "style.css")
    (root / "link_out").symlink_to(tmp_path / "secret.txt")
    (root / "dir_out").symlink_to(tmp_path)
    return root


def make_options(docroot: Path, **changes: Any) -> ServerOptions:
    """Options for a test server: an OS-chosen port and a 5 s safety TIMEOUT."""
    options = ServerOptions(
        name="WEB1",
        port=0,
        ip="127.0.0.1",
        docroot=docroot,
        maxconn=100,
        timeout=5.0,
        comp=(),
        compsizehw=0,
        compsizesw=0,
        path=docroot.parent / "WEB1.conf",
    )
    return replace(options, **changes)


@pytest.fixture
def serve(docroot: Path) -> Iterator[Callable[..., Running]]:
    started: list[Running] = []

    def start(
        hardware: bool | Callable[[], bool] = False,
        perf: Callable[[], float] | None = None,
        **changes: Any,
    ) -> Running:
        changes.setdefault("docroot", docroot)
        running = Running(make_options(**changes), hardware, perf)
        started.append(running)
        return running

    yield start
    for running in started:
        running.close()


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes


def fetch(srv: Running, path: str, headers: dict[str, str] | None = None, method: str = "GET") -> Reply:
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=SAFETY)
    try:
        conn.request(method, path, headers=headers or {})
        response = conn.getresponse()
        found = {name.lower(): value for name, value in response.getheaders()}
        return Reply(response.status, found, response.read())
    finally:
        conn.close()


def connect(srv: Running) -> tuple[socket.socket, BinaryIO]:
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=SAFETY)
    return sock, sock.makefile("rb")


def read_reply(stream: BinaryIO, method: str = "GET") -> Reply:
    status_line = stream.readline()
    assert status_line, "the server closed the connection instead of answering"
    status = int(status_line.split(b" ", 2)[1])
    headers: dict[str, str] = {}
    while True:
        line = stream.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    length = 0 if method == "HEAD" else int(headers.get("content-length", "0"))
    return Reply(status, headers, stream.read(length))


def closed_by_server(sock: socket.socket, stream: BinaryIO) -> bool:
    """True once the server has closed (EOF or reset); blocks until it does."""
    try:
        return stream.read() == b""
    except ConnectionResetError:
        return True


def wait_for(condition: Callable[[], bool]) -> None:
    """Waits for an event the server reports through its counters."""
    deadline = time.monotonic() + SAFETY
    while not condition():
        assert time.monotonic() < deadline, "the server never reached the state"
        time.sleep(0.01)


def raw_get(path: str, version: str = "1.1", extra: str = "") -> bytes:
    return f"GET {path} HTTP/{version}\r\nHost: t\r\n{extra}\r\n".encode("latin-1")


# ----------------------------------------------------------------- serving
def test_get_and_head_static_files(serve: Callable[..., Running]) -> None:
    srv = serve()
    page = fetch(srv, "/index.html")
    assert page.status == 200
    assert page.body == b"<html><body>hello</body></html>\n"
    assert page.headers["content-type"] == "text/html"
    assert page.headers["content-length"] == str(len(page.body))
    assert "vary" not in page.headers  # COMP is empty: nothing could vary
    head = fetch(srv, "/index.html", method="HEAD")
    assert (head.status, head.body) == (200, b"")
    assert head.headers["content-length"] == page.headers["content-length"]
    assert fetch(srv, "/").body == page.body  # a folder serves its index.html
    assert fetch(srv, "/sub/page.txt").headers["content-type"] == "text/plain"
    assert fetch(srv, "/style.css").headers["content-type"] == "text/css"
    assert fetch(srv, "/link_in").body == b"body { color: black }\n"  # inside root
    blob = fetch(srv, "/blob.zzz")
    assert blob.body == bytes(range(256))
    assert blob.headers["content-type"] == "application/octet-stream"
    assert fetch(srv, "/index.html?x=1&y=%zz").status == 200  # query ignored
    assert fetch(srv, "/sub/").status == 404  # no index.html there
    assert srv.stats.none_count == 9  # error responses count too
    assert srv.stats.url_errors == 1


def test_non_ascii_names_and_missing_docroot(serve: Callable[..., Running], docroot: Path) -> None:
    (docroot / "caf\u00e9.txt").write_text("menu\n")
    srv = serve()
    assert fetch(srv, "/caf%C3%A9.txt").body == b"menu\n"
    gone = serve(docroot=docroot.parent / "no-such-folder")
    assert fetch(gone, "/index.html").status == 404
    assert fetch(gone, "/sample/5").body == generate("xml", 5)  # needs no DOCROOT


@pytest.mark.parametrize("size", [BODY_BUFFER + 1, 5 * BODY_BUFFER + 123, 16 * 1024 * 1024 + 1])
def test_large_files_are_streamed_and_compressed_as_they_go(
    serve: Callable[..., Running], docroot: Path, size: int
) -> None:
    data = generate("text", size)
    (docroot / "large.txt").write_bytes(data)
    srv = serve(comp=("gzip",), compsizesw=1)
    plain = fetch(srv, "/large.txt", {"Accept-Encoding": "identity"})
    assert plain.body == data
    assert plain.headers["content-length"] == str(size)  # known in advance: no chunks
    assert "transfer-encoding" not in plain.headers and "content-encoding" not in plain.headers
    packed = fetch(srv, "/large.txt", {"Accept-Encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.headers["transfer-encoding"] == "chunked"  # the length is known only at the end
    assert "content-length" not in packed.headers
    assert gzip.decompress(packed.body) == data
    for accept, reply in (("identity", plain), ("gzip", packed)):
        head = fetch(srv, "/large.txt", {"Accept-Encoding": accept}, method="HEAD")
        assert (head.status, head.body) == (200, b"")
        assert head.headers == reply.headers  # HEAD: the headers GET gets
    stats = srv.stats
    assert (stats.software_count, stats.none_count) == (2, 2)
    assert stats.compressed_bytes_before == 2 * size
    assert stats.compressed_bytes_after == 2 * len(packed.body)
    assert 0 < stats.avg_ratio < 100


def test_sparse_file_over_16_mib_is_compressed_streaming(serve: Callable[..., Running], docroot: Path) -> None:
    size = 16 * 1024 * 1024 + 1
    with (docroot / "huge.bin").open("wb") as handle:
        handle.truncate(size)  # sparse: no time spent writing zeros
    srv = serve(comp=("gzip",), compsizesw=1)
    reply = fetch(srv, "/huge.bin", {"Accept-Encoding": "gzip"})
    assert reply.headers["content-encoding"] == "gzip" and len(reply.body) < size // 100
    assert gzip.decompress(reply.body) == bytes(size)
    plain = fetch(srv, "/huge.bin")
    assert int(plain.headers["content-length"]) == len(plain.body) == size


@pytest.mark.parametrize("size", [0, 1, 100, 5000, 200_000, BODY_BUFFER, BODY_BUFFER + 1, 3_000_017, 16 * 1024 * 1024])
def test_sample_is_exactly_n_bytes_of_xml(serve: Callable[..., Running], size: int) -> None:
    srv = serve(comp=("deflate",), compsizesw=1)
    reply = fetch(srv, f"/sample/{size}")
    assert reply.status == 200
    assert reply.headers["content-type"] == "application/xml"
    assert reply.headers["content-length"] == str(size)
    assert reply.body == generate("xml", size)
    assert len(reply.body) == size
    packed = fetch(srv, f"/sample/{size}", {"Accept-Encoding": "deflate"})
    if size:
        assert zlib.decompress(packed.body) == reply.body
    # streamed (chunked) above one buffer, whole with its length up to it
    assert ("content-length" in packed.headers) == (size <= BODY_BUFFER)


@pytest.mark.parametrize(("technique", "decode"), [("GZIP", gzip.decompress), ("DEFLATE", zlib.decompress)])
def test_the_streaming_compressor(technique: str, decode: Callable[[bytes], bytes]) -> None:
    data = generate("xml", 1_000_000)
    packer = Compressor(technique)
    out = b"".join([packer.compress(data[at : at + 4096]) for at in range(0, len(data), 4096)] + [packer.flush()])
    assert decode(out) == data
    assert decompress(technique, out) == data
    if technique == "GZIP":
        assert out[9] == 255  # OS "unknown", like compress(): the same bytes on every platform
    with pytest.raises(CodecError):
        Compressor("RLE")


@pytest.mark.parametrize("size", [1, 1023, 1024, 2 * 1024 * 1024 - 7, 16 * 1024 * 1024])
@pytest.mark.parametrize("pattern", ["xml", "json", "text", "random"])
def test_generated_pieces_make_the_message(pattern: str, size: int) -> None:
    # /sample/N streams the generator's pieces: they must be generate()'s bytes.
    pieces = generate_pieces(pattern, size, 3, 7)
    assert b"".join(pieces) == generate(pattern, size, 3, 7)
    if pattern != "random":
        # views of a corpus (512 KiB and a record), never the whole message
        assert max(len(piece) for piece in pieces) <= 600 * 1024


@pytest.mark.parametrize(("coding", "decode"), [("gzip", gzip.decompress), ("deflate", zlib.decompress)])
@pytest.mark.parametrize("path", ["/sample/20000", "/big.txt"])
def test_compressed_bodies_decode_to_the_original(
    serve: Callable[..., Running],
    coding: str,
    decode: Callable[[bytes], bytes],
    path: str,
    docroot: Path,
) -> None:
    srv = serve(comp=("gzip", "deflate"), compsizesw=1)
    original = fetch(srv, path, {"Accept-Encoding": "identity"}).body
    reply = fetch(srv, path, {"Accept-Encoding": coding})
    assert reply.headers["content-encoding"] == coding
    assert reply.headers["vary"] == "Accept-Encoding"
    assert int(reply.headers["content-length"]) == len(reply.body) < len(original)
    assert decode(reply.body) == original
    if path == "/big.txt":
        assert original == (docroot / "big.txt").read_bytes()
    head = fetch(srv, path, {"Accept-Encoding": coding}, method="HEAD")
    assert head.body == b""
    assert head.headers["content-length"] == reply.headers["content-length"]
    assert head.headers["content-encoding"] == coding
    assert srv.stats.software_count == 2  # the GET and the HEAD
    assert srv.stats.none_count == 1


@pytest.mark.parametrize(
    ("header", "coding"),
    [
        ("deflate; q=1.0, gzip; q=0.5", "deflate"),
        ("deflate; q=1.0, gzip; q=1.0", "gzip"),
        ("deflate; q=0.5, gzip; q=0.5, identity; q=1.0", None),
    ],
)
def test_seed_cases_over_the_wire(serve: Callable[..., Running], header: str, coding: str | None) -> None:
    srv = serve(comp=("gzip", "deflate"), compsizesw=1)
    reply = fetch(srv, "/sample/3000", {"Accept-Encoding": header})
    assert reply.headers.get("content-encoding") == coding
    assert reply.headers["vary"] == "Accept-Encoding"


@pytest.mark.parametrize("hardware", [True, False])
def test_size_thresholds_and_paths(serve: Callable[..., Running], hardware: bool) -> None:
    srv = serve(
        hardware=hardware,
        perf=lambda: 7.0,  # a frozen clock: compression takes no time
        comp=("gzip",),
        compsizehw=2000,
        compsizesw=500,
    )
    # With the accelerator COMPSIZEHW alone decides: 1000 is not compressed at all.
    expected = {3000: "hw" if hardware else "sw", 1000: None if hardware else "sw", 400: None}
    for size, path in expected.items():
        reply = fetch(srv, f"/sample/{size}", {"Accept-Encoding": "gzip"})
        assert reply.headers.get("content-encoding") == ("gzip" if path else None)
        assert gzip.decompress(reply.body) if path else reply.body
    stats = srv.stats
    assert stats.hardware_count == (1 if hardware else 0)
    assert stats.software_count == (0 if hardware else 2)
    assert stats.none_count == (2 if hardware else 1)
    assert stats.compressed_bytes_before == (3000 if hardware else 4000)
    assert stats.compress_seconds_total == 0.0
    assert stats.avg_time_ms == 0.0
    assert 0 < stats.avg_ratio < 100


def test_hardware_is_asked_per_response(serve: Callable[..., Running]) -> None:
    srv = serve(hardware=True, comp=("gzip",), compsizehw=100)
    assert "content-encoding" in fetch(srv, "/sample/500", {"Accept-Encoding": "gzip"}).headers
    srv.hardware = False  # a fallback to a z14 while the server runs
    assert "content-encoding" not in fetch(srv, "/sample/500", {"Accept-Encoding": "gzip"}).headers
    assert (srv.stats.hardware_count, srv.stats.none_count) == (1, 1)


def test_no_accept_encoding_means_no_compression(serve: Callable[..., Running]) -> None:
    srv = serve(comp=("gzip",), compsizesw=1)
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(raw_get("/sample/5000"))
        reply = read_reply(stream)
    assert "content-encoding" not in reply.headers
    assert reply.headers["vary"] == "Accept-Encoding"
    assert reply.body == generate("xml", 5000)


# --------------------------------------------------------------- HTTP/1.0
def test_http10_is_never_compressed_and_closes(serve: Callable[..., Running]) -> None:
    srv = serve(comp=("gzip", "deflate"), compsizesw=1)
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(raw_get("/sample/5000", "1.0", "Accept-Encoding: gzip\r\n"))
        reply = read_reply(stream)
        assert reply.status == 200
        assert "content-encoding" not in reply.headers
        assert reply.body == generate("xml", 5000)
        assert reply.headers["connection"] == "close"
        assert closed_by_server(sock, stream)
    assert srv.stats.none_count == 1


def test_http10_keep_alive_when_asked(serve: Callable[..., Running]) -> None:
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(raw_get("/sample/10", "1.0", "Connection: keep-alive\r\n"))
        first = read_reply(stream)
        assert first.headers["connection"] == "keep-alive"
        # two more in one write: the first keeps the connection, the last does not
        sock.sendall(raw_get("/index.html", "1.0", "Connection: Keep-Alive\r\n") + raw_get("/sample/20", "1.0"))
        second, third = read_reply(stream), read_reply(stream)
        assert second.status == 200
        assert second.headers["connection"] == "keep-alive"
        assert third.body == generate("xml", 20)
        assert closed_by_server(sock, stream)
    assert srv.stats.reused == 2


# ------------------------------------------------------- keep-alive, pipelining
def test_pipelining_two_requests_in_one_write(serve: Callable[..., Running]) -> None:
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(raw_get("/sample/10") + b"HEAD /index.html HTTP/1.1\r\nHost: t\r\n\r\n")
        first = read_reply(stream)
        second = read_reply(stream, "HEAD")
        assert (first.status, first.body) == (200, generate("xml", 10))
        assert (second.status, second.body) == (200, b"")
        assert second.headers["content-length"] == "32"
        sock.sendall(raw_get("/style.css", extra="Connection: close\r\n"))
        assert read_reply(stream).body == b"body { color: black }\n"
        assert closed_by_server(sock, stream)
    assert srv.stats.reused == 2


def test_request_body_is_drained(serve: Callable[..., Running]) -> None:
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(b"GET /sample/5 HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello" + raw_get("/sample/6"))
        assert read_reply(stream).body == generate("xml", 5)
        assert read_reply(stream).body == generate("xml", 6)


def test_expect_100_continue(serve: Callable[..., Running]) -> None:
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(b"GET /sample/7 HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        assert stream.readline().startswith(b"HTTP/1.1 100 ")
        assert stream.readline() == b"\r\n"
        sock.sendall(b"body")
        assert read_reply(stream).body == generate("xml", 7)


def test_oversized_request_body_gets_413(serve: Callable[..., Running]) -> None:
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        size = 200_000
        sock.sendall(f"GET / HTTP/1.1\r\nHost: t\r\nContent-Length: {size}\r\n\r\n".encode() + b"x" * size)
        assert read_reply(stream).status == 413
        assert closed_by_server(sock, stream)


# ------------------------------------------------------------ bad requests
@pytest.mark.parametrize("version", ["9.9", "2.0", "0.9", "3.1"])
def test_http_versions_other_than_1_get_505(serve: Callable[..., Running], version: str) -> None:
    # issue 8: GET / HTTP/9.9 was served as HTTP/1.1
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(raw_get("/index.html", version))
        reply = read_reply(stream)
        assert reply.status == 505
        assert reply.headers["connection"] == "close"
        assert closed_by_server(sock, stream)
    assert (srv.stats.none_count, srv.stats.url_errors) == (1, 0)


def test_a_higher_http_1_minor_version_is_served_as_1_1(serve: Callable[..., Running]) -> None:
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(raw_get("/sample/10", "1.9") + raw_get("/sample/11", "1.9"))  # kept alive like 1.1
        assert read_reply(stream).body == generate("xml", 10)
        assert read_reply(stream).body == generate("xml", 11)


@pytest.mark.parametrize("length", [BODY_LIMIT + 1, 1024**3, 10**19])
def test_declared_body_over_the_limit_gets_413_at_once(serve: Callable[..., Running], length: int) -> None:
    # issue 8: a GET declaring 1 GB and sending nothing waited for TIMEOUT; with a
    # TIMEOUT far beyond SAFETY, only an answer at once passes.
    srv = serve(timeout=3600.0)
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(f"GET /index.html HTTP/1.1\r\nHost: t\r\nContent-Length: {length}\r\n\r\n".encode())
        reply = read_reply(stream)
        assert reply.status == 413
        assert reply.headers["connection"] == "close"
        sock.shutdown(socket.SHUT_WR)
        assert closed_by_server(sock, stream)
    assert srv.stats.timed_out == 0


def test_declared_body_at_the_limit_is_read(serve: Callable[..., Running]) -> None:
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        head = f"GET /sample/5 HTTP/1.1\r\nHost: t\r\nContent-Length: {BODY_LIMIT}\r\n\r\n"
        sock.sendall(head.encode() + b"x" * BODY_LIMIT)
        assert read_reply(stream).body == generate("xml", 5)


def test_connections_are_tcp_with_nagle_off(serve: Callable[..., Running]) -> None:
    # asyncio turns Nagle's algorithm off only for sockets that say they are TCP;
    # with it on, keep-alive responses wait 40 ms for the client's delayed ACK.
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(raw_get("/sample/10"))
        assert read_reply(stream).status == 200
        (task,) = srv.server._tasks  # the connection, in HttpServer._serve
        frame = task.get_coro().cr_frame
        assert frame is not None
        server_side = frame.f_locals["writer"].get_extra_info("socket")
        assert server_side.proto == socket.IPPROTO_TCP
        assert server_side.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1


def test_a_port_in_use_is_a_readable_error(serve: Callable[..., Running]) -> None:
    # issue 8: the bind error's text held a Python tuple ('127.0.0.1', 8081)
    srv = serve()
    other = HttpServer(lambda: replace(srv.options, port=srv.port), lambda: False, HttpStats())
    with pytest.raises(OSError) as caught:
        srv.call(other.start())
    assert caught.value.strerror == "Address already in use"
    assert "(" not in str(caught.value) and "'" not in str(caught.value)
    assert not other.listening


@pytest.mark.parametrize(
    "data",
    [
        b"NONSENSE\r\n\r\n",
        b"GET / HTTP/1.1\r\n\r\n",  # HTTP/1.1 needs Host
        b"GET / HTTP/1.1\r\nHost: t\r\nNo colon here\r\n\r\n",
        b"GET /index.html\x00 HTTP/1.1\r\nHost: t\r\n\r\n",  # raw NUL
        b"GET / HTTP/1.1\r\nHost: t\r\nContent-Length: x\r\n\r\n",
    ],
)
def test_malformed_requests_get_400_and_close(serve: Callable[..., Running], data: bytes) -> None:
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(data)
        reply = read_reply(stream)
        assert reply.status == 400
        assert reply.headers["connection"] == "close"
        assert closed_by_server(sock, stream)
    assert fetch(srv, "/index.html").status == 200  # the server carries on


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "OPTIONS", "get"])
def test_other_methods_get_405(serve: Callable[..., Running], method: str) -> None:
    srv = serve()
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=SAFETY)
    try:
        conn.request(method, "/index.html", body=b"data" if method == "POST" else None)
        response = conn.getresponse()
        response.read()
        assert response.status == 405
        assert response.getheader("Allow") == "GET, HEAD"
        conn.request("GET", "/index.html")  # the connection stays usable
        assert conn.getresponse().status == 200
    finally:
        conn.close()
    assert srv.stats.url_errors == 0


def _head_of(total: int) -> bytes:
    start = b"GET /index.html HTTP/1.1\r\nHost: t\r\nX-Pad: "
    pad = total - len(start) - len(b"\r\n\r\n")
    return start + b"p" * pad + b"\r\n\r\n"


def test_head_of_exactly_64k_is_accepted(serve: Callable[..., Running]) -> None:
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        head = _head_of(HEAD_LIMIT)
        assert len(head) == 64 * 1024
        sock.sendall(head)
        assert read_reply(stream).status == 200


@pytest.mark.parametrize("total", [HEAD_LIMIT + 1, 70_000, 1_000_000])
def test_oversized_head_gets_431_and_close(serve: Callable[..., Running], total: int) -> None:
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(_head_of(total))
        assert read_reply(stream).status == 431
        assert closed_by_server(sock, stream)
    assert fetch(srv, "/index.html").status == 200


@pytest.mark.parametrize(
    "target",
    [
        "/nothing-here",
        "/../secret.txt",
        "/sub/../../secret.txt",
        "/sub/../index.html",  # `..` is refused even when it stays inside
        "/%2e%2e/secret.txt",
        "/%2E%2E/secret.txt",
        "/.%2e/secret.txt",
        "/sub/%2e%2e/%2e%2e/secret.txt",
        "/..%2fsecret.txt",
        "/%2e%2e%2fsecret.txt",
        "/sub%2f..%2f..%2fsecret.txt",
        "/..\\secret.txt",
        "/sub\\..\\..\\secret.txt",
        "/%5c..%5csecret.txt",
        "/index.html%00",
        "/index.html%00.css",
        "/%c0%ae%c0%ae/secret.txt",  # overlong UTF-8 for "."
        "/%zz",
        "/%",
        "/link_out",  # a symlink to a file outside the root
        "/dir_out/secret.txt",  # a symlink to a folder outside the root
        "http://t/../secret.txt",  # absolute-form
        "*",
        "/sample/abc",
        "/sample/-1",
        "/sample/99999999999",
        "/sample/16777217",  # over MAX_SAMPLE_BYTES
    ],
)
def test_not_found_and_traversal_are_url_errors(serve: Callable[..., Running], target: str) -> None:
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: t\r\n\r\n".encode("latin-1"))
        reply = read_reply(stream)
    assert reply.status == 404
    assert b"SECRET" not in reply.body
    assert srv.stats.url_errors == 1


def test_absolute_form_target_is_served(serve: Callable[..., Running]) -> None:
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(b"GET http://t/style.css HTTP/1.1\r\nHost: t\r\n\r\n")
        assert read_reply(stream).body == b"body { color: black }\n"


# ------------------------------------------------------------------ limits
def test_maxconn_refuses_and_keeps_serving(serve: Callable[..., Running]) -> None:
    srv = serve(maxconn=2)
    held = [connect(srv) for _ in range(2)]
    for sock, stream in held:
        sock.sendall(raw_get("/sample/10"))
        assert read_reply(stream).status == 200  # both are accepted and served
    extra_sock, extra_stream = connect(srv)
    with extra_sock, extra_stream:
        assert closed_by_server(extra_sock, extra_stream)
    assert srv.stats.refused == 1
    for sock, stream in held:  # the open ones still work
        sock.sendall(raw_get("/sample/11"))
        assert read_reply(stream).body == generate("xml", 11)
    sock, stream = held.pop()
    stream.close()
    sock.close()
    wait_for(lambda: srv.stats.active == 1)
    assert fetch(srv, "/index.html").status == 200  # a free slot is used again
    assert srv.stats.refused == 1
    assert srv.stats.hwmark == 2
    for sock, stream in held:
        stream.close()
        sock.close()


def test_idle_connection_is_closed_by_timeout(serve: Callable[..., Running]) -> None:
    srv = serve(timeout=0.2)
    sock, stream = connect(srv)
    with sock, stream:
        assert stream.read() == b""  # closed silently: nothing was asked
    assert srv.stats.timed_out == 1
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(raw_get("/sample/10"))
        assert read_reply(stream).status == 200
        assert closed_by_server(sock, stream)  # kept alive, then idle
    assert srv.stats.timed_out == 2
    wait_for(lambda: srv.stats.active == 0)


def test_dribbling_client_is_bounded_by_the_same_deadline(
    serve: Callable[..., Running],
) -> None:
    srv = serve(timeout=0.3)
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(b"GET /index.html HTTP/1.1\r\nHost: t\r\n")
        # One header line at a time, each well inside TIMEOUT, never finishing:
        # an idle timer reset by every byte would never fire.
        for _ in range(int(SAFETY / 0.05)):
            readable, _, _ = select.select([sock], [], [], 0.05)
            if readable:
                break
            sock.sendall(b"X-Drip: 1\r\n")
        reply = read_reply(stream)
        assert reply.status == 408
        assert closed_by_server(sock, stream)
    assert srv.stats.timed_out == 1


def test_client_that_stops_reading_is_closed_by_timeout(serve: Callable[..., Running]) -> None:
    srv = serve(timeout=0.2)
    ask_and_never_read(srv, "/sample/8000000")


def ask_and_never_read(srv: Running, path: str) -> None:
    """A client asks for a large body and never reads it: its connection is closed
    by the TIMEOUT (one timed-out connection) and nothing fails in the server."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # A tiny receive window so the 8 MB answer cannot all sit in kernel buffers.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(SAFETY)
    with sock:
        sock.connect(("127.0.0.1", srv.port))
        sock.sendall(raw_get(path))
        wait_for(lambda: srv.stats.timed_out == 1)  # never read: the write stalls
    wait_for(lambda: srv.stats.active == 0)
    assert srv.server.internal_errors == 0


def test_500_concurrent_keep_alive_connections(serve: Callable[..., Running]) -> None:
    srv = serve(maxconn=1000)
    clients = [connect(srv) for _ in range(500)]
    try:
        for round_ in range(2):
            for sock, _ in clients:
                sock.sendall(raw_get(f"/sample/{100 + round_}"))
            for _, stream in clients:
                assert read_reply(stream).body == generate("xml", 100 + round_)
        assert srv.stats.active == 500
        assert srv.stats.hwmark == 500
        assert srv.stats.reused == 500
        assert fetch(srv, "/index.html").status == 200  # still answering
        assert srv.stats.refused == 0
    finally:
        for sock, stream in clients:
            stream.close()
            sock.close()
    wait_for(lambda: srv.stats.active == 0)


# ------------------------------------------------------- refresh and stop
def test_refresh_applies_to_new_connections_only(serve: Callable[..., Running]) -> None:
    srv = serve()
    before_sock, before_stream = connect(srv)
    with before_sock, before_stream:
        before_sock.sendall(raw_get("/sample/10"))
        assert read_reply(before_stream).status == 200  # accepted before REFRESH
        srv.options = replace(srv.options, comp=("gzip",), compsizesw=1)
        refreshed = srv.call(srv.server.refresh())
        assert srv.server.options is not None
        assert refreshed.comp == ("gzip",) == srv.server.options.comp
        after_sock, after_stream = connect(srv)
        with after_sock, after_stream:
            ask = "Accept-Encoding: gzip\r\n"
            before_sock.sendall(raw_get("/sample/3000", extra=ask))
            after_sock.sendall(raw_get("/sample/3000", extra=ask))
            old = read_reply(before_stream)
            new = read_reply(after_stream)
    assert "content-encoding" not in old.headers
    assert "vary" not in old.headers
    assert new.headers["content-encoding"] == "gzip"
    assert gzip.decompress(new.body) == old.body == generate("xml", 3000)


def test_stop_closes_listener_and_open_connections(
    serve: Callable[..., Running],
) -> None:
    srv = serve()
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(raw_get("/sample/10"))
        assert read_reply(stream).status == 200
        port = srv.port
        srv.call(srv.server.stop())
        assert closed_by_server(sock, stream)
    assert not srv.server.listening
    assert srv.server.port is None
    assert srv.stats.active == 0
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=SAFETY).close()
    srv.call(srv.server.stop())  # stopping twice is harmless
    srv.call(srv.server.start())  # and it starts again
    assert srv.server.port is not None
    srv.port = srv.server.port
    assert fetch(srv, "/index.html").status == 200


def test_start_twice_is_an_error(serve: Callable[..., Running]) -> None:
    srv = serve()
    with pytest.raises(RuntimeError):
        srv.call(srv.server.start())


def test_internal_error_answers_500_and_is_contained(
    serve: Callable[..., Running],
) -> None:
    def broken() -> bool:
        raise RuntimeError("store unavailable")

    srv = serve(hardware=broken, comp=("gzip",), compsizesw=1)
    sock, stream = connect(srv)
    with sock, stream:
        sock.sendall(raw_get("/sample/100", extra="Accept-Encoding: gzip\r\n"))
        assert read_reply(stream).status == 500
        assert closed_by_server(sock, stream)
    assert srv.server.internal_errors == 1
    assert fetch(srv, "/sample/100").status == 200  # no coding asked: no hardware


# -------------------------------------------------------------------- curl
def test_curl_as_an_external_client(serve: Callable[..., Running], tmp_path: Path, curl: str) -> None:
    srv = serve(comp=("gzip", "deflate"), compsizesw=1)
    base = f"http://127.0.0.1:{srv.port}"
    out1, out2 = tmp_path / "one.xml", tmp_path / "two.css"
    result = subprocess.run(
        [
            *(curl, "-sS", "--compressed", "-D", "-"),
            *("-o", str(out1), f"{base}/sample/20000", "-o", str(out2), f"{base}/style.css"),
        ],
        capture_output=True,
        timeout=SAFETY * 3,
        check=True,
    )
    headers = result.stdout.decode("latin-1").lower()
    # curl offers several codings at weight 1: the tie goes to COMP's first
    assert "content-encoding: gzip" in headers
    assert out1.read_bytes() == generate("xml", 20000)  # curl decoded it
    assert out2.read_bytes() == b"body { color: black }\n"
    assert srv.stats.reused == 1  # curl reused the kept-alive connection
    result = subprocess.run(
        [curl, "-sS", "--http1.0", "--compressed", "-D", "-", f"{base}/sample/300"],
        capture_output=True,
        timeout=SAFETY * 3,
        check=True,
    )
    assert b"content-encoding" not in result.stdout.lower()
    assert result.stdout.endswith(generate("xml", 300))


# ------------------------------------------- cached bodies (issue 19)
def test_a_changed_file_is_compressed_again(serve: Callable[..., Running], docroot: Path) -> None:
    srv = serve(comp=("gzip",), compsizesw=1)
    page = docroot / "page.xml"
    page.write_bytes(generate("xml", 4000))
    first = fetch(srv, "/page.xml", {"Accept-Encoding": "gzip"})
    assert gzip.decompress(first.body) == generate("xml", 4000)
    page.write_bytes(generate("xml", 4000, index=1))
    second = fetch(srv, "/page.xml", {"Accept-Encoding": "gzip"})
    assert gzip.decompress(second.body) == generate("xml", 4000, index=1)


def test_every_response_from_the_cache_is_counted(serve: Callable[..., Running]) -> None:
    srv = serve(comp=("gzip",), compsizesw=1, perf=lambda: 7.0)
    replies = [fetch(srv, "/sample/20000", {"Accept-Encoding": "gzip"}) for _ in range(3)]
    assert len({reply.body for reply in replies}) == 1
    assert gzip.decompress(replies[0].body) == generate("xml", 20_000)
    head = fetch(srv, "/sample/20000", {"Accept-Encoding": "gzip"}, method="HEAD")
    assert head.headers["content-length"] == str(len(replies[0].body)) and head.body == b""
    stats = srv.stats
    assert stats.software_count == 4
    assert stats.compressed_bytes_before == 4 * 20_000
    assert stats.compressed_bytes_after == 4 * len(replies[0].body)
    assert stats.compress_seconds_total == 0.0  # the frozen clock, cache or not


def test_a_keep_alive_connection_gets_the_cached_body_each_time(serve: Callable[..., Running]) -> None:
    srv = serve(comp=("gzip",), compsizesw=1)
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=SAFETY)
    try:
        for _ in range(3):
            conn.request("GET", "/sample/1000", headers={"Accept-Encoding": "gzip"})
            response = conn.getresponse()
            assert gzip.decompress(response.read()) == generate("xml", 1000)
    finally:
        conn.close()
    assert srv.stats.reused == 2


def test_a_file_sent_by_sendfile_to_a_client_that_stops_reading_times_out(
    serve: Callable[..., Running], docroot: Path
) -> None:
    (docroot / "large.txt").write_bytes(generate("text", 8_000_000))
    srv = serve(timeout=0.2)  # no COMP: the file goes as stored, by sendfile
    ask_and_never_read(srv, "/large.txt")
    # the server goes on serving, the same file included
    assert fetch(srv, "/large.txt").body == generate("text", 8_000_000)


def test_a_file_that_shrinks_while_sent_ends_its_connection(serve: Callable[..., Running], docroot: Path) -> None:
    from mqtool.engine.http import server as server_module

    (docroot / "large.txt").write_bytes(generate("text", 3 * BODY_BUFFER))
    srv = serve()
    sent = server_module._Connection._send_file

    async def shrink_first(self: Any, content_type: str, handle: BinaryIO, size: int, keep_10: bool) -> bool:
        (docroot / "large.txt").write_bytes(b"short\n")  # truncated under the open handle
        return await sent(self, content_type, handle, size, keep_10)

    server_module._Connection._send_file = shrink_first  # type: ignore[method-assign]
    try:
        sock, stream = connect(srv)
        with sock, stream:
            sock.sendall(raw_get("/large.txt"))
            # read() returns only at the end of input: the server closed the connection
            head, _, body = stream.read().partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200")
            assert f"Content-Length: {3 * BODY_BUFFER}".encode() in head
            assert body == b"short\n"  # fewer bytes than Content-Length, then closed
    finally:
        server_module._Connection._send_file = sent  # type: ignore[method-assign]
