"""TLS contexts from key rings and SSLCIPH, IBM's checks after the handshake, and the CSQX
message each failure stops a channel with (mqtool/engine/security/cipherspecs.py,
tls.py). Handshakes run over socket pairs: no ports, no timing."""

from __future__ import annotations

import socket
import ssl
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mqtool.engine.security import cipherspecs, tls
from mqtool.engine.security.keyring import KeyRing, default_label
from tests import certs

# -- the CipherSpec table ------------------------------------------------------------------


def test_names_codes_and_aliases() -> None:
    assert cipherspecs.canonical("ecdhe_rsa_aes_256_gcm_sha384") == "ECDHE_RSA_AES_256_GCM_SHA384"
    assert cipherspecs.canonical("C030") == "ECDHE_RSA_AES_256_GCM_SHA384"
    assert cipherspecs.canonical("1302") == "TLS_AES_256_GCM_SHA384"
    assert cipherspecs.canonical(" ") == ""
    assert cipherspecs.canonical("TLS_RSA_WITH_AES_128_CBC_SHA") == "TLS_RSA_WITH_AES_128_CBC_SHA"
    with pytest.raises(cipherspecs.CipherSpecError):
        cipherspecs.canonical("TLS_AES_128_CCM_SHA256")  # not on z/OS
    with pytest.raises(cipherspecs.CipherSpecError):
        cipherspecs.canonical("FFFF")
    assert not cipherspecs.honoured("TLS_RSA_WITH_AES_128_CBC_SHA")
    assert {s.protocol for s in cipherspecs.members("ANY_TLS12")} == {cipherspecs.TLS12}
    assert {s.protocol for s in cipherspecs.members("ANY_TLS13_OR_HIGHER")} == {cipherspecs.TLS13}
    assert len(cipherspecs.members("ANY")) == len(cipherspecs.SPECS)
    assert "TLS_CHACHA20_POLY1305_SHA256" not in {s.name for s in cipherspecs.members("ANY", fips=True)}


@pytest.mark.parametrize(
    ("sslciph", "negotiated", "expected"),
    [
        ("TLS_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384", True),
        ("TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256", False),
        ("ANY_TLS13", "TLS_AES_128_GCM_SHA256", True),
        ("ANY_TLS13", "ECDHE_RSA_AES_256_GCM_SHA384", False),
        ("ANY_TLS12_OR_HIGHER", "TLS_AES_128_GCM_SHA256", True),
        ("ANY_TLS12", "ECDHE_RSA_AES_256_GCM_SHA384", True),
        ("ANY", "ECDHE_ECDSA_AES_128_CBC_SHA256", True),
        ("C02F", "ECDHE_RSA_AES_128_GCM_SHA256", True),
    ],
)
def test_ibm_rule_for_what_satisfies_sslciph(sslciph: str, negotiated: str, expected: bool) -> None:
    assert cipherspecs.accepts(sslciph, negotiated) is expected


def test_openssl_names_map_back() -> None:
    assert cipherspecs.negotiated("TLSv1.2", "AES256-SHA256") == "TLS_RSA_WITH_AES_256_CBC_SHA256"
    assert cipherspecs.negotiated("TLSv1.3", "TLS_AES_128_GCM_SHA256") == "TLS_AES_128_GCM_SHA256"
    assert cipherspecs.negotiated("TLSv1.2", "ODD-CIPHER") == "ODD-CIPHER"


# -- handshakes ----------------------------------------------------------------------------


@dataclass
class End:
    failure: tls.TLSFailure | None = None
    sock: Any = None
    spec: str = ""
    peer_ok: tls.TLSFailure | None = None
    fields: dict[str, Any] | None = None


def handshake(server: ssl.SSLContext, client: ssl.SSLContext, sslpeer: str = "") -> tuple[End, End]:
    """Runs one handshake over a socket pair; each end's outcome, as the transport sees it."""
    a, b = socket.socketpair()
    a.settimeout(30)
    b.settimeout(30)
    ends = End(), End()

    def serve() -> None:
        try:
            sock = server.wrap_socket(a, server_side=True)
            ends[0].spec = tls.spec_of(sock)
            ends[0].peer_ok = tls.check_peer(sslpeer, sock)
            ends[0].fields = tls.chstatus_fields(sock)
            sock.sendall(b"S")
            sock.recv(1)
        except Exception as exc:  # the failure under test
            ends[0].failure = tls.classify(exc, tls.SERVER)
        finally:
            a.close()

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        sock = client.wrap_socket(b)
        ends[1].spec = tls.spec_of(sock)
        ends[1].fields = tls.chstatus_fields(sock)
        if sock.recv(1) != b"S":
            raise ConnectionError("the server ended")
        sock.sendall(b"C")
    except Exception as exc:
        ends[1].failure = tls.classify(exc, tls.CLIENT)
    finally:
        b.close()
        thread.join(60)
    return ends


