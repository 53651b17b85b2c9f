"""The MQ REST API stand-in as users run it: `mqtool rest init`, then `mqtool serve` in
its own process on 127.0.0.1 (an OS-chosen port), driven by curl and by pymqrest, a
real client from the package registry that nobody here wrote."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

PASSWORDS = {"admin": "admin pass:1", "app": "app-pass-2"}
# Output of pip that means the registry could not be reached (the only reason to skip).
_OFFLINE = (
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "No matching distribution found",
    "Could not find a version that satisfies",
    "Connection refused",
    "timed out",
)


@dataclass
class Served:
    state_dir: Path
    port: int
    process: subprocess.Popen[bytes]
    scheme: str = "http"
    ca: Path | None = None  # the CA file of an https listener

    @property
    def base(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}/ibmmq/rest/v2"


def _mqtool(state_dir: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mqtool", "--state", str(state_dir), *args],
        input=input,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _serve(tmp_path: Path, *tls: str, ca: Path | None = None) -> Iterator[Served]:
    """`mqtool rest init` (with `tls` options: https), then `mqtool serve` in its own process."""
    state_dir = tmp_path / "state"
    written = _mqtool(
        state_dir,
        "rest",
        "init",
        "--port",
        "0",
        "--user",
        "admin:MQWebAdmin",
        "--user",
        "app:MQWebUser",
        "--grant",
        "app",
        *tls,
        input="".join(f"{password}\n" for password in PASSWORDS.values()),
    )
    assert written.returncode == 0, written.stderr
    process = subprocess.Popen(
        [sys.executable, "-m", "mqtool", "--state", str(state_dir), "serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        port = _wait_for_listener(state_dir, process)
        yield Served(state_dir, port, process, "https" if tls else "http", ca)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    yield from _serve(tmp_path)


@pytest.fixture
def served_https(tmp_path: Path) -> Iterator[Served]:
    """An https listener whose certificate a CA made here (trustme) signed."""
    import trustme

    ca = trustme.CA()
    server = ca.issue_cert("127.0.0.1", "localhost")
    cert, key, ca_file = tmp_path / "server.pem", tmp_path / "server.key", tmp_path / "ca.pem"
    cert.write_bytes(b"".join(blob.bytes() for blob in server.cert_chain_pems))
    server.private_key_pem.write_to_path(str(key))
    ca.cert_pem.write_to_path(str(ca_file))
    yield from _serve(tmp_path, "--tls-cert", str(cert), "--tls-key", str(key), ca=ca_file)


def _wait_for_listener(state_dir: Path, process: subprocess.Popen[bytes]) -> int:
    """The port of the serving process, once its status file names it (generous bound)."""
    deadline = time.monotonic() + 60
    status = state_dir / "rest.status.json"
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        try:
            found = json.loads(status.read_text())
        except (OSError, ValueError):
            found = None
        if found is not None and found["pid"] == process.pid:
            return int(found["port"])
        time.sleep(0.05)
    raise AssertionError("mqtool serve did not open the REST listener within 60 s")


def _curl(curl: str, *args: str, data: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
    """status, headers (lower-case names) and body of one curl request."""
    result = subprocess.run([curl, "-sS", "-D", "-", *args], input=data, capture_output=True, timeout=120, check=True)
    head, _, body = result.stdout.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def test_curl_runs_commands_and_moves_messages(served: Served, curl: str) -> None:
    admin = ["-u", f"admin:{PASSWORDS['admin']}"]
    app = ["-u", f"app:{PASSWORDS['app']}"]
    csrf = ["-H", "ibm-mq-rest-csrf-token: token"]
    mqsc = f"{served.base}/admin/action/qmgr/CSQ1/mqsc"
    define = json.dumps({"type": "runCommand", "parameters": {"command": "DEFINE QLOCAL(CURL.Q) MAXDEPTH(10)"}})
    status, _, body = _curl(curl, *admin, *csrf, "-H", "Content-Type: application/json", "-d", define, mqsc)
    assert status == 200 and json.loads(body)["overallCompletionCode"] == 0
    message = f"{served.base}/messaging/qmgr/CSQ1/queue/CURL.Q/message"
    status, headers, _ = _curl(
        curl, *app, *csrf, "-H", "Content-Type: text/plain;charset=utf-8", "-d", "hello", message
    )
    assert status == 201 and len(headers["ibm-mq-md-messageid"]) == 48
    display = json.dumps(
        {
            "type": "runCommandJSON",
            "command": "display",
            "qualifier": "qlocal",
            "name": "CURL.Q",
            "responseParameters": ["curdepth", "maxdepth"],
        }
    )
    status, _, body = _curl(curl, *admin, *csrf, "-H", "Content-Type: application/json", "-d", display, mqsc)
    parameters = json.loads(body)["commandResponse"][0]["parameters"]
    assert (parameters["curdepth"], parameters["maxdepth"]) == (1, 10)
    status, headers, body = _curl(curl, *app, *csrf, "-X", "DELETE", message + "?wait=1000")
    assert (status, body) == (200, b"hello") and headers["ibm-mq-md-persistence"] == "nonPersistent"
    status, _, body = _curl(curl, *app, *csrf, "-X", "DELETE", message)
    assert (status, body) == (204, b"")
    # Bad credentials, a missing CSRF header, a 10 MB body: IBM's error JSON, nothing run.
    status, _, body = _curl(curl, "-u", "admin:wrong", f"{served.base}/admin/qmgr")
    assert status == 401 and json.loads(body)["error"][0]["msgId"] == "MQWB0104E"
    status, _, body = _curl(curl, *admin, "-H", "Content-Type: application/json", "-d", define, mqsc)
    assert status == 403 and json.loads(body)["error"][0]["msgId"] == "MQWB0100E"
    big = b"x" * (10 * 1024 * 1024)
    status, _, body = _curl(
        curl, *app, *csrf, "-H", "Content-Type: text/plain", "--data-binary", "@-", message, data=big
    )
    assert status == 413 and json.loads(body)["error"][0]["msgId"] == "MQT0365E"
    shown = _mqtool(served.state_dir, "rest", "show")
    assert f"127.0.0.1:{served.port}" in shown.stdout and "admin-pass" not in shown.stdout + shown.stderr


@pytest.fixture(scope="session")
def pymqrest(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """pymqrest from the package registry, installed once into a folder of the session
    (it declares Python >= 3.12 but imports on 3.11), imported from there."""
    target = tmp_path_factory.mktemp("pymqrest")
    install = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--ignore-requires-python",
        "--target",
        str(target),
        "pymqrest",
    ]
    result = subprocess.run(install, capture_output=True, text=True, timeout=600, env={**os.environ})
    if result.returncode != 0:
        output = result.stdout + result.stderr
        if any(sign in output for sign in _OFFLINE):
            pytest.skip(f"the package registry cannot be reached to install pymqrest: {output.strip()[-300:]}")
        raise AssertionError(f"pip could not install pymqrest:\n{output}")
    sys.path.insert(0, str(target))
    try:
        import pymqrest as module
    finally:
        sys.path.remove(str(target))
    return module


def test_pymqrest_defines_displays_alters_and_deletes(served: Served, pymqrest: Any) -> None:
    session = pymqrest.MQRESTSession(
        served.base, "CSQ1", credentials=pymqrest.BasicAuth("admin", PASSWORDS["admin"]), verify_tls=False
    )
    session.define_qlocal(
        "PY.ORDERS", request_parameters={"max_queue_depth": 500, "description": "made by pymqrest", "replace": "yes"}
    )
    (queue,) = session.display_queue("PY.ORDERS")
    assert queue["queue_name"] == "PY.ORDERS"
    assert (queue["max_queue_depth"], queue["description"], queue["current_queue_depth"]) == (
        500,
        "made by pymqrest",
        0,
    )
    session.alter_qlocal("PY.ORDERS", request_parameters={"max_queue_depth": 600})
    (queue,) = session.display_queue("PY.*", response_parameters=["max_queue_depth"])
    assert queue["max_queue_depth"] == 600
    assert [q["queue_name"] for q in session.display_queue("PY.*", where="max_queue_depth GT 599")] == ["PY.ORDERS"]
    # pymqrest 1.2.2's mapping data lacks three queue manager attributes IBM MQ 9.4 for z/OS
    # shows (DNSGROUP, DNSWLM, IGQ): its strict mapping refuses the full DISPLAY QMGR, as it
    # would a real z/OS queue manager's; a lenient session passes them through unmapped.
    lenient = pymqrest.MQRESTSession(
        served.base,
        "CSQ1",
        credentials=pymqrest.BasicAuth("admin", PASSWORDS["admin"]),
        verify_tls=False,
        mapping_strict=False,
    )
    qmgr = lenient.display_qmgr()
    assert qmgr is not None and qmgr["queue_manager_name"] == "CSQ1"
    assert {key for key in qmgr if key.isupper()} <= {"DNSGROUP", "DNSWLM", "IGQ"}
    assert session.display_qmgr(response_parameters=["queue_manager_name", "max_handles"]) == {
        "queue_manager_name": "CSQ1",
        "max_handles": 256,
    }
    session.delete_qlocal("PY.ORDERS")
    with pytest.raises(pymqrest.MQRESTCommandError) as raised:
        session.display_queue("PY.ORDERS")
    assert raised.value.payload["commandResponse"][0]["reasonCode"] == 2085
    wrong = pymqrest.MQRESTSession(served.base, "CSQ1", credentials=pymqrest.BasicAuth("admin", "nope"))
    # pymqrest reads only commandResponse: IBM's error JSON gives it nothing, and the status says why.
    assert wrong.display_qmgr() is None
    assert wrong.last_http_status == 401
    assert wrong.last_response_payload["error"][0]["msgId"] == "MQWB0104E"


def test_pymqrest_with_put_and_get_over_the_messaging_api(served: Served, pymqrest: Any) -> None:
    """pymqrest has no messaging calls: it administers, and its own HTTP library
    (requests, which it brings) puts and gets, as an application beside it would."""
    import requests

    session = pymqrest.MQRESTSession(
        served.base, "CSQ1", credentials=pymqrest.BasicAuth("admin", PASSWORDS["admin"]), verify_tls=False
    )
    session.define_qlocal("PY.MSGS", request_parameters={"default_persistence": "yes"})
    url = f"{served.base}/messaging/qmgr/CSQ1/queue/PY.MSGS/message"
    headers = {"ibm-mq-rest-csrf-token": "x", "Content-Type": "text/plain;charset=utf-8"}
    auth = ("app", PASSWORDS["app"])
    with requests.Session() as client:
        for text in ("one", "two"):
            assert client.post(url, data=text.encode(), headers=headers, auth=auth, timeout=30).status_code == 201
        (queue,) = session.display_queue("PY.MSGS", response_parameters=["current_queue_depth"])
        assert queue["current_queue_depth"] == 2
        got = client.delete(url, headers=headers, auth=auth, timeout=30)
        assert got.status_code == 200 and got.text == "one"
        assert got.headers["ibm-mq-md-persistence"] == "persistent"
    (queue,) = session.display_queue("PY.MSGS", response_parameters=["current_queue_depth"])
    assert queue["current_queue_depth"] == 1


def test_pymqrest_over_https_with_its_defaults_and_a_ca_file(
    served_https: Served, pymqrest: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pymqrest verifies certificates by default (verify_tls=True, through requests):
    given the CA file as requests takes one, it works over https unchanged; without it,
    it refuses the server."""
    session = pymqrest.MQRESTSession(
        served_https.base, "CSQ1", credentials=pymqrest.BasicAuth("admin", PASSWORDS["admin"])
    )
    with pytest.raises(pymqrest.MQRESTTransportError):
        session.display_qmgr()
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(served_https.ca))
    session = pymqrest.MQRESTSession(
        served_https.base, "CSQ1", credentials=pymqrest.BasicAuth("admin", PASSWORDS["admin"])
    )
    assert session.display_qmgr(response_parameters=["queue_manager_name"]) == {"queue_manager_name": "CSQ1"}
    session.define_qlocal("TLS.Q", request_parameters={"max_queue_depth": 7})
    (queue,) = session.display_queue("TLS.Q", response_parameters=["max_queue_depth"])
    assert queue["max_queue_depth"] == 7
    app = pymqrest.MQRESTSession(served_https.base, "CSQ1", credentials=pymqrest.BasicAuth("app", PASSWORDS["app"]))
    app.delete_qlocal("TLS.Q")  # app's grant covers every command


