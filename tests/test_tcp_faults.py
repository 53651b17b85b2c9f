"""A network that fails under a running TCP channel: a proxy between the two stores
cuts a connection in the middle of a frame, drops one as it is made, stalls one for
good; the channel retries per SHORTRTY/SHORTTMR and delivers every message exactly
once, in order. Retries run out per SHORTRTY and LONGRTY, and the channel stops."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tcp_sites import Site, TestServer, pair, settle

CHANNEL = "TPF1.TO.CSQ1"


class Proxy(TestServer):
    """Forwards connections to a port; `plan` says what happens to each new one, in
    order: ("cut", n) closes both sides once n bytes went from the client, ("drop",)
    closes the connection as it is made, ("stall", n) stops forwarding after n bytes
    from the client (and never forwards again), ("pass",) and every later one forward."""

    def __init__(self, target: int, plan: list[tuple[object, ...]]) -> None:
        self.target = target
        self.plan = list(plan)
        self.sockets: list[socket.socket] = []
        self.seen: list[str] = []
        super().__init__()

    def handle(self, client: socket.socket) -> None:
        step = self.plan.pop(0) if self.plan else ("pass",)
        self.seen.append(str(step[0]))
        if step[0] == "drop":
            client.close()
            return
        server = socket.create_connection(("127.0.0.1", self.target))
        self.sockets += [client, server]
        limit = int(step[1]) if len(step) > 1 else None  # type: ignore[call-overload]
        stall = threading.Event()
        threading.Thread(target=self.pump, args=(client, server, limit, step[0], stall), daemon=True).start()
        threading.Thread(target=self.pump, args=(server, client, None, "pass", stall), daemon=True).start()

    def pump(self, source: socket.socket, sink: socket.socket, limit: int | None, mode: object,
             stall: threading.Event) -> None:  # fmt: skip
        moved = 0
        try:
            while True:
                data = source.recv(4096)
                if not data:
                    break
                if stall.is_set():
                    continue  # swallowed: the connection is stalled for good
                if limit is not None and moved + len(data) > limit:
                    sink.sendall(data[: limit - moved])
                    if mode == "cut":
                        break
                    stall.set()
                    continue
                sink.sendall(data)
                moved += len(data)
        except OSError:
            pass
        for sock in (source, sink):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        super().close()
        for sock in self.sockets:
            sock.close()


@pytest.fixture
def sites(tmp_path: Path) -> Iterator[tuple[Site, Site]]:
    with pair(tmp_path, "TPF1", "CSQ1") as (a, b):
        b.listen("DEFINE QLOCAL(ORDERS.IN)",
                 f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR) COMPMSG(ANY) HBINT(2) MCAUSER(TPFMQ)")  # fmt: skip
        a.cmd("ZMQSC DEFINE QL-CSQ1 USAGE-XMITQ", "ZMQSC DEFINE QR-ORDERS RNAME-ORDERS.IN RQMNAME-CSQ1 XMITQ-CSQ1")
        yield a, b


def test_cut_dropped_and_stalled_connections_deliver_every_message_once(sites: tuple[Site, Site]) -> None:
    a, b = sites
    proxy = Proxy(b.port(), [("cut", 20_000), ("drop",), ("stall", 30_000), ("cut", 45_000)])
    try:
        a.cmd(
            f"ZMQSC DEFINE CHL-{CHANNEL} CHLTYPE-SDR CONNAME-'127.0.0.1({proxy.port})' XMITQ-CSQ1 BATCHSZ-10 "
            "SHORTRTY-20 SHORTTMR-1 HBINT-2",
            ".put ORDERS count=60 size=4000 pattern=random persistent=yes",
            f"ZMQSC START CHL-{CHANNEL}",
        )
        sent = a.msgids("TPF1", "CSQ1")
        assert settle([a, b], lambda: a.depth("TPF1", "CSQ1") == 0 and b.depth("CSQ1", "ORDERS.IN") == 60, 120)
        assert b.msgids("CSQ1", "ORDERS.IN") == sent  # each once, in order
        assert proxy.seen[:5] == ["cut", "drop", "stall", "cut", "pass"]
    finally:
        proxy.close()
    console = a.console()
    assert any("MQSC0341W" in line for line in console), console  # the cut: connection lost
    assert any("MQSC0342W" in line or "MQSC0341W" in line for line in console), console
    status = a.status("TPF1", CHANNEL)
    assert status.state == "RUNNING" and status.seq == 60 and status.indoubt is None


def test_retries_run_out_and_the_channel_stops(sites: tuple[Site, Site]) -> None:
    a, _ = sites
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    a.cmd(
        f"ZMQSC DEFINE CHL-{CHANNEL} CHLTYPE-SDR CONNAME-'127.0.0.1({port})' XMITQ-CSQ1 "
        "SHORTRTY-2 SHORTTMR-1 LONGRTY-1 LONGTMR-1",
        f"ZMQSC START CHL-{CHANNEL}",
    )
    assert settle([a], lambda: a.status("TPF1", CHANNEL).state == "STOPPED")
    console = a.console()
    assert sum("MQSC0340W" in line for line in console) == 1, console  # told once, not at each retry
    assert any("MQSC0349E" in line and "STOPPED AFTER 3 RETRIES" in line for line in console), console
    out = a.cmd(f"ZMQSC START CHL-{CHANNEL}")
    assert "MQSC0330I" in out[-1]
