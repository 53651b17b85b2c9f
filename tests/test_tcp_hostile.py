"""Hostile and foreign peers of the TCP transport: garbage, a length prefix of 4 GB, a
frame that never ends, an inflation bomb, a thousand idle connections, a peer of
another wire version, something that is not mqtool at all. Each is bounded in memory
and time, leaves one console line (per listener and minute for the connections closed
before a channel started), and the listener goes on serving the channels that come."""

from __future__ import annotations

import json
import re
import socket
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqtool.engine.channels.tcp import frames, listener, service
from tests.tcp_sites import Site, TestServer, pair, settle

CHANNEL = "TPF1.TO.CSQ1"


@pytest.fixture
def sites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Site, Site]]:
    monkeypatch.setattr(listener, "HELLO_SECONDS", 2.0)
    with pair(tmp_path, "TPF1", "CSQ1") as (a, b):
        b.listen("DEFINE QLOCAL(ORDERS.IN)",
                 f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR) COMPMSG(ANY) HBINT(2) MCAUSER(TPFMQ)")  # fmt: skip
        a.cmd(
            "ZMQSC DEFINE QL-CSQ1 USAGE-XMITQ",
            "ZMQSC DEFINE QR-ORDERS RNAME-ORDERS.IN RQMNAME-CSQ1 XMITQ-CSQ1",
            f"ZMQSC DEFINE CHL-{CHANNEL} CHLTYPE-SDR CONNAME-'127.0.0.1({b.port()})' XMITQ-CSQ1 COMPMSG-ZLIBFAST "
            "SHORTTMR-1 HBINT-2",
        )
        yield a, b


