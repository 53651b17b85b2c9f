"""Two state directories that talk over TCP on 127.0.0.1, driven in this process: each
`Site` is a store with its session (the wall clock) and its channel service (the
serving loop's listeners and TCP channels). Tests wait for conditions with `settle`,
which polls both services, never for a fixed time."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.channels import listeners
from mqtool.engine.channels.status import ChannelStatus
from mqtool.engine.channels.tcp.service import ChannelService
from mqtool.session import Session
from mqtool.state import Store
from mqtool.state import messages as runs

PATIENCE = 60.0  # seconds: the most a condition is waited for


class Site:
    """One store (the default complex: TPF1 with TPFQM, CSQ1) and its serving loop's
    channel service."""

    def __init__(self, folder: Path, system: str = "CSQ1") -> None:
        self.folder = folder
        self.system = system
        self.clock = Clock()
        self.store = Store.open(folder)
        ensure_complex(self.store, self.clock.timestamp())
        self.session = Session(self.store, self.clock, system)
        self.service = ChannelService(folder, self.clock)
        self.service.start()

    def cmd(self, *lines: str, ok: bool = True) -> list[str]:
        out: list[str] = []
        for line in lines:
            outcome = self.session.execute(line)
            if ok:
                assert outcome.status == "ok", outcome.lines
            out.extend(outcome.lines)
        return out

    def listen(self, *lines: str) -> int:
        """Runs the commands, then starts the site's listener on a port the system
        chooses (START LISTENER PORT(0); z/TPF: ZMQSC START LISTENER PORT-0); returns
        the port once the loop listens there."""
        self.cmd(*lines)
        with self.store.transaction(write=False) as tx:
            record = tx.get_system(self.system)
            assert record is not None
            ztpf = record.platform != "zos"
        self.cmd("ZMQSC START LISTENER PORT-0" if ztpf else "START LISTENER PORT(0)")
        assert settle([self], lambda: self.port(self.system) > 0)
        return self.port(self.system)

    def sender(self, channel: str, port: int, rqmname: str, *options: str) -> None:
        """A z/OS sender `channel` to 127.0.0.1(port) with its transmission queue TO.<rqmname>
        and a remote queue ORDERS for ORDERS.IN there (SHORTTMR(1) and `options` more)."""
        xmitq = f"TO.{rqmname}"
        self.cmd(
            f"DEFINE QLOCAL({xmitq}) USAGE(XMITQ)",
            f"DEFINE QREMOTE(ORDERS) RNAME(ORDERS.IN) RQMNAME({rqmname}) XMITQ({xmitq})",
            f"DEFINE CHANNEL({channel}) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ({xmitq}) SHORTTMR(1) "
            + " ".join(options),
        )

    def step(self) -> None:
        self.session.tick()
        self.service.step()

    def port(self, system: str = "CSQ1") -> int:
        """The port of the system's first listener, once its loop opened it."""
        with self.store.transaction(write=False) as tx:
            record = tx.get_system(system)
            assert record is not None
            for address in listeners.configured(record):
                status = listeners.status_of(tx, system, address)
                if status.state == listeners.LISTENING:
                    return status.port
        return 0

    def depth(self, system: str, queue: str) -> int:
        with self.store.transaction(write=False) as tx:
            return runs.depth(tx.conn, system, queue)

    def msgids(self, system: str, queue: str) -> list[bytes]:
        with self.store.transaction(write=False) as tx:
            qkey = runs.queue_key(tx.conn, system, queue)
            assert qkey is not None
            rows = tx.conn.execute("SELECT msgid FROM messages WHERE id > ? AND id < ? ORDER BY id", runs.span(qkey))
            return [bytes(row[0]) for row in rows]

    def status(self, system: str, channel: str) -> ChannelStatus:
        with self.store.transaction(write=False) as tx:
            found = tx.get_system(system)
            assert found is not None
            kind = "CHANNEL" if found.platform == "zos" else "CHL"
            record = tx.get_object(system, kind, channel)
            assert record is not None
            return ChannelStatus.load(record.status)

    def console(self) -> list[str]:
        with self.store.transaction(write=False) as tx:
            return [text for _, _, _, text in tx.console_since(None)]

    def close(self) -> None:
        self.service.stop()
        self.store.close()


@contextmanager
def pair(folder: Path, a_system: str, b_system: str) -> Iterator[tuple[Site, Site]]:
    """Two sites, folder/a with system `a_system` and folder/b with `b_system`, closed
    after use."""
    a, b = Site(folder / "a", a_system), Site(folder / "b", b_system)
    try:
        yield a, b
    finally:
        a.close()
        b.close()


def settle(sites: Iterable[Site], condition: Callable[[], bool], patience: float = PATIENCE) -> bool:
    """Polls the sites' services until the condition holds (True), or gives up after
    `patience` seconds (False): a bound, never the outcome's timing."""
    sites = list(sites)
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        for site in sites:
            site.step()
        if condition():
            return True
        time.sleep(0.02)
    return False


class TestServer:
    """A listening socket on 127.0.0.1 whose accept loop hands each connection to
    `handle` (in the loop's thread) until `close`."""

    __test__ = False  # not a pytest test class

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port: int = self.server.getsockname()[1]
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                sock, _ = self.server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.handle(sock)

    def handle(self, sock: socket.socket) -> None:
        sock.close()

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(5)
        self.server.close()
