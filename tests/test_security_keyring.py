"""Key rings (folders of PEM files) and the certificate reader behind them
(mqtool/engine/security/keyring.py, x509.py). Certificates are made in the test."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.engine.security import keyring, x509
from mqtool.engine.security.keyring import KeyRing, KeyRingError
from tests import certs

# -- the certificate reader ------------------------------------------------------------------


def test_reads_what_cryptography_wrote() -> None:
    issued = certs.queue_manager("CSQ1")
    cert = x509.read(issued.der)
    assert cert.subject == (("C", "GB"), ("O", "mqtool tests"), ("OU", "MQ"), ("CN", "CSQ1"))
    assert cert.issuer == (("C", "GB"), ("O", "mqtool tests"), ("CN", "Test CA 0"))
    assert cert.serial == issued.cert.serial_number
    assert cert.not_after == issued.cert.not_valid_after_utc.replace(microsecond=0)
    assert (cert.key_type, cert.key_bits) == ("RSA", 2048)
    assert x509.read(certs.queue_manager("EC1", kind="EC").der).key_type == "EC"
    assert cert.serial_text == ":".join(f"{b:02X}" for b in cert.serial.to_bytes(2, "big"))


def test_names_with_several_ous_and_dcs_keep_their_order() -> None:
    issued = certs.issue(certs.name(DC1="com", DC2="example", OU1="IBM", OU2="WEBSPHERE", CN="QM"))
    assert x509.read(issued.der).subject == (
        ("DC", "com"),
        ("DC", "example"),
        ("OU", "IBM"),
        ("OU", "WEBSPHERE"),
        ("CN", "QM"),
    )


@pytest.mark.parametrize(
    "der",
    [
        b"",
        b"\x30",
        b"\x30\x84\xff\xff\xff\xff",  # a 4 GB length
        b"\x30\x80\x00\x00",  # indefinite length
        b"\x30\x03\x02\x01\x01extra",
        b"\x04\x00",
        b"\x30" + b"\x82\xff\xff" + b"\x00" * 10,
        bytes(70_000),
    ],
)
def test_damaged_der_is_refused(der: bytes) -> None:
    with pytest.raises(x509.CertificateError):
        x509.read(der)


@settings(max_examples=200)
@given(st.data())
def test_any_damage_to_a_certificate_is_refused_or_read(data: st.DataObject) -> None:
    der = bytearray(certs.queue_manager("CSQ1").der)
    for _ in range(data.draw(st.integers(1, 4))):
        der[data.draw(st.integers(0, len(der) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(der)))
    try:
        x509.read(bytes(der[:cut]))
    except x509.CertificateError:
        pass


# -- rings ---------------------------------------------------------------------------------


@pytest.fixture
def ring(tmp_path: Path) -> KeyRing:
    made = KeyRing(tmp_path / "CSQ1RING")
    made.create()
    return made


def test_a_new_ring_is_private_and_empty(ring: KeyRing) -> None:
    assert stat.S_IMODE(ring.path.stat().st_mode) == 0o700
    assert ring.entries() == [] and ring.ca_bundle() is None
    with pytest.raises(KeyRingError, match="already"):
        ring.create()


def test_add_list_files_remove(ring: KeyRing) -> None:
    issued = certs.queue_manager("CSQ1")
    entry = ring.add_certificate("ibmWebSphereMQCSQ1", issued.cert_pem, issued.key_pem)
    assert entry.subject == "CN=CSQ1,OU=MQ,O=mqtool tests,C=GB"
    assert entry.issuer == "CN=Test CA 0,O=mqtool tests,C=GB"
    ring.add_ca("Test CA", certs.authority(0).cert_pem)
    labels = [(e.label, e.kind) for e in ring.entries()]
    assert labels == [("Test CA", "ca"), ("ibmWebSphereMQCSQ1", "personal")]
    cert, key = ring.files("ibmWebSphereMQCSQ1")
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and stat.S_IMODE(cert.stat().st_mode) == 0o644
    bundle = ring.ca_bundle()
    assert bundle is not None and b"BEGIN CERTIFICATE" in bundle.read_bytes()
    ring.remove("Test CA")
    assert ring.ca_bundle() is None and not (ring.path / "ca-Test_CA-").exists()
    with pytest.raises(KeyRingError, match="no label"):
        ring.remove("Test CA")
    with pytest.raises(KeyRingError, match="no personal certificate"):
        ring.files("nothing")


def test_labels_that_are_no_file_names(ring: KeyRing) -> None:
    issued = certs.queue_manager("CSQ1")
    ring.add_certificate("My Label / with ../slashes", issued.cert_pem, issued.key_pem)
    cert, _ = ring.files("My Label / with ../slashes")
    assert cert.parent == ring.path and "/" not in cert.name


def test_refusals_say_why(ring: KeyRing, tmp_path: Path) -> None:
    mine, other = certs.queue_manager("CSQ1"), certs.queue_manager("QM2", kind="EC")
    with pytest.raises(KeyRingError, match="does not belong"):
        ring.add_certificate("x", mine.cert_pem, other.key_pem)
    with pytest.raises(KeyRingError, match="no PEM"):
        ring.add_certificate("x", b"hello", mine.key_pem)
    with pytest.raises(KeyRingError, match="exactly one PRIVATE KEY"):
        ring.add_certificate("x", mine.cert_pem, mine.cert_pem)
    encrypted = mine.key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"secret"),
    )
    with pytest.raises(KeyRingError, match="encrypted"):
        ring.add_certificate("x", mine.cert_pem, encrypted)
    with pytest.raises(KeyRingError, match="label"):
        ring.add_certificate("", mine.cert_pem, mine.key_pem)
    with pytest.raises(KeyRingError, match="label"):
        ring.add_ca("x" * 65, mine.cert_pem)
    ring.add_ca("CA", certs.authority(0).cert_pem)
    with pytest.raises(KeyRingError, match="in the ring already"):
        ring.add_ca("CA", certs.authority(0).cert_pem)
    ring.add_ca("CA", certs.authority(1).cert_pem, replace=True)
    with pytest.raises(KeyRingError, match="not a key ring"):
        KeyRing(tmp_path / "nowhere").entries()


def test_a_huge_pem_is_refused_without_reading_it(ring: KeyRing, tmp_path: Path) -> None:
    huge = tmp_path / "huge.pem"
    with open(huge, "wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # 100 MB, sparse
    with pytest.raises(KeyRingError, match="larger than"):
        keyring.read_pem(huge)
    with pytest.raises(KeyRingError, match="larger than"):
        ring.add_ca("big", b"-----BEGIN CERTIFICATE-----\n" + b"A" * (keyring.MAX_PEM + 10))


def test_a_key_others_can_read_is_refused(ring: KeyRing) -> None:
    issued = certs.queue_manager("CSQ1")
    ring.add_certificate("L", issued.cert_pem, issued.key_pem)
    _, key = ring.files("L")
    os.chmod(key, 0o644)
    with pytest.raises(KeyRingError, match="chmod 600"):
        ring.files("L")


def test_a_damaged_index_is_reported(ring: KeyRing) -> None:
    (ring.path / keyring.INDEX).write_text("{not json")
    with pytest.raises(KeyRingError, match="damaged"):
        ring.entries()
    (ring.path / keyring.INDEX).write_text(
        json.dumps({"format": 1, "entries": {"x": {"kind": "ca", "cert": "../../etc/passwd"}}})
    )
    with pytest.raises(KeyRingError, match="outside the ring"):
        ring.entries()


def test_ring_paths_and_labels(tmp_path: Path) -> None:
    assert keyring.ring_path(tmp_path, "CSQ1RING") == tmp_path / "keyrings" / "CSQ1RING"
    assert keyring.ring_path(tmp_path, "/abs/ring") == Path("/abs/ring")
    assert keyring.certificate_label("", "", "CSQ1") == "ibmWebSphereMQCSQ1"
    assert keyring.certificate_label("", "QMCERT", "CSQ1") == "QMCERT"
    assert keyring.certificate_label("CHLCERT", "QMCERT", "CSQ1") == "CHLCERT"