def dial(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.settimeout(30)
    return sock


def closed_by_peer(sock: socket.socket) -> bool:
    """Whether the other end closed (reads drain whatever it said first)."""
    try:
        while True:
            if not sock.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def drops(site: Site) -> list[str]:
    return [line for line in site.console() if "MQT0548W" in line]


def channel_still_works(a: Site, b: Site, count: int) -> None:
    a.cmd(f".put ORDERS count={count} size=2000 pattern=xml", f"ZMQSC START CHL-{CHANNEL}", ok=False)
    assert settle([a, b], lambda: b.depth("CSQ1", "ORDERS.IN") == count)


def hello(sock: socket.socket, role: str = "send") -> dict[str, object]:
    sock.sendall(frames.preamble() + frames.control("HELLO", channel=CHANNEL, qmgr="EVIL", role=role, tls=False))
    assert sock.recv(8)[:4] == b"MQTL"
    return read_control(sock)


def read_control(sock: socket.socket) -> dict[str, object]:
    head = recv_exact(sock, 5)
    body = recv_exact(sock, int.from_bytes(head[:4], "big") - 1)
    found: dict[str, object] = json.loads(body)
    return found


def recv_exact(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        assert chunk, "closed"
        data += chunk
    return data


def init(sock: socket.socket, **changes: object) -> dict[str, object]:
    offer = {
        "channel": CHANNEL, "chltype": "SDR", "qmgr": "EVIL", "platform": "ztpf", "compmsg": ["ZLIBFAST"],
        "batchsz": 50, "hbint": 2, "maxmsgl": 4194304, "seq": 0, "reset": True, "indoubt": None,
    } | changes  # fmt: skip
    sock.sendall(frames.control("INIT", **offer))
    return read_control(sock)


def test_garbage_a_4_gb_length_and_silence_are_closed_and_counted(sites: tuple[Site, Site]) -> None:
    a, b = sites
    port = b.port()
    garbage, huge, silent = dial(port), dial(port), dial(port)
    garbage.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    huge.sendall(frames.preamble() + b"\xff\xff\xff\xffC")
    silent.sendall(frames.preamble() + b"\x00\x00\x03\xe8C" + b"{" * 10)  # a frame that never ends
    for sock in (garbage, huge, silent):
        assert closed_by_peer(sock)
        sock.close()
    channel_still_works(a, b, 5)
    assert settle([a, b], lambda: len(drops(b)) == 1)
    (line,) = drops(b)
    assert "closed 3 connection(s) before a channel started" in line, line
    assert "garbage 1" in line and "a frame over the bound 1" in line and "idle 1" in line, line


def test_a_thousand_idle_connections_are_bounded_and_the_listener_serves_on(sites: tuple[Site, Site]) -> None:
    a, b = sites
    port = b.port()
    idle = []
    try:
        for _ in range(1000):
            idle.append(dial(port))
        # While they wait (at most MAX_PENDING of them: the oldest make room), a channel runs.
        channel_still_works(a, b, 10)
        service_listeners = b.service._listeners
        assert service_listeners is not None and service_listeners.waiting <= listener.MAX_PENDING
    finally:
        for sock in idle:
            sock.close()
    assert settle([a, b], lambda: len(drops(b)) == 1)
    (line,) = drops(b)
    # One line for the burst: the count, and the count again by reason.
    found = re.search(r"closed (\d+) connection\(s\) before a channel started: (.*)$", line)
    assert found is not None, line
    count, reasons = int(found.group(1)), dict(re.findall(r"([a-z ]+?) (\d+)(?:, |$)", found.group(2)))
    assert count <= 1000 and int(reasons.get("too many waiting", 0)) > 0, line
    assert sum(int(number) for number in reasons.values()) == count, line


def test_an_inflation_bomb_is_stopped_at_its_declared_length(sites: tuple[Site, Site]) -> None:
    a, b = sites
    sock = dial(b.port())
    try:
        assert hello(sock)["op"] == "HELLO-OK"
        assert init(sock)["op"] == "ACCEPT"
        bomb = zlib.compress(b"\0" * (64 * 1024 * 1024), 9)  # 64 MB of zeros in about 64 KB
        descriptor = {"msgid": "00" * 24, "correlid": "00" * 24, "persistent": False, "priority": 0,
                      "expiry": None, "header": json.dumps({"rname": "ORDERS.IN", "rqmname": "CSQ1"})}  # fmt: skip
        sock.sendall(frames.message(frames.WireMessage(1000, "ZLIBFAST", descriptor, bomb)))
        sock.sendall(frames.control("EOB", luwid="0000000100000001", first=1, last=1, count=1))
        assert closed_by_peer(sock)
    finally:
        sock.close()
    assert settle([a, b], lambda: any("MQT0543E" in line and "does not inflate" in line for line in b.console()))
    assert b.depth("CSQ1", "ORDERS.IN") == 0
    # The bomb's sender was refused; the real one runs (it adopts the receiver).
    channel_still_works(a, b, 3)


def test_a_frame_that_never_ends_inside_a_channel_times_out(sites: tuple[Site, Site]) -> None:
    a, b = sites
    sock = dial(b.port())
    try:
        assert hello(sock)["op"] == "HELLO-OK"
        assert init(sock)["op"] == "ACCEPT"
        sock.sendall(b"\x00\x10\x00\x00M" + b"\x00" * 100)  # declares 1 MB, sends 100 bytes
        assert closed_by_peer(sock)  # after 2 x HBINT(2)
    finally:
        sock.close()
    assert any("MQT0543E" in line and "timeout" in line for line in b.console()), b.console()
    channel_still_works(a, b, 2)


def test_a_peer_of_another_wire_version_is_told_on_both_ends(sites: tuple[Site, Site]) -> None:
    a, b = sites
    sock = dial(b.port())
    try:
        sock.sendall(frames.preamble(2) + frames.control("HELLO", channel=CHANNEL, qmgr="NEWER", role="send"))
        assert frames.read_preamble(recv_exact(sock, 8)) == frames.VERSION
        assert read_control(sock) == {"op": "ERROR", "cause": "version", "theirs": 2, "ours": 1}
        assert closed_by_peer(sock)
    finally:
        sock.close()
    assert settle([a, b], lambda: len(drops(b)) == 1)
    assert "wire version 2 1" in drops(b)[0]
    # The other way: a listener that speaks version 2 answers our sender.
    fake = FakeListener(frames.preamble(2) + frames.control("ERROR", cause="version", theirs=1, ours=2))
    try:
        a.cmd(f"ZMQSC ALTER CHL-{CHANNEL} CONNAME-'127.0.0.1({fake.port})'", f"ZMQSC START CHL-{CHANNEL}")
        assert settle([a], lambda: any("MQSC0344E" in line for line in a.console()))
        line = next(line for line in a.console() if "MQSC0344E" in line)
        assert "SPEAKS WIRE VERSION 2, THIS MQTOOL 1" in line, line
    finally:
        fake.close()


def test_a_partner_that_is_not_mqtool_is_named_so(sites: tuple[Site, Site]) -> None:
    a, _ = sites
    fake = FakeListener(b"TSH \x00\x00\x00\x28" + b"\x00" * 32)  # the first bytes of IBM's FAP
    try:
        a.cmd(f"ZMQSC ALTER CHL-{CHANNEL} CONNAME-'127.0.0.1({fake.port})'", f"ZMQSC START CHL-{CHANNEL}")
        assert settle([a], lambda: any("MQSC0343E" in line for line in a.console()))
        line = next(line for line in a.console() if "MQSC0343E" in line)
        assert "IS NOT AN MQTOOL LISTENER" in line and "MQTOOL CHANNELS DO NOT TALK TO IBM MQ" in line, line
    finally:
        fake.close()


class FakeListener(TestServer):
    """A listener that answers every connection with the same bytes, then closes."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        super().__init__()

    def handle(self, sock: socket.socket) -> None:
        with sock:
            try:
                sock.sendall(self.answer)
                time.sleep(0.05)
            except OSError:
                pass


def test_a_listener_running_its_most_channels_refuses_the_next(
    sites: tuple[Site, Site], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = sites
    monkeypatch.setattr(service, "MAX_SESSIONS", 0)  # as though 200 channels ran through it
    a.cmd(".put ORDERS count=2 size=2000 pattern=xml", f"ZMQSC START CHL-{CHANNEL}")
    assert settle([a, b], lambda: any("MQT0549W" in line for line in b.console()))
    line = next(line for line in b.console() if "MQT0549W" in line)
    assert f"refused channel {CHANNEL} from 127.0.0.1(" in line and "0 channels are running" in line, line
    assert settle([a, b], lambda: any("MQSC0315W" in line for line in a.console())), a.console()
    assert a.status("TPF1", CHANNEL).state == "RETRYING"
    monkeypatch.setattr(service, "MAX_SESSIONS", 200)
    assert settle([a, b], lambda: b.depth("CSQ1", "ORDERS.IN") == 2)
    assert sum("MQT0549W" in line for line in b.console()) == 1  # one line a minute at most
