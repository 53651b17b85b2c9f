"""The REST listener as a service of the real-time loop (mqtool.cli.loop.SERVICES): when
`STATE/rest.yaml` exists it listens, on an asyncio event loop in a thread of its own,
and follows changes of the file (written by `mqtool rest init`) at the next poll. It
records where it listens in `rest.status.json`. Problems (a damaged file, a port in
use) are raised from `poll()` once each, so `mqtool serve` reports them; a listener
that could not be opened is tried again every RETRY_POLLS polls.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mqtool import messages
from mqtool.clock import Clock
from mqtool.engine.http.config import ConfigError
from mqtool.engine.http.service import event_loop_thread

from .config import RestConfig, clear_status, config_path, load, write_status

if TYPE_CHECKING:
    from .server import RestServer

T = TypeVar("T")

#: A listener that could not be opened is tried again every this many polls.
RETRY_POLLS = 20
_CALL_SECONDS = 30.0


class RestService:
    """Serves the REST API of the store in `state_dir` while configured; see the module
    docstring. `start()`, then `poll()` periodically, then `stop()`, from one thread."""

    def __init__(self, state_dir: Path, clock: Clock, retry_polls: int = RETRY_POLLS, interval: float = 0.2) -> None:
        self.state_dir = Path(state_dir)
        self.clock = clock
        self.retry_polls = retry_polls
        self.interval = interval  # seconds between polls (for the retry message)
        self.server: RestServer | None = None
        self.config: RestConfig | None = None
        self._stamp: tuple[object, ...] | None = None
        self._retry = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._tls_failed = False  # the files could not be loaded: wait for a change

    @property
    def port(self) -> int | None:
        """The port listened on, or None."""
        return None if self.server is None else self.server.port

    # ------------------------------------------------------------- lifecycle
    def start(self, loop: Any = None) -> None:
        """Nothing yet: the event loop thread starts when a listener is first opened, so a
        store without rest.yaml costs its loops no thread."""

    def _event_loop(self) -> None:
        if self._loop is None:
            self._loop, self._thread = event_loop_thread("mqtool-rest-loop")

    def stop(self) -> None:
        """Closes the listener and its connections, then the event loop."""
        self._close_server()
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None:
            self._call(loop.shutdown_default_executor())
            loop.call_soon_threadsafe(loop.stop)
            thread.join(_CALL_SECONDS)
            loop.close()
        self._loop = self._thread = None

    def __enter__(self) -> RestService:
        self.start()
        self.poll()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        assert self._loop is not None, "start() the service first"
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(_CALL_SECONDS)

    # ------------------------------------------------------------------ poll
    def poll(self) -> None:
        """Opens, re-opens (the file, or a certificate or key it names, changed) or
        closes the listener as rest.yaml says."""
        if self._stamps() != self._stamp:
            self._close_server()
            self._retry = 0
            self._tls_failed = False
            self.config = None
            try:
                self.config = load(self.state_dir)
            except ConfigError as exc:
                raise RuntimeError(messages.line("MQT0352E", path=config_path(self.state_dir), reason=exc)) from None
            finally:
                self._stamp = self._stamps()  # with the certificate and key the new file names
        if self.config is None or self.server is not None or self._tls_failed:
            return
        if self._retry > 0:
            self._retry -= 1
            return
        from .server import RestServer  # h11 and the session, only when REST is configured

        tls = None
        if self.config.tls is not None:
            from .tls import TlsError, server_context

            try:
                tls = server_context(self.config.tls)
            except TlsError as exc:
                self._tls_failed = True
                self._report_tls(str(exc))
                return
        self._event_loop()
        server = RestServer(self.state_dir, self.clock, self.config, tls)
        try:
            self._call(server.start())
        except OSError as exc:
            self._call(server.rest.close())
            self._retry = self.retry_polls
            address = f"{self.config.host}:{self.config.port}"
            seconds = f"{self.retry_polls * self.interval:g}"
            raise RuntimeError(
                messages.line("MQT0351E", address=address, reason=exc.strerror or exc, seconds=seconds)
            ) from None
        self.server = server
        assert server.port is not None
        write_status(self.state_dir, self.config.host, server.port, self.config.scheme)

    def _stamps(self) -> tuple[object, ...]:
        """What poll watches: rest.yaml, and the certificate and key it names."""
        stamps: list[object] = [_stamp(config_path(self.state_dir))]
        if self.config is not None and self.config.tls is not None:
            stamps += [_stamp(self.config.tls.cert), _stamp(self.config.tls.key)]
        return tuple(stamps)

    def _report_tls(self, reason: str) -> None:
        """One console line (MQT0353E) for files that cannot serve https; poll does not
        try them again until they or rest.yaml change."""
        from mqtool.complex import ensure_complex
        from mqtool.state import Store

        from .console import record

        store = Store.open(self.state_dir)
        try:
            ensure_complex(store, self.clock.timestamp())
            record(store, self.clock, "MQT0353E", reason=reason)
        finally:
            store.close()

    def _close_server(self) -> None:
        server, self.server = self.server, None
        if server is None:
            return
        try:
            self._call(server.stop())
        finally:
            self._call(server.rest.close())
            clear_status(self.state_dir)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def loop_service(loop: Any) -> RestService:
    """The factory named in mqtool.cli.loop.SERVICES."""
    return RestService(loop.state_dir, loop.clock, interval=loop.interval)
