"""The REST stand-in over https (issue 17, item 5): `mqtool rest init --tls-cert
--tls-key` checks the files, the listener answers https on its port with TLS 1.2 or
later, a handshake that never completes is bounded and holds no other client up, plain
HTTP on the https port gets nothing, and files that cannot be loaded at start are one
console line while nothing listens. Certificates come from trustme (a CA made here)."""

from __future__ import annotations

import base64
import http.client
import json
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import trustme

from mqtool.clock import Clock
from mqtool.rest.config import RestConfig, RestUser, TlsFiles, hash_password, load, write
from mqtool.rest.service import RestService
from mqtool.rest.tls import TlsError, check_files, server_context
from mqtool.state import Store
from tests.conftest import FROZEN, MQ

ADMIN = ("admin", "admin-secret")
QMGRS = "/ibmmq/rest/v2/admin/qmgr"
AUTH = {"Authorization": "Basic " + base64.b64encode(":".join(ADMIN).encode()).decode()}


@dataclass
class Pem:
    ca: Path
    cert: Path
    key: Path


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


def issue(ca: trustme.CA, folder: Path, name: str = "server") -> Pem:
    """A server certificate for 127.0.0.1 and localhost signed by `ca`, as PEM files."""
    folder.mkdir(parents=True, exist_ok=True)
    server = ca.issue_cert("127.0.0.1", "localhost")
    pem = Pem(folder / "ca.pem", folder / f"{name}.pem", folder / f"{name}.key")
    ca.cert_pem.write_to_path(str(pem.ca))
    pem.cert.write_bytes(b"".join(blob.bytes() for blob in server.cert_chain_pems))
    server.private_key_pem.write_to_path(str(pem.key))
    return pem


@pytest.fixture
def pem(ca: trustme.CA, tmp_path: Path) -> Pem:
    return issue(ca, tmp_path / "tls")


def configure(state_dir: Path, pem: Pem, timeout: float = 30.0) -> None:
    users = (RestUser(ADMIN[0], ("MQWebAdmin",), hash_password(ADMIN[1])),)
    write(state_dir, RestConfig(port=0, timeout=timeout, users=users, tls=TlsFiles(pem.cert, pem.key)))


@pytest.fixture
def https(state_dir: Path, pem: Pem) -> Iterator[RestService]:
    configure(state_dir, pem, timeout=1.0)
    with RestService(state_dir, Clock.from_setting(FROZEN)) as service:
        assert service.port
        yield service


def client_context(pem: Pem) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(pem.ca))


def get_qmgrs(port: int, context: ssl.SSLContext) -> tuple[int, bytes]:
    connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=30, context=context)
    try:
        connection.request("GET", QMGRS, headers=AUTH)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def console_lines(state_dir: Path, msg_id: str) -> list[str]:
    store = Store.open(state_dir)
    try:
        with store.transaction(write=False) as tx:
            return [text for _id, _system, _time, text in tx.console_since(None) if text.startswith(msg_id)]
    finally:
        store.close()


# ------------------------------------------------------------------ rest init
def test_init_checks_the_files_and_keeps_their_absolute_paths(mq: MQ, state_dir: Path, pem: Pem) -> None:
    result = mq(
        "rest", "init", "--port", "0", "--user", "admin:MQWebAdmin",
        "--tls-cert", str(pem.cert), "--tls-key", str(pem.key), input="pw\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "REST API on https://127.0.0.1:0" in result.output
    config = load(state_dir)
    assert config is not None and config.tls == TlsFiles(pem.cert.resolve(), pem.key.resolve())
    shown = mq("rest", "show")
    assert "address  https://127.0.0.1:0" in shown.output and f"certificate {pem.cert.resolve()}" in shown.output
    document = json.loads(mq("rest", "show", "--format", "json").output)
    assert document["tls"] == {"cert": str(pem.cert.resolve()), "key": str(pem.key.resolve())}


def _encrypted_key(pem: Pem, folder: Path) -> Path:
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(pem.key.read_bytes(), password=None)
    encrypted = folder / "encrypted.key"
    encrypted.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"passphrase"),
        )
    )
    return encrypted


def test_init_refuses_files_that_cannot_serve_https(
    mq: MQ, state_dir: Path, pem: Pem, ca: trustme.CA, tmp_path: Path
) -> None:
    other = issue(ca, tmp_path / "other", "other")
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate\n")
    cases = [
        (["--tls-cert", str(pem.cert)], "give --tls-cert and --tls-key together"),
        (["--tls-cert", str(tmp_path / "nope.pem"), "--tls-key", str(pem.key)], "nope.pem: no such file"),
        (["--tls-cert", str(garbage), "--tls-key", str(pem.key)], "not a PEM certificate"),
        (["--tls-cert", str(pem.cert), "--tls-key", str(garbage)], "not a PEM private key"),
        (["--tls-cert", str(pem.cert), "--tls-key", str(other.key)], "does not belong to certificate"),
        (["--tls-cert", str(pem.cert), "--tls-key", str(_encrypted_key(pem, tmp_path))], "the key is encrypted"),
        (["--tls-cert", str(pem.key), "--tls-key", str(pem.key)], "not a PEM certificate"),
        (["--tls-cert", str(tmp_path), "--tls-key", str(pem.key)], "is a folder"),
    ]
    for extra, message in cases:
        result = mq("rest", "init", "--port", "0", "--user", "admin:MQWebAdmin", *extra, input="pw\n")
        assert result.exit_code == 2, (extra, result.output)
        assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
        assert not (state_dir / "rest.yaml").exists()


