"""The z/TPF HTTP server engine: HTTP/1.1 on asyncio with h11, serving DOCROOT files
and /sample/N with z/TPF response compression, limits and STATS counters.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import gc
import http
import logging
import mimetypes
import os
import re
import socket
import stat
import time
from collections.abc import AsyncGenerator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TypeVar, cast
from urllib.parse import unquote_to_bytes

import h11

from mqtool.engine.codecs import Compressor
from mqtool.engine.payload import Piece, generate_pieces

from . import bodycache
from .config import ServerOptions, connection_bound, descriptor_limit
from .negotiate import CompressionPath, choose_coding, decide
from .stats import HttpStats

__all__ = [
    "BODY_BUFFER",
    "BODY_LIMIT",
    "HEAD_LIMIT",
    "MAX_SAMPLE_BYTES",
    "HttpServer",
]

logger = logging.getLogger(__name__)
T = TypeVar("T")

#: Request line plus headers, in bytes; more gets 431 (ztpf-http.md section 5).
HEAD_LIMIT = 64 * 1024
#: A GET or HEAD needs no body; a larger one gets 413 rather than being buffered.
BODY_LIMIT = 64 * 1024
#: Largest /sample/N; larger N is a URL error.
MAX_SAMPLE_BYTES = 16 * 1024 * 1024
#: Response bodies up to this size are produced (and compressed) whole, and carry
#: their Content-Length; larger ones are streamed in chunks as the client takes
#: them, so a connection holds a few buffers, never a whole body.
BODY_BUFFER = 256 * 1024
# The chunk of a streamed body: large enough that handing each to a worker
# thread for compression costs little, small enough that a hundred slow readers
# hold a few megabytes.
_STREAM_CHUNK = 64 * 1024

_READ_SIZE = 64 * 1024
# Files over BODY_BUFFER sent without compression go from the page cache to the
# socket by sendfile (asyncio falls back to reading and writing where it cannot).
_SENDFILE = True
_SENDFILE_CHUNK = BODY_BUFFER
# Bodies at least this big are read and compressed in a worker thread, so one
# large response does not stall every other connection on the event loop.
_OFF_LOOP_BYTES = 64 * 1024
# After the last response on a connection the server half-closes and reads what
# the client still sends for a short while: closing a socket with unread input
# makes the kernel send RST, which can destroy the response (e.g. a 431) in flight.
_LINGER_SECONDS = 2.0
_LINGER_BYTES = 1024 * 1024
# accept() failing for want of descriptors or memory: wait this long before the
# next try (doubling up to the maximum), or until a connection of this server
# closes and frees a descriptor; never spin on a listener that stays readable.
_ACCEPT_PAUSE_FIRST = 0.05
_ACCEPT_PAUSE_MAX = 1.0
# One console notice per shortage; a new one only this long after the last.
_SHORTAGE_REPORT_SECONDS = 60.0
# accept() errors that concern one connection that vanished, not the server.
_ACCEPT_VANISHED = frozenset({errno.ECONNABORTED, errno.EPROTO, errno.EINTR, errno.EAGAIN})
# Opening a file failed for want of resources: 503 (try again), not 500.
_SHORT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ENOBUFS, errno.EAGAIN})
# Opening a file failed because it is not there (any more): a URL error.
_NOT_THERE = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP})

_TECHNIQUE = {"gzip": "GZIP", "deflate": "DEFLATE"}
_BAD_ESCAPE = re.compile(rb"%(?![0-9A-Fa-f]{2})")
_FORBIDDEN_IN_SEGMENT = re.compile(r"[\x00-\x1f\x7f/\\]")
# Only the built-in table, so Content-Type does not depend on the host's
# /etc/mime.types and responses are the same on every machine.
_MIME = mimetypes.MimeTypes()
_KEEP_ALIVE_10 = (b"\r\nConnection: close\r\n", b"\r\nConnection: keep-alive\r\n")


class _Stalled(Exception):
    """The client stopped reading our response for longer than TIMEOUT."""


class _Refused(Exception):
    """A request answered with an error status at once, after which the
    connection closes (413 for a declared body over BODY_LIMIT, 505)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


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
    connection is bounded by HEAD_LIMIT and a few BODY_BUFFERs (the body being
    produced, its compressed form, the transport's write buffer), and the
    process keeps at most 2 x bodycache.BODY_CACHE_BYTES of generated and
    compressed bodies for all its servers; the connections are bounded by MAXCONN and by the process's file descriptor
    limit (`connection_limit`). When accept() fails for want of descriptors the
    server waits and tries again, and counts one shortage (`shortages`, with
    `shortage_reason`) for the console.
    """

    def __init__(
        self,
        options_provider: Callable[[], ServerOptions],
        hardware: Callable[[], bool],
        stats: HttpStats,
        perf: Callable[[], float] = time.perf_counter,
        connection: type[_Connection] | None = None,
    ) -> None:
        self._options_provider = options_provider
        # What serves each accepted connection: the z/TPF server's _Connection, or a
        # subclass that answers other requests over the same machinery (the REST API).
        self._connection = connection or _Connection
        self._hardware = hardware
        self.stats = stats
        self._perf = perf
        self._options: ServerOptions | None = None
        self._listener: socket.socket | None = None
        self._accepting: asyncio.Task[None] | None = None
        self._freed: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._open = 0
        self._streams = 0
        self._streamed = False
        self._stopping = False
        self._shortage_reported: float | None = None
        self.port: int | None = None
        self.internal_errors = 0
        #: connections this server takes at once: MAXCONN as the descriptor limit allows
        self.connection_limit = 0
        #: the soft RLIMIT_NOFILE read at the last start or refresh (None: unlimited)
        self.descriptor_limit: int | None = None
        #: accept() calls that failed, and shortages of descriptors reported
        self.accept_errors = 0
        self.shortages = 0
        self.shortage_reason = ""

    @property
    def options(self) -> ServerOptions | None:
        """The options new connections get (None before the first start)."""
        return self._options

    @property
    def listening(self) -> bool:
        """True between start() and stop()."""
        return self._listener is not None

    async def start(self) -> None:
        """Reads the options and binds IP:PORT (port 0: the OS chooses; see `.port`).

        Raises what the provider raises (e.g. ConfigError) or OSError when the
        address cannot be bound (its strerror says why, e.g. "Address already in
        use"); the server is then not started.
        """
        if self._listener is not None:
            raise RuntimeError("the HTTP server is already started")
        options = self._options_provider()
        self._stopping = False
        backlog = min(max(options.maxconn, 128), 4096)
        listener = _listen(options.ip, options.port, backlog)
        self._apply(options)
        self._listener = listener
        self._freed = asyncio.Event()
        self._accepting = asyncio.get_running_loop().create_task(self._accept_loop(listener))
        self.port = listener.getsockname()[1]

    async def stop(self) -> None:
        """Closes the listener and every open connection; a no-op when stopped."""
        listener = self._listener
        if listener is None:
            return
        self._stopping = True
        if self._accepting is not None:
            self._accepting.cancel()
            await asyncio.gather(self._accepting, return_exceptions=True)
            self._accepting = None
        listener.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        self._listener = None
        self.port = None
        self._stopping = False

    async def refresh(self) -> ServerOptions:
        """Re-reads the options for connections accepted from now on.

        If the provider raises, the options in force stay as they were.
        """
        options = self._options_provider()
        self._apply(options)
        return options

    def _apply(self, options: ServerOptions) -> None:
        self._options = options
        self.descriptor_limit = descriptor_limit()
        self.connection_limit = connection_bound(options.maxconn, self.descriptor_limit)

    # ------------------------------------------------------------ connections
    async def _accept_loop(self, listener: socket.socket) -> None:
        # asyncio's own accept loop (start_server) reports each failed accept()
        # through the loop's exception handler, a traceback each, and on running
        # out of descriptors retries up to `backlog` times per wake-up, each
        # scheduling another retry: thousands of tracebacks a second. This one
        # waits instead.
        loop = asyncio.get_running_loop()
        pause = 0.0
        while True:
            try:
                conn, _ = await loop.sock_accept(listener)
            except OSError as exc:
                if exc.errno in _ACCEPT_VANISHED:
                    continue
                pause = min(max(2 * pause, _ACCEPT_PAUSE_FIRST), _ACCEPT_PAUSE_MAX)
                self._accept_failed(exc, loop.time())
                await self._freed_or(pause)
                continue
            pause = 0.0
            try:
                self._accepted(conn)
            except Exception as exc:  # the listener must outlive any one connection
                conn.close()
                self._internal_error(exc)

    def _accept_failed(self, exc: OSError, now: float) -> None:
        self.accept_errors += 1
        last = self._shortage_reported
        if last is None or now - last >= _SHORTAGE_REPORT_SECONDS:
            self._shortage_reported = now
            self.shortage_reason = exc.strerror or type(exc).__name__
            self.shortages += 1

    async def _freed_or(self, seconds: float) -> None:
        """Waits `seconds`, or less if a connection closes meanwhile."""
        assert self._freed is not None
        self._freed.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._freed.wait()

    def _accepted(self, conn: socket.socket) -> None:
        options = self._options
        if self._stopping or options is None:
            conn.close()
            return
        if self._open >= self.connection_limit:
            # Counted before the close so a client that sees the close also sees
            # the count (the statistics are read from other threads).
            self.stats.refused_connection()
            conn.close()
            return
        self._open += 1
        self.stats.connection_opened()
        task = asyncio.get_running_loop().create_task(self._serve(conn, options))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(self, conn: socket.socket, options: ServerOptions) -> None:
        try:
            reader, writer = await asyncio.open_connection(sock=conn, limit=_READ_SIZE)
        except BaseException as exc:
            conn.close()
            self._connection_ended()
            if not isinstance(exc, Exception):
                raise
            if not isinstance(exc, OSError):
                self._internal_error(exc)
            return
        await self._connection(self, reader, writer, options).run()

    @contextlib.contextmanager
    def _streaming(self) -> Iterator[None]:
        """Around a streamed response (see release_memory)."""
        self._streams += 1
        self._streamed = True
        try:
            yield
        finally:
            self._streams -= 1

    def release_memory(self) -> bool:
        """After streamed responses, once none is under way: hands the heap pages
        their buffers used back to the system, and returns True. glibc keeps
        freed memory in its arenas otherwise, and a burst of slow readers would
        leave the process a hundred megabytes larger for good. Safe from any
        thread; the serving loop calls it every poll (by then the connections'
        transports have been closed too). A connection reset by its client
        leaves a reference cycle (the error, its traceback, the transport, the
        stream reader holding the error), so the cycles are collected first."""
        if not self._streamed or self._streams:
            return False
        self._streamed = False
        gc.collect()
        _release_freed_memory()
        return True

    def _connection_ended(self) -> None:
        self._open -= 1
        self.stats.connection_closed()
        if self._freed is not None:
            self._freed.set()

    def _internal_error(self, exc: BaseException) -> None:
        self.internal_errors += 1
        logger.debug("HTTP connection failed", exc_info=exc)

    def _is_hardware(self) -> bool:
        return bool(self._hardware())

    def _timed(self, func: Callable[..., T], *args: object) -> tuple[T, float]:
        start = self._perf()
        result = func(*args)
        return result, max(0.0, self._perf() - start)

    def _timed_compress(self, coding: str, body: bytes) -> tuple[bytes, float]:
        """The body compressed for `coding` and the seconds that took, from the
        cache of compressed bodies when it holds them (bodycache)."""
        return self._timed(bodycache.compressed, _TECHNIQUE[coding], body)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, or None where there is none (musl, macOS)."""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return cast(Callable[[int], int], trim)


def _release_freed_memory() -> None:
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _listen(ip: str, port: int, backlog: int) -> socket.socket:
    """A listening, non-blocking socket on ip:port.

    Made here rather than by asyncio, whose bind errors carry the address as a
    Python tuple in their text; this one raises the OSError of bind() itself.
    """
    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
    # IPPROTO_TCP named, as getaddrinfo would: asyncio sets TCP_NODELAY only on
    # sockets whose proto says TCP, and with Nagle's algorithm on, a response
    # written in two parts waits for the client's delayed ACK (40 ms each).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        if os.name == "posix":
            # As asyncio does: a restarted server need not wait out TIME_WAIT.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind((ip, port))
        sock.listen(backlog)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


@dataclass
class _StaticFile:
    """An opened regular file under DOCROOT: its bytes (up to BODY_BUFFER), or a
    handle to stream it from."""

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
    still inside the resolved DOCROOT. None when there is no such file (a URL
    error); OSError when there is one that cannot be opened or read.
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
    except OSError as exc:
        if exc.errno in _NOT_THERE:
            return None  # removed, or replaced by a symlink, since it was resolved
        raise  # it exists but cannot be opened: 503 or 500, never a URL error
    handle = os.fdopen(fd, "rb")
    try:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            handle.close()
            return None
        if info.st_size <= BODY_BUFFER:
            data = handle.read(BODY_BUFFER + 1)
            if len(data) <= BODY_BUFFER:
                handle.close()
                return _StaticFile(real.name, len(data), data, None)
            # It grew while being read: streamed at its new size instead.
            handle.seek(0)
            info = os.fstat(handle.fileno())
        return _StaticFile(real.name, info.st_size, None, handle)
    except BaseException:
        handle.close()
        raise


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


@functools.lru_cache(maxsize=256)
def _response(status: int, headers: tuple[tuple[str, str], ...]) -> h11.Response:
    """The h11 event of a response head, built (and its headers checked) once for
    each status and header list: a body served again has the same head."""
    return h11.Response(status_code=status, headers=list(headers), reason=http.HTTPStatus(status).phrase)


def _new_protocol() -> h11.Connection:
    return h11.Connection(h11.SERVER, max_incomplete_event_size=HEAD_LIMIT)


def _version_supported(version: bytes) -> bool:
    """HTTP/1.x: a higher 1.x minor is served as 1.1 (RFC 9110 section 2.5);
    another major version (HTTP/2.0 or 9.9 on an HTTP/1 connection) is not."""
    return version.startswith(b"1.")


def _declared_length(request: h11.Request) -> int:
    """The request's Content-Length (h11 has checked it: digits, at most 20), or 0."""
    for name, value in request.headers:
        if name == b"content-length":
            return int(value)
    return 0


async def _piece_chunks(pieces: Sequence[Piece]) -> AsyncGenerator[bytes, None]:
    """A generated body's pieces (views of the generator's corpora) as chunks of
    _STREAM_CHUNK bytes; only one chunk exists at a time."""
    buffer = bytearray()
    for piece in pieces:
        view = memoryview(piece)
        while view:
            room = _STREAM_CHUNK - len(buffer)
            buffer += view[:room]
            view = view[room:]
            if len(buffer) == _STREAM_CHUNK:
                yield bytes(buffer)
                buffer.clear()
    if buffer:
        yield bytes(buffer)


class _Sent:
    """What h11 is given for a part of the body that sendfile sent: its length."""

    def __init__(self, length: int) -> None:
        self.length = length

    def __len__(self) -> int:
        return self.length


async def _file_chunks(handle: BinaryIO, size: int) -> AsyncGenerator[bytes, None]:
    """`size` bytes of a file in chunks of _STREAM_CHUNK, read in a worker thread;
    fewer if the file shrank meanwhile."""
    remaining = size
    while remaining > 0:
        chunk = await asyncio.to_thread(handle.read, min(_STREAM_CHUNK, remaining))
        if not chunk:
            return
        remaining -= len(chunk)
        yield chunk


class _Connection:
    """Serves the requests of one accepted connection with the options it got.

    A subclass may serve other requests over the same reading, limits and writing:
    it sets `body_limit` (the largest request body, 413 above it), `keeps_body` (the
    body read is kept in `self.body` instead of discarded) and overrides `_respond`.
    """

    #: The largest request body; a larger one is refused with 413.
    body_limit = BODY_LIMIT
    #: Whether the request body is kept in `self.body` (else read and discarded).
    keeps_body = False

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
        self.body = b""

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
                if not _version_supported(request.http_version):
                    raise _Refused(505)
                if _declared_length(request) > self.body_limit:
                    # Answered at once: waiting for a body that may never come
                    # would hold the connection until TIMEOUT.
                    raise _Refused(413)
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
        except _Refused as refused:
            await self._send_final(refused.status)
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

    async def _send_final(self, status: int, extra: list[tuple[str, str]] | None = None) -> None:
        """An error response after which the connection closes; best effort, as
        the client may already be gone or not reading."""
        try:
            await self._send_simple(status, close=True, extra=extra)
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
        """Reads a request body: discarded (GET and HEAD do not use one), or kept in
        `self.body` when `keeps_body` says so; never more than `body_limit` bytes."""
        if self.protocol.they_are_waiting_for_100_continue:
            await self._write([self._send(h11.InformationalResponse(status_code=100, headers=[]))])
        total = 0
        kept: list[bytes] = []
        self.body = b""
        while True:
            event = self.protocol.next_event()
            if event is h11.NEED_DATA:
                await self._read(_READ_SIZE)
            elif isinstance(event, h11.Data):
                total += len(event.data)
                if total > self.body_limit:  # a chunked body declares no length
                    raise _Refused(413)
                if self.keeps_body:
                    kept.append(bytes(event.data))
            else:
                self.body = b"".join(kept)
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
            if size <= BODY_BUFFER:
                body = bodycache.sample_if_kept(size)
                if body is None:
                    body = await self._off_loop(size, bodycache.sample, size)
                return await self._send_body(request, "application/xml", body, keep_10)
            # The same seeded generator as `mqtool put --pattern xml` (seed 0, index 0).
            pieces = await asyncio.to_thread(generate_pieces, "xml", size)
            chunks = _piece_chunks(pieces)
            return await self._send_stream(request, "application/xml", size, chunks, keep_10)
        if segments is None:
            return await self._not_found(keep_10)
        try:
            found = await asyncio.to_thread(_open_static, self.options.docroot, segments)
        except OSError as exc:
            return await self._cannot_open(exc)
        if found is None:
            return await self._not_found(keep_10)
        content_type = _content_type(found.name)
        if found.data is not None:
            return await self._send_body(request, content_type, found.data, keep_10)
        assert found.handle is not None
        try:
            if _SENDFILE and self._compression(request, found.size) is None:
                return await self._send_file(content_type, found.handle, found.size, keep_10)
            chunks = _file_chunks(found.handle, found.size)
            return await self._send_stream(request, content_type, found.size, chunks, keep_10)
        finally:
            found.handle.close()

    async def _not_found(self, keep_10: bool) -> bool:
        self.stats.url_error()
        return await self._send_simple(404, keep_10=keep_10)

    async def _cannot_open(self, exc: OSError) -> bool:
        """A file that exists but cannot be opened is not a URL error: 503 when
        the process is short of descriptors or memory (try again), else 500.
        The connection closes, which also gives a descriptor back."""
        if exc.errno in _SHORT_OF_RESOURCES:
            await self._send_simple(503, close=True, extra=[("Retry-After", "1")])
        else:
            await self._send_simple(500, close=True)
        return False

    async def _off_loop(self, size: int, func: Callable[..., T], *args: object) -> T:
        if size >= _OFF_LOOP_BYTES:
            return await asyncio.to_thread(func, *args)
        return func(*args)

    def _compression(self, request: h11.Request, size: int) -> tuple[str, CompressionPath] | None:
        """The coding and path that compress this response's body, or None."""
        options = self.options
        coding = choose_coding(
            _header(request, b"accept-encoding"),
            options.comp,
            request.http_version.decode("ascii", "replace"),
        )
        if coding is None:
            return None
        path = decide(size, coding, self.server._is_hardware(), options.compsizehw, options.compsizesw)
        return None if path is None else (coding, path)

    def _body_headers(self, content_type: str, length: int | None, coding: str | None) -> list[tuple[str, str]]:
        headers = [("Content-Type", content_type)]
        if length is not None:
            headers.append(("Content-Length", str(length)))
        if self.options.comp:
            headers.append(("Vary", "Accept-Encoding"))
        if coding is not None:
            headers.append(("Content-Encoding", coding))
        return headers

    async def _send_body(self, request: h11.Request, content_type: str, body: bytes, keep_10: bool) -> bool:
        """A body held whole (at most BODY_BUFFER): compressed whole, with its length."""
        chosen = self._compression(request, len(body))
        if chosen is None:
            self.stats.response(None, len(body), len(body), 0.0)
            headers = self._body_headers(content_type, len(body), None)
            return await self._send_response(200, headers, body, keep_10=keep_10, cached=True)
        coding, path = chosen
        # A body compressed before is looked up here, on the loop; only a new one
        # goes to a worker thread (if large) to be compressed.
        kept, seconds = self.server._timed(bodycache.compressed_if_kept, _TECHNIQUE[coding], body)
        if kept is None:
            payload, seconds = await self._off_loop(len(body), self.server._timed_compress, coding, body)
        else:
            payload = kept
        self.stats.response(path, len(body), len(payload), seconds)
        headers = self._body_headers(content_type, len(payload), coding)
        return await self._send_response(200, headers, payload, keep_10=keep_10, cached=True)

    async def _send_stream(
        self,
        request: h11.Request,
        content_type: str,
        size: int,
        chunks: AsyncGenerator[bytes, None],
        keep_10: bool,
    ) -> bool:
        """A body larger than BODY_BUFFER, sent chunk by chunk as the client takes
        them (each write waits for the transport to drain). Uncompressed it has a
        Content-Length; compressed, its length is known only at the end, so h11
        frames it with chunked transfer coding (HTTP/1.1: HTTP/1.0 requests are
        never compressed). HEAD gets the same headers and no body."""
        with self.server._streaming():
            async with contextlib.aclosing(chunks):
                chosen = self._compression(request, size)
                if chosen is None:
                    self.stats.response(None, size, size, 0.0)
                    headers = self._body_headers(content_type, size, None)
                    kept = await self._send_response(200, headers, b"", keep_10=keep_10, end=False)
                    if not self.head_request:
                        async for chunk in chunks:
                            await self._write([self._send(h11.Data(data=chunk))])
                    await self._write([self._send(h11.EndOfMessage())])
                    return kept
                coding, path = chosen
                head, _ = self._head(200, self._body_headers(content_type, None, coding))
                await self._send_compressed(head, path, Compressor(_TECHNIQUE[coding]), chunks)
                return False

    async def _send_file(self, content_type: str, handle: BinaryIO, size: int, keep_10: bool) -> bool:
        """A file larger than BODY_BUFFER sent as stored: the kernel copies it from
        the page cache to the socket (sendfile), _STREAM_CHUNK bytes at a time, each
        taken by the client within TIMEOUT like every other write. h11 is told each
        chunk's length only, so it still frames the body by its Content-Length; a
        file that shrank meanwhile ends the connection as in _send_stream."""
        self.stats.response(None, size, size, 0.0)
        headers = self._body_headers(content_type, size, None)
        kept = await self._send_response(200, headers, b"", keep_10=keep_10, end=False)
        if not self.head_request:
            offset = 0
            while offset < size:
                count = min(_SENDFILE_CHUNK, size - offset)
                # the head (or the last chunk) went first: the transport's buffer is
                # empty when asyncio hands the socket to sendfile
                await self._write([])
                try:
                    async with asyncio.timeout(self.options.timeout):
                        sent = await self.loop.sendfile(self.writer.transport, handle, offset, count)
                except TimeoutError:
                    raise _Stalled from None
                self.protocol.send_with_data_passthrough(h11.Data(data=_Sent(sent)))  # type: ignore[arg-type]
                if sent < count:
                    break  # the file shrank: EndOfMessage below fails, the connection ends
                offset += sent
        await self._write([self._send(h11.EndOfMessage())])
        return kept

    async def _send_compressed(
        self, head: bytes, path: CompressionPath, packer: Compressor, chunks: AsyncGenerator[bytes, None]
    ) -> None:
        """Sends the response head, then each chunk compressed, then the end of the
        stream. A HEAD response is complete with its head, so for HEAD the body is
        compressed (and counted, its figures a GET's) before the head goes out."""
        before = after = 0
        seconds = 0.0
        counted = False
        if not self.head_request:
            await self._write([head])
        try:
            async for chunk in chunks:
                data, spent = await asyncio.to_thread(self.server._timed, packer.compress, chunk)
                before += len(chunk)
                after += len(data)
                seconds += spent
                if data and not self.head_request:
                    await self._write([self._send(h11.Data(data=data))])
            data, spent = self.server._timed(packer.flush)
            after += len(data)
            seconds += spent
            # Counted before the last bytes go out: a client that has the whole
            # response finds it counted (ZHTPS STATS).
            self.stats.response(path, before, after, seconds)
            counted = True
            if self.head_request:
                parts = [head]
            else:
                parts = [self._send(h11.Data(data=data))] if data else []
            parts.append(self._send(h11.EndOfMessage()))
            await self._write(parts)
        finally:
            if not counted:
                # Cut short (the client left or stopped reading): still one
                # compressed response, with the bytes compressed until then.
                self.stats.response(path, before, after, seconds)

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
        cached: bool = False,
    ) -> bool:
        """Writes status and headers (and `body` and the end unless `end` is False).

        Returns whether an HTTP/1.0 keep-alive was granted. `cached`: see _head.
        """
        head, kept = self._head(status, headers, keep_10, cached)
        parts = [head]
        if end:
            if body and not self.head_request:
                parts.append(self._send(h11.Data(data=body)))
            parts.append(self._send(h11.EndOfMessage()))
        await self._write(parts)
        return kept

    def _head(
        self, status: int, headers: list[tuple[str, str]], keep_10: bool = False, cached: bool = False
    ) -> tuple[bytes, bool]:
        """The status line and headers as bytes, and whether an HTTP/1.0
        keep-alive was granted. `cached`: the head is one that repeats (a file or
        sample body), so its h11 event is built once (_response)."""
        if cached:
            event = _response(status, tuple(headers))
        else:
            event = h11.Response(status_code=status, headers=headers, reason=http.HTTPStatus(status).phrase)
        head = self._send(event)
        kept = False
        if keep_10:
            # h11 always answers HTTP/1.0 with Connection: close; the client asked
            # to keep the connection, so say so (the framing is Content-Length).
            old, new = _KEEP_ALIVE_10
            if head.count(old) == 1:
                head, kept = head.replace(old, new), True
        return head, kept

    def _send(self, event: h11.Event) -> bytes:
        data = self.protocol.send(event)
        return data or b""

    async def _write(self, parts: list[bytes]) -> None:
        if sum(len(part) for part in parts) <= BODY_BUFFER:
            # One send for a small response (head, body and end together), not one each.
            self.writer.write(b"".join(parts))
        else:
            for part in parts:
                if part:
                    self.writer.write(part)
        transport = self.writer.transport
        if transport.is_closing():
            # The client went away: asyncio drops what is written to a lost
            # connection (a warning each time), so a streamed body stops here.
            raise ConnectionResetError(errno.ECONNRESET, "the connection was lost")
        if not transport.get_write_buffer_size():
            return  # all sent: nothing to wait for (a lost connection shows at the next read)
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
