"""TLS for channels: `ssl.SSLContext`s made from a key ring and a channel's SSLCIPH and
SSLCAUTH, the checks IBM MQ makes once the handshake is done (the negotiated CipherSpec
against SSLCIPH, the peer's name against SSLPEER), the CSQX message a TLS failure
stops a channel with, and the SSL fields of DISPLAY CHSTATUS.

Who calls what (the transport, mqtool/engine/channels, drives the sockets):

    context = for_channel(state_dir, qmname, qmgr_attrs, channel_attrs, SERVER | CLIENT, name)
      (or server_context(ring, label, sslciph, sslcauth) / client_context(ring, label, sslciph))
    ... handshake ...; on an exception:  failure = classify(exc, side)
    failure = check_cipher(sslciph, sock) or check_peer(sslpeer, sock)
    status |= chstatus_fields(sock)

A failure is a `TLSFailure`: the CSQX id this end reports, its reason, and
`partner_id`, the id the other end reports when the transport tells it (the remote
forms: CSQX631E here is CSQX641E there, CSQX633E is CSQX634E, CSQX636E is CSQX643E,
CSQX637E is CSQX642E, CSQX639E is CSQX641E).

OpenSSL through Python's ssl module cannot pin one TLS 1.3 cipher suite (there is no
set_ciphersuites in the ssl module): mqtool calls OpenSSL's SSL_CTX_set_ciphersuites
through ctypes on CPython, after checking that it found the context it expects; where
that is not possible (`can_pin_tls13()` is False) a specific TLS 1.3 CipherSpec is
refused at start with CSQX635E rather than run with another suite. SSLRKEYC (secret
key resets) cannot be honoured: the ssl module has no key update or renegotiation.
"""

from __future__ import annotations

import ctypes
import functools
import ssl
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import cipherspecs, dn, x509
from .keyring import KeyRing, KeyRingError, certificate_label, ring_path

CLIENT, SERVER = "client", "server"  # the side of the handshake: sender, or the listener's end
REQUIRED, OPTIONAL = "REQUIRED", "OPTIONAL"

PARTNER_IDS = {
    "CSQX631E": "CSQX641E",  # CipherSpecs differ
    "CSQX633E": "CSQX634E",  # a certificate failed the check of the end that received it
    "CSQX636E": "CSQX643E",  # the distinguished name does not match SSLPEER
    "CSQX637E": "CSQX642E",  # no certificate from the remote end (SSLCAUTH(REQUIRED))
    "CSQX639E": "CSQX641E",  # this end has a CipherSpec, the remote end none
}


@dataclass(frozen=True)
class TLSFailure:
    """Why a channel stops: the CSQX id this end reports, with its reason and fields."""

    msg_id: str
    reason: str
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def partner_id(self) -> str:
        """The id the other end reports when told of this failure ("" when none)."""
        return PARTNER_IDS.get(self.msg_id, "")

    def message_fields(self, name: str, conname: str) -> dict[str, str]:
        """Every field the message's text needs: the channel and its partner's address
        (which the transport knows) with what this failure found."""
        defaults = {"local": "", "remote": "", "cipherspec": "", "dn": "", "attribute": "", "label": ""}
        return defaults | self.fields | {"name": name, "conname": conname}

    def ztpf_fields(self, name: str) -> dict[str, str]:
        """The fields of z/TPF's MQSC0380E (CHL-name STOPPED - TLS FAILURE - REASON):
        the reason in upper case, as z/TPF consoles write."""
        return {"name": name, "reason": self.reason.upper()}


class TLSSetupError(Exception):
    """A context cannot be made (key ring, label, CipherSpec): `failure` says which CSQX message."""

    def __init__(self, failure: TLSFailure) -> None:
        super().__init__(failure.reason)
        self.failure = failure


# -- pinning TLS 1.3 suites -------------------------------------------------------------


