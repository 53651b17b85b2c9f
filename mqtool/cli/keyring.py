"""`mqtool keyring`: key rings, the folders of PEM files that TLS channels take their
certificates from (mqtool/engine/security/keyring.py): create one, add a queue
manager's certificate with its key under a label, add the certificates it trusts, list
and remove them."""

from __future__ import annotations

from typing import Any

import click

from mqtool.cli.main import App, fail
from mqtool.listing import Column, emit, format_option

_CONTEXT = {"help_option_names": ["-h", "--help"]}


def _ring(app: App, name: str) -> Any:
    from mqtool.engine.security.keyring import KeyRing, ring_path

    if not name.strip():
        fail("a key ring needs a name (or a path)")
    return KeyRing(ring_path(app.state_dir, name))


def _read(path: str, what: str) -> bytes:
    from mqtool.engine.security.keyring import KeyRingError, read_pem

    try:
        return read_pem(path)
    except KeyRingError as exc:
        fail(f"the {what}: {exc}")


def _run(action: Any) -> Any:
    from mqtool.engine.security.keyring import KeyRingError

    try:
        return action()
    except KeyRingError as exc:
        fail(str(exc))


@click.group(context_settings=_CONTEXT)
def keyring() -> None:
    """Key rings: folders of PEM files that mqtool manages, holding a queue manager's
    certificate with its private key under a label, and the certificates it trusts.
    A queue manager names its ring with SSLKEYR (ALTER QMGR SSLKEYR(NAME), z/TPF:
    ZMQSC ALTER QMGR SSLKEYR-NAME): a name is a folder under the state directory's
    keyrings/, a path starting with / is taken as it is. Its certificate is the label
    CERTLABL names, by default ibmWebSphereMQ followed by the queue manager's name.

    \b
    Examples:
      mqtool keyring create CSQ1RING
      mqtool keyring add CSQ1RING --label ibmWebSphereMQCSQ1 --cert csq1.crt --key csq1.key
      mqtool keyring add-ca CSQ1RING --label 'Lab CA' --cert ca.crt
      mqtool keyring list CSQ1RING
      mqtool cmd 'ALTER QMGR SSLKEYR(CSQ1RING) SSLTASKS(2)'
    """


@keyring.command(context_settings=_CONTEXT)
@click.argument("ring")
@click.pass_obj
def create(app: App, ring: str) -> None:
    """Create an empty key ring RING (a folder readable by its owner only).

    \b
    Example:
      mqtool keyring create CSQ1RING
    """
    made = _ring(app, ring)
    _run(made.create)
    click.echo(f"Created key ring {ring} at {made.path}.")


@keyring.command(context_settings=_CONTEXT)
@click.argument("ring")
@click.option("--label", required=True, help="The certificate's label (CERTLABL), up to 64 characters.")
@click.option(
    "--cert",
    "cert",
    required=True,
    type=click.Path(dir_okay=False),
    help="The certificate, PEM (its chain may follow).",
)
@click.option("--key", "key", required=True, type=click.Path(dir_okay=False), help="Its private key, PEM, unencrypted.")
@click.option("--replace", is_flag=True, help="Replace a label the ring has already.")
@click.pass_obj
def add(app: App, ring: str, label: str, cert: str, key: str, replace: bool) -> None:
    """Add a personal certificate with its private key under LABEL: the queue
    manager's own (its key is checked against the certificate, and kept mode 0600).

    \b
    Example:
      mqtool keyring add CSQ1RING --label ibmWebSphereMQCSQ1 --cert csq1.crt --key csq1.key
    """
    target = _ring(app, ring)
    cert_pem, key_pem = _read(cert, "certificate"), _read(key, "key")
    entry = _run(lambda: target.add_certificate(label, cert_pem, key_pem, replace=replace))
    click.echo(f"Added {label} to {ring}: {entry.subject}, valid until {entry.not_after:%Y-%m-%d}.")


@keyring.command(name="add-ca", context_settings=_CONTEXT)
@click.argument("ring")
@click.option("--label", required=True, help="A label for the trusted certificate, up to 64 characters.")
@click.option("--cert", "cert", required=True, type=click.Path(dir_okay=False), help="The certificate, PEM.")
@click.option("--replace", is_flag=True, help="Replace a label the ring has already.")
@click.pass_obj
def add_ca(app: App, ring: str, label: str, cert: str, replace: bool) -> None:
    """Add a trusted certificate under LABEL: the certificate authority that signed the
    partners' certificates (or a partner's self-signed certificate).

    \b
    Example:
      mqtool keyring add-ca CSQ1RING --label 'Lab CA' --cert ca.crt
    """
    target = _ring(app, ring)
    cert_pem = _read(cert, "certificate")
    entry = _run(lambda: target.add_ca(label, cert_pem, replace=replace))
    click.echo(f"Added trusted {label} to {ring}: {entry.subject}.")


@keyring.command(name="list", context_settings=_CONTEXT)
@click.argument("ring")
@format_option()
@click.pass_obj
def list_ring(app: App, ring: str, output_format: str) -> None:
    """List the labels of RING: kind (personal or ca), subject, issuer, validity and the
    SHA-256 fingerprint of each certificate.

    \b
    Examples:
      mqtool keyring list CSQ1RING
      mqtool keyring list CSQ1RING --format json
    """
    target = _ring(app, ring)
    entries = _run(target.entries)
    now = app.clock.timestamp()
    rows = [
        {
            "label": entry.label,
            "kind": entry.kind,
            "subject": entry.subject,
            "issuer": entry.issuer,
            "not_before": f"{entry.not_before:%Y-%m-%dT%H:%M:%SZ}",
            "not_after": f"{entry.not_after:%Y-%m-%dT%H:%M:%SZ}",
            "state": _state(now, entry),
            "key": f"{entry.key_type} {entry.key_bits}" if entry.key_bits else entry.key_type,
            "serial": entry.serial,
            "fingerprint": entry.fingerprint,
        }
        for entry in entries
    ]
    emit(
        rows, output_format, _TABLE, _FIELDS, empty=f"Key ring {ring} is empty: mqtool keyring add adds a certificate."
    )


@keyring.command(context_settings=_CONTEXT)
@click.argument("ring")
@click.option("--label", required=True, help="The label to remove.")
@click.pass_obj
def remove(app: App, ring: str, label: str) -> None:
    """Remove LABEL (its certificate, and its key) from RING.

    \b
    Example:
      mqtool keyring remove CSQ1RING --label 'Lab CA'
    """
    target = _ring(app, ring)
    _run(lambda: target.remove(label))
    click.echo(f"Removed {label} from {ring}.")


def _state(now: float, entry: Any) -> str:
    if now > entry.not_after.timestamp():
        return "EXPIRED"
    return "NOT YET VALID" if now < entry.not_before.timestamp() else "VALID"


_TABLE = (
    Column("label", "LABEL"),
    Column("kind", "KIND"),
    Column("subject", "SUBJECT"),
    Column("not_after", "NOT AFTER", show=lambda text: str(text)[:10]),
    Column("state", "STATE"),
    Column("key", "KEY"),
)
_FIELDS = ("label", "kind", "subject", "issuer", "not_before", "not_after", "state", "key", "serial", "fingerprint")
