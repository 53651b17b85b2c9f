"""One TCP connection of a channel: frames written and read with a bound on every read
(bytes: the frame length allowed; time: a deadline), TLS when the channel has a
CipherSpec, and the bytes counted at both levels: the frames (what the channel sent,
message data compressed as negotiated) and the socket (what went on the network,
encrypted when TLS runs). Compression happens before encryption: the channel agent
hands this link data it already compressed.

TLS runs through an `ssl.SSLObject` over memory buffers, so the bytes on the socket are
counted exactly and every handshake read has the same deadline as any other read.

One thread may read while another writes (a receiver reads ahead while it answers):
the TLS object is used under a lock, and what it produces goes to the socket in order
under another (OpenSSL objects are not safe for two threads at once).
"""

from __future__ import annotations

import select
import socket
import ssl
import threading
import time
from typing import Any

from mqtool.engine.channels.tcp import frames

RECEIVE_CHUNK = 256 * 1024
SEND_SECONDS = 60.0  # the longest a write may wait for the peer to take bytes


class LinkError(Exception):
    """The connection cannot go on. `kind`: closed (the peer ended it), timeout (a read
    or write passed its deadline), frame (bytes that are not a valid frame), version (a
    peer of another wire version), peer (not an mqtool channel peer), tls (the TLS
    handshake or a TLS record failed), network (a socket error)."""

    def __init__(self, kind: str, detail: str, error: BaseException | None = None) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.error = error