@functools.cache
def _openssl() -> Any:
    """OpenSSL's library as the ssl module loaded it, with the two functions mqtool calls;
    None where that cannot be done safely."""
    if sys.implementation.name != "cpython" or not (3, 11) <= sys.version_info[:2] <= (3, 14):
        return None
    try:
        import _ssl

        library = ctypes.CDLL(_ssl.__file__)
        get_options = library.SSL_CTX_get_options
        set_suites = library.SSL_CTX_set_ciphersuites
    except (OSError, AttributeError, ImportError):
        return None
    get_options.restype, get_options.argtypes = ctypes.c_uint64, [ctypes.c_void_p]
    set_suites.restype, set_suites.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]
    return library


def _ssl_ctx(context: ssl.SSLContext) -> int | None:
    """The SSL_CTX pointer inside a CPython SSLContext (its first field after the object
    header), checked by asking OpenSSL for the options Python reports."""
    library = _openssl()
    if library is None:
        return None
    pointer = ctypes.c_void_p.from_address(id(context) + object.__basicsize__).value
    if not pointer:
        return None
    probe = context.options
    if library.SSL_CTX_get_options(pointer) != int(probe):
        return None
    return int(pointer)


@functools.cache
def can_pin_tls13() -> bool:
    """Whether mqtool can limit a context to chosen TLS 1.3 cipher suites here."""
    return _ssl_ctx(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)) is not None


def _pin_tls13(context: ssl.SSLContext, suites: list[str]) -> bool:
    pointer = _ssl_ctx(context)
    if pointer is None:
        return False
    return bool(_openssl().SSL_CTX_set_ciphersuites(pointer, ":".join(suites).encode("ascii")))


# -- contexts --------------------------------------------------------------------------

_VERSIONS = {cipherspecs.TLS12: ssl.TLSVersion.TLSv1_2, cipherspecs.TLS13: ssl.TLSVersion.TLSv1_3}


def _spec_failure(name: str, reason: str, channel: str = "") -> TLSSetupError:
    return TLSSetupError(TLSFailure(msg_id="CSQX635E", reason=reason, fields={"cipherspec": name, "name": channel}))


def _configure(context: ssl.SSLContext, sslciph: str, fips: bool, channel: str) -> None:
    try:
        name = cipherspecs.canonical(sslciph)
    except cipherspecs.CipherSpecError as exc:
        raise _spec_failure(sslciph, str(exc), channel) from exc
    if not name:
        raise _spec_failure(sslciph, "the channel has no CipherSpec (SSLCIPH is blank)", channel)
    if not cipherspecs.honoured(name):
        raise _spec_failure(name, f"{name} is deprecated and not enabled", channel)
    specs = cipherspecs.members(name, fips)
    if not specs:
        raise _spec_failure(name, f"{name} is not FIPS approved and SSLFIPS is YES", channel)
    low, high = cipherspecs.protocols(name, fips)
    context.minimum_version, context.maximum_version = _VERSIONS[low], _VERSIONS[high]
    tls12 = [spec.openssl for spec in specs if spec.protocol == cipherspecs.TLS12]
    tls13 = [spec.openssl for spec in specs if spec.protocol == cipherspecs.TLS13]
    if tls12:
        context.set_ciphers(":".join(tls12))
    all13 = [s.openssl for s in cipherspecs.SPECS if s.protocol == cipherspecs.TLS13]
    if tls13 and sorted(tls13) != sorted(all13) and not _pin_tls13(context, tls13):
        raise _spec_failure(name, f"{name} cannot be pinned on this platform's OpenSSL", channel)
    context.options |= ssl.OP_NO_COMPRESSION | ssl.OP_CIPHER_SERVER_PREFERENCE


def _no_ring(label: str, channel: str, reason: str) -> TLSSetupError:
    return TLSSetupError(TLSFailure(msg_id="CSQX645E", reason=reason, fields={"label": label, "name": channel}))


def _trust(context: ssl.SSLContext, ring: KeyRing) -> None:
    try:
        bundle = ring.ca_bundle()
    except KeyRingError as exc:
        raise TLSSetupError(TLSFailure(msg_id="CSQX630E", reason=f"the key ring cannot be used: {exc}")) from exc
    if bundle is not None:
        context.load_verify_locations(cafile=str(bundle))


