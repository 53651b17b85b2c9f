"""The listening sockets of a serving loop and the connections that have not yet said
which channel they are for, all in one thread with one selector (epoll), so that idle,
slow or hostile connections cost a few hundred bytes each and no thread:

- a connection has HELLO_SECONDS to send its preamble and HELLO, at most HELLO_MAX
  bytes of it; garbage, another program, a frame over the bound, or silence close it;
- a peer of another wire version gets this mqtool's preamble and an ERROR frame saying
  which version it speaks, then the connection closes;
- at most MAX_PENDING connections wait at once: one more closes the oldest waiting;
- a connection from an address the system's CHLAUTH BLOCKADDR record names is closed
  as it is accepted, before a byte is read (`blocked`, answered from memory);
- a complete HELLO hands the connection to the loop (`on_hello`), which runs its
  channel in a thread of its own (inbound.py).

Every closed connection is counted by reason for the listener; the loop turns the
counts into one console line a minute at most (service.py).
"""

from __future__ import annotations

import errno
import os
import selectors
import socket
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from mqtool.engine.channels.conname import Address
from mqtool.engine.channels.tcp import frames, handshake

MAX_BLOCKED_ADDRESSES = 100  # addresses a drain of the counts names one by one
HELLO_SECONDS = float(os.environ.get("MQTOOL_LISTENER_HELLO_SECONDS", "10") or 10)
MAX_PENDING = 256
BACKLOG = 128
Key = tuple[str, str]  # (system, configured address)
OnHello = Callable[[Key, socket.socket, str, tuple[str, str, str, bool], bytes], None]


@dataclass
class _Waiting:
    key: Key
    sock: socket.socket
    peer: str
    since: float
    data: bytearray = field(default_factory=bytearray)


@dataclass
class Counts:
    """What a listener saw since the loop last drained it: connections, those closed
    before a channel started (by reason), those its CHLAUTH BLOCKADDR record refused
    (by address, at most MAX_BLOCKED_ADDRESSES of them, the rest under "")."""

    connections: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    blocked: Counter[str] = field(default_factory=Counter)


