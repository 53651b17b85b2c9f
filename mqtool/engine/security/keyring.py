"""Key rings: a folder of PEM files that mqtool manages, standing in for the RACF key
ring a z/OS queue manager names in SSLKEYR.

A ring holds personal certificates (a certificate, its chain, and its private key,
under a label such as `ibmWebSphereMQCSQ1`) and trusted CA certificates (under a label
too). Its folder:

    RING/ring.json        the index: label -> kind, file names (the ring's truth)
    RING/LABEL.crt        a personal certificate (and its chain), PEM, mode 0644
    RING/LABEL.key        its private key, PEM, unencrypted, mode 0600
    RING/ca-LABEL.crt     a trusted CA certificate, PEM, mode 0644
    RING/ca-bundle.pem    every trusted certificate, for OpenSSL (rewritten on change)

(file names are the label where it is a plain name, else a slug and a hash). The folder
is 0700. Files are written whole under a temporary name and renamed, the index last, so
a ring is never half-changed. Every input is bounded (MAX_PEM bytes a file, MAX_ENTRIES
labels) and checked: PEM that parses, a certificate mqtool can read, a key that belongs
to the certificate (OpenSSL's check), no encrypted keys. A key file that others can
read is refused when the ring is used, as IBM MQ refuses a key repository with open
permissions (`files`).

Where rings live (`ring_path`): a QMGR's SSLKEYR names a folder, relative to the
state directory's `keyrings/` unless it is absolute.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import os
import re
import ssl
import stat
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from . import x509

MAX_PEM = 64 * 1024  # bytes of one PEM file (a certificate chain or a key)
MAX_CHAIN = 10  # certificates in one personal certificate's file
MAX_ENTRIES = 1000  # labels in one ring
MAX_LABEL = 64  # IBM MQ's CERTLABL length
MAX_INDEX = 1024 * 1024  # bytes of a ring's index
INDEX = "ring.json"
BUNDLE = "ca-bundle.pem"
RINGS_FOLDER = "keyrings"  # in the state directory
PERSONAL, CA = "personal", "ca"
_FORMAT = 1
_PLAIN = re.compile(r"^[A-Za-z0-9._-]+$")
_PEM = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----\r?\n(.*?)\r?\n-----END \1-----", re.S)
_KEY_BLOCKS = ("PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY")


class KeyRingError(Exception):
    """A key ring cannot be made, read or changed; the message says why."""


@dataclass(frozen=True)
class Entry:
    """One label of a ring, as `mqtool keyring list` shows it."""

    label: str
    kind: str  # personal or ca
    subject: str  # IBM's form of the distinguished name (dn.Name.text)
    issuer: str
    not_before: datetime
    not_after: datetime
    fingerprint: str  # SHA-256
    serial: str
    key_type: str
    key_bits: int


def ring_path(state_dir: Path, sslkeyr: str) -> Path:
    """The folder a QMGR's SSLKEYR names: absolute as given, else under STATE/keyrings/."""
    path = Path(sslkeyr)
    return path if path.is_absolute() else Path(state_dir) / RINGS_FOLDER / path


def default_label(qmname: str) -> str:
    """IBM's default certificate label of a queue manager: ibmWebSphereMQ + its name."""
    return f"ibmWebSphereMQ{qmname}"


def certificate_label(channel_certlabl: str, qmgr_certlabl: str, qmname: str) -> str:
    """The label a channel uses, in IBM's order: the channel's CERTLABL, the queue
    manager's CERTLABL, then ibmWebSphereMQ<qmgr>."""
    return channel_certlabl.strip() or qmgr_certlabl.strip() or default_label(qmname)


