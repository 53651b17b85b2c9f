"""The few fields of an X.509 certificate that key rings and channel status show (serial
number, issuer and subject names, validity, public key), read from its DER encoding.

A small reader of DER, not a library: it follows one path through the certificate and
checks every length against what is left, so a hostile or damaged certificate is
refused with `CertificateError` (never an IndexError, never unbounded work). Signatures
and extensions are not read; trust is OpenSSL's business (ssl module).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

MAX_DER = 64 * 1024  # the largest certificate read (real ones are 1-4 KB)
MAX_NAME_ATTRIBUTES = 64  # attributes in one subject or issuer name
MAX_VALUE = 1024  # characters of one attribute value

# Universal tags
_INTEGER, _BIT_STRING, _OID, _SEQUENCE, _SET = 0x02, 0x03, 0x06, 0x30, 0x31
_UTC_TIME, _GENERALIZED_TIME = 0x17, 0x18
_STRINGS = {
    0x0C: "utf-8",  # UTF8String
    0x12: "ascii",  # NumericString
    0x13: "ascii",  # PrintableString
    0x14: "latin-1",  # T61String (TeletexString): read as Latin-1, as OpenSSL shows it
    0x16: "ascii",  # IA5String
    0x1A: "ascii",  # VisibleString
    0x1C: "utf-32-be",  # UniversalString
    0x1E: "utf-16-be",  # BMPString
}

# Attribute types, by OID, with the names IBM MQ uses in SSLPEER (dn.py).
ATTRIBUTE_TYPES = {
    "2.5.4.3": "CN",
    "2.5.4.12": "T",
    "2.5.4.11": "OU",
    "0.9.2342.19200300.100.1.25": "DC",
    "2.5.4.10": "O",
    "2.5.4.9": "STREET",
    "2.5.4.7": "L",
    "2.5.4.8": "ST",
    "2.5.4.17": "PC",
    "2.5.4.6": "C",
    "1.2.840.113549.1.9.2": "UNSTRUCTUREDNAME",
    "1.2.840.113549.1.9.8": "UNSTRUCTUREDADDRESS",
    "2.5.4.46": "DNQ",
    "1.2.840.113549.1.9.1": "E",
    "0.9.2342.19200300.100.1.3": "MAIL",
    "0.9.2342.19200300.100.1.1": "UID",
}
_KEY_ALGORITHMS = {
    "1.2.840.113549.1.1.1": "RSA",
    "1.2.840.10045.2.1": "EC",
    "1.3.101.112": "ED25519",
    "1.3.101.113": "ED448",
}
_CURVE_BITS = {"1.2.840.10045.3.1.7": 256, "1.3.132.0.34": 384, "1.3.132.0.35": 521}


class CertificateError(ValueError):
    """A certificate that cannot be read: not DER, damaged, or too large."""


@dataclass(frozen=True)
class Certificate:
    """What mqtool reads from a certificate. Names are lists of (type, value) in the
    order of the certificate's encoding (the country usually first)."""

    serial: int
    issuer: tuple[tuple[str, str], ...]
    subject: tuple[tuple[str, str], ...]
    not_before: datetime
    not_after: datetime
    key_type: str  # RSA, EC, ED25519, ED448 or the algorithm's OID
    key_bits: int  # RSA modulus or EC curve size; 0 when not known
    fingerprint: str  # SHA-256 of the DER, colon-separated upper-case hex

    @property
    def serial_text(self) -> str:
        """The serial number as IBM MQ shows it in SSLPEER: hex bytes with colons."""
        raw = self.serial.to_bytes(max(1, (self.serial.bit_length() + 7) // 8), "big")
        return ":".join(f"{byte:02X}" for byte in raw)

    def expired(self, now: float) -> bool:
        return now > self.not_after.timestamp()

    def not_yet_valid(self, now: float) -> bool:
        return now < self.not_before.timestamp()


class _Reader:
    """DER TLVs within data[start:end]."""

    def __init__(self, data: bytes, start: int = 0, end: int | None = None) -> None:
        self.data = data
        self.pos = start
        self.end = len(data) if end is None else end

    def done(self) -> bool:
        return self.pos >= self.end

    def peek_tag(self) -> int:
        if self.pos >= self.end:
            raise CertificateError("the certificate ends early")
        return self.data[self.pos]

    def read(self, tag: int | None = None) -> tuple[int, int, int]:
        """(tag, start of the value, end of the value); moves past the TLV."""
        if self.pos + 2 > self.end:
            raise CertificateError("the certificate ends early")
        found = self.data[self.pos]
        if found & 0x1F == 0x1F:
            raise CertificateError("a high tag number, which certificates do not use")
        first = self.data[self.pos + 1]
        pos = self.pos + 2
        if first < 0x80:
            length = first
        else:
            count = first & 0x7F
            if count == 0 or count > 4:
                raise CertificateError("a length that is indefinite or larger than a certificate can be")
            if pos + count > self.end:
                raise CertificateError("the certificate ends early")
            length = int.from_bytes(self.data[pos : pos + count], "big")
            pos += count
        if pos + length > self.end:
            raise CertificateError("a length beyond the end of the certificate")
        if tag is not None and found != tag:
            raise CertificateError(f"tag 0x{found:02X} where 0x{tag:02X} was expected")
        self.pos = pos + length
        return found, pos, pos + length

    def inside(self, tag: int) -> _Reader:
        _, start, end = self.read(tag)
        return _Reader(self.data, start, end)


def _oid(raw: bytes) -> str:
    if not raw or len(raw) > 64:
        raise CertificateError("an object identifier that is empty or too long")
    first = raw[0]
    parts = [str(min(first // 40, 2)), str(first - 40 * min(first // 40, 2))]
    value = 0
    for byte in raw[1:]:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            parts.append(str(value))
            value = 0
    if raw[-1] & 0x80:
        raise CertificateError("an object identifier that does not end")
    return ".".join(parts)


def _text(tag: int, raw: bytes) -> str:
    encoding = _STRINGS.get(tag)
    if encoding is None:
        return raw.hex().upper()  # another type: shown as hex, as OpenSSL does (#...)
    try:
        value = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        raise CertificateError("a name value that is not valid text") from exc
    if len(value) > MAX_VALUE:
        raise CertificateError("a name value longer than mqtool reads")
    return value


def _name(reader: _Reader) -> tuple[tuple[str, str], ...]:
    """Name ::= SEQUENCE OF RelativeDistinguishedName (SET OF AttributeTypeAndValue)."""
    names = reader.inside(_SEQUENCE)
    out: list[tuple[str, str]] = []
    while not names.done():
        rdn = names.inside(_SET)
        while not rdn.done():
            pair = rdn.inside(_SEQUENCE)
            _, start, end = pair.read(_OID)
            oid = _oid(pair.data[start:end])
            tag, start, end = pair.read()
            out.append((ATTRIBUTE_TYPES.get(oid, oid), _text(tag, pair.data[start:end])))
            if len(out) > MAX_NAME_ATTRIBUTES:
                raise CertificateError(f"a name of more than {MAX_NAME_ATTRIBUTES} attributes")
    return tuple(out)


def _time(reader: _Reader) -> datetime:
    tag, start, end = reader.read()
    text = reader.data[start:end].decode("ascii", "replace")
    try:
        if tag == _UTC_TIME and len(text) == 13 and text.endswith("Z"):
            year = int(text[:2])
            stamp = datetime.strptime(("19" if year >= 50 else "20") + text[:-1], "%Y%m%d%H%M%S")
        elif tag == _GENERALIZED_TIME and len(text) == 15 and text.endswith("Z"):
            stamp = datetime.strptime(text[:-1], "%Y%m%d%H%M%S")
        else:
            raise CertificateError("a validity time that is not UTCTime or GeneralizedTime in UTC")
    except ValueError as exc:
        raise CertificateError("a validity time that is not a date") from exc
    return stamp.replace(tzinfo=UTC)


def _public_key(reader: _Reader) -> tuple[str, int]:
    info = reader.inside(_SEQUENCE)
    algorithm = info.inside(_SEQUENCE)
    _, start, end = algorithm.read(_OID)
    oid = _oid(algorithm.data[start:end])
    kind = _KEY_ALGORITHMS.get(oid, oid)
    bits = 0
    if kind == "EC" and not algorithm.done() and algorithm.peek_tag() == _OID:
        _, start, end = algorithm.read(_OID)
        bits = _CURVE_BITS.get(_oid(algorithm.data[start:end]), 0)
    _, start, end = info.read(_BIT_STRING)
    if kind == "RSA" and end - start > 1:
        key = _Reader(info.data, start + 1, end).inside(_SEQUENCE)  # RSAPublicKey
        _, mstart, mend = key.read(_INTEGER)
        bits = int.from_bytes(info.data[mstart:mend], "big").bit_length()
    elif kind == "ED25519":
        bits = 256
    elif kind == "ED448":
        bits = 456
    return kind, bits


def read(der: bytes) -> Certificate:
    """The fields of a DER-encoded certificate; CertificateError when it is not one."""
    if len(der) > MAX_DER:
        raise CertificateError(f"larger than {MAX_DER} bytes")
    top = _Reader(der)
    certificate = top.inside(_SEQUENCE)
    if not top.done():
        raise CertificateError("bytes after the certificate")
    tbs = certificate.inside(_SEQUENCE)
    if tbs.peek_tag() == 0xA0:  # [0] version
        tbs.read()
    _, start, end = tbs.read(_INTEGER)
    if end - start > 20 + 1:
        raise CertificateError("a serial number longer than 20 bytes")
    serial = int.from_bytes(der[start:end], "big", signed=True)
    tbs.read(_SEQUENCE)  # signature algorithm
    issuer = _name(tbs)
    validity = tbs.inside(_SEQUENCE)
    not_before, not_after = _time(validity), _time(validity)
    subject = _name(tbs)
    key_type, key_bits = _public_key(tbs)
    digest = hashlib.sha256(der).hexdigest().upper()
    fingerprint = ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))
    return Certificate(serial, issuer, subject, not_before, not_after, key_type, key_bits, fingerprint)
