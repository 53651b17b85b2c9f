"""IBM MQ's CipherSpec names (SSLCIPH) for TLS 1.2 and 1.3, what OpenSSL calls each,
and IBM's rule for whether a negotiated CipherSpec satisfies a channel's SSLCIPH.

Three kinds of name:

- a specific CipherSpec (ECDHE_RSA_AES_256_GCM_SHA384): one protocol, one cipher suite;
  on z/OS also its 4-digit hexadecimal code (C030);
- an alias (ANY, ANY_TLS12, ANY_TLS12_OR_HIGHER, ANY_TLS13, ANY_TLS13_OR_HIGHER): a
  protocol range, any CipherSpec of it;
- a deprecated CipherSpec (TLS 1.0, RC4, 3DES, NULL ...): accepted on DEFINE and ALTER,
  as IBM's z/OS table lists it, but never honoured: a channel that names one does not
  start (CSQX635E). IBM disables them unless re-enabled; OpenSSL 3 as Python ships it
  refuses most of them anyway.

Both ends check the CipherSpec that the TLS handshake negotiated against their own
SSLCIPH (`accepts`): a specific name must be it, an alias must contain it. So a
specific CipherSpec at one end and an alias containing it at the other agree, two
different specific ones do not, and an alias of TLS 1.2 only against one of TLS 1.3
only fail in the handshake itself (no common protocol).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TLS12, TLS13 = "TLSv1.2", "TLSv1.3"


@dataclass(frozen=True)
class CipherSpec:
    name: str
    code: str  # the TLS cipher suite's hexadecimal code
    protocol: str  # TLSv1.2 or TLSv1.3
    openssl: str  # OpenSSL's name of the suite
    key: str  # the certificate key it needs: RSA, EC, or "" for any (TLS 1.3)
    fips: bool  # FIPS 140 approved (SSLFIPS(YES) allows only these)


@dataclass(frozen=True)
class Alias:
    name: str
    minimum: str
    maximum: str | None  # None: no upper bound (a minimum protocol CipherSpec)


SPECS: tuple[CipherSpec, ...] = (
    # TLS 1.3 (IBM MQ for z/OS 9.4; the CCM suites are not on z/OS)
    CipherSpec("TLS_AES_128_GCM_SHA256", "1301", TLS13, "TLS_AES_128_GCM_SHA256", "", True),
    CipherSpec("TLS_AES_256_GCM_SHA384", "1302", TLS13, "TLS_AES_256_GCM_SHA384", "", True),
    CipherSpec("TLS_CHACHA20_POLY1305_SHA256", "1303", TLS13, "TLS_CHACHA20_POLY1305_SHA256", "", False),
    # TLS 1.2
    CipherSpec("TLS_RSA_WITH_AES_128_CBC_SHA256", "003C", TLS12, "AES128-SHA256", "RSA", True),
    CipherSpec("TLS_RSA_WITH_AES_256_CBC_SHA256", "003D", TLS12, "AES256-SHA256", "RSA", True),
    CipherSpec("TLS_RSA_WITH_AES_128_GCM_SHA256", "009C", TLS12, "AES128-GCM-SHA256", "RSA", True),
    CipherSpec("TLS_RSA_WITH_AES_256_GCM_SHA384", "009D", TLS12, "AES256-GCM-SHA384", "RSA", True),
    CipherSpec("ECDHE_ECDSA_AES_128_CBC_SHA256", "C023", TLS12, "ECDHE-ECDSA-AES128-SHA256", "EC", True),
    CipherSpec("ECDHE_ECDSA_AES_256_CBC_SHA384", "C024", TLS12, "ECDHE-ECDSA-AES256-SHA384", "EC", True),
    CipherSpec("ECDHE_RSA_AES_128_CBC_SHA256", "C027", TLS12, "ECDHE-RSA-AES128-SHA256", "RSA", True),
    CipherSpec("ECDHE_RSA_AES_256_CBC_SHA384", "C028", TLS12, "ECDHE-RSA-AES256-SHA384", "RSA", True),
    CipherSpec("ECDHE_ECDSA_AES_128_GCM_SHA256", "C02B", TLS12, "ECDHE-ECDSA-AES128-GCM-SHA256", "EC", True),
    CipherSpec("ECDHE_ECDSA_AES_256_GCM_SHA384", "C02C", TLS12, "ECDHE-ECDSA-AES256-GCM-SHA384", "EC", True),
    CipherSpec("ECDHE_RSA_AES_128_GCM_SHA256", "C02F", TLS12, "ECDHE-RSA-AES128-GCM-SHA256", "RSA", True),
    CipherSpec("ECDHE_RSA_AES_256_GCM_SHA384", "C030", TLS12, "ECDHE-RSA-AES256-GCM-SHA384", "RSA", True),
)

ALIASES: tuple[Alias, ...] = (
    # ANY: any protocol mqtool runs (IBM: any the platform supports; OpenSSL 3 here starts at TLS 1.2)
    Alias("ANY", TLS12, None),
    Alias("ANY_TLS12", TLS12, TLS12),
    Alias("ANY_TLS12_OR_HIGHER", TLS12, None),
    Alias("ANY_TLS13", TLS13, TLS13),
    Alias("ANY_TLS13_OR_HIGHER", TLS13, None),
)

# IBM's deprecated CipherSpecs (SSL 3.0, TLS 1.0, and TLS 1.2 with NULL, RC4 or 3DES),
# with their codes: accepted as values, never honoured.
DEPRECATED: dict[str, str] = {
    "NULL_MD5": "0001",
    "NULL_SHA": "0002",
    "RC4_MD5_EXPORT": "0003",
    "RC4_MD5_US": "0004",
    "RC4_SHA_US": "0005",
    "RC2_MD5_EXPORT": "0006",
    "DES_SHA_EXPORT": "0009",
    "TRIPLE_DES_SHA_US": "000A",
    "TLS_RSA_WITH_AES_128_CBC_SHA": "002F",
    "TLS_RSA_WITH_AES_256_CBC_SHA": "0035",
    "TLS_RSA_WITH_DES_CBC_SHA": "0009",
    "TLS_RSA_WITH_3DES_EDE_CBC_SHA": "000A",
    "TLS_RSA_WITH_NULL_SHA256": "003B",
    "ECDHE_ECDSA_NULL_SHA256": "C006",
    "ECDHE_ECDSA_RC4_128_SHA256": "C007",
    "ECDHE_ECDSA_3DES_EDE_CBC_SHA256": "C008",
    "ECDHE_RSA_NULL_SHA256": "C010",
    "ECDHE_RSA_RC4_128_SHA256": "C011",
    "ECDHE_RSA_3DES_EDE_CBC_SHA256": "C012",
}

# z/TPF MQ takes the OpenSSL names of the ciphers its SSL support documents (z/TPF
# SSL_CTX_set_cipher_list and SSL_CTX_set_ciphersuites; the seed measures a channel with
# AES256-SHA256). The first five are older ciphers, IBM MQ's deprecated CipherSpecs:
# accepted, never honoured. That z/TPF MQ channels take these names is inferred.
ZTPF_CIPHERS: tuple[str, ...] = (
    "NULL-MD5", "NULL-SHA", "DES-CBC3-SHA", "AES128-SHA", "AES256-SHA",
    "AES128-SHA256", "AES256-SHA256", "AES128-GCM-SHA256", "AES256-GCM-SHA384",
    "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384",
    "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
    "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
)  # fmt: skip
_OLD_OPENSSL = {
    "NULL-MD5": "NULL_MD5",
    "NULL-SHA": "NULL_SHA",
    "DES-CBC3-SHA": "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
    "AES128-SHA": "TLS_RSA_WITH_AES_128_CBC_SHA",
    "AES256-SHA": "TLS_RSA_WITH_AES_256_CBC_SHA",
}

_BY_NAME = {spec.name: spec for spec in SPECS}
_BY_CODE = {spec.code: spec for spec in SPECS}
_BY_OPENSSL = {(spec.protocol, spec.openssl): spec for spec in SPECS}
_OPENSSL_NAMES = {spec.openssl: spec.name for spec in SPECS} | _OLD_OPENSSL
_ALIASES = {alias.name: alias for alias in ALIASES}
_HEX = re.compile(r"^[0-9A-Fa-f]{4}$")
_ORDER = (TLS12, TLS13)


class CipherSpecError(ValueError):
    """An SSLCIPH value that names no CipherSpec, or one that is not honoured."""


def canonical(value: str) -> str:
    """The CipherSpec name an SSLCIPH value stands for (a z/OS hex code, or the OpenSSL
    name a z/TPF channel gives, becomes IBM's name); "" for blank (no TLS).
    CipherSpecError for a name IBM does not have."""
    text = value.strip()
    if not text:
        return ""
    upper = text.upper()
    if upper in _BY_NAME or upper in _ALIASES or upper in DEPRECATED:
        return upper
    if upper in _OPENSSL_NAMES:
        return _OPENSSL_NAMES[upper]
    if _HEX.match(text):
        code = upper
        if code in _BY_CODE:
            return _BY_CODE[code].name
        for name, deprecated in DEPRECATED.items():
            if deprecated == code:
                return name
    raise CipherSpecError(f"{value} is not a CipherSpec of IBM MQ for z/OS")


def names() -> list[str]:
    """Every value SSLCIPH takes by name (aliases, CipherSpecs, deprecated ones)."""
    return [*_ALIASES, *_BY_NAME, *DEPRECATED]


def is_alias(name: str) -> bool:
    return name in _ALIASES


def honoured(name: str) -> bool:
    return name in _BY_NAME or name in _ALIASES


def members(name: str, fips: bool = False) -> tuple[CipherSpec, ...]:
    """The specific CipherSpecs an SSLCIPH name allows (with SSLFIPS(YES), FIPS ones only)."""
    if name in _BY_NAME:
        found: tuple[CipherSpec, ...] = (_BY_NAME[name],)
    elif name in _ALIASES:
        alias = _ALIASES[name]
        low = _ORDER.index(alias.minimum)
        high = len(_ORDER) - 1 if alias.maximum is None else _ORDER.index(alias.maximum)
        found = tuple(spec for spec in SPECS if low <= _ORDER.index(spec.protocol) <= high)
    else:
        found = ()
    return tuple(spec for spec in found if spec.fips) if fips else found


def protocols(name: str, fips: bool = False) -> tuple[str, str]:
    """(lowest, highest) protocol of an honoured SSLCIPH name."""
    found = members(name, fips)
    if not found:
        raise CipherSpecError(f"{name} is not honoured")
    ordered = sorted({spec.protocol for spec in found}, key=_ORDER.index)
    return ordered[0], ordered[-1]


def negotiated(protocol: str, openssl_name: str) -> str:
    """IBM's name of what a handshake negotiated (ssl.SSLSocket.version(), .cipher()[0]);
    the OpenSSL name itself when IBM has none for it (as IBM shows a code then)."""
    spec = _BY_OPENSSL.get((protocol, openssl_name))
    return spec.name if spec is not None else openssl_name


def accepts(sslciph: str, negotiated_name: str, fips: bool = False) -> bool:
    """IBM's rule: the negotiated CipherSpec satisfies this end's SSLCIPH when it is the
    named one, or one of the alias's protocols."""
    return any(spec.name == negotiated_name for spec in members(canonical(sslciph), fips))