@pytest.fixture(scope="module")
def rings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, KeyRing]:
    base: Path = tmp_path_factory.mktemp("rings")
    made = {}
    plans: dict[str, tuple[certs.Issued | None, list[certs.Issued]]] = {
        "QM1": (certs.queue_manager("QM1"), [certs.authority(0)]),
        "QM2": (certs.queue_manager("QM2"), [certs.authority(0)]),
        "QME": (certs.queue_manager("QME", kind="EC"), [certs.authority(0)]),
        "QMX": (certs.queue_manager("QMX", days=(-30, -1)), [certs.authority(0)]),
        "OTHER": (certs.queue_manager("OTHER", ca=1), [certs.authority(1)]),
        "STRANGER": (certs.queue_manager("STRANGER", ca=1), [certs.authority(0)]),  # trusts, is not trusted
        "NOCERT": (None, [certs.authority(0)]),
        "NOCA": (certs.queue_manager("NOCA"), []),
    }
    for qmgr, (personal, cas) in plans.items():
        ring = KeyRing(base / qmgr)
        ring.create()
        if personal is not None:
            ring.add_certificate(default_label(qmgr), personal.cert_pem, personal.key_pem)
        for index, ca in enumerate(cas):
            ring.add_ca(f"CA{index}", ca.cert_pem)
        made[qmgr] = ring
    return made


def server(rings: dict[str, KeyRing], qmgr: str, sslciph: str, sslcauth: str = "REQUIRED") -> ssl.SSLContext:
    return tls.server_context(rings[qmgr], default_label(qmgr), sslciph, sslcauth)


def client(rings: dict[str, KeyRing], qmgr: str, sslciph: str) -> ssl.SSLContext:
    return tls.client_context(rings[qmgr], default_label(qmgr), sslciph)


@pytest.mark.parametrize(
    ("receiver", "sender", "negotiated"),
    [
        ("TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"),  # pinned, not AES-256
        ("ANY_TLS12_OR_HIGHER", "ECDHE_RSA_AES_256_GCM_SHA384", "ECDHE_RSA_AES_256_GCM_SHA384"),
        ("TLS_RSA_WITH_AES_128_CBC_SHA256", "ANY_TLS12", "TLS_RSA_WITH_AES_128_CBC_SHA256"),
        ("ANY_TLS13", "ANY", "TLS_AES_256_GCM_SHA384"),
        ("TLS_CHACHA20_POLY1305_SHA256", "ANY_TLS13_OR_HIGHER", "TLS_CHACHA20_POLY1305_SHA256"),
    ],
)
def test_agreeing_ends_run_and_see_the_same_cipherspec(
    rings: dict[str, KeyRing], receiver: str, sender: str, negotiated: str
) -> None:
    if receiver == sender == "TLS_AES_128_GCM_SHA256" and not tls.can_pin_tls13():
        pytest.skip("this Python cannot pin TLS 1.3 suites")
    srv, cli = handshake(server(rings, "QM2", receiver), client(rings, "QM1", sender), sslpeer="CN=QM1,OU=MQ")
    assert srv.failure is None and cli.failure is None, (srv, cli)
    assert srv.spec == cli.spec == negotiated
    assert tls.check_cipher(receiver, _Negotiated(srv.spec)) is None
    assert srv.peer_ok is None
    assert srv.fields is not None and srv.fields["sslciph"] == negotiated
    assert (
        srv.fields["sslpeer"].startswith("SERIALNUMBER=")
        and ",CN=QM1,OU=MQ,O=mqtool tests,C=GB" in srv.fields["sslpeer"]
    )
    assert srv.fields["sslcerti"] == "CN=Test CA 0,O=mqtool tests,C=GB"
    assert cli.fields is not None and ",CN=QM2," in cli.fields["sslpeer"]


