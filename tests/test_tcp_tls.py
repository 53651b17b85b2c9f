"""TLS on channels over TCP between two stores: the certificate each end takes from its
key ring (QMGR SSLKEYR, CERTLABL), the CipherSpec both negotiate, compression before
encryption, and each failure IBM names (CipherSpecs that differ, a certificate not
trusted or expired, SSLPEER) stopping the channel with its CSQX message on both
consoles. Certificates are made with tests/certs.py."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqtool.engine.channels.tcp import frames, listener
from mqtool.engine.security.keyring import KeyRing, ring_path
from tests import certs
from tests.tcp_sites import Site, pair, settle

SPEC = "TLS_AES_256_GCM_SHA384"
PEER_A = "CN=SITEA,OU=MQ,O=mqtool tests,C=GB"


def ring(site: Site, name: str, own: certs.Issued | None, label: str, trusted: list[certs.Issued]) -> None:
    """A key ring in the site's state directory with its certificate and the CAs it trusts."""
    made = KeyRing(ring_path(site.folder, name))
    made.create()
    if own is not None:
        made.add_certificate(label, own.cert_pem, own.key_pem)
    for index, ca in enumerate(trusted):
        made.add_ca(f"CA{index}", ca.cert_pem)


def site_cert(cn: str, days: tuple[int, int] = (-1, 365), ca: int = 0) -> certs.Issued:
    return certs.issue(certs.name(C="GB", O="mqtool tests", OU="MQ", CN=cn), certs.authority(ca), days=days,
                       serial=0x2000 + sum(map(ord, cn)))  # fmt: skip


def key_rings(a: Site, b: Site) -> None:
    """Key rings RINGA and RINGB, named by the sites' queue managers (SSLKEYR, CERTLABL,
    SSLTASKS(2)), with certificates CN=SITEA and CN=SITEB that test CA 0 signed and trusts."""
    ring(a, "RINGA", site_cert("SITEA"), "SITEA", [certs.authority(0)])
    ring(b, "RINGB", site_cert("SITEB"), "SITEB", [certs.authority(0)])
    a.cmd("ALTER QMGR SSLKEYR(RINGA) CERTLABL(SITEA) SSLTASKS(2)")
    b.cmd("ALTER QMGR SSLKEYR(RINGB) CERTLABL(SITEB) SSLTASKS(2)")


@pytest.fixture
def sites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Site, Site]]:
    """Store A (CSQ1 sends over channel A.TO.B) and store B (CSQ1 receives behind its
    listener), each with a key ring its queue manager names, trusting test CA 0; the
    channel without a CipherSpec yet."""
    monkeypatch.setattr(listener, "HELLO_SECONDS", 3.0)
    with pair(tmp_path, "CSQ1", "CSQ1") as (a, b):
        key_rings(a, b)
        port = b.listen("ALTER QMGR CHLAUTH(DISABLED)", "DEFINE QLOCAL(ORDERS.IN)",
                        "DEFINE CHANNEL(A.TO.B) CHLTYPE(RCVR) COMPMSG(ANY)")  # fmt: skip
        a.sender("A.TO.B", port, "CSQ1", "COMPMSG(ZLIBFAST)")
        yield a, b


def both(a: Site, b: Site, sender: str, receiver: str | None = None) -> None:
    """The sender's (A's) and receiver's (B's) SSLCIPH."""
    a.cmd(f"ALTER CHANNEL(A.TO.B) CHLTYPE(SDR) SSLCIPH({sender})" if sender else
          "ALTER CHANNEL(A.TO.B) CHLTYPE(SDR) SSLCIPH(' ')")  # fmt: skip
    mine = sender if receiver is None else receiver
    b.cmd(f"ALTER CHANNEL(A.TO.B) CHLTYPE(RCVR) SSLCIPH({mine})" if mine else
          "ALTER CHANNEL(A.TO.B) CHLTYPE(RCVR) SSLCIPH(' ')")  # fmt: skip