def pem_blocks(data: bytes) -> list[tuple[str, bytes]]:
    """(label, DER) of each PEM block; KeyRingError when the text holds none or is not PEM."""
    blocks = []
    for match in _PEM.finditer(data):
        try:
            der = base64.b64decode(b"".join(match.group(2).split()), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise KeyRingError(f"a {match.group(1).decode()} block is not valid base64") from exc
        blocks.append((match.group(1).decode("ascii"), der))
    if not blocks:
        raise KeyRingError("no PEM block (-----BEGIN ...-----) found")
    return blocks


def read_pem(path: Path | str, limit: int = MAX_PEM) -> bytes:
    """A PEM file's bytes, refused when larger than `limit` (read no further)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise KeyRingError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if len(data) > limit:
        raise KeyRingError(f"{path} is larger than {limit // 1024} KB, which no certificate or key is")
    return data


def certificates(data: bytes) -> list[x509.Certificate]:
    """The certificates of PEM text, in order; KeyRingError when there are none, too
    many, or one mqtool cannot read."""
    found = [der for label, der in pem_blocks(data) if label == "CERTIFICATE"]
    if not found:
        raise KeyRingError("no CERTIFICATE block")
    if len(found) > MAX_CHAIN:
        raise KeyRingError(f"more than {MAX_CHAIN} certificates")
    try:
        return [x509.read(der) for der in found]
    except x509.CertificateError as exc:
        raise KeyRingError(f"a certificate that cannot be read: {exc}") from exc


def describe(label: str, kind: str, cert: x509.Certificate) -> Entry:
    from .dn import of_certificate

    return Entry(
        label=label,
        kind=kind,
        subject=of_certificate(cert.subject).text(),
        issuer=of_certificate(cert.issuer).text(),
        not_before=cert.not_before,
        not_after=cert.not_after,
        fingerprint=cert.fingerprint,
        serial=cert.serial_text,
        key_type=cert.key_type,
        key_bits=cert.key_bits,
    )


def _check_label(label: str) -> str:
    if not 1 <= len(label) <= MAX_LABEL:
        raise KeyRingError(f"a label is 1-{MAX_LABEL} characters")
    if not label.isprintable() or label != label.strip():
        raise KeyRingError("a label has printable characters only, and no leading or trailing blanks")
    return label


def _file_stem(label: str) -> str:
    if _PLAIN.match(label) and not label.startswith("."):
        return label
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("._")[:32] or "label"
    return f"{slug}-{hashlib.sha256(label.encode()).hexdigest()[:8]}"


def _write(path: Path, data: bytes, mode: int) -> None:
    """Writes a file whole (temporary name, fsync, rename) with its mode from the start."""
    fd, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise


class KeyRing:
    """One key ring folder (see the module docstring)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    # -- the index ----------------------------------------------------------------------
    def exists(self) -> bool:
        return (self.path / INDEX).is_file()

    def _index(self) -> dict[str, dict[str, str]]:
        index = self.path / INDEX
        if not index.is_file():
            raise KeyRingError(f"{self.path} is not a key ring (mqtool keyring create makes one)")
        try:
            data = json.loads(read_pem(index, MAX_INDEX))
        except (ValueError, KeyRingError) as exc:
            raise KeyRingError(f"the index {index} is damaged: {exc}") from exc
        entries = data.get("entries") if isinstance(data, dict) else None
        if data.get("format") != _FORMAT or not isinstance(entries, dict):
            raise KeyRingError(f"the index {index} is not one mqtool wrote")
        for label, entry in entries.items():
            if not (
                isinstance(entry, dict) and entry.get("kind") in (PERSONAL, CA) and isinstance(entry.get("cert"), str)
            ):
                raise KeyRingError(f"the index {index} has a damaged entry for {label!r}")
            for key in ("cert", "key"):
                if key in entry and (
                    not isinstance(entry[key], str) or "/" in entry[key] or entry[key].startswith(".")
                ):
                    raise KeyRingError(f"the index {index} names a file outside the ring for {label!r}")
        return entries

    def _save(self, entries: dict[str, dict[str, str]]) -> None:
        bundle = b"".join(
            (self.path / entry["cert"]).read_bytes() for _, entry in sorted(entries.items()) if entry["kind"] == CA
        )
        _write(self.path / BUNDLE, bundle, 0o644)
        text = json.dumps({"format": _FORMAT, "entries": entries}, indent=1, sort_keys=True) + "\n"
        _write(self.path / INDEX, text.encode("utf-8"), 0o644)

    # -- operations ---------------------------------------------------------------------
    def create(self) -> None:
        """Makes the ring's folder (0700) and an empty index; an existing ring is refused."""
        if self.exists():
            raise KeyRingError(f"{self.path} is a key ring already")
        try:
            self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.chmod(self.path, 0o700)
            if any(self.path.iterdir()):
                raise KeyRingError(f"{self.path} is a folder with files in it; a new ring needs an empty one")
            self._save({})
        except OSError as exc:
            raise KeyRingError(f"cannot create {self.path}: {exc.strerror or exc}") from exc

    def add_certificate(self, label: str, cert_pem: bytes, key_pem: bytes, replace: bool = False) -> Entry:
        """Adds a personal certificate (PEM, optionally followed by its chain) with its
        private key (PEM, unencrypted) under `label`."""
        _check_label(label)
        entries = self._index()
        self._room(entries, label, replace)
        for text, what in ((cert_pem, "certificate"), (key_pem, "key")):
            if len(text) > MAX_PEM:
                raise KeyRingError(f"the {what} is larger than {MAX_PEM // 1024} KB")
        chain = certificates(cert_pem)
        keys = [(name, der) for name, der in pem_blocks(key_pem) if "PRIVATE KEY" in name]
        if any(name == "ENCRYPTED PRIVATE KEY" for name, _ in keys):
            raise KeyRingError("the key is encrypted: mqtool keeps keys unencrypted in a 0600 file "
                               "(decrypt it with: openssl pkey -in KEY -out PLAIN.key)")  # fmt: skip
        keys = [(name, der) for name, der in keys if name in _KEY_BLOCKS]
        if len(keys) != 1:
            raise KeyRingError("the key file must hold exactly one PRIVATE KEY block")
        stem = _file_stem(label)
        cert_file, key_file = f"{stem}.crt", f"{stem}.key"
        cert_data = b"".join(_pem("CERTIFICATE", der) for name, der in pem_blocks(cert_pem) if name == "CERTIFICATE")
        key_data = _pem(*keys[0])
        self._check_pair(cert_data, key_data)
        try:
            _write(self.path / key_file, key_data, 0o600)
            _write(self.path / cert_file, cert_data, 0o644)
            entries[label] = {"kind": PERSONAL, "cert": cert_file, "key": key_file}
            self._save(entries)
        except OSError as exc:
            raise KeyRingError(f"cannot write to {self.path}: {exc.strerror or exc}") from exc
        return describe(label, PERSONAL, chain[0])

    def add_ca(self, label: str, cert_pem: bytes, replace: bool = False) -> Entry:
        """Adds a trusted certificate (a CA's, or a peer's self-signed one) under `label`."""
        _check_label(label)
        entries = self._index()
        self._room(entries, label, replace)
        if len(cert_pem) > MAX_PEM:
            raise KeyRingError(f"the certificate is larger than {MAX_PEM // 1024} KB")
        chain = certificates(cert_pem)
        if len(chain) != 1:
            raise KeyRingError("a trusted certificate is added one at a time (one CERTIFICATE block)")
        data = _pem("CERTIFICATE", next(der for name, der in pem_blocks(cert_pem) if name == "CERTIFICATE"))
        try:
            ssl.create_default_context(cadata=data.decode("ascii"))  # OpenSSL takes it as a trust anchor
        except (ssl.SSLError, ValueError) as exc:
            raise KeyRingError(f"OpenSSL does not take the certificate as trusted: {exc}") from exc
        cert_file = f"ca-{_file_stem(label)}.crt"
        try:
            _write(self.path / cert_file, data, 0o644)
            entries[label] = {"kind": CA, "cert": cert_file}
            self._save(entries)
        except OSError as exc:
            raise KeyRingError(f"cannot write to {self.path}: {exc.strerror or exc}") from exc
        return describe(label, CA, chain[0])

    def remove(self, label: str) -> None:
        """Removes a label and its files."""
        entries = self._index()
        entry = entries.pop(label, None)
        if entry is None:
            raise KeyRingError(f"no label {label!r} in {self.path}")
        try:
            self._save(entries)
            for key in ("cert", "key"):
                if key in entry:
                    with contextlib.suppress(FileNotFoundError):
                        (self.path / entry[key]).unlink()
        except OSError as exc:
            raise KeyRingError(f"cannot change {self.path}: {exc.strerror or exc}") from exc

    def entries(self) -> list[Entry]:
        """Every label with what its certificate says, in label order."""
        out = []
        for label, entry in sorted(self._index().items()):
            cert = certificates(read_pem(self.path / entry["cert"]))[0]
            out.append(describe(label, entry["kind"], cert))
        return out

    def entry(self, label: str) -> Entry | None:
        return next((entry for entry in self.entries() if entry.label == label), None)

    def files(self, label: str) -> tuple[Path, Path]:
        """(certificate file, key file) of a personal certificate; KeyRingError when the
        label is missing, is a CA, or its key file can be read by others."""
        entry = self._index().get(label)
        if entry is None or entry["kind"] != PERSONAL or "key" not in entry:
            raise KeyRingError(f"no personal certificate labelled {label!r} in {self.path}")
        cert, key = self.path / entry["cert"], self.path / entry["key"]
        try:
            mode = stat.S_IMODE(key.stat().st_mode)
        except OSError as exc:
            raise KeyRingError(f"the key file {key} cannot be read: {exc.strerror or exc}") from exc
        if mode & 0o077:
            raise KeyRingError(f"the key file {key} can be read by others (mode {mode:04o}): chmod 600 it")
        return cert, key

    def ca_bundle(self) -> Path | None:
        """The file of every trusted certificate, or None when the ring trusts none."""
        entries = self._index()
        if not any(entry["kind"] == CA for entry in entries.values()):
            return None
        return self.path / BUNDLE

    # -- checks --------------------------------------------------------------------------
    def _room(self, entries: dict[str, dict[str, str]], label: str, replace: bool) -> None:
        if label in entries and not replace:
            raise KeyRingError(f"label {label!r} is in the ring already (remove it first, or --replace)")
        if label not in entries and len(entries) >= MAX_ENTRIES:
            raise KeyRingError(f"a ring holds at most {MAX_ENTRIES} labels")
        stem = _file_stem(label)
        for other, entry in entries.items():
            if other != label and entry["cert"] in (f"{stem}.crt", f"ca-{stem}.crt"):
                raise KeyRingError(f"label {label!r} would share files with {other!r}")

    def _check_pair(self, cert_data: bytes, key_data: bytes) -> None:
        """OpenSSL's own check that the key belongs to the certificate."""
        folder = tempfile.mkdtemp(dir=self.path, prefix=".check-")
        try:
            cert, key = Path(folder) / "c.pem", Path(folder) / "k.pem"
            _write(key, key_data, 0o600)
            _write(cert, cert_data, 0o600)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            try:
                context.load_cert_chain(cert, key)
            except ssl.SSLError as exc:
                if getattr(exc, "reason", "") in ("KEY_VALUES_MISMATCH", "NO_CERTIFICATE_ASSIGNED"):
                    raise KeyRingError("the key does not belong to the certificate") from exc
                raise KeyRingError(f"OpenSSL cannot use the certificate and key: {exc}") from exc
        finally:
            for name in ("c.pem", "k.pem"):
                with contextlib.suppress(OSError):
                    (Path(folder) / name).unlink()
            with contextlib.suppress(OSError):
                os.rmdir(folder)


def _pem(label: str, der: bytes) -> bytes:
    body = base64.b64encode(der)
    lines = b"\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    return b"-----BEGIN " + label.encode() + b"-----\n" + lines + b"\n-----END " + label.encode() + b"-----\n"
