"""Certificates made in the tests (with the `cryptography` package of the test extra):
a CA, certificates it signs (RSA or EC, valid, expired, not yet valid), self-signed
ones, and PEM text of each. Keys are small and made once per process (RSA 2048 takes a
moment)."""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

NOW = dt.datetime.now(dt.UTC)


@dataclass
class Issued:
    cert: x509.Certificate
    key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey

    @property
    def cert_pem(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.PEM)

    @property
    def key_pem(self) -> bytes:
        return self.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )

    @property
    def der(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.DER)


@functools.cache
def _rsa(index: int) -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@functools.cache
def _ec(index: int) -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def key(kind: str = "RSA", index: int = 0) -> rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey:
    return _rsa(index) if kind == "RSA" else _ec(index)


def name(**attributes: str) -> x509.Name:
    oids = {
        "C": NameOID.COUNTRY_NAME,
        "O": NameOID.ORGANIZATION_NAME,
        "OU": NameOID.ORGANIZATIONAL_UNIT_NAME,
        "CN": NameOID.COMMON_NAME,
        "L": NameOID.LOCALITY_NAME,
        "ST": NameOID.STATE_OR_PROVINCE_NAME,
        "DC": NameOID.DOMAIN_COMPONENT,
    }
    pairs = []
    for kind, value in attributes.items():
        base = kind.rstrip("0123456789")  # OU1=.., OU2=.. for several OUs
        pairs.append(x509.NameAttribute(oids[base], value))
    return x509.Name(pairs)


def issue(
    subject: x509.Name,
    issuer: Issued | None = None,
    kind: str = "RSA",
    index: int = 0,
    days: tuple[int, int] = (-1, 365),
    ca: bool = False,
    serial: int = 0x4CD049D5025D65B5,
) -> Issued:
    """A certificate for `subject`, signed by `issuer` (self-signed when None), valid
    from NOW + days[0] to NOW + days[1]."""
    own = key(kind, index)
    signer = own if issuer is None else issuer.key
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject if issuer is None else issuer.cert.subject)
        .public_key(own.public_key())
        .serial_number(serial)
        .not_valid_before(NOW + dt.timedelta(days=days[0]))
        .not_valid_after(NOW + dt.timedelta(days=days[1]))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    return Issued(builder.sign(signer, hashes.SHA256()), own)


@functools.cache
def authority(index: int = 0) -> Issued:
    return issue(name(C="GB", O="mqtool tests", CN=f"Test CA {index}"), ca=True, index=10 + index, serial=1 + index)


def queue_manager(qmgr: str, kind: str = "RSA", days: tuple[int, int] = (-1, 365), ca: int = 0) -> Issued:
    """A queue manager's certificate, CN=<qmgr>,OU=MQ,O=mqtool tests,C=GB, signed by CA `ca`."""
    return issue(
        name(C="GB", O="mqtool tests", OU="MQ", CN=qmgr),
        authority(ca),
        kind=kind,
        index=hash(qmgr) % 3,
        days=days,
        serial=0x1000 + sum(map(ord, qmgr)),
    )