def _own_certificate(context: ssl.SSLContext, ring: KeyRing, label: str, channel: str) -> None:
    try:
        cert, key = ring.files(label)
        context.load_cert_chain(str(cert), str(key))
    except KeyRingError as exc:
        raise _no_ring(label, channel, str(exc)) from exc
    except (ssl.SSLError, OSError) as exc:
        raise _no_ring(label, channel, f"OpenSSL cannot use the certificate {label}: {exc}") from exc


def server_context(
    ring: KeyRing | None,
    label: str,
    sslciph: str,
    sslcauth: str = REQUIRED,
    fips: bool = False,
    channel: str = "",
) -> ssl.SSLContext:
    """The context of the responding end (a receiver behind a listener): its certificate
    `label`, the CipherSpecs of `sslciph`, and the client's certificate REQUIRED or
    OPTIONAL (checked when sent) as SSLCAUTH says. TLSSetupError when it cannot be made."""
    if ring is None or not ring.exists():
        where = "QMGR SSLKEYR is blank" if ring is None else f"no key ring at {ring.path}"
        raise TLSSetupError(TLSFailure(msg_id="CSQX630E", reason=where, fields={"name": channel}))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    _configure(context, sslciph, fips, channel)
    _own_certificate(context, ring, label, channel)
    _trust(context, ring)
    context.verify_mode = ssl.CERT_REQUIRED if sslcauth.upper() == REQUIRED else ssl.CERT_OPTIONAL
    return context


def client_context(
    ring: KeyRing | None,
    label: str,
    sslciph: str,
    fips: bool = False,
    channel: str = "",
    explicit: bool = False,
) -> ssl.SSLContext:
    """The context of the initiating end (a sender): it always checks the responder's
    certificate against the ring's trusted certificates (host names are not checked:
    SSLPEER does that job in MQ); it sends its certificate `label` when the ring has it.
    A label the channel or queue manager names (`explicit`) must be there (CSQX645E);
    IBM's default label may be missing, and then no certificate is sent."""
    if ring is None or not ring.exists():
        where = "QMGR SSLKEYR is blank" if ring is None else f"no key ring at {ring.path}"
        raise TLSSetupError(TLSFailure(msg_id="CSQX630E", reason=where, fields={"name": channel}))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_REQUIRED
    _configure(context, sslciph, fips, channel)
    try:
        personal = ring.entry(label)
    except KeyRingError as exc:
        raise TLSSetupError(TLSFailure(msg_id="CSQX630E", reason=f"the key ring cannot be used: {exc}")) from exc
    if personal is not None and personal.kind == "personal":
        _own_certificate(context, ring, label, channel)
    elif explicit:
        raise _no_ring(label, channel, f"no personal certificate labelled {label} in {ring.path}")
    _trust(context, ring)
    return context


def for_channel(
    state_dir: Path, qmname: str, qmgr_attrs: dict[str, Any], channel_attrs: dict[str, Any], side: str, channel: str
) -> ssl.SSLContext:
    """The context of one end of a TLS channel, from the definitions in the store: the
    queue manager's SSLKEYR (the ring), SSLTASKS (0: no TLS, CSQX630E, as on z/OS; a
    z/TPF queue manager has none and always can), SSLFIPS and CERTLABL; the channel's
    SSLCIPH, SSLCAUTH (the responding end) and CERTLABL. TLSSetupError when it cannot be
    made. `side` is SERVER for the end behind a listener, CLIENT for the one that connects."""
    if str(qmgr_attrs.get("SSLTASKS", 1)) == "0":
        raise TLSSetupError(TLSFailure(msg_id="CSQX630E", reason="QMGR SSLTASKS is 0", fields={"name": channel}))
    sslkeyr = str(qmgr_attrs.get("SSLKEYR") or "").strip()
    ring = KeyRing(ring_path(state_dir, sslkeyr)) if sslkeyr else None
    own, qmgr_label = str(channel_attrs.get("CERTLABL") or ""), str(qmgr_attrs.get("CERTLABL") or "")
    label = certificate_label(own, qmgr_label, qmname)
    fips = str(qmgr_attrs.get("SSLFIPS", "NO")) == "YES"
    sslciph = str(channel_attrs.get("SSLCIPH") or "")
    if side == SERVER:
        sslcauth = str(channel_attrs.get("SSLCAUTH") or REQUIRED)
        return server_context(ring, label, sslciph, sslcauth, fips=fips, channel=channel)
    explicit = bool(own.strip() or qmgr_label.strip())
    return client_context(ring, label, sslciph, fips=fips, channel=channel, explicit=explicit)


