"""The z/TPF HTTP server engine: HTTP/1.1 on asyncio with h11, serving DOCROOT files
and /sample/N with z/TPF response compression, limits and STATS counters.
"""

from __future__ import annotations

import asyncio
import http
import logging
import mimetypes
import os
import re
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote_to_bytes

import h11

from mqtool.engine.codecs import compress
from mqtool.engine.payload import generate

from .config import ServerOptions
from .negotiate import CompressionPath, choose_coding, decide
from .stats import HttpStats

__all__ = [
    "BODY_LIMIT",
    "HEAD_LIMIT",
    "MAX_COMPRESSIBLE",
    "MAX_SAMPLE_BYTES",
    "HttpServer",
]

logger = logging.getLogger(__name__)

#: Request line plus headers, in bytes; more gets 431 (ztpf-http.md section 5).
HEAD_LIMIT = 64 * 1024
#: A GET or HEAD needs no body; a larger one gets 413 rather than being buffered.
BODY_LIMIT = 64 * 1024
#: Largest /sample/N; larger N is a URL error, so one request cannot claim the heap.
MAX_SAMPLE_BYTES = 16 * 1024 * 1024
#: Larger static files are streamed from disk uncompressed instead of being held
#: in memory for the compressor.
MAX_COMPRESSIBLE = 16 * 1024 * 1024

_READ_SIZE = 64 * 1024
_STREAM_CHUNK = 256 * 1024
# Bodies at least this big are read and compressed in a worker thread, so one
# large response does not stall every other connection on the event loop.
_OFF_LOOP_BYTES = 64 * 1024
# After the last response on a connection the server half-closes and reads what
# the client still sends for a short while: closing a socket with unread input
# makes the kernel send RST, which can destroy the response (e.g. a 431) in flight.
_LINGER_SECONDS = 2.0
_LINGER_BYTES = 1024 * 1024

_TECHNIQUE = {"gzip": "GZIP", "deflate": "DEFLATE"}
_BAD_ESCAPE = re.compile(rb"%(?![0-9A-Fa-f]{2})")
_FORBIDDEN_IN_SEGMENT = re.compile(r"[\x00-\x1f\x7f/\\]")
# Only the built-in table, so Content-Type does not depend on the host's
# /etc/mime.types and responses are the same on every machine.
_MIME = mimetypes.MimeTypes()
_KEEP_ALIVE_10 = (b"\r\nConnection: close\r\n", b"\r\nConnection: keep-alive\r\n")


class _Stalled(Exception):
    """The client stopped reading our response for longer than TIMEOUT."""


class _BodyTooLarge(Exception):
    """A request body over BODY_LIMIT."""


