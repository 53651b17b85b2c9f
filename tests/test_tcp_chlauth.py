"""Channel authentication records decided where channels come in over TCP: a BLOCKADDR
address closed by the listener before a byte is read, the back-stop BLOCKUSER record
refusing a receiver that would run as the channel initiator, mapping records choosing
the user id (MCAUSER in DISPLAY CHSTATUS), NOACCESS and WARN(YES); each refusal with
IBM's CSQX message and counted, the sender retrying."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mqtool.engine.channels import listeners
from tests.tcp_sites import Site, pair, settle
from tests.test_tcp_tls import SPEC, key_rings


@pytest.fixture
def sites(tmp_path: Path) -> Iterator[tuple[Site, Site]]:
    """Store A (CSQ1 sends over A.TO.B) and store B (CSQ1 with CHLAUTH(ENABLED) and IBM's
    back-stop records, as a new queue manager has them; a receiver without MCAUSER)."""
    with pair(tmp_path, "CSQ1", "CSQ1") as (a, b):
        port = b.listen("DEFINE QLOCAL(ORDERS.IN)", "DEFINE CHANNEL(A.TO.B) CHLTYPE(RCVR)")
        a.sender("A.TO.B", port, "CSQ1")
        a.cmd(".put ORDERS count=3 size=500 pattern=xml")
        yield a, b


def counted(site: Site) -> listeners.ListenerStatus:
    with site.store.transaction(write=False) as tx:
        record = tx.get_system("CSQ1")
        assert record is not None
        address = listeners.configured(record)[0]
        return listeners.status_of(tx, "CSQ1", address)


def test_the_backstop_refuses_a_receiver_that_would_run_as_the_channel_initiator(sites: tuple[Site, Site]) -> None:
    a, b = sites
    a.cmd("START CHANNEL(A.TO.B)")
    assert settle([a, b], lambda: any("CSQX776E" in line for line in b.console()))
    line = next(line for line in b.console() if "CSQX776E" in line)
    assert "Channel A.TO.B from 127.0.0.1(" in line and "blocked by user ID CSQ1CHIN" in line, line
    assert settle([a, b], lambda: any("CSQX558E" in line and "A.TO.B" in line for line in a.console()))
    assert a.status("CSQ1", "A.TO.B").state == "RETRYING"
    assert b.status("CSQ1", "A.TO.B").state == "INACTIVE"  # never started
    assert not [line for line in b.console() if "CSQX500I" in line]
    assert settle([a, b], lambda: counted(b).blocked >= 1)
    out = b.cmd("DISPLAY CHINIT")
    assert any(text.startswith("MQT0533I") and "blocked by CHLAUTH" in text for text in out), out
    # A QMGRMAP record maps the partner queue manager to a user id: the channel runs as it.
    b.cmd("SET CHLAUTH('A.TO.B') TYPE(QMGRMAP) QMNAME('CSQ1') USERSRC(MAP) MCAUSER('PARTNER')")
    assert settle([a, b], lambda: b.depth("CSQ1", "ORDERS.IN") == 3), (a.console(), b.console())
    assert "MCAUSER(PARTNER)" in b.cmd("DIS CHS(A.TO.B) MCAUSER")


def test_noaccess_refuses_and_warn_yes_lets_it_run_saying_so(sites: tuple[Site, Site]) -> None:
    a, b = sites
    b.cmd("ALTER CHANNEL(A.TO.B) CHLTYPE(RCVR) MCAUSER(MQRCV)",
          "SET CHLAUTH('A.*') TYPE(ADDRESSMAP) ADDRESS('127.0.0.1') USERSRC(NOACCESS)")  # fmt: skip
    a.cmd("START CHANNEL(A.TO.B)")
    assert settle([a, b], lambda: any("CSQX777E" in line for line in b.console()))
    line = next(line for line in b.console() if "CSQX777E" in line)
    assert "TYPE(ADDRESSMAP) ADDRESS(127.0.0.1)" in line, line
    b.cmd("SET CHLAUTH('A.*') TYPE(ADDRESSMAP) ADDRESS('127.0.0.1') USERSRC(NOACCESS) WARN(YES) ACTION(REPLACE)")
    assert settle([a, b], lambda: b.depth("CSQ1", "ORDERS.IN") == 3), (a.console(), b.console())
    assert any("CSQX787I" in line and "WARN(YES)" in line for line in b.console()), b.console()
    assert "MCAUSER(MQRCV)" in b.cmd("DIS CHS(A.TO.B) MCAUSER")


def test_a_blocked_address_is_closed_before_a_byte_is_read(sites: tuple[Site, Site]) -> None:
    a, b = sites
    b.cmd("ALTER CHANNEL(A.TO.B) CHLTYPE(RCVR) MCAUSER(MQRCV)",
          "SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('127.0.0.*')")  # fmt: skip
    b.step()  # the loop reads the record
    a.cmd("START CHANNEL(A.TO.B)")
    assert settle([a, b], lambda: counted(b).blocked >= 3), (a.console(), b.console())
    blocked = [line for line in b.console() if "CSQX782E" in line]
    assert len(blocked) == 1, b.console()  # once a minute for an address, however often it comes
    assert "Connection from 127.0.0.1 was blocked by CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST(127.0.0.*)" in blocked[0]
    assert any("CSQX209E" in line and "before answering" in line for line in a.console()), a.console()
    assert a.status("CSQ1", "A.TO.B").state == "RETRYING"
    assert not [line for line in b.console() if "A.TO.B" in line]  # the channel was never named
    b.cmd("SET CHLAUTH('*') TYPE(BLOCKADDR) ACTION(REMOVE)")
    assert settle([a, b], lambda: b.depth("CSQ1", "ORDERS.IN") == 3), (a.console(), b.console())


def test_an_sslpeermap_record_maps_the_certificate_to_a_user(sites: tuple[Site, Site]) -> None:
    a, b = sites
    key_rings(a, b)
    a.cmd(f"ALTER CHANNEL(A.TO.B) CHLTYPE(SDR) SSLCIPH({SPEC})")
    b.cmd(
        f"ALTER CHANNEL(A.TO.B) CHLTYPE(RCVR) SSLCIPH({SPEC})",
        "SET CHLAUTH('A.TO.B') TYPE(SSLPEERMAP) SSLPEER('CN=SITEA,O=mqtool tests') USERSRC(MAP) MCAUSER('SITEAUSR')",
    )
    a.cmd("START CHANNEL(A.TO.B)")
    assert settle([a, b], lambda: b.depth("CSQ1", "ORDERS.IN") == 3), (a.console(), b.console())
    out = b.cmd("DIS CHS(A.TO.B) MCAUSER SSLCERTU")
    assert "MCAUSER(SITEAUSR)" in out and "SSLCERTU(SITEAUSR)" in out, out


def test_a_ztpf_queue_manager_has_no_channel_authentication(tmp_path: Path) -> None:
    with pair(tmp_path, "CSQ1", "TPF1") as (a, b):
        port = b.listen("ZMQSC DEFINE QL-ORDERS.IN", "ZMQSC DEFINE CHL-A.TO.TPF CHLTYPE-RCVR")
        a.sender("A.TO.TPF", port, "TPFQM")
        a.cmd(".put ORDERS count=2 size=100 pattern=text", "START CHANNEL(A.TO.TPF)")
        assert settle([a, b], lambda: b.depth("TPF1", "ORDERS.IN") == 2), (a.console(), b.console())
