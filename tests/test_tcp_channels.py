"""Channels between two stores over TCP on 127.0.0.1: the same protocol as in the store
(negotiation, batches with sequence numbers and in-doubt resolution, dead letters, the
inflation guard, status at both ends), carried by the TCP transport."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tcp_sites import Site, settle


@pytest.fixture
def sites(tmp_path: Path) -> Iterator[tuple[Site, Site]]:
    """Store A (the z/TPF TPF1 sends) and store B (the z/OS CSQ1 receives, its listener
    on a port the system chose)."""
    a, b = Site(tmp_path / "a", "TPF1"), Site(tmp_path / "b", "CSQ1")
    try:
        b.cmd("START LISTENER PORT(0)", "DEFINE QLOCAL(ORDERS.IN)",
              "DEFINE CHANNEL(TPF1.TO.CSQ1) CHLTYPE(RCVR) COMPMSG(ANY) MONCHL(HIGH)")  # fmt: skip
        assert settle([b], lambda: b.port() > 0)
        a.cmd(
            "ZMQSC DEFINE QL-CSQ1 USAGE-XMITQ",
            "ZMQSC DEFINE QR-ORDERS RNAME-ORDERS.IN RQMNAME-CSQ1 XMITQ-CSQ1",
            f"ZMQSC DEFINE CHL-TPF1.TO.CSQ1 CHLTYPE-SDR CONNAME-'127.0.0.1({b.port()})' XMITQ-CSQ1 "
            "COMPMSG-ZLIBFAST BATCHSZ-20 SHORTTMR-1",
        )
        yield a, b
    finally:
        a.close()
        b.close()


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
    out = b.cmd("DIS CHS(TPF1.TO.CSQ1) CONNAME MSGS BYTSRCVD BATCHES COMPRATE RQMNAME LSTMSGDA")
    assert "CONNAME(127.0.0.1)" in out and "MSGS(45)" in out and "BATCHES(3)" in out and "RQMNAME(TPFQM)" in out
    assert any(line.startswith("COMPRATE(") and line != "COMPRATE( )" for line in out), out
    assert f"BYTSRCVD({receiver.total.frames})" in out
    stat = a.cmd("ZMQSC DISPLAY CHL-TPF1.TO.CSQ1 STAT")
    assert any("Partner            - CSQ1 AT 127.0.0.1(" in line for line in stat), stat
    assert any(line.startswith("Transport          - TCP") for line in stat), stat
    assert any("CSQX500I -CSQ1 CSQXRCTL Channel TPF1.TO.CSQ1 started" in line for line in b.console())
    assert any("MQSC0301I" in line and "PARTNER CSQ1 AT 127.0.0.1" in line for line in a.console())
