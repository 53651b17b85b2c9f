"""Channels between two stores over TCP on 127.0.0.1: the same protocol as in the store
(negotiation, batches with sequence numbers and in-doubt resolution, dead letters, the
inflation guard, status at both ends), carried by the TCP transport."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tcp_sites import Site, pair, settle


@pytest.fixture
def sites(tmp_path: Path) -> Iterator[tuple[Site, Site]]:
    """Store A (the z/TPF TPF1 sends) and store B (the z/OS CSQ1 receives, its listener
    on a port the system chose)."""
    with pair(tmp_path, "TPF1", "CSQ1") as (a, b):
        b.listen("DEFINE QLOCAL(ORDERS.IN)",
                 "DEFINE CHANNEL(TPF1.TO.CSQ1) CHLTYPE(RCVR) COMPMSG(ANY) MONCHL(HIGH) MCAUSER(TPFMQ)")  # fmt: skip
        a.cmd(
            "ZMQSC DEFINE QL-CSQ1 USAGE-XMITQ",
            "ZMQSC DEFINE QR-ORDERS RNAME-ORDERS.IN RQMNAME-CSQ1 XMITQ-CSQ1",
            f"ZMQSC DEFINE CHL-TPF1.TO.CSQ1 CHLTYPE-SDR CONNAME-'127.0.0.1({b.port()})' XMITQ-CSQ1 "
            "COMPMSG-ZLIBFAST BATCHSZ-20 SHORTTMR-1",
        )
        yield a, b


def test_a_sender_moves_its_messages_to_another_store(sites: tuple[Site, Site]) -> None:
    a, b = sites
    a.cmd(".put ORDERS count=45 size=8000 pattern=xml persistent=yes", "ZMQSC START CHL-TPF1.TO.CSQ1")
    sent = a.msgids("TPF1", "CSQ1")
    assert settle([a, b], lambda: b.depth("CSQ1", "ORDERS.IN") == 45 and a.depth("TPF1", "CSQ1") == 0)
    assert b.msgids("CSQ1", "ORDERS.IN") == sent
    sender, receiver = a.status("TPF1", "TPF1.TO.CSQ1"), b.status("CSQ1", "TPF1.TO.CSQ1")
    assert (sender.state, receiver.state) == ("RUNNING", "RUNNING")
    assert (sender.seq, receiver.seq) == (45, 45)
    assert (sender.technique, receiver.technique) == ("ZLIBFAST", "ZLIBFAST")
    assert sender.transport == receiver.transport == "TCP"
    assert sender.total.batches == 3 and receiver.total.batches == 3
    # Compressed on the wire: far fewer bytes of frames than of messages.
    assert 0 < sender.total.frames < sender.total.before // 2
    assert sender.total.socket >= sender.total.frames
    out = b.cmd("DIS CHS(TPF1.TO.CSQ1) CONNAME MSGS BYTSRCVD BATCHES COMPRATE RQMNAME LSTMSGDA MCAUSER")
    assert "MCAUSER(TPFMQ)" in out, out  # the user id it runs as: its MCAUSER, which CHLAUTH let in
    assert "CONNAME(127.0.0.1)" in out and "MSGS(45)" in out and "BATCHES(3)" in out and "RQMNAME(TPFQM)" in out
    assert any(line.startswith("COMPRATE(") and line != "COMPRATE( )" for line in out), out
    assert f"BYTSRCVD({receiver.total.frames})" in out
    stat = a.cmd("ZMQSC DISPLAY CHL-TPF1.TO.CSQ1 STAT")
    assert any("Partner            - CSQ1 AT 127.0.0.1(" in line for line in stat), stat
    assert any(line.startswith("Transport          - TCP") for line in stat), stat
    assert any("CSQX500I -CSQ1 CSQXRCTL Channel TPF1.TO.CSQ1 started" in line for line in b.console())
    assert any("MQSC0301I" in line and "PARTNER CSQ1 AT 127.0.0.1" in line for line in a.console())


def test_dead_letters_and_the_inflation_guard_hold_over_tcp(sites: tuple[Site, Site]) -> None:
    a, b = sites
    b.cmd("DEFINE QLOCAL(SMALL) MAXMSGL(1000)")
    a.cmd(
        "ZMQSC DEFINE QR-SMALL RNAME-SMALL RQMNAME-CSQ1 XMITQ-CSQ1",
        "ZMQSC DEFINE QR-NOWHERE RNAME-NO.SUCH.QUEUE RQMNAME-CSQ1 XMITQ-CSQ1",
        ".put SMALL count=2 size=5000 pattern=xml",
        ".put NOWHERE count=1 size=300 pattern=text",
        ".put ORDERS count=1 size=300 pattern=text",
        "ZMQSC START CHL-TPF1.TO.CSQ1",
    )
    assert settle([a, b], lambda: a.depth("TPF1", "CSQ1") == 0)
    assert (b.depth("CSQ1", "SMALL"), b.depth("CSQ1", "ORDERS.IN"), b.depth("CSQ1", "SYSTEM.DEAD.QUEUE")) == (0, 1, 3)
    console = b.console()
    assert any("CSQX548E" in line and "reason=2218" in line and "count" not in line for line in console), console
    assert any("CSQX548E" in line and "reason=2085" in line for line in console), console
    assert b.status("CSQ1", "TPF1.TO.CSQ1").total.dead == 3


def test_a_stopped_receiver_is_retried_and_a_sequence_error_stops_the_sender(sites: tuple[Site, Site]) -> None:
    a, b = sites
    b.cmd("STOP CHANNEL(TPF1.TO.CSQ1)")
    a.cmd(".put ORDERS count=3 size=1000 pattern=xml", "ZMQSC START CHL-TPF1.TO.CSQ1")
    assert settle([a, b], lambda: any("MQSC0314W" in line for line in a.console()))
    assert a.status("TPF1", "TPF1.TO.CSQ1").state == "RETRYING"
    assert any("MQT0543E" in line and "the channel is stopped" in line for line in b.console())
    b.cmd("START CHANNEL(TPF1.TO.CSQ1)")
    assert settle([a, b], lambda: b.depth("CSQ1", "ORDERS.IN") == 3)
    # The receiver's sequence number reset alone: the sender stops with CSQX526E's like.
    a.cmd("ZMQSC STOP CHL-TPF1.TO.CSQ1")
    assert settle([a, b], lambda: b.status("CSQ1", "TPF1.TO.CSQ1").state == "INACTIVE")
    b.cmd("RESET CHANNEL(TPF1.TO.CSQ1) SEQNUM(40)")
    a.cmd("ZMQSC START CHL-TPF1.TO.CSQ1")
    assert settle([a, b], lambda: a.status("TPF1", "TPF1.TO.CSQ1").state == "STOPPED")
    assert any("MQSC0321E" in line and "SENT 4 EXPECTED 41" in line for line in a.console()), a.console()
    # Reset at the sender: the receiver is told at the next start, and the channel runs.
    a.cmd("ZMQSC RESET CHL-TPF1.TO.CSQ1 SEQNUM-40", ".put ORDERS data='after'", "ZMQSC START CHL-TPF1.TO.CSQ1")
    assert settle([a, b], lambda: b.depth("CSQ1", "ORDERS.IN") == 4)
    assert b.status("CSQ1", "TPF1.TO.CSQ1").seq == 41


def test_a_requester_starts_its_server_and_a_sender_calls_a_requester_back(tmp_path: Path) -> None:
    with pair(tmp_path, "CSQ1", "CSQ1") as (a, b):
        a.listen()
        b.listen()
        # B has a server without CONNAME and messages for A; A's requester starts it.
        b.cmd(
            "DEFINE QLOCAL(TO.A) USAGE(XMITQ)",
            "DEFINE QREMOTE(REPLY) RNAME(REPLY) RQMNAME(CSQ1) XMITQ(TO.A)",
            "DEFINE CHANNEL(B.TO.A) CHLTYPE(SVR) XMITQ(TO.A) MCAUSER(CSQAMQ)",
            ".put REPLY count=5 size=2000 pattern=json",
        )
        a.cmd("DEFINE QLOCAL(REPLY)", f"DEFINE CHANNEL(B.TO.A) CHLTYPE(RQSTR) CONNAME('127.0.0.1({b.port()})')",
              "START CHANNEL(B.TO.A)")  # fmt: skip
        assert settle([a, b], lambda: a.depth("CSQ1", "REPLY") == 5)
        assert a.status("CSQ1", "B.TO.A").state == "RUNNING" and b.status("CSQ1", "B.TO.A").state == "RUNNING"
        # A requester whose partner is a sender: the sender calls it back at its CONNAME.
        b.cmd("DEFINE QLOCAL(TO.A2) USAGE(XMITQ)", "DEFINE QREMOTE(AUDIT) RNAME(AUDIT) RQMNAME(CSQ1) XMITQ(TO.A2)",
              f"DEFINE CHANNEL(CALLBACK) CHLTYPE(SDR) XMITQ(TO.A2) CONNAME('127.0.0.1({a.port()})') MCAUSER(CSQAMQ)",
              ".put AUDIT count=2 size=500 pattern=text")  # fmt: skip
        a.cmd("DEFINE QLOCAL(AUDIT)",
              f"DEFINE CHANNEL(CALLBACK) CHLTYPE(RQSTR) CONNAME('127.0.0.1({b.port()})') MCAUSER(CSQBMQ)",
              "START CHANNEL(CALLBACK)")  # fmt: skip
        assert settle([a, b], lambda: a.depth("CSQ1", "AUDIT") == 2)
        assert any("MQT0547I" in line and "CALLBACK" in line for line in a.console()), a.console()
        assert b.status("CSQ1", "CALLBACK").state == "RUNNING"