def stops_with(a: Site, b: Site, at_a: str, at_b: str) -> None:
    """The sender STOPS (no retry) and each console has its CSQX message."""
    a.cmd("START CHANNEL(A.TO.B)")
    assert settle([a, b], lambda: any(at_b in line for line in b.console()) and a.status("CSQ1", "A.TO.B").state
                  == "STOPPED"), (a.console(), b.console())  # fmt: skip
    assert any(at_a in line and "A.TO.B" in line for line in a.console()), a.console()
    assert any(at_b in line and "A.TO.B" in line for line in b.console()), b.console()
    assert a.status("CSQ1", "A.TO.B").reason == "tls"
    assert b.depth("CSQ1", "ORDERS.IN") == 0


def test_a_tls_channel_compresses_then_encrypts_and_shows_its_session(sites: tuple[Site, Site]) -> None:
    a, b = sites
    both(a, b, SPEC)
    b.cmd(f"ALTER CHANNEL(A.TO.B) CHLTYPE(RCVR) SSLPEER('{PEER_A}')")
    a.cmd(".put ORDERS count=30 size=8000 pattern=xml", "START CHANNEL(A.TO.B)")
    assert settle([a, b], lambda: b.depth("CSQ1", "ORDERS.IN") == 30 and a.status("CSQ1", "A.TO.B").total.msgs == 30), (
        a.console(), b.console())  # fmt: skip
    sender, receiver = a.status("CSQ1", "A.TO.B"), b.status("CSQ1", "A.TO.B")
    assert sender.sslciph == receiver.sslciph == SPEC
    # The partner's name as IBM shows it: its serial number first.
    assert receiver.sslpeer == f"SERIALNUMBER=21:76,{PEER_A}" and "CN=Test CA 0" in receiver.sslcerti
    assert sender.sslpeer.startswith("SERIALNUMBER=") and ",CN=SITEB," in sender.sslpeer
    # Compression before encryption: frames far smaller than the messages; the socket
    # carries the frames plus TLS's records.
    assert 0 < sender.total.frames < sender.total.before // 2
    assert sender.total.socket > sender.total.frames
    out = b.cmd("DIS CHS(A.TO.B) SSLCIPH SSLPEER SSLCERTI")
    assert f"SSLCIPH({SPEC})" in out and any(f"{PEER_A})" in line for line in out), out


def test_cipherspecs_that_differ_stop_the_channel_on_both_ends(sites: tuple[Site, Site]) -> None:
    a, b = sites
    both(a, b, "ECDHE_RSA_AES_128_GCM_SHA256", SPEC)  # TLS 1.2 against TLS 1.3
    stops_with(a, b, "CSQX641E", "CSQX631E")


def test_an_untrusted_certificate_stops_the_channel_on_both_ends(sites: tuple[Site, Site]) -> None:
    a, b = sites
    other = KeyRing(ring_path(a.folder, "RINGA"))
    other.add_certificate("SITEA", site_cert("SITEA", ca=1).cert_pem, site_cert("SITEA", ca=1).key_pem, replace=True)
    both(a, b, SPEC)
    stops_with(a, b, "CSQX634E", "CSQX633E")


def test_an_expired_certificate_stops_the_channel_on_both_ends(sites: tuple[Site, Site]) -> None:
    a, b = sites
    expired = site_cert("SITEB", days=(-60, -1))
    KeyRing(ring_path(b.folder, "RINGB")).add_certificate("SITEB", expired.cert_pem, expired.key_pem, replace=True)
    both(a, b, SPEC)
    stops_with(a, b, "CSQX633E", "CSQX634E")


def test_an_sslpeer_that_does_not_match_is_told_to_both_ends(sites: tuple[Site, Site]) -> None:
    a, b = sites
    both(a, b, SPEC)
    b.cmd("ALTER CHANNEL(A.TO.B) CHLTYPE(RCVR) SSLPEER('CN=SOMEONE.ELSE')")
    stops_with(a, b, "CSQX643E", "CSQX636E")
    b.cmd("ALTER CHANNEL(A.TO.B) CHLTYPE(RCVR) SSLPEER(' ')")
    a.cmd("ALTER CHANNEL(A.TO.B) CHLTYPE(SDR) SSLPEER('CN=SITEC,O=mqtool tests')")
    stops_with(a, b, "CSQX636E", "CSQX643E")


