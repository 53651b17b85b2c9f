"""Key rings for the TLS runs of bench_tcp_channels.py: a CA made for the run signs one
certificate for each queue manager (TPFQM in store A, TPFQM2 in store B, under IBM's
default labels ibmWebSphereMQ<qmgr>), and each store gets a key ring BENCH holding its
certificate and the CA. Needs the `cryptography` package (the test extra)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from mqtool.engine.security.keyring import KeyRing, default_label, ring_path

RING = "BENCH"
CIPHER = "TLS_AES_128_GCM_SHA256"  # a z/TPF SSLCIPH value (TLS 1.3, AES-GCM)


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "mqtool bench"),
                      x509.NameAttribute(NameOID.COMMON_NAME, cn)])  # fmt: skip


def _certificate(subject: str, issuer: x509.Name, signer: ec.EllipticCurvePrivateKey,
                 key: ec.EllipticCurvePrivateKey, ca: bool) -> x509.Certificate:  # fmt: skip
    now = dt.datetime.now(dt.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=7))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .sign(signer, hashes.SHA256())
    )


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def make_rings(a_dir: Path, b_dir: Path) -> tuple[str, str]:
    """Key rings BENCH in both state directories; returns the ZMQSC keywords of the
    receiver's and the sender's channel definitions (their SSLCIPH)."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _certificate("mqtool bench CA", _name("mqtool bench CA"), ca_key, ca_key, ca=True)
    for folder, qmgr in ((a_dir, "TPFQM"), (b_dir, "TPFQM2")):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = _certificate(qmgr, ca.subject, ca_key, key, ca=False)
        ring = KeyRing(ring_path(folder, RING))
        ring.create()
        key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())  # fmt: skip
        ring.add_certificate(default_label(qmgr), _pem(cert), key_pem)
        ring.add_ca("bench CA", _pem(ca))
    keywords = f"SSLCIPH-{CIPHER}"
    return keywords, keywords