def test_curl_over_https_and_failed_logins_on_the_console(served_https: Served, curl: str) -> None:
    url = f"{served_https.base}/admin/qmgr"
    assert served_https.ca is not None
    status, _, body = _curl(curl, "--cacert", str(served_https.ca), "-u", f"admin:{PASSWORDS['admin']}", url)
    assert status == 200 and json.loads(body)["qmgr"][0]["name"] == "CSQ1"
    for _ in range(6):
        status, _, _ = _curl(curl, "--cacert", str(served_https.ca), "-u", "admin:guess", url)
        assert status == 401
    lines = _mqtool(served_https.state_dir, "console").stdout
    assert "MQT0354W -CSQ1 REST API login failed for user admin from 127.0.0.1 (1 in a row" in lines
    assert "MQT0355W -CSQ1 REST API slows logins from 127.0.0.1: 5 failures in a row" in lines
    plain = subprocess.run([curl, "-sS", url.replace("https:", "http:")], capture_output=True, timeout=120)
    assert plain.returncode == 52 and plain.stdout == b""  # an empty reply: nothing harmful
    shown = _mqtool(served_https.state_dir, "rest", "show").stdout
    assert f"MQT0350I REST API listening on https://127.0.0.1:{served_https.port}/ibmmq/rest/v2" in shown