def test_a_cipherspec_at_one_end_only_refuses_the_channel(sites: tuple[Site, Site]) -> None:
    a, b = sites
    both(a, b, "", SPEC)
    stops_with(a, b, "CSQX641E", "CSQX639E")
    both(a, b, SPEC, "")
    stops_with(a, b, "CSQX639E", "CSQX641E")


def test_a_key_ring_that_cannot_be_used_stops_the_sender_before_it_connects(sites: tuple[Site, Site]) -> None:
    a, b = sites
    both(a, b, SPEC)
    a.cmd("ALTER QMGR SSLKEYR(NO.SUCH.RING)", "START CHANNEL(A.TO.B)")
    assert settle([a, b], lambda: a.status("CSQ1", "A.TO.B").state == "STOPPED")
    assert any("CSQX630E" in line for line in a.console()), a.console()
    a.cmd("ALTER QMGR SSLKEYR(RINGA) CERTLABL(NOT.THERE)", "START CHANNEL(A.TO.B)")
    assert settle([a, b], lambda: any("CSQX645E" in line for line in a.console()))
    assert not [line for line in b.console() if "A.TO.B" in line]


def test_a_tls_handshake_that_never_completes_is_bounded(sites: tuple[Site, Site]) -> None:
    """A peer names the TLS channel, is told to make TLS, then sends half a ClientHello
    and nothing more: the listening end gives up after its first-exchange bound, says
    so once (CSQX638E), and meanwhile serves the real channel."""
    a, b = sites
    both(a, b, SPEC)
    stalled = socket.create_connection(("127.0.0.1", b.port()))
    try:
        stalled.sendall(frames.preamble() + frames.control("HELLO", channel="A.TO.B", qmgr="EVIL", role="send",
                                                           tls=True))  # fmt: skip
        stalled.settimeout(10)
        answer = stalled.recv(4096)
        assert b"HELLO-OK" in answer
        stalled.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")  # a ClientHello's first bytes
        a.cmd(".put ORDERS count=3 size=500 pattern=xml", "START CHANNEL(A.TO.B)")
        started = time.monotonic()
        assert settle([a, b], lambda: any("CSQX638E" in line for line in b.console()))
        assert time.monotonic() - started < 30
        assert settle([a, b], lambda: b.depth("CSQ1", "ORDERS.IN") == 3), (a.console(), b.console())
        assert sum("CSQX638E" in line for line in b.console()) == 1
    finally:
        stalled.close()


def test_a_ztpf_sender_stops_with_its_own_message(tmp_path: Path) -> None:
    with pair(tmp_path, "TPF1", "CSQ1") as (a, b):
        ring(a, "RINGA", site_cert("TPFQM"), "ibmWebSphereMQTPFQM", [certs.authority(1)])
        ring(b, "RINGB", site_cert("SITEB"), "SITEB", [certs.authority(0)])
        b.listen("ALTER QMGR SSLKEYR(RINGB) CERTLABL(SITEB) SSLTASKS(2) CHLAUTH(DISABLED)",
                 f"DEFINE CHANNEL(TPF1.TO.CSQ1) CHLTYPE(RCVR) SSLCIPH({SPEC})")  # fmt: skip
        a.cmd(
            "ZMQSC ALTER QMGR SSLKEYR-RINGA",
            "ZMQSC DEFINE QL-CSQ1 USAGE-XMITQ",
            f"ZMQSC DEFINE CHL-TPF1.TO.CSQ1 CHLTYPE-SDR CONNAME-'127.0.0.1({b.port()})' XMITQ-CSQ1 SSLCIPH-{SPEC}",
            "ZMQSC START CHL-TPF1.TO.CSQ1",
        )
        # A trusts CA 1 only: it refuses B's certificate, B hears of it.
        assert settle([a, b], lambda: a.status("TPF1", "TPF1.TO.CSQ1").state == "STOPPED")
        assert any("MQSC0380E" in line and "TLS FAILURE" in line for line in a.console()), a.console()
        assert settle([a, b], lambda: any("CSQX634E" in line for line in b.console())), b.console()