# -- after the handshake ---------------------------------------------------------------


def peer_certificate(sock: Any) -> x509.Certificate | None:
    """The certificate the other end sent (None when it sent none or it cannot be read)."""
    der = sock.getpeercert(binary_form=True)
    if not der:
        return None
    try:
        return x509.read(der)
    except x509.CertificateError:
        return None


def spec_of(sock: Any) -> str:
    """IBM's name of the CipherSpec a TLS connection negotiated."""
    cipher = sock.cipher()
    return cipherspecs.negotiated(str(sock.version() or ""), str(cipher[0] if cipher else ""))


def check_cipher(sslciph: str, sock: Any, fips: bool = False) -> TLSFailure | None:
    """CSQX631E when the negotiated CipherSpec does not satisfy this end's SSLCIPH."""
    negotiated = spec_of(sock)
    if cipherspecs.accepts(sslciph, negotiated, fips):
        return None
    reason = f"local {sslciph}, negotiated {negotiated}"
    return TLSFailure(msg_id="CSQX631E", reason=reason, fields={"local": sslciph, "remote": negotiated})


def check_peer(sslpeer: str, sock: Any) -> TLSFailure | None:
    """The SSLPEER check of a channel: None when it passes (or SSLPEER is blank);
    CSQX640E for a value that is not a valid peer name (z/OS checks it only here, at
    start), CSQX644E when the other end sent no certificate to check, CSQX636E when
    its name does not match."""
    if not sslpeer.strip():
        return None
    try:
        pattern = dn.parse_pattern(sslpeer)
    except dn.DNError as exc:
        return TLSFailure(msg_id="CSQX640E", reason=exc.reason, fields={"attribute": exc.attribute or sslpeer[:32]})
    cert = peer_certificate(sock)
    if cert is None:
        return TLSFailure(msg_id="CSQX644E", reason="the remote end sent no certificate to check SSLPEER against")
    name = dn.of_certificate(cert.subject, cert.serial_text)
    if pattern.matches(name):
        return None
    return TLSFailure(msg_id="CSQX636E", reason=f"{name.text()} does not match {sslpeer}", fields={"dn": name.text()})


def chstatus_fields(sock: Any, certificate_user: str = "") -> dict[str, Any]:
    """The SSL fields of DISPLAY CHSTATUS, keyed as the channel status keeps them (the
    keyword in lower case): SSLCIPH negotiated, SSLPEER and SSLCERTI the peer's subject
    and issuer in IBM's form, SSLCERTU the user its certificate maps to (blank: mqtool
    maps none unless a CHLAUTH record does), SSLRKEYS and the last reset's date and
    time (no secret key resets here: 0 and blank)."""
    cert = peer_certificate(sock)
    return {
        "sslciph": spec_of(sock),
        "sslpeer": dn.of_certificate(cert.subject, cert.serial_text).text() if cert else "",
        "sslcerti": dn.of_certificate(cert.issuer).text() if cert else "",
        "sslcertu": certificate_user,
        "sslrkeys": 0,
        "sslkeyda": "",
        "sslkeyti": "",
    }


# -- failures --------------------------------------------------------------------------

