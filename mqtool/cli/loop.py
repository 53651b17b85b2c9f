"""The real-time loop of `mqtool serve` and the shell: calls `tick(now)` several times a
second on its own store connection, polls the services plugged into it (HTTP servers,
channels), and reports new console messages through a callback.

API (for the shell, `mqtool serve` and service authors)::

    loop = EngineLoop(state_dir, clock, on_console=print)   # on_console(line: str)
    loop.add_service(MyService())          # or list "module:factory" in SERVICES
    loop.start()                           # background thread; returns at once
    ...
    loop.stop()                            # stops services, joins the thread

    loop.run()                             # the same loop in the calling thread, until
                                           # stop() is called (from a signal handler)

- `on_console(line)` gets the text of each console message recorded after the loop
  started (`MQSC0201I 10.41.27 SWEEPER ...`), in order; `on_entry(entry)` gets a
  `ConsoleEntry` (id, system, time, text) instead, for callers that show the system.
- `on_error(text)` hears of a failed iteration (the loop goes on); default: ignored.
- `loop.step()` runs one iteration in the calling thread (tests use it with a frozen
  clock); `loop.close()` then stops its services. `interval` is the pause between
  iterations (default 0.2 s).
- A `Service` (protocol below) is started from the loop's thread with `start(loop)`,
  then `poll()` is called every iteration and `stop()` once at the end. Inside them
  `loop.store`, `loop.session` and `loop.clock` belong to the loop's thread;
  `loop.state_dir` tells where the store lives. A service that runs its own thread or
  asyncio loop starts it in `start` and ends it in `stop`. Exceptions from a service are
  reported through `on_error` and do not stop the loop.
- `SERVICES` lists "module:factory" strings; `default_services(loop)` imports each and
  calls `factory(loop)` (so a service can take `loop.state_dir` and `loop.clock`). The
  HTTP server adds its entry there.
"""

from __future__ import annotations

import functools
import importlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from mqtool.clock import Clock

if TYPE_CHECKING:
    from mqtool.session import Session
    from mqtool.state import Store


class Service(Protocol):
    """Something the loop runs along with the timers (an HTTP server, channels)."""

    def start(self, loop: EngineLoop) -> None: ...

    def poll(self) -> None: ...

    def stop(self) -> None: ...


# "module:factory" of the services every serving loop runs; `factory(loop) -> Service`.
SERVICES: list[str] = [
    "mqtool.engine.http.service:loop_service",
    "mqtool.rest.service:loop_service",
    "mqtool.engine.channels.tcp.service:loop_service",
]


def default_services(loop: EngineLoop) -> list[Service]:
    services: list[Service] = []
    for target in SERVICES:
        module, attribute = target.split(":")
        services.append(getattr(importlib.import_module(module), attribute)(loop))
    return services


@dataclass(frozen=True)
class ConsoleEntry:
    id: int
    system: str
    time: float
    text: str


class EngineLoop:
    """Ticks the engine in real time; see the module docstring."""

    def __init__(
        self,
        state_dir: Path,
        clock: Clock,
        on_console: Callable[[str], None] | None = None,
        on_entry: Callable[[ConsoleEntry], None] | None = None,
        on_error: Callable[[str], None] | None = None,
        interval: float = 0.2,
        services: list[Service] | None = None,
        system: str | None = None,
    ) -> None:
        self.state_dir = Path(state_dir)
        self.clock = clock
        self.interval = interval
        self.system = system
        self._on_console = on_console
        self._on_entry = on_entry
        self._on_error = on_error
        self._services: list[Service] = list(services or [])
        self._started_services: list[Service] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._store: Store | None = None
        self._session: Session | None = None
        self._console_after: int | None = None
        self.iterations = 0

    # -- what services use ------------------------------------------------------------
    @property
    def store(self) -> Store:
        if self._store is None:
            from mqtool.state import Store

            self._store = Store.open(self.state_dir)
        return self._store

    @property
    def session(self) -> Session:
        if self._session is None:
            from mqtool.session import Session

            self._session = Session(self.store, self.clock, self.system)
            self._session.notify = self._on_error  # timers deferred on a full disk: said once
        return self._session

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def add_service(self, service: Service) -> None:
        """Adds a service; on a running loop it starts at the next iteration."""
        self._services.append(service)

    # -- running --------------------------------------------------------------------------
    def start(self) -> None:
        """Runs the loop in a background (daemon) thread."""
        if self.running:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self.run, name="mqtool-engine-loop", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stops the loop (from any thread) and waits for it to end."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        self._thread = None

    def run(self) -> None:
        """The loop in the calling thread, until `stop()`."""
        try:
            while not self._stop.is_set():
                started = time.monotonic()
                self.step()
                self._stop.wait(max(0.0, self.interval - (time.monotonic() - started)))
        finally:
            self._shutdown()

    def step(self) -> None:
        """One iteration: start new services, tick, poll services, report the console."""
        if self._console_after is None:
            # Only messages that arise from now on are reported.
            self._guard(self._console_baseline, "console")
        for service in self._services:
            if service not in self._started_services:
                self._started_services.append(service)
                self._guard(functools.partial(service.start, self), "start")
        self._guard(self.session.tick, "tick")
        for service in self._started_services:
            self._guard(service.poll, "poll")
        self._guard(self._report_console, "console")
        self.iterations += 1

    def _report_console(self) -> None:
        if self._console_after is None:
            self._console_baseline()
            return
        with self.store.transaction(write=False) as tx:
            rows = tx.console_since(self.system, self._console_after)
        for row_id, system, when, text in rows:
            self._console_after = row_id
            if self._on_entry is not None:
                self._on_entry(ConsoleEntry(row_id, system, when, text))
            if self._on_console is not None:
                self._on_console(text)

    def _console_baseline(self) -> None:
        with self.store.transaction(write=False) as tx:
            row = tx.conn.execute("SELECT coalesce(max(id), 0) FROM console").fetchone()
        self._console_after = int(row[0])

    def _guard(self, action: Callable[[], object], what: str) -> None:
        try:
            action()
        except Exception as exc:  # a failed iteration is reported; the loop goes on
            if self._on_error is not None:
                self._on_error(f"{what}: {type(exc).__name__}: {exc}")

    def close(self) -> None:
        """Stops the services and closes the store of a loop driven by `step()`."""
        self._shutdown()

    def _shutdown(self) -> None:
        for service in reversed(self._started_services):
            self._guard(service.stop, "stop")
        self._started_services.clear()
        if self._store is not None:
            self._store.close()
            self._store = None
            self._session = None
