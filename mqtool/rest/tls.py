"""https for the REST listener from plain PEM files: the certificate (with its chain)
and the unencrypted private key that `mqtool rest init --tls-cert --tls-key` names,
checked when they are given and again whenever the listener starts. TLS 1.2 is the
lowest version served. Only the standard library's ssl module is used.
"""

from __future__ import annotations

import ssl
from pathlib import Path

from .config import TlsFiles

#: A PEM file larger than this is refused (a certificate chain is a few KiB).
MAX_PEM_BYTES = 1024 * 1024


class TlsError(Exception):
    """A certificate or key that cannot serve https; the text says which and why."""


def _read(path: Path, what: str) -> str:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_PEM_BYTES + 1)
    except FileNotFoundError:
        raise TlsError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise TlsError(f"{what} {path}: is a folder, not a PEM file") from None
    except OSError as exc:
        raise TlsError(f"{what} {path}: cannot be read: {exc.strerror or exc}") from None
    if len(data) > MAX_PEM_BYTES:
        raise TlsError(f"{what} {path}: larger than {MAX_PEM_BYTES} bytes, not a PEM file")
    return data.decode("ascii", "replace")


def _check_pem(cert: Path, key: Path) -> None:
    """Which file is wrong, before OpenSSL's one error for both."""
    cert_text = _read(cert, "certificate")
    key_text = _read(key, "key")
    begin = "-----BEGIN CERTIFICATE-----"
    if begin not in cert_text:
        raise TlsError(f"certificate {cert}: not a PEM certificate (no {begin} line)")
    block = cert_text[cert_text.index(begin) :]
    end = "-----END CERTIFICATE-----"
    try:
        ssl.PEM_cert_to_DER_cert(block[: block.index(end) + len(end)])
    except ValueError:
        raise TlsError(f"certificate {cert}: its PEM block is damaged") from None
    if "ENCRYPTED" in key_text:
        raise TlsError(
            f"key {key}: the key is encrypted; give an unencrypted PEM key (mqtool cannot ask for its passphrase)"
        )
    if "PRIVATE KEY-----" not in key_text:
        raise TlsError(f"key {key}: not a PEM private key (no -----BEGIN ... PRIVATE KEY----- line)")


def _no_passphrase() -> bytes:
    raise TlsError("the key is encrypted; give an unencrypted PEM key")


def server_context(files: TlsFiles) -> ssl.SSLContext:
    """The server's ssl context for the files: TLS 1.2 or later, the system's default
    ciphers; TlsError saying what is wrong with the files."""
    _check_pem(files.cert, files.key)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(files.cert, files.key, password=_no_passphrase)
    except TlsError:
        raise
    except ssl.SSLError as exc:
        reason = getattr(exc, "reason", None) or ""
        if "KEY_VALUES_MISMATCH" in reason or "key values mismatch" in str(exc):
            raise TlsError(f"key {files.key} does not belong to certificate {files.cert}") from None
        raise TlsError(f"certificate {files.cert} or key {files.key} cannot be loaded: {reason or exc}") from None
    except OSError as exc:
        raise TlsError(f"certificate {files.cert} or key {files.key} cannot be read: {exc.strerror or exc}") from None
    return context


def check_files(cert: Path, key: Path) -> TlsFiles:
    """The files as rest.yaml keeps them (absolute paths), once they have been loaded
    as a server would; TlsError otherwise."""
    files = TlsFiles(cert.expanduser().resolve(), key.expanduser().resolve())
    server_context(files)
    return files