_VERIFY_REASONS = {
    2: "its issuer is not in the key ring",
    9: "it is not valid yet",
    10: "it has expired",
    18: "it is self-signed and not in the key ring",
    19: "its chain ends in a self-signed certificate the key ring does not trust",
    20: "its issuer is not in the key ring",
    21: "its issuer is not in the key ring",
}
# OpenSSL reason codes (SSLError.reason) -> (CSQX id, reason)
_REASONS = {
    "NO_SHARED_CIPHER": ("CSQX631E", "the two ends have no CipherSpec in common"),
    "NO_CIPHERS_AVAILABLE": ("CSQX631E", "no CipherSpec of this end can be used"),
    "UNSUPPORTED_PROTOCOL": ("CSQX631E", "the two ends have no TLS protocol in common"),
    "TLSV1_ALERT_PROTOCOL_VERSION": ("CSQX631E", "the remote end supports none of this end's TLS protocols"),
    "SSLV3_ALERT_HANDSHAKE_FAILURE": (
        "CSQX641E",
        "the remote end refused the handshake (its CipherSpec, or it requires a certificate this end did not send)",
    ),
    "TLSV1_ALERT_INSUFFICIENT_SECURITY": ("CSQX641E", "the remote end refused this end's CipherSpecs"),
    "PEER_DID_NOT_RETURN_A_CERTIFICATE": ("CSQX637E", "the remote end sent no certificate (SSLCAUTH(REQUIRED))"),
    "TLSV13_ALERT_CERTIFICATE_REQUIRED": ("CSQX642E", "the remote end requires a certificate and this end sent none"),
    "TLSV1_ALERT_UNKNOWN_CA": ("CSQX634E", "the remote end does not trust this end's certificate"),
    "SSLV3_ALERT_BAD_CERTIFICATE": ("CSQX634E", "the remote end refused this end's certificate"),
    "SSLV3_ALERT_CERTIFICATE_EXPIRED": ("CSQX634E", "the remote end found this end's certificate expired"),
    "SSLV3_ALERT_CERTIFICATE_UNKNOWN": ("CSQX634E", "the remote end refused this end's certificate"),
    "SSLV3_ALERT_UNSUPPORTED_CERTIFICATE": ("CSQX634E", "the remote end cannot use this end's certificate"),
    "TLSV1_ALERT_DECRYPT_ERROR": ("CSQX634E", "the remote end could not verify this end's certificate"),
    "WRONG_VERSION_NUMBER": ("CSQX639E", "the remote end does not speak TLS (it has no CipherSpec)"),
    "HTTP_REQUEST": ("CSQX639E", "the remote end does not speak TLS"),
    "RECORD_LAYER_FAILURE": ("CSQX638E", "the TLS records could not be read"),
}


def classify(exc: BaseException, side: str = CLIENT) -> TLSFailure:
    """The CSQX message for a failed handshake or TLS connection: a certificate this end
    does not trust or that has expired (CSQX633E), one the remote end refused
    (CSQX634E), CipherSpecs that do not meet (CSQX631E here, CSQX641E when the remote
    end says so), no certificate under SSLCAUTH(REQUIRED) (CSQX637E at the responder,
    CSQX642E at the initiator), a partner without TLS (CSQX639E), anything else
    (timeouts, resets, garbage) a communications error (CSQX638E)."""
    if isinstance(exc, TLSSetupError):
        return exc.failure
    if isinstance(exc, ssl.SSLCertVerificationError):
        code = int(getattr(exc, "verify_code", 0) or 0)
        message = str(getattr(exc, "verify_message", "") or exc)
        reason = "the remote end's certificate failed: " + _VERIFY_REASONS.get(code, message)
        return TLSFailure(msg_id="CSQX633E", reason=reason, fields={"verify_code": str(code)})
    if isinstance(exc, ssl.SSLError):
        reason = str(getattr(exc, "reason", "") or "")
        if reason in _REASONS:
            msg_id, text = _REASONS[reason]
            if msg_id == "CSQX631E" and side == CLIENT and reason == "TLSV1_ALERT_PROTOCOL_VERSION":
                msg_id = "CSQX641E"
            return TLSFailure(msg_id, text, {"openssl": reason})
        return TLSFailure(msg_id="CSQX638E", reason=f"TLS error: {reason or exc}", fields={"openssl": reason})
    if isinstance(exc, TimeoutError):
        return TLSFailure(msg_id="CSQX638E", reason="the TLS handshake did not complete in time")
    if isinstance(exc, (ConnectionError, EOFError, OSError)):
        return TLSFailure(msg_id="CSQX638E", reason=f"the connection ended during TLS: {exc.__class__.__name__}")
    return TLSFailure(msg_id="CSQX638E", reason=f"TLS error: {exc}")