def test_the_server_context_takes_tls_1_2_and_later_only(pem: Pem) -> None:
    context = server_context(TlsFiles(pem.cert, pem.key))
    assert context.minimum_version == ssl.TLSVersion.TLSv1_2
    with pytest.raises(TlsError, match="no such file"):
        check_files(pem.cert.with_name("missing.pem"), pem.key)


# ----------------------------------------------------------------- serving
@pytest.mark.filterwarnings("ignore:ssl.TLSVersion.TLSv1_1 is deprecated:DeprecationWarning")
def test_https_answers_a_client_that_trusts_the_ca(https: RestService, pem: Pem, state_dir: Path) -> None:
    assert https.port is not None
    status, body = get_qmgrs(https.port, client_context(pem))
    assert status == 200 and json.loads(body)["qmgr"][0]["name"] == "CSQ1"
    status_file = json.loads((state_dir / "rest.status.json").read_text())
    assert status_file["scheme"] == "https"
    # A client that does not trust the CA refuses the server; one that asks for TLS 1.1 gets no session.
    with pytest.raises(ssl.SSLCertVerificationError):
        get_qmgrs(https.port, ssl.create_default_context())
    old = client_context(pem)
    old.minimum_version = ssl.TLSVersion.MINIMUM_SUPPORTED
    old.maximum_version = ssl.TLSVersion.TLSv1_1
    with pytest.raises((ssl.SSLError, OSError)):
        get_qmgrs(https.port, old)
    modern = client_context(pem)
    modern.minimum_version = modern.maximum_version = ssl.TLSVersion.TLSv1_2
    assert get_qmgrs(https.port, modern)[0] == 200


def test_curl_with_the_ca_file(https: RestService, pem: Pem, curl: str) -> None:
    result = subprocess.run(
        [curl, "-sS", "--cacert", str(pem.ca), "-u", ":".join(ADMIN), f"https://127.0.0.1:{https.port}{QMGRS}"],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert json.loads(result.stdout)["qmgr"][0]["state"] == "running"
    insecure = subprocess.run(
        [curl, "-sS", "-u", ":".join(ADMIN), f"https://127.0.0.1:{https.port}{QMGRS}"],
        capture_output=True,
        timeout=120,
    )
    assert insecure.returncode == 60  # curl: the peer's certificate cannot be verified


def _wait_closed(sock: socket.socket) -> bytes:
    """What the server sends before it closes the connection (generous bound)."""
    sock.settimeout(30)
    received = b""
    while True:
        data = sock.recv(4096)
        if not data:
            return received
        received += data


def test_plain_http_on_the_https_port_gets_nothing(https: RestService, pem: Pem) -> None:
    assert https.port is not None
    with socket.create_connection(("127.0.0.1", https.port), timeout=30) as sock:
        sock.sendall(f"GET {QMGRS} HTTP/1.1\r\nHost: x\r\nAuthorization: {AUTH['Authorization']}\r\n\r\n".encode())
        try:
            received = _wait_closed(sock)
        except ConnectionResetError:
            received = b""
    assert b"HTTP/1.1" not in received and b"qmgr" not in received
    assert get_qmgrs(https.port, client_context(pem))[0] == 200


def test_a_handshake_that_never_completes_holds_up_nobody(https: RestService, pem: Pem) -> None:
    """A client that connects and says nothing: other clients are served meanwhile, and
    the listener's timeout (1 s here) closes it."""
    server = https.server
    assert server is not None and https.port is not None
    with socket.create_connection(("127.0.0.1", https.port), timeout=30) as silent:
        for _ in range(3):
            assert get_qmgrs(https.port, client_context(pem))[0] == 200
        assert _wait_closed(silent) == b""
    deadline = time.monotonic() + 30
    while server.failed_handshakes < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.failed_handshakes >= 1 and server.internal_errors == 0


def test_files_that_cannot_be_loaded_at_start_are_one_console_line(state_dir: Path, pem: Pem) -> None:
    configure(state_dir, pem)
    good_key = pem.key.read_bytes()
    pem.key.write_text("-----BEGIN PRIVATE KEY-----\ndamaged\n-----END PRIVATE KEY-----\n")
    service = RestService(state_dir, Clock.from_setting(FROZEN))
    service.start()
    try:
        service.poll()
        service.poll()  # the same files: not tried, not reported again
        assert service.port is None
        (line,) = console_lines(state_dir, "MQT0353E")
        assert line.startswith("MQT0353E -CSQ1 REST API cannot serve https:") and str(pem.key) in line
        pem.key.write_bytes(good_key)  # fixed: taken at the next poll
        service.poll()
        assert service.port is not None
        assert get_qmgrs(service.port, client_context(pem))[0] == 200
        assert len(console_lines(state_dir, "MQT0353E")) == 1
    finally:
        service.stop()
