"""One real HTTP request to a z/TPF HTTP server, for the `.http` directive: the
request on a socket, the reply parsed by http.client, the body decoded; and
`serve_once`, which serves such a request in-process when no loop listens.
"""

from __future__ import annotations

import asyncio
import http.client
import re
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeVar

from mqtool.engine.codecs import CodecError, decompress

from .config import ServerOptions
from .server import HttpServer
from .stats import HttpStats

__all__ = ["MAX_DECODED", "Reply", "connect_address", "decode_body", "request", "serve_once"]

T = TypeVar("T")
# What may stand in a request line: visible ASCII, no blanks (RFC 9112 request-target).
_TARGET = re.compile(r"[!-~]+")
_METHOD = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HEADER_VALUE = re.compile(r"[\t -~]*")
_CODINGS = {"gzip": "GZIP", "x-gzip": "GZIP", "deflate": "DEFLATE"}
#: The largest decoded body `.http` accepts (the inflation guard of decode_body).
MAX_DECODED = 64 * 1024 * 1024


@dataclass
class Reply:
    """A response as the client received it (body still content-coded)."""

    status: int
    reason: str
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        values = [value for key, value in self.headers if key.lower() == name.lower()]
        return ", ".join(values) if values else None


def check_request(method: str, path: str, accept_encoding: str | None, version: str) -> str | None:
    """Why these request parts cannot be sent, or None."""
    if not _METHOD.fullmatch(method):
        return f"method {method!r} is not an HTTP token"
    if not _TARGET.fullmatch(path) or not path.startswith("/"):
        return f"path {path!r} must start with / and hold no blanks or control characters"
    if accept_encoding is not None and not _HEADER_VALUE.fullmatch(accept_encoding):
        return "accept-encoding may hold only printable ASCII"
    if version not in ("1.0", "1.1"):
        return f"http={version}: use 1.0 or 1.1"
    return None


def connect_address(ip: str) -> str:
    """Where a client reaches a server bound to `ip` (the wildcard means loopback)."""
    if ip in ("0.0.0.0", ""):
        return "127.0.0.1"
    if ip == "::":
        return "::1"
    return ip


def request(
    ip: str,
    port: int,
    method: str,
    path: str,
    accept_encoding: str | None,
    version: str = "1.1",
    timeout: float = 30.0,
) -> Reply:
    """Sends one request and reads the whole reply; the connection then closes.

    The request line is written here because http.client always speaks
    HTTP/1.1 and the z/TPF rules differ for HTTP/1.0; http.client parses the
    reply. Raises OSError or http.client.HTTPException when the exchange fails.
    """
    reason = check_request(method, path, accept_encoding, version)
    if reason is not None:
        raise ValueError(reason)
    host = connect_address(ip)
    lines = [f"{method} {path} HTTP/{version}", f"Host: {host}:{port}" if ":" not in host else f"Host: [{host}]:{port}"]
    if accept_encoding is not None:
        lines.append(f"Accept-Encoding: {accept_encoding}")
    if version == "1.1":
        lines.append("Connection: close")
    data = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(data)
        response = http.client.HTTPResponse(sock, method=method)
        try:
            response.begin()
            body = response.read()
        finally:
            response.close()
    return Reply(response.status, response.reason, list(response.getheaders()), body)


def decode_body(reply: Reply) -> bytes:
    """The body with its Content-Encoding undone; ValueError when it cannot be."""
    coding = (reply.header("Content-Encoding") or "").strip().lower()
    if coding in ("", "identity"):
        return reply.body
    technique = _CODINGS.get(coding)
    if technique is None:
        raise ValueError(f"unknown Content-Encoding {coding}")
    try:
        return decompress(technique, reply.body, max_length=MAX_DECODED)
    except CodecError as exc:
        raise ValueError(f"the body does not decode as {coding}: {exc}") from None


def serve_once(
    options: ServerOptions,
    hardware: bool,
    perf: Callable[[], float],
    exchange: Callable[[str, int], T],
) -> tuple[T, HttpStats]:
    """Runs the server with `options` on 127.0.0.1 and an OS-chosen port just long
    enough for `exchange(ip, port)` (run in a worker thread), then stops it.

    Returns what `exchange` returned and the statistics the server gathered. The
    server runs on its own event loop in its own thread, so this works whether or
    not the caller is inside an event loop.
    """
    stats = HttpStats()
    local = replace(options, ip="127.0.0.1", port=0)
    outcome: dict[str, object] = {}

    async def main() -> T:
        server = HttpServer(lambda: local, lambda: hardware, stats, perf)
        await server.start()
        assert server.port is not None
        try:
            return await asyncio.to_thread(exchange, "127.0.0.1", server.port)
        finally:
            await server.stop()

    def run() -> None:
        try:
            outcome["value"] = asyncio.run(main())
        except BaseException as exc:  # handed to the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="mqtool-http-once", daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"], stats  # type: ignore[return-value]