class Link:
    """Frames over one socket (see the module docstring)."""

    def __init__(self, sock: socket.socket, peer: str) -> None:
        sock.setblocking(False)
        self.sock = sock
        self.peer = peer  # host(port) of the other end, for messages
        self.tls: ssl.SSLObject | None = None
        self._incoming = ssl.MemoryBIO()
        self._outgoing = ssl.MemoryBIO()
        self._buffer = bytearray()
        self._start = 0
        self.socket_sent = 0
        self.socket_received = 0
        self.frames_sent = 0  # bytes of frames (before TLS)
        self.frames_received = 0
        self.closed = False
        self.security: dict[str, Any] = {}  # the SSL fields of the channel status, once TLS is made (tls.py)
        self._tls_lock = threading.Lock()  # the SSLObject, one call at a time
        self._send_lock = threading.RLock()  # bytes to the socket, in the order TLS made them

    # -- writing ----------------------------------------------------------------------
    def send(self, data: bytes | bytearray | memoryview) -> None:
        """Writes bytes (frames, or the preamble), encrypted when TLS runs."""
        self.frames_sent += len(data)
        with self._send_lock:
            if self.tls is None:
                self._send_raw(data)
                return
            try:
                with self._tls_lock:
                    self.tls.write(data)
            except ssl.SSLError as exc:
                raise LinkError("tls", str(exc), exc) from None
            self._flush()

    def _flush(self) -> None:
        """What TLS produced (records, alerts, answers to key updates) to the socket."""
        with self._send_lock:
            pending = self._outgoing.read()
            if pending:
                self._send_raw(pending)

    def _send_raw(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(data)
        deadline = time.monotonic() + SEND_SECONDS
        while view:
            try:
                sent = self.sock.send(view)
            except (BlockingIOError, InterruptedError):
                self._wait(write=True, deadline=deadline)
                continue
            except OSError as exc:
                raise LinkError("network", exc.strerror or str(exc), exc) from None
            self.socket_sent += sent
            view = view[sent:]

    def _wait(self, write: bool, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise LinkError("timeout", "the peer took no bytes" if write else "no bytes came")
        try:
            ready = wait_for(self.sock, write, left)
        except (OSError, ValueError) as exc:
            raise LinkError("network", str(exc), exc) from None
        if not ready:
            raise LinkError("timeout", "the peer took no bytes" if write else "no bytes came")

    # -- reading ----------------------------------------------------------------------
    def _available(self) -> int:
        return len(self._buffer) - self._start

    def _receive_raw(self, deadline: float) -> bytes:
        """The next bytes from the socket, as they came (b"" at its end)."""
        while True:
            try:
                raw = self.sock.recv(RECEIVE_CHUNK)
            except (BlockingIOError, InterruptedError):
                self._wait(write=False, deadline=deadline)
                continue
            except OSError as exc:
                raise LinkError("network", exc.strerror or str(exc), exc) from None
            self.socket_received += len(raw)
            return raw

    def _fill(self, deadline: float) -> None:
        """Waits for more bytes (decrypted when TLS runs) until the deadline. TLS records
        that came with the handshake's last ones are read first; at the end of the
        connection, what is left (an alert says why the peer ended it) before "closed"."""
        if self.tls is not None and self._incoming.pending:
            plain = self._decrypt()
            if plain:
                self._append(plain)
                return
        while True:
            raw = self._receive_raw(deadline)
            if not raw:
                if self.tls is not None:
                    self._incoming.write_eof()
                    plain = self._decrypt()
                    if plain:
                        self._append(plain)
                        return
                raise LinkError("closed", "the peer closed the connection")
            if self.tls is None:
                self._append(raw)
                return
            self._incoming.write(raw)
            plain = self._decrypt()
            if plain:
                self._append(plain)
                return

    def _decrypt(self) -> bytes:
        assert self.tls is not None
        parts: list[bytes] = []
        while True:
            try:
                with self._tls_lock:
                    chunk = self.tls.read(RECEIVE_CHUNK)
            except ssl.SSLWantReadError:
                break
            except ssl.SSLZeroReturnError:
                raise LinkError("closed", "the peer ended the TLS session") from None
            except ssl.SSLEOFError:
                raise LinkError("closed", "the peer closed the connection") from None
            except ssl.SSLError as exc:
                raise LinkError("tls", str(exc), exc) from None
            if not chunk:
                break
            parts.append(chunk)
        self._flush()  # a TLS 1.3 key update may need an answer
        return b"".join(parts)

    def _append(self, data: bytes) -> None:
        if self._start and self._start == len(self._buffer):
            self._buffer.clear()
            self._start = 0
        elif self._start > RECEIVE_CHUNK:
            del self._buffer[: self._start]
            self._start = 0
        self._buffer += data

    def receive_exact(self, size: int, deadline: float) -> bytes:
        while self._available() < size:
            self._fill(deadline)
        data = bytes(self._buffer[self._start : self._start + size])
        self._start += size
        return data

    def read_frame(self, limit: int, deadline: float) -> tuple[bytes, bytes]:
        """(type, body) of the next frame, once the whole of it has arrived; LinkError
        (frame) when its length is over `limit`, before any of the body is read, and
        (timeout) when it has not all come by the deadline. Nothing is consumed until the
        frame is whole, so a caller may try again after a timeout."""
        while self._available() < frames.HEADER.size:
            self._fill(deadline)
        head = bytes(self._buffer[self._start : self._start + frames.HEADER.size])
        try:
            kind, size = frames.read_header(head, limit)
        except frames.FrameError as exc:
            raise LinkError("frame", str(exc), exc) from None
        total = frames.HEADER.size + size
        while self._available() < total:
            self._fill(deadline)
        body = bytes(self._buffer[self._start + frames.HEADER.size : self._start + total])
        self._start += total
        self.frames_received += total
        return kind, body

    def take(self, data: bytes) -> None:
        """Bytes read from the socket before this link took it (the listener read the
        first exchange): they come first."""
        self._append(data)

    def read_control(self, deadline: float, limit: int = frames.MAX_CONTROL) -> dict[str, Any]:
        """The next frame, which must be a control frame."""
        kind, body = self.read_frame(limit, deadline)
        if kind != frames.CONTROL:
            raise LinkError("frame", "a message frame where a control frame was due")
        try:
            return frames.parse_control(body)
        except frames.FrameError as exc:
            raise LinkError("frame", str(exc), exc) from None

    def send_control(self, op: str, **fields: Any) -> None:
        self.send(frames.control(op, **fields))

    # -- the first exchange and TLS ---------------------------------------------------
    def read_preamble(self, deadline: float) -> int:
        """The peer's wire version; LinkError (peer) when the bytes are not mqtool's."""
        data = self.receive_exact(frames.PREAMBLE.size, deadline)
        try:
            return frames.read_preamble(data)
        except frames.FrameError as exc:
            raise LinkError("peer", exc.detail, exc) from None

    def start_tls(
        self, context: ssl.SSLContext, server_side: bool, deadline: float, server_hostname: str | None = None
    ) -> None:
        """The TLS handshake, every read of it bounded by `deadline`."""
        if self._available():
            raise LinkError("frame", "bytes after the request for TLS, before the handshake")
        self.tls = context.wrap_bio(
            self._incoming, self._outgoing, server_side=server_side, server_hostname=server_hostname
        )
        while True:
            try:
                self.tls.do_handshake()
                self._flush()
                return
            except ssl.SSLWantReadError:
                self._flush()
                self._read_raw_for_tls(deadline)
            except ssl.SSLError as exc:
                try:
                    self._flush()  # the alert, so the peer learns why
                except LinkError:
                    pass
                raise LinkError("tls", exc.reason or str(exc), exc) from None

    def _read_raw_for_tls(self, deadline: float) -> None:
        raw = self._receive_raw(deadline)
        if not raw:
            raise LinkError("closed", "the peer closed the connection during the TLS handshake")
        self._incoming.write(raw)

    @property
    def cipher(self) -> str:
        """The OpenSSL name of the cipher suite negotiated ("" without TLS)."""
        if self.tls is None:
            return ""
        found = self.tls.cipher()
        return found[0] if found else ""

    def peer_certificate(self) -> bytes | None:
        if self.tls is None:
            return None
        return self.tls.getpeercert(binary_form=True)

    def linger(self, seconds: float) -> None:
        """Ends this side's sending and reads (and drops) what the peer still sends, up to
        `seconds` and RECEIVE_CHUNK at a time, until it closes: the peer reads what this
        end said last (a TLS alert, a verdict) before the connection goes, instead of a
        reset that may throw it away."""
        try:
            self._flush()
            self.sock.shutdown(socket.SHUT_WR)
        except (OSError, LinkError):
            return
        deadline = time.monotonic() + seconds
        try:
            while self._receive_raw(deadline):
                pass
        except LinkError:
            pass

    def abort(self) -> None:
        """Cuts the connection from another thread: a read or write waiting on it ends at
        once (LinkError); the thread that owns the link closes it."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            if self.tls is not None:
                try:
                    with self._tls_lock:
                        self.tls.unwrap()
                except (ssl.SSLError, ValueError):
                    pass
                try:
                    self._flush()
                except LinkError:
                    pass
            self.sock.close()
        except OSError:
            pass


def wait_for(sock: socket.socket, write: bool, seconds: float) -> bool:
    """Whether the socket became writable (or readable) within `seconds`. poll, not
    select: a listener with a thousand connections has descriptors above 1024."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(sock, select.POLLOUT if write else select.POLLIN)
        return bool(poller.poll(max(0, int(seconds * 1000) + 1)))
    if write:  # pragma: no cover - platforms without poll
        return bool(select.select([], [sock], [], seconds)[1])
    return bool(select.select([sock], [], [], seconds)[0])  # pragma: no cover


def connect(host: str, port: int, timeout: float) -> socket.socket:
    """A TCP connection to host:port (IPv4 or IPv6, as the name resolves)."""
    sock = socket.create_connection((host, port), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock
