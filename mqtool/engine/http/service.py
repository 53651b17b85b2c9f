"""The HTTP part of the real-time loop: listens for every started HTTP server of
every z/TPF system of a store, follows ZHTPS START/STOP/REFRESH/STATS RESET made by
any process, and drains the statistics into the store.

The HTTP servers run on one asyncio event loop in a thread of their own; the store
is polled (`step()`, every POLL_SECONDS) from one control thread, so a slow or
locked store never stalls a response. A server is listened for by one loop only:
the loop that claims it in the store (its owner); other loops leave it alone until
that owner's process ends, even by kill -9.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import threading
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from mqtool.clock import Clock
from mqtool.engine.console import console
from mqtool.state import ObjectRecord, Store, SystemRecord, Transaction

from .config import ServerOptions
from .records import (
    HTTPSERVER,
    STARTED,
    Owner,
    ServerStatus,
    forget_token,
    new_owner,
    options_from_attrs,
    register_service,
    unregister_service,
)
from .server import HttpServer
from .stats import HttpStats

__all__ = ["POLL_SECONDS", "HttpService", "event_loop_thread"]

logger = logging.getLogger(__name__)
T = TypeVar("T")

#: How often the store is read: START/STOP/REFRESH from another process take
#: effect within this time (the spec asks for under a second).
POLL_SECONDS = 0.25
#: A listener that could not be opened (port in use) is tried again every this
#: many polls, without a console message each time.
RETRY_POLLS = 20
#: After streamed responses, freed memory goes back to the system at most every
#: this many polls (it collects garbage, which holds the interpreter a moment).
RELEASE_POLLS = 8
#: Longest wait for the event loop to start or stop one server.
_CALL_SECONDS = 30.0
_TOKENS = itertools.count(1)


@dataclass
class _Served:
    """One server this loop listens for."""

    system: str
    name: str
    server: HttpServer
    stats: HttpStats
    options: ServerOptions
    start_generation: int
    options_generation: int
    reset_generation: int
    drained: int
    last_active: int = 0
    shortages_reported: int = 0

    @property
    def key(self) -> tuple[str, str]:
        return (self.system, self.name)


class HttpService:
    """Serves the started HTTP servers of the store in `state_dir`.

    Either `start()` it (an event-loop thread plus a control thread that calls
    `step()` every POLL_SECONDS) and `stop()` it, or let a host loop call
    `open()`, then `step()` periodically, then `close()`, all from one thread.
    The clock times compressions (frozen: zero) and stamps console messages.
    """

    name = "http"

    def __init__(
        self,
        state_dir: Path,
        clock: Clock,
        poll_seconds: float = POLL_SECONDS,
        retry_polls: int = RETRY_POLLS,
    ) -> None:
        self.state_dir = Path(state_dir)
        self.clock = clock
        self.poll_seconds = poll_seconds
        self.retry_polls = retry_polls
        self.token = f"{os.getpid()}.{next(_TOKENS)}"
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: threading.Thread | None = None
        self._control: threading.Thread | None = None
        self._stopping = threading.Event()
        self._store: Store | None = None
        self._registered = False
        self._served: dict[tuple[str, str], _Served] = {}
        self._hardware: dict[str, bool] = {}
        self._retry: dict[tuple[str, str], tuple[int, int]] = {}
        #: Failures of the polling itself (store errors), newest last; the loop goes on.
        self.errors: list[str] = []
        #: Polls completed; a change made before a poll began is in force after it.
        self.polls = 0

    # ------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Starts serving in background threads; returns at once."""
        if self._control is not None:
            raise RuntimeError("the HTTP service is already running")
        self._stopping.clear()
        self._control = threading.Thread(target=self._control_main, name="mqtool-http-control", daemon=True)
        self._control.start()

    def stop(self, timeout: float = _CALL_SECONDS) -> None:
        """Stops every listener, persists the last counts, and ends the threads."""
        control = self._control
        if control is None:
            return
        self._stopping.set()
        control.join(timeout)
        self._control = None

    def __enter__(self) -> HttpService:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _control_main(self) -> None:
        try:
            self.open()
            while True:
                self._safe_step()
                if self._stopping.wait(self.poll_seconds):
                    break
        finally:
            self.close()

    def open(self) -> None:
        """Starts the event loop that the servers run on."""
        if self._loop is not None:
            return
        self._loop, self._loop_thread = event_loop_thread("mqtool-http-loop")

    def close(self) -> None:
        """Stops every listener, releases them in the store, ends the event loop."""
        for served in list(self._served.values()):
            try:
                self._stop_served(served, persist=True)
            except Exception as exc:  # the store may be gone; the sockets must close anyway
                self._note(f"stopping {served.name}: {exc}")
                self._served.pop(served.key, None)
        forget_token(self.token)
        if self._store is not None:
            try:
                if self._registered:
                    with self._store.transaction() as tx:
                        unregister_service(tx, self.token)
            except Exception as exc:
                self._note(f"unregistering: {exc}")
            self._store.close()
            self._store = None
        self._registered = False
        loop, thread = self._loop, self._loop_thread
        if loop is not None and thread is not None:
            try:
                self._call(loop.shutdown_default_executor())
            except Exception as exc:
                self._note(f"closing the executor: {exc}")
            loop.call_soon_threadsafe(loop.stop)
            thread.join(_CALL_SECONDS)
            loop.close()
        self._loop = self._loop_thread = None

    # ------------------------------------------------------------------ poll
    @property
    def serving(self) -> dict[tuple[str, str], int]:
        """(system, server) -> port of every listener this loop holds."""
        return {key: served.server.port or 0 for key, served in self._served.items()}

    def _safe_step(self) -> None:
        try:
            self.step()
        except Exception as exc:  # a locked or damaged store: try again next poll
            self._note(f"poll failed: {type(exc).__name__}: {exc}")

    def _note(self, text: str) -> None:
        logger.warning("HTTP service: %s", text)
        self.errors = [*self.errors[-19:], text]

    def step(self) -> None:
        """One poll: start, stop, refresh listeners as the store says; drain counts."""
        store = self._open_store()
        if not self._registered:
            with store.transaction() as tx:
                register_service(tx, self.token)
            self._registered = True
        with store.transaction(write=False) as tx:
            systems = [system for system in tx.systems() if system.platform == "ztpf"]
            records = {
                (record.system, record.name): record
                for system in systems
                for record in tx.objects(system.name, HTTPSERVER)
            }
        # Replaced whole, never mutated: the event loop thread reads it per response.
        self._hardware = {system.name: system.has_accelerator for system in systems}
        wanted = {key: ServerStatus.of(record) for key, record in records.items()}
        wanted = {key: status for key, status in wanted.items() if status.state == STARTED}
        for key, served in list(self._served.items()):
            status = wanted.get(key)
            owner = Owner.from_dict(status.owner) if status is not None else None
            if (
                status is None
                or status.start_generation != served.start_generation
                or owner is None
                or owner.token != self.token
            ):
                self._stop_served(served, persist=key in records)
        for key, status in wanted.items():
            if key not in self._served:
                self._start_served(records[key], status)
        for key, served in list(self._served.items()):
            status = wanted[key]
            if status.options_generation != served.options_generation:
                self._refresh_served(served, records[key], status)
            self._drain(served, status)
            self._report_shortage(served)
            if self.polls % RELEASE_POLLS == 0:
                served.server.release_memory()
        self.polls += 1

    def _open_store(self) -> Store:
        if self._store is None:
            self._store = Store.open(self.state_dir)
        return self._store

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        assert self._loop is not None, "open() the service first"
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(_CALL_SECONDS)

    def _console(self, tx: Transaction, system: str, msg_id: str, **fields: Any) -> None:
        """An unsolicited console line `MSGID hh.mm.ss text` in the system's local time,
        the form of every engine console message."""
        # A system deleted under a running server still gets its line, at offset zero.
        record = tx.get_system(system) or SystemRecord(system, "ztpf")
        console(tx, record, self.clock.timestamp(), msg_id, **fields)

    # --------------------------------------------------------- one server
    def _start_served(self, record: ObjectRecord, seen: ServerStatus) -> None:
        key = (record.system, record.name)
        retry = self._retry.get(key)
        if retry is not None and retry[0] == seen.start_generation and retry[1] > 0:
            self._retry[key] = (retry[0], retry[1] - 1)
            return
        if seen.live_owner() is not None:
            return
        store = self._open_store()
        with store.transaction() as tx:
            current = tx.get_object(record.system, HTTPSERVER, record.name)
            status = ServerStatus.of(current)
            if (
                current is None
                or status.state != STARTED
                or status.start_generation != seen.start_generation
                or status.live_owner() is not None
            ):
                return
            options = options_from_attrs(current.name, current.attrs)
            owner = new_owner(self.token)
            owner.ip = options.ip
            owner.options_generation = status.options_generation
            owner.reset_generation = status.reset_generation
            owner.drained = status.drain_request
            status.owner = owner.to_dict()
            # A previous owner's open connections died with it.
            stats = status.statistics()
            stats.active = 0
            status.stats = stats.to_dict()
            current.status = status.to_dict()
            tx.put_status(current)
        stats = HttpStats()
        system = record.system
        served = _Served(
            system=system,
            name=record.name,
            server=HttpServer(
                lambda: served.options, lambda: self._hardware.get(system, False), stats, self.clock.perf
            ),
            stats=stats,
            options=options,
            start_generation=status.start_generation,
            options_generation=status.options_generation,
            reset_generation=status.reset_generation,
            drained=status.drain_request,
        )
        try:
            self._call(served.server.start())
        except (OSError, ValueError, RuntimeError, TimeoutError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
            self._retry[key] = (status.start_generation, self.retry_polls)
            with store.transaction() as tx:
                current = tx.get_object(record.system, HTTPSERVER, record.name)
                if current is None:
                    return
                status = ServerStatus.of(current)
                holder = Owner.from_dict(status.owner)
                if holder is not None and holder.token == self.token:
                    status.owner = None
                if status.listen_error != reason:
                    status.listen_error = reason
                    self._console(
                        tx, system, "HTTPS0021E", name=record.name, ip=options.ip, port=options.port, reason=reason
                    )
                current.status = status.to_dict()
                tx.put_status(current)
            return
        self._retry.pop(key, None)
        self._served[key] = served
        with store.transaction() as tx:
            current = tx.get_object(record.system, HTTPSERVER, record.name)
            status = ServerStatus.of(current)
            holder = Owner.from_dict(status.owner)
            if current is None or holder is None or holder.token != self.token:
                keep = False
            else:
                keep = True
                holder.port = served.server.port
                status.owner = holder.to_dict()
                status.listen_error = ""
                current.status = status.to_dict()
                tx.put_status(current)
                self._console(tx, system, "HTTPS0020I", name=record.name, ip=options.ip, port=served.server.port)
                self._warn_descriptors(tx, served)
        if not keep:
            self._stop_served(served, persist=False)

    def _stop_served(self, served: _Served, persist: bool) -> None:
        self._served.pop(served.key, None)
        self._call(served.server.stop())
        if not persist:
            return
        delta = served.stats.drain_delta()
        store = self._open_store()
        with store.transaction() as tx:
            current = tx.get_object(served.system, HTTPSERVER, served.name)
            if current is None:
                return
            status = ServerStatus.of(current)
            status.absorb(delta, served.reset_generation)
            owner = Owner.from_dict(status.owner)
            if owner is not None and owner.token == self.token:
                status.owner = None
                stats = status.statistics()
                stats.active = 0
                status.stats = stats.to_dict()
            current.status = status.to_dict()
            tx.put_status(current)
            self._console(tx, served.system, "HTTPS0022I", name=served.name)

    def _refresh_served(self, served: _Served, record: ObjectRecord, status: ServerStatus) -> None:
        served.options = options_from_attrs(record.name, record.attrs)
        self._call(served.server.refresh())
        served.options_generation = status.options_generation
        with self._open_store().transaction() as tx:
            current = tx.get_object(served.system, HTTPSERVER, served.name)
            if current is None:
                return
            now = ServerStatus.of(current)
            owner = Owner.from_dict(now.owner)
            if owner is not None and owner.token == self.token:
                owner.options_generation = served.options_generation
                now.owner = owner.to_dict()
                current.status = now.to_dict()
                tx.put_status(current)
                self._warn_descriptors(tx, served)

    def _warn_descriptors(self, tx: Transaction, served: _Served) -> None:
        """HTTPS0300W on the console when this process's descriptor limit holds
        the server below its MAXCONN (START warned with the command's limit)."""
        server, maxconn = served.server, served.options.maxconn
        if server.connection_limit < maxconn:
            self._console(
                tx,
                served.system,
                "HTTPS0300W",
                name=served.name,
                maxconn=maxconn,
                limit=server.descriptor_limit,
                effective=server.connection_limit,
            )

    def _report_shortage(self, served: _Served) -> None:
        """HTTPS0301W once per shortage of descriptors the server counted."""
        server = served.server
        if server.shortages == served.shortages_reported:
            return
        with self._open_store().transaction() as tx:
            self._console(tx, served.system, "HTTPS0301W", name=served.name, reason=server.shortage_reason)
        served.shortages_reported = server.shortages

    def _drain(self, served: _Served, seen: ServerStatus) -> None:
        delta = served.stats.drain_delta()
        counts = delta.to_dict()
        changed = any(value for name, value in counts.items() if name not in ("active", "hwmark"))
        if not (
            changed
            or delta.active != served.last_active
            or delta.hwmark != served.last_active
            or seen.reset_generation != served.reset_generation
            or seen.drain_request > served.drained
        ):
            return
        try:
            with self._open_store().transaction() as tx:
                current = tx.get_object(served.system, HTTPSERVER, served.name)
                if current is None:
                    return
                status = ServerStatus.of(current)
                # What was counted since the drain above too, now that the write
                # lock is held: `drained` below promises every response completed
                # before the newest drain request, which may have come meanwhile.
                delta.absorb(served.stats.drain_delta())
                status.absorb(delta, served.reset_generation)
                owner = Owner.from_dict(status.owner)
                if owner is not None and owner.token == self.token:
                    owner.drained = max(owner.drained, status.drain_request)
                    owner.reset_generation = status.reset_generation
                    status.owner = owner.to_dict()
                current.status = status.to_dict()
                tx.put_status(current)
        except BaseException:
            served.stats.absorb(delta, keep_active=True)
            raise
        # Only after the commit: a failed transaction leaves the old generation, so
        # the delta put back above is still judged against the right reset.
        served.reset_generation = status.reset_generation
        served.last_active = delta.active
        served.drained = status.drain_request


def event_loop_thread(name: str) -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    """A new asyncio event loop running in a daemon thread of its own (started: it
    takes coroutines from asyncio.run_coroutine_threadsafe when this returns)."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.call_soon(ready.set)
        loop.run_forever()

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    ready.wait(_CALL_SECONDS)
    return loop, thread


class HttpLoopService:
    """HttpService as a service of the engine's real-time loop (mqtool.cli.loop):
    the loop's thread polls the store once per iteration; the servers run on the
    service's own event-loop thread. Listed in `mqtool.cli.loop.SERVICES`."""

    def __init__(self, state_dir: Path, clock: Clock) -> None:
        self.service = HttpService(state_dir, clock)

    def start(self, loop: Any) -> None:
        self.service.open()

    def poll(self) -> None:
        # Exceptions reach the loop, which reports them and polls again next time.
        self.service.step()

    def stop(self) -> None:
        self.service.close()


def loop_service(loop: Any) -> HttpLoopService:
    """The factory named in mqtool.cli.loop.SERVICES."""
    return HttpLoopService(loop.state_dir, loop.clock)