class _Negotiated:
    """Stands for a connection that negotiated `spec` (check_cipher reads version and cipher)."""

    def __init__(self, spec: str) -> None:
        match = next(s for s in cipherspecs.SPECS if s.name == spec)
        self._version, self._cipher = match.protocol, match.openssl

    def version(self) -> str:
        return self._version

    def cipher(self) -> tuple[str, str, int]:
        return (self._cipher, self._version, 256)


def test_a_negotiated_cipherspec_outside_sslciph_is_csqx631e() -> None:
    failure = tls.check_cipher("ANY_TLS13", _Negotiated("ECDHE_RSA_AES_128_GCM_SHA256"))
    assert failure is not None and failure.msg_id == "CSQX631E" and failure.partner_id == "CSQX641E"


@pytest.mark.parametrize(
    ("case", "server_args", "client_args", "server_id", "client_id"),
    [
        ("cipherspecs differ", ("QM2", "ECDHE_RSA_AES_128_GCM_SHA256"), ("QM1", "ECDHE_RSA_AES_256_GCM_SHA384"),
         "CSQX631E", "CSQX641E"),
        ("no common protocol", ("QM2", "ANY_TLS13"), ("QM1", "ANY_TLS12"), "CSQX631E", "CSQX641E"),
        ("untrusted server", ("OTHER", "ANY_TLS13"), ("QM1", "ANY_TLS13"), "CSQX634E", "CSQX633E"),
        ("untrusted client", ("QM2", "ANY_TLS12"), ("STRANGER", "ANY_TLS12"), "CSQX633E", "CSQX634E"),
        ("expired server", ("QMX", "ANY_TLS13"), ("QM1", "ANY_TLS13"), "CSQX634E", "CSQX633E"),
        ("expired client", ("QM2", "ANY_TLS12"), ("QMX", "ANY_TLS12"), "CSQX633E", "CSQX634E"),
        ("no client certificate", ("QM2", "ANY_TLS13"), ("NOCERT", "ANY_TLS13"), "CSQX637E", "CSQX642E"),
        ("key type and cipherspec", ("QME", "ECDHE_RSA_AES_128_GCM_SHA256"), ("QM1", "ECDHE_RSA_AES_128_GCM_SHA256"),
         "CSQX631E", "CSQX641E"),
        ("ring trusts nothing", ("QM2", "ANY_TLS13"), ("NOCA", "ANY_TLS13"), "CSQX634E", "CSQX633E"),
    ],
)  # fmt: skip
def test_failures_stop_the_channel_with_ibms_message_at_each_end(
    rings: dict[str, KeyRing],
    case: str,
    server_args: tuple[str, str],
    client_args: tuple[str, str],
    server_id: str,
    client_id: str,
) -> None:
    srv, cli = handshake(server(rings, *server_args), client(rings, *client_args))
    assert srv.failure is not None and srv.failure.msg_id == server_id, (case, srv.failure)
    assert cli.failure is not None and cli.failure.msg_id == client_id, (case, cli.failure)
    assert srv.failure.reason and cli.failure.reason


def test_sslcauth_optional_runs_without_a_client_certificate(rings: dict[str, KeyRing]) -> None:
    srv, cli = handshake(server(rings, "QM2", "ANY_TLS12", "OPTIONAL"), client(rings, "NOCERT", "ANY_TLS12"))
    assert srv.failure is None and cli.failure is None
    srv, cli = handshake(
        server(rings, "QM2", "ANY_TLS12", "OPTIONAL"), client(rings, "NOCERT", "ANY_TLS12"), sslpeer="CN=X"
    )
    assert srv.peer_ok is not None and srv.peer_ok.msg_id == "CSQX644E"


def test_sslpeer_mismatch_and_invalid_sslpeer(rings: dict[str, KeyRing]) -> None:
    srv, _ = handshake(server(rings, "QM2", "ANY"), client(rings, "QM1", "ANY"), sslpeer="CN=QM9")
    assert srv.peer_ok is not None and srv.peer_ok.msg_id == "CSQX636E" and srv.peer_ok.partner_id == "CSQX643E"
    assert "CN=QM1" in srv.peer_ok.fields["dn"]
    srv, _ = handshake(server(rings, "QM2", "ANY"), client(rings, "QM1", "ANY"), sslpeer="cn=lower")
    assert srv.peer_ok is not None and srv.peer_ok.msg_id == "CSQX640E"


