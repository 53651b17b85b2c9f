"""The MQ REST API stand-in as users run it: `mqtool rest init`, then `mqtool serve` in
its own process on 127.0.0.1 (an OS-chosen port), driven by curl and by pymqrest, a
real client from the package registry that nobody here wrote."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.served import PASSWORDS, Served, mqtool, serve

pytestmark = pytest.mark.slow


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    yield from serve(tmp_path)


@pytest.fixture
def served_https(tmp_path: Path) -> Iterator[Served]:
    yield from serve_https(tmp_path)


def serve_https(tmp_path: Path) -> Iterator[Served]:
    """An https listener whose certificate a CA made here (trustme) signed."""
    import trustme

    ca = trustme.CA()
    server = ca.issue_cert("127.0.0.1", "localhost")
    cert, key, ca_file = tmp_path / "server.pem", tmp_path / "server.key", tmp_path / "ca.pem"
    cert.write_bytes(b"".join(blob.bytes() for blob in server.cert_chain_pems))
    server.private_key_pem.write_to_path(str(key))
    ca.cert_pem.write_to_path(str(ca_file))
    yield from serve(tmp_path, "--tls-cert", str(cert), "--tls-key", str(key), ca=ca_file)


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
    shown = mqtool(served.state_dir, "rest", "show")
    assert f"127.0.0.1:{served.port}" in shown.stdout and "admin-pass" not in shown.stdout + shown.stderr


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
    # z/OS answers a DISPLAY that finds nothing with CSQM297I and NORMAL COMPLETION: no object
    assert session.display_queue("PY.ORDERS") == []
    with pytest.raises(pymqrest.MQRESTCommandError) as raised:
        session.delete_qlocal("PY.ORDERS")
    assert raised.value.payload["commandResponse"][0]["reasonCode"] == 2085
    wrong = pymqrest.MQRESTSession(served.base, "CSQ1", credentials=pymqrest.BasicAuth("admin", "nope"))
    # pymqrest reads only commandResponse: IBM's error JSON gives it nothing, and the status says why.
    assert wrong.display_qmgr() is None
    assert wrong.last_http_status == 401
    assert wrong.last_response_payload["error"][0]["msgId"] == "MQWB0104E"


def test_pymqrest_reads_no_status_as_a_stopped_channel(served: Served, pymqrest: Any) -> None:
    """pymqrest's display_chstatus returns [] for a channel without status, and its
    stop_channel_sync takes an empty answer for a stopped channel: the answer must be a
    normal completion with no object, not an error. (Not strict: a status row names the
    channel by CHSTATUS where IBM's JSON says channel, issue 18's REST work.)"""
    session = pymqrest.MQRESTSession(
        served.base,
        "CSQ1",
        credentials=pymqrest.BasicAuth("admin", PASSWORDS["admin"]),
        verify_tls=False,
        mapping_strict=False,
    )
    session.define_qlocal("PY.XMITQ", request_parameters={"usage": "XMITQ"})
    session.define_channel(
        "PY.TO.NOWHERE",
        request_parameters={
            "channel_type": "SDR",
            "connection_name": "127.0.0.1(1)",
            "transmission_queue_name": "PY.XMITQ",
        },
    )
    assert session.display_chstatus("PY.TO.NOWHERE") == []
    assert session.display_chstatus("PY.*") == []
    quick = pymqrest.SyncConfig(timeout_seconds=60.0, poll_interval_seconds=0.05)
    result = session.stop_channel_sync("PY.TO.NOWHERE", config=quick)
    assert result.operation == pymqrest.SyncOperation.STOPPED


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
    lines = mqtool(served_https.state_dir, "console").stdout
    assert "MQT0354W -CSQ1 REST API login failed for user admin from 127.0.0.1 (1 in a row" in lines
    assert "MQT0355W -CSQ1 REST API slows logins from 127.0.0.1: 5 failures in a row" in lines
    plain = subprocess.run([curl, "-sS", url.replace("https:", "http:")], capture_output=True, timeout=120)
    assert plain.returncode == 52 and plain.stdout == b""  # an empty reply: nothing harmful
    shown = mqtool(served_https.state_dir, "rest", "show").stdout
    assert f"MQT0350I REST API listening on https://127.0.0.1:{served_https.port}/ibmmq/rest/v2" in shown