class HttpServer:
    """One z/TPF HTTP server listening on a real socket.

    `options_provider` is called by `start()` and `refresh()`; each accepted
    connection keeps the options in force when it was accepted for its whole
    life (REFRESH applies to new connections only). IP and PORT changes made by
    a refresh take effect at the next start. `hardware` is asked for every
    response that could be compressed (the CPU model can change at any time);
    it runs on the event loop, so it should read a cached value. `perf` times
    each compression (it may be called from a worker thread); a frozen clock
    gives zero. Errors inside a connection never escape: they are counted in
    `internal_errors` and the connection is closed.

    Every response sent, error responses included, is one STATS response: the
    compressed ones by their path, the rest as NO COMPRESSION. Memory per
    connection is bounded by HEAD_LIMIT, the stream buffers and one body of at
    most MAX_COMPRESSIBLE bytes; MAXCONN bounds the number of connections.
    """

    def __init__(
        self,
        options_provider: Callable[[], ServerOptions],
        hardware: Callable[[], bool],
        stats: HttpStats,
        perf: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._options_provider = options_provider
        self._hardware = hardware
        self.stats = stats
        self._perf = perf
        self._options: ServerOptions | None = None
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._open = 0
        self._stopping = False
        self.port: int | None = None
        self.internal_errors = 0

    @property
    def options(self) -> ServerOptions | None:
        """The options new connections get (None before the first start)."""
        return self._options

    @property
    def listening(self) -> bool:
        """True between start() and stop()."""
        return self._server is not None

    async def start(self) -> None:
        """Reads the options and binds IP:PORT (port 0: the OS chooses; see `.port`).

        Raises what the provider raises (e.g. ConfigError) or OSError when the
        address cannot be bound; the server is then not started.
        """
        if self._server is not None:
            raise RuntimeError("the HTTP server is already started")
        options = self._options_provider()
        self._stopping = False
        self._server = await asyncio.start_server(
            self._accept,
            host=options.ip,
            port=options.port,
            limit=_READ_SIZE,
            backlog=min(max(options.maxconn, 128), 4096),
        )
        self._options = options
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Closes the listener and every open connection; a no-op when stopped."""
        server = self._server
        if server is None:
            return
        self._stopping = True
        server.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        await server.wait_closed()
        self._server = None
        self.port = None
        self._stopping = False

    async def refresh(self) -> ServerOptions:
        """Re-reads the options for connections accepted from now on.

        If the provider raises, the options in force stay as they were.
        """
        options = self._options_provider()
        self._options = options
        return options

    # ------------------------------------------------------------ connections
    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        options = self._options
        if self._stopping or options is None:
            writer.transport.abort()
            return
        if self._open >= options.maxconn:
            # Counted before the close so a client that sees the close also sees
            # the count (the statistics are read from other threads).
            self.stats.refused_connection()
            writer.close()
            return
        self._open += 1
        self.stats.connection_opened()
        connection = _Connection(self, reader, writer, options)
        task = asyncio.get_running_loop().create_task(connection.run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _connection_ended(self) -> None:
        self._open -= 1
        self.stats.connection_closed()

    def _internal_error(self, exc: BaseException) -> None:
        self.internal_errors += 1
        logger.debug("HTTP connection failed", exc_info=exc)

    def _is_hardware(self) -> bool:
        return bool(self._hardware())

    def _timed_compress(self, coding: str, body: bytes) -> tuple[bytes, float]:
        start = self._perf()
        data = compress(_TECHNIQUE[coding], body)
        return data, max(0.0, self._perf() - start)


@dataclass
class _StaticFile:
    """An opened regular file under DOCROOT: its bytes, or a handle to stream."""

    name: str
    size: int
    data: bytes | None
    handle: BinaryIO | None


def _request_segments(target: bytes) -> list[str] | None:
    """The decoded path segments of a request target, or None if it may not be served.

    Every segment is percent-decoded on its own, so `%2f` cannot join segments,
    and any `..`, slash, backslash or control character after decoding refuses
    the whole request instead of being normalised away: a traversal attempt is
    never served. Empty and `.` segments are dropped.
    """
    if target[:8].lower().startswith((b"http://", b"https://")):
        # absolute-form (RFC 9112 3.2.2): keep only the path after the authority
        after_scheme = target.split(b"//", 1)[1]
        slash = after_scheme.find(b"/")
        target = after_scheme[slash:] if slash >= 0 else b"/"
    path = target.split(b"?", 1)[0]
    if not path.startswith(b"/") or _BAD_ESCAPE.search(path):
        return None
    segments: list[str] = []
    for raw in path.split(b"/"):
        try:
            text = unquote_to_bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            return None
        if text in ("", "."):
            continue
        if text == ".." or _FORBIDDEN_IN_SEGMENT.search(text):
            return None
        segments.append(text)
    return segments


def _sample_size(text: str) -> int | None:
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        return None
    size = int(text)
    return size if size <= MAX_SAMPLE_BYTES else None


def _inside(root: Path, candidate: Path) -> Path | None:
    """`candidate` with every symlink resolved, if that is still under `root`."""
    try:
        real = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    return real if real.is_relative_to(root) else None


def _open_static(docroot: Path, segments: list[str]) -> _StaticFile | None:
    """Finds and opens a regular file under DOCROOT (index.html for a folder).

    Runs in a worker thread. Symlinks are followed only when their target is
    still inside the resolved DOCROOT.
    """
    try:
        root = docroot.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    real = _inside(root, root.joinpath(*segments))
    if real is not None and real.is_dir():
        real = _inside(root, real / "index.html")
    if real is None:
        return None
    # O_NONBLOCK so a FIFO planted in the tree cannot hang a worker on open.
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(real, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    handle = os.fdopen(fd, "rb")
    try:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            handle.close()
            return None
        if info.st_size <= MAX_COMPRESSIBLE:
            data = handle.read(MAX_COMPRESSIBLE + 1)
            handle.close()
            if len(data) > MAX_COMPRESSIBLE:
                return None  # grew while being read; refuse rather than guess
            return _StaticFile(real.name, len(data), data, None)
        return _StaticFile(real.name, info.st_size, None, handle)
    except OSError:
        handle.close()
        return None


def _content_type(name: str) -> str:
    kind, encoding = _MIME.guess_type(name, strict=False)
    if kind is None or encoding is not None:
        # a .gz file is sent as stored bytes, not as its inner type
        return "application/octet-stream"
    return kind


def _header(request: h11.Request, name: bytes) -> str | None:
    values = [value for key, value in request.headers if key == name]
    if not values:
        return None
    # Repeated list headers are one comma-separated list (RFC 9110 5.3).
    return ", ".join(value.decode("latin-1") for value in values)


def _wants_keep_alive_10(request: h11.Request) -> bool:
    """HTTP/1.0 keeps the connection only when the client asks for it."""
    if request.http_version != b"1.0":
        return False
    tokens = {token.strip().lower() for token in (_header(request, b"connection") or "").split(",")}
    return "keep-alive" in tokens and "close" not in tokens


def _new_protocol() -> h11.Connection:
    return h11.Connection(h11.SERVER, max_incomplete_event_size=HEAD_LIMIT)


class _Connection:
    """Serves the requests of one accepted connection with the options it got."""

    def __init__(
        self,
        server: HttpServer,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        options: ServerOptions,
    ) -> None:
        self.server = server
        self.stats = server.stats
        self.reader = reader
        self.writer = writer
        self.options = options
        self.protocol = _new_protocol()
        self.loop = asyncio.get_running_loop()
        self.served = 0
        # Bytes h11 holds for the request being read: the head limit is enforced
        # exactly by never reading past HEAD_LIMIT before a head parses.
        self.received = 0
        self.peer_closed = False
        self.head_request = False

    async def run(self) -> None:
        try:
            while await self._exchange():
                pass
        except asyncio.CancelledError:
            pass  # stop(): the transport is aborted below
        except _Stalled:
            self.stats.timed_out_connection()
        except OSError:
            pass  # the peer reset or vanished; nothing to answer
        except Exception as exc:  # no traceback may leave a connection
            self.server._internal_error(exc)
        finally:
            self.server._connection_ended()
            if self.server._stopping:
                self.writer.transport.abort()
            else:
                self.writer.close()

    # ------------------------------------------------------------ one request
    async def _exchange(self) -> bool:
        """Reads and answers one request; True when the connection stays open."""
        self.received = len(self.protocol.trailing_data[0])
        self.head_request = False
        deadline = self.loop.time() + self.options.timeout
        try:
            # One deadline for the whole request, so a client dribbling a byte at
            # a time is bounded exactly like an idle one.
            async with asyncio.timeout_at(deadline):
                request = await self._next_request()
                if request is None:
                    return False
                self.head_request = request.method == b"HEAD"
                await self._drain_body()
        except TimeoutError:
            self.stats.timed_out_connection()
            if self.received and self._can_respond():
                await self._send_final(408)
            return False
        except h11.RemoteProtocolError as exc:
            if not self.peer_closed and self._can_respond():
                await self._send_final(exc.error_status_hint)
            return False
        except _BodyTooLarge:
            await self._send_final(413)
            return False

        if self.served:
            self.stats.reused_request()
        self.served += 1
        keep_10 = _wants_keep_alive_10(request)
        try:
            kept_10 = await self._respond(request, keep_10)
        except (OSError, _Stalled, asyncio.CancelledError):
            raise
        except Exception as exc:  # answered 500, then counted
            self.server._internal_error(exc)
            if self.protocol.our_state is h11.SEND_RESPONSE:
                await self._send_final(500)
            return False

        if self.protocol.our_state is h11.DONE and self.protocol.their_state is h11.DONE:
            self.protocol.start_next_cycle()
            return True
        if kept_10 and self.protocol.their_state in (h11.DONE, h11.MUST_CLOSE):
            # h11 has no HTTP/1.0 keep-alive, so a fresh protocol object takes
            # over the bytes the client has already pipelined.
            data, closed = self.protocol.trailing_data
            self.protocol = _new_protocol()
            if data:  # an empty receive_data() would mean end of input to h11
                self.protocol.receive_data(data)
            if closed:
                self.protocol.receive_data(b"")
            return True
        await self._linger()
        return False

    async def _send_final(self, status: int) -> None:
        """An error response after which the connection closes; best effort, as
        the client may already be gone or not reading."""
        try:
            await self._send_simple(status, close=True)
        except (OSError, _Stalled, h11.LocalProtocolError):
            return
        await self._linger()

    def _can_respond(self) -> bool:
        return self.protocol.our_state in (h11.IDLE, h11.SEND_RESPONSE)

    async def _read(self, size: int) -> None:
        data = await self.reader.read(size)
        if not data:
            self.peer_closed = True
        self.received += len(data)
        self.protocol.receive_data(data)

    async def _next_request(self) -> h11.Request | None:
        while True:
            event = self.protocol.next_event()
            if event is h11.NEED_DATA:
                # h11 holds every byte of an unfinished head, so a full buffer
                # without a complete head means the head is over the limit.
                room = HEAD_LIMIT - self.received
                if room <= 0:
                    raise h11.RemoteProtocolError("request head over the limit", error_status_hint=431)
                await self._read(min(_READ_SIZE, room))
            elif isinstance(event, h11.Request):
                return event
            else:
                return None  # ConnectionClosed (PAUSED cannot occur at a cycle start)

    async def _drain_body(self) -> None:
        """Reads and discards a request body; GET and HEAD do not use one."""
        if self.protocol.they_are_waiting_for_100_continue:
            await self._write([self._send(h11.InformationalResponse(status_code=100, headers=[]))])
        total = 0
        while True:
            event = self.protocol.next_event()
            if event is h11.NEED_DATA:
                await self._read(_READ_SIZE)
            elif isinstance(event, h11.Data):
                total += len(event.data)
                if total > BODY_LIMIT:
                    raise _BodyTooLarge
            else:
                return  # EndOfMessage

    # --------------------------------------------------------------- answering
    async def _respond(self, request: h11.Request, keep_10: bool) -> bool:
        """Sends the response; returns whether an HTTP/1.0 keep-alive was granted."""
        if request.method not in (b"GET", b"HEAD"):
            await self._send_simple(405, extra=[("Allow", "GET, HEAD")])
            return False
        segments = _request_segments(request.target)
        if segments is not None and len(segments) == 2 and segments[0] == "sample":
            size = _sample_size(segments[1])
            if size is None:
                return await self._not_found(keep_10)
            body = await self._off_loop(size, _generate_sample, size)
            return await self._send_body(request, "application/xml", body, keep_10)
        if segments is None:
            return await self._not_found(keep_10)
        found = await asyncio.to_thread(_open_static, self.options.docroot, segments)
        if found is None:
            return await self._not_found(keep_10)
        content_type = _content_type(found.name)
        if found.data is not None:
            return await self._send_body(request, content_type, found.data, keep_10)
        assert found.handle is not None
        try:
            return await self._stream_file(content_type, found.size, found.handle, keep_10)
        finally:
            found.handle.close()

    async def _not_found(self, keep_10: bool) -> bool:
        self.stats.url_error()
        return await self._send_simple(404, keep_10=keep_10)

    async def _off_loop(self, size: int, func: Callable[..., bytes], *args: object) -> bytes:
        if size >= _OFF_LOOP_BYTES:
            return await asyncio.to_thread(func, *args)
        return func(*args)

    async def _send_body(self, request: h11.Request, content_type: str, body: bytes, keep_10: bool) -> bool:
        options = self.options
        coding = choose_coding(
            _header(request, b"accept-encoding"),
            options.comp,
            request.http_version.decode("ascii", "replace"),
        )
        path: CompressionPath | None = None
        if coding is not None:
            path = decide(
                len(body),
                coding,
                self.server._is_hardware(),
                options.compsizehw,
                options.compsizesw,
            )
        payload, seconds = body, 0.0
        if path is not None and coding is not None:
            if len(body) >= _OFF_LOOP_BYTES:
                payload, seconds = await asyncio.to_thread(self.server._timed_compress, coding, body)
            else:
                payload, seconds = self.server._timed_compress(coding, body)
        headers = [
            ("Content-Type", content_type),
            ("Content-Length", str(len(payload))),
        ]
        if options.comp:
            headers.append(("Vary", "Accept-Encoding"))
        if path is not None and coding is not None:
            headers.append(("Content-Encoding", coding))
        self.stats.response(path, len(body), len(payload), seconds)
        return await self._send_response(200, headers, payload, keep_10=keep_10)

    async def _stream_file(self, content_type: str, size: int, handle: BinaryIO, keep_10: bool) -> bool:
        headers = [("Content-Type", content_type), ("Content-Length", str(size))]
        if self.options.comp:
            headers.append(("Vary", "Accept-Encoding"))
        self.stats.response(None, size, size, 0.0)
        kept = await self._send_response(200, headers, b"", keep_10=keep_10, end=False)
        remaining = 0 if self.head_request else size
        while remaining > 0:
            chunk = await asyncio.to_thread(handle.read, min(_STREAM_CHUNK, remaining))
            if not chunk:
                break  # the file shrank; EndOfMessage below fails and closes
            remaining -= len(chunk)
            await self._write([self._send(h11.Data(data=chunk))])
        await self._write([self._send(h11.EndOfMessage())])
        return kept

    async def _send_simple(
        self,
        status: int,
        *,
        close: bool = False,
        keep_10: bool = False,
        extra: list[tuple[str, str]] | None = None,
    ) -> bool:
        """A short text/plain response (errors); counted as not compressed."""
        phrase = http.HTTPStatus(status).phrase
        body = f"{status} {phrase}\n".encode("ascii")
        headers = [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
        ]
        if self.options.comp:
            headers.append(("Vary", "Accept-Encoding"))
        headers += extra or []
        if close:
            headers.append(("Connection", "close"))
        self.stats.response(None, len(body), len(body), 0.0)
        return await self._send_response(status, headers, body, keep_10=keep_10)

    async def _send_response(
        self,
        status: int,
        headers: list[tuple[str, str]],
        body: bytes,
        *,
        keep_10: bool = False,
        end: bool = True,
    ) -> bool:
        """Writes status and headers (and `body` and the end unless `end` is False).

        Returns whether an HTTP/1.0 keep-alive was granted.
        """
        response = h11.Response(
            status_code=status,
            headers=headers,
            reason=http.HTTPStatus(status).phrase,
        )
        head = self._send(response)
        kept = False
        if keep_10:
            # h11 always answers HTTP/1.0 with Connection: close; the client asked
            # to keep the connection, so say so (the framing is Content-Length).
            old, new = _KEEP_ALIVE_10
            if head.count(old) == 1:
                head, kept = head.replace(old, new), True
        parts = [head]
        if end:
            if body and not self.head_request:
                parts.append(self._send(h11.Data(data=body)))
            parts.append(self._send(h11.EndOfMessage()))
        await self._write(parts)
        return kept

    def _send(self, event: h11.Event) -> bytes:
        data = self.protocol.send(event)
        return data or b""

    async def _write(self, parts: list[bytes]) -> None:
        for part in parts:
            if part:
                self.writer.write(part)
        try:
            async with asyncio.timeout(self.options.timeout):
                await self.writer.drain()
        except TimeoutError:
            raise _Stalled from None

    async def _linger(self) -> None:
        """Half-closes and discards late input so the last response arrives whole."""
        try:
            if self.writer.can_write_eof():
                self.writer.write_eof()
            async with asyncio.timeout(min(_LINGER_SECONDS, self.options.timeout)):
                await self.writer.drain()
                discarded = 0
                while discarded < _LINGER_BYTES:
                    data = await self.reader.read(_READ_SIZE)
                    if not data:
                        break
                    discarded += len(data)
        except (TimeoutError, OSError):
            pass


def _generate_sample(size: int) -> bytes:
    # The same seeded generator as `mqtool put --pattern xml` (seed 0, index 0).
    return generate("xml", size)