def test_a_partner_without_tls_is_csqx639e(rings: dict[str, KeyRing]) -> None:
    a, b = socket.socketpair()
    a.settimeout(30)
    found: list[tls.TLSFailure] = []

    def serve() -> None:
        try:
            server(rings, "QM2", "ANY").wrap_socket(a, server_side=True)
        except Exception as exc:
            found.append(tls.classify(exc, tls.SERVER))
        finally:
            a.close()

    thread = threading.Thread(target=serve)
    thread.start()
    b.sendall(b"MQTOOL plain hello\r\n" * 4)
    thread.join(60)
    b.close()
    assert found and found[0].msg_id == "CSQX639E"


def test_a_handshake_that_never_completes_is_a_communications_error(rings: dict[str, KeyRing]) -> None:
    a, b = socket.socketpair()
    a.settimeout(0.05)  # the transport's handshake limit; nothing is ever sent
    try:
        with pytest.raises(OSError) as caught:
            server(rings, "QM2", "ANY").wrap_socket(a, server_side=True)
        assert tls.classify(caught.value, tls.SERVER).msg_id == "CSQX638E"
    finally:
        a.close()
        b.close()


def test_contexts_that_cannot_be_made(rings: dict[str, KeyRing], tmp_path: Path) -> None:
    with pytest.raises(tls.TLSSetupError) as caught:
        tls.server_context(None, "x", "ANY")
    assert caught.value.failure.msg_id == "CSQX630E"
    with pytest.raises(tls.TLSSetupError) as caught:
        tls.server_context(KeyRing(tmp_path / "missing"), "x", "ANY")
    assert caught.value.failure.msg_id == "CSQX630E"
    with pytest.raises(tls.TLSSetupError) as caught:
        tls.server_context(rings["QM2"], "no such label", "ANY")
    assert caught.value.failure.msg_id == "CSQX645E"
    with pytest.raises(tls.TLSSetupError) as caught:
        tls.client_context(rings["QM2"], "no such label", "ANY", explicit=True)
    assert caught.value.failure.msg_id == "CSQX645E"
    assert tls.client_context(rings["QM2"], "no such label", "ANY") is not None  # IBM's default label may be missing
    for bad in ("TLS_RSA_WITH_AES_128_CBC_SHA", "NOT_A_SPEC", " "):
        with pytest.raises(tls.TLSSetupError) as caught:
            server(rings, "QM2", bad)
        assert caught.value.failure.msg_id == "CSQX635E"
    with pytest.raises(tls.TLSSetupError) as caught:
        tls.server_context(rings["QM2"], default_label("QM2"), "TLS_CHACHA20_POLY1305_SHA256", fips=True)
    assert caught.value.failure.msg_id == "CSQX635E"


def test_fips_limits_an_alias_to_fips_cipherspecs(rings: dict[str, KeyRing]) -> None:
    srv = tls.server_context(rings["QM2"], default_label("QM2"), "ANY_TLS13", fips=True)
    cli = tls.client_context(rings["QM1"], default_label("QM1"), "TLS_CHACHA20_POLY1305_SHA256")
    server_end, _ = handshake(srv, cli)
    if tls.can_pin_tls13():
        assert server_end.failure is not None and server_end.failure.msg_id == "CSQX631E"
    else:
        assert server_end.failure is None or server_end.failure.msg_id == "CSQX631E"


def test_failures_fill_the_console_messages_of_both_platforms() -> None:
    from mqtool import messages

    failure = tls.check_cipher("ANY_TLS13", _Negotiated("ECDHE_RSA_AES_128_GCM_SHA256"))
    assert failure is not None
    assert messages.line(failure.msg_id, **failure.message_fields("TO.CSQ1", "10.1.2.3(1414)")) == (
        "CSQX631E Cipher specifications differ, channel TO.CSQ1, local=ANY_TLS13, "
        "remote=ECDHE_RSA_AES_128_GCM_SHA256, connection 10.1.2.3(1414)"
    )
    assert messages.line("MQSC0380E", **failure.ztpf_fields("TO.CSQ1")) == (
        "MQSC0380E CHL-TO.CSQ1 STOPPED - TLS FAILURE - LOCAL ANY_TLS13, NEGOTIATED ECDHE_RSA_AES_128_GCM_SHA256"
    )
    for msg_id in ("CSQX630E", "CSQX633E", "CSQX635E", "CSQX636E", "CSQX640E", "CSQX645E"):
        messages.line(msg_id, **tls.TLSFailure(msg_id=msg_id, reason="x").message_fields("C", "h"))