class Listeners:
    """The listening sockets (see the module docstring)."""

    def __init__(
        self, on_hello: OnHello, hello_seconds: float | None = None, max_pending: int | None = None,
        blocked: Callable[[Key, str], bool] | None = None,
    ) -> None:  # fmt: skip
        self.on_hello = on_hello
        self.blocked = blocked  # whether an address may not connect (CHLAUTH BLOCKADDR), asked at accept
        self.hello_seconds = HELLO_SECONDS if hello_seconds is None else hello_seconds
        self.max_pending = MAX_PENDING if max_pending is None else max_pending
        self._selector = selectors.DefaultSelector()
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self._selector.register(self._wake_read, selectors.EVENT_READ, None)
        self._lock = threading.Lock()
        self._orders: deque[tuple[str, Key, socket.socket | None]] = deque()
        self._listening: dict[Key, socket.socket] = {}
        self._waiting: dict[int, _Waiting] = {}
        self._counts: dict[Key, Counts] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mqtool-listeners", daemon=True)
        self._thread.start()

    # -- from the loop's thread -------------------------------------------------------
    def open(self, key: Key, address: Address) -> int:
        """Opens a listening socket; returns the port (the system's choice for 0).
        OSError when it cannot (the port is in use, the address is not this machine's)."""
        host = address.bind_host
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        if not host and socket.has_ipv6:
            family = socket.AF_INET6
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6 and not host:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            sock.bind((host, address.port))
            sock.listen(BACKLOG)
            sock.setblocking(False)
        except OSError:
            sock.close()
            raise
        port = int(sock.getsockname()[1])
        self._order("open", key, sock)
        return port

    def close(self, key: Key) -> None:
        self._order("close", key, None)

    def drain(self) -> dict[Key, Counts]:
        """The counts of each listener since the last drain."""
        with self._lock:
            counts, self._counts = self._counts, {}
        return counts

    def count(self, key: Key, reason: str) -> None:
        """A connection of this listener closed before its channel started (reasons
        found after the HELLO: a TLS handshake that never ended ...)."""
        with self._lock:
            self._counts.setdefault(key, Counts()).dropped[reason] += 1

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def stop(self) -> None:
        self._stop.set()
        self._wake()
        self._thread.join(10)

    def _order(self, what: str, key: Key, sock: socket.socket | None) -> None:
        with self._lock:
            self._orders.append((what, key, sock))
        self._wake()

    def _wake(self) -> None:
        try:
            self._wake_write.send(b"\0")
        except OSError:
            pass

    # -- the listeners' thread --------------------------------------------------------
    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self._apply_orders()
                timeout = self._sweep()
                for selected, _mask in self._selector.select(timeout):
                    item = selected.data
                    if item is None:
                        self._drain_wake()
                    elif isinstance(item, tuple):
                        self._accept(item, selected.fileobj)  # type: ignore[arg-type]
                    else:
                        self._read(item)
        finally:
            for sock in self._listening.values():
                sock.close()
            for waiting in list(self._waiting.values()):
                waiting.sock.close()
            self._selector.close()
            self._wake_read.close()
            self._wake_write.close()

    def _drain_wake(self) -> None:
        try:
            while self._wake_read.recv(4096):
                pass
        except OSError:
            pass

    def _apply_orders(self) -> None:
        with self._lock:
            orders = list(self._orders)
            self._orders.clear()
        for what, key, sock in orders:
            old = self._listening.pop(key, None)
            if old is not None:
                self._selector.unregister(old)
                old.close()
            if what == "open" and sock is not None:
                self._listening[key] = sock
                self._selector.register(sock, selectors.EVENT_READ, key)

    def _accept(self, key: Key, listening: socket.socket) -> None:
        while True:
            try:
                sock, peer = listening.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE):
                    # Out of descriptors: the oldest waiting connection makes room.
                    self._drop_oldest("too many connections")
                return
            sock.setblocking(False)
            host = peer[0] if isinstance(peer, tuple) else str(peer)
            if host.startswith("::ffff:"):
                host = host[7:]
            if self.blocked is not None and self.blocked(key, host):
                sock.close()  # before a byte is read
                with self._lock:
                    counts = self._counts.setdefault(key, Counts())
                    counts.connections += 1
                    known = host in counts.blocked or len(counts.blocked) < MAX_BLOCKED_ADDRESSES
                    counts.blocked[host if known else ""] += 1
                continue
            waiting = _Waiting(key, sock, f"{host}({peer[1] if isinstance(peer, tuple) else 0})", time.monotonic())
            with self._lock:
                self._counts.setdefault(key, Counts()).connections += 1
            if len(self._waiting) >= self.max_pending:
                self._drop_oldest("too many waiting")
            self._waiting[sock.fileno()] = waiting
            self._selector.register(sock, selectors.EVENT_READ, waiting)

    def _drop_oldest(self, reason: str) -> None:
        if self._waiting:
            oldest = min(self._waiting.values(), key=lambda item: item.since)
            self._drop(oldest, reason)

    def _drop(self, waiting: _Waiting, reason: str, reply: bytes = b"") -> None:
        self._waiting.pop(waiting.sock.fileno(), None)
        try:
            self._selector.unregister(waiting.sock)
        except (KeyError, ValueError):
            pass
        if reply:
            try:
                waiting.sock.send(reply)
            except OSError:
                pass
        waiting.sock.close()
        with self._lock:
            self._counts.setdefault(waiting.key, Counts()).dropped[reason] += 1

    def _sweep(self) -> float:
        """Closes the connections past their HELLO_SECONDS; the select timeout."""
        now = time.monotonic()
        for waiting in [item for item in self._waiting.values() if now - item.since >= self.hello_seconds]:
            self._drop(waiting, "idle")
        if not self._waiting:
            return 1.0
        oldest = min(item.since for item in self._waiting.values())
        return max(0.01, min(1.0, oldest + self.hello_seconds - now))

    def _read(self, waiting: _Waiting) -> None:
        try:
            chunk = waiting.sock.recv(handshake.HELLO_MAX + 64)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._drop(waiting, "reset")
            return
        if not chunk:
            self._drop(waiting, "closed at once")
            return
        waiting.data += chunk
        data = waiting.data
        preamble = frames.PREAMBLE.size
        if len(data) < preamble:
            return
        try:
            version = frames.read_preamble(bytes(data[:preamble]))
        except frames.FrameError:
            self._drop(waiting, "garbage")
            return
        if version != frames.VERSION:
            refusal = frames.preamble() + frames.control("ERROR", cause="version", theirs=version,
                                                         ours=frames.VERSION)  # fmt: skip
            self._drop(waiting, f"wire version {version}", refusal)
            return
        head = preamble + frames.HEADER.size
        if len(data) < head:
            return
        try:
            kind, size = frames.read_header(bytes(data[preamble:head]), handshake.HELLO_MAX)
        except frames.FrameError:
            self._drop(waiting, "a frame over the bound")
            return
        if len(data) < head + size:
            return
        try:
            found = frames.parse_control(bytes(data[head : head + size])) if kind == frames.CONTROL else {}
        except frames.FrameError:
            found = {}
        hello = handshake.check_hello(found)
        if isinstance(hello, str):
            self._drop(waiting, "garbage")
            return
        self._waiting.pop(waiting.sock.fileno(), None)
        self._selector.unregister(waiting.sock)
        self.on_hello(waiting.key, waiting.sock, waiting.peer, hello, bytes(data[head + size :]))
