"""The MQ REST API stand-in in process: a RestService listening on 127.0.0.1 (an
OS-chosen port) for a fresh store, asked with http.client: IBM's request and response
shapes (runCommand, runCommandJSON, /admin/qmgr, the messaging API and its headers),
and every bad-input and security case answered with IBM's error JSON."""

from __future__ import annotations

import base64
import http.client
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqtool.clock import Clock
from mqtool.rest.config import RestConfig, RestUser, check_password, hash_password, load, write
from mqtool.rest.service import RestService
from tests.conftest import FROZEN

ADMIN = ("admin", "admin-secret")
APP = ("app", "app-secret")
READER = ("reader", "reader-secret")
V2 = "/ibmmq/rest/v2"
MQSC = f"{V2}/admin/action/qmgr/CSQ1/mqsc"
TPF_MQSC = f"{V2}/admin/action/qmgr/TPFQM/mqsc"


def message_url(queue: str = "RQ", qmgr: str = "CSQ1", version: str = "v2") -> str:
    return f"/ibmmq/rest/{version}/messaging/qmgr/{qmgr}/queue/{queue}/message"


class Client:
    """A keep-alive HTTP client of the listener."""

    def __init__(self, port: int) -> None:
        self.port = port

    def request(
        self,
        method: str,
        path: str,
        body: bytes | str | dict[str, Any] | list[Any] | None = None,
        user: tuple[str, str] | None = ADMIN,
        csrf: bool = True,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        sent: dict[str, str] = {}
        if user is not None:
            sent["Authorization"] = self.auth_header(user)
        if csrf:
            sent["ibm-mq-rest-csrf-token"] = ""
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
            sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            data = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            connection.close()

    @staticmethod
    def auth_header(user: tuple[str, str]) -> str:
        return "Basic " + base64.b64encode(":".join(user).encode()).decode()

    def json(self, method: str, path: str, body: Any = None, **kwargs: Any) -> tuple[int, Any]:
        status, headers, data = self.request(method, path, body, **kwargs)
        assert headers["content-type"] == "application/json;charset=utf-8", (status, data)
        return status, json.loads(data)

    def mqsc(self, body: Any, path: str = MQSC, **kwargs: Any) -> Any:
        status, document = self.json("POST", path, body, **kwargs)
        assert status == 200, document
        return document

    def run(self, command: str, path: str = MQSC) -> Any:
        return self.mqsc({"type": "runCommand", "parameters": {"command": command}}, path)


def command_json(command: str, qualifier: str, name: str | None = None, **more: Any) -> dict[str, Any]:
    """A runCommandJSON document; `more`: its other top-level keys (parameters,
    responseParameters, ...)."""
    document: dict[str, Any] = {"type": "runCommandJSON", "command": command, "qualifier": qualifier}
    if name is not None:
        document["name"] = name
    document.update(more)
    return document


def depth(client: Client, queue: str) -> int:
    text = client.run(f"DISPLAY QLOCAL({queue}) CURDEPTH")["commandResponse"][0]["text"]
    return int(next(line for line in text if line.startswith("CURDEPTH("))[9:-1])


def error(document: Any) -> dict[str, Any]:
    """The one error of IBM's error JSON, checked for its shape."""
    assert list(document) == ["error"] and len(document["error"]) == 1, document
    item = document["error"][0]
    assert sorted(item) == ["action", "completionCode", "explanation", "message", "msgId", "reasonCode", "type"]
    assert item["type"] == "rest" and item["message"].startswith(item["msgId"] + ": ")
    return dict(item)


def configure(state_dir: Path, maxbody: int = 4 * 1024 * 1024) -> None:
    users = (
        RestUser(ADMIN[0], ("MQWebAdmin",), hash_password(ADMIN[1])),
        RestUser(APP[0], ("MQWebUser",), hash_password(APP[1])),
        RestUser(READER[0], ("MQWebAdminRO",), hash_password(READER[1])),
    )
    write(state_dir, RestConfig(port=0, maxbody=maxbody, users=users))


@pytest.fixture
def client(state_dir: Path) -> Iterator[Client]:
    configure(state_dir)
    service = RestService(state_dir, Clock.from_setting(FROZEN))
    with service:
        assert service.port
        yield Client(service.port)


# ------------------------------------------------------------------ admin API
def test_qmgr_lists_every_queue_manager_with_its_state(client: Client) -> None:
    status, document = client.json("GET", f"{V2}/admin/qmgr")
    assert status == 200
    assert document == {"qmgr": [{"name": "CSQ1", "state": "running"}, {"name": "TPFQM", "state": "running"}]}
    client.run("ZMQSC STOP QMGR", TPF_MQSC)
    for version in ("v1", "v3"):
        status, document = client.json("GET", f"/ibmmq/rest/{version}/admin/qmgr/TPFQM")
        assert (status, document) == (200, {"qmgr": [{"name": "TPFQM", "state": "ended"}]})


def test_run_command_json_define_display_alter_delete(client: Client) -> None:
    created = client.mqsc(
        {
            "type": "runCommandJSON",
            "command": "define",
            "qualifier": "qlocal",
            "name": "ORDERS",
            "parameters": {"descr": "Order queue", "maxdepth": 500, "replace": "yes"},
        }
    )
    assert created["overallCompletionCode"] == 0 and created["overallReasonCode"] == 0
    assert created["commandResponse"][0]["completionCode"] == 0
    client.mqsc(
        {
            "type": "runCommandJSON",
            "command": "alter",
            "qualifier": "qlocal",
            "name": "ORDERS",
            "parameters": {"maxdepth": 600},
        }
    )
    shown = client.mqsc(
        {
            "type": "runCommandJSON",
            "command": "display",
            "qualifier": "qlocal",
            "name": "ORD*",
            "responseParameters": ["maxdepth", "descr"],
        }
    )
    assert shown == {
        "commandResponse": [
            {
                "completionCode": 0,
                "reasonCode": 0,
                "parameters": {
                    "queue": "ORDERS",
                    "type": "QLOCAL",
                    "qsgdisp": "QMGR",
                    "descr": "Order queue",
                    "maxdepth": 600,
                },
            }
        ],
        "overallCompletionCode": 0,
        "overallReasonCode": 0,
    }
    client.mqsc({"type": "runCommandJSON", "command": "delete", "qualifier": "qlocal", "name": "ORDERS"})
    gone = client.mqsc({"type": "runCommandJSON", "command": "display", "qualifier": "qlocal", "name": "ORDERS"})
    assert gone == {"commandResponse": [], "overallCompletionCode": 0, "overallReasonCode": 0}


def test_run_command_json_where_in_the_body_or_in_parameters(client: Client) -> None:
    client.run("DEFINE QLOCAL(W.FULL)")
    client.run("DEFINE QLOCAL(W.EMPTY)")
    client.request("POST", message_url("W.FULL"), b"x", user=APP, headers={"Content-Type": "text/plain"})
    for body in (
        {
            "type": "runCommandJSON",
            "command": "DISPLAY",
            "qualifier": "QLOCAL",
            "name": "W.*",
            "where": "curdepth gt 0",
            "responseParameters": ["curdepth"],
        },
        {
            "type": "runCommandJSON",
            "command": "DISPLAY",
            "qualifier": "QLOCAL",
            "name": "W.*",
            "parameters": {"WHERE": "CURDEPTH GT 0"},
            "responseParameters": ["all"],
        },
    ):
        items = client.mqsc(body)["commandResponse"]
        assert [item["parameters"]["queue"] for item in items] == ["W.FULL"]
        assert items[0]["parameters"]["curdepth"] == 1


@pytest.mark.parametrize(
    ("command", "qualifier", "shown"),
    [
        ("display", "usage", "DISPLAY USAGE"),
        ("DIS", "THREAD", "DISPLAY THREAD"),
        ("display", "log", "DISPLAY LOG"),
        ("display", "chinit", "DISPLAY CHINIT"),
        ("display", "group", "DISPLAY GROUP"),
    ],
)
def test_run_command_json_refuses_what_ibm_documents_as_unsupported(
    client: Client, command: str, qualifier: str, shown: str
) -> None:
    """IBM's REST API does not take DISPLAY ARCHIVE, CHINIT, GROUP, LOG, SECURITY, SYSTEM,
    THREAD, TRACE and USAGE as JSON formatted commands; runCommand runs them."""
    body = {"type": "runCommandJSON", "command": command, "qualifier": qualifier}
    status, document = client.json("POST", MQSC, body)
    assert status == 400
    assert error(document)["msgId"] == "MQT0369E"
    assert shown in error(document)["message"] and "runCommand" in error(document)["action"]
    text = client.run(shown)["commandResponse"][0]["text"]
    assert text[-1].startswith("CSQ9022I") or text[-1].startswith("CSQ9023E")


def test_run_command_json_names_status_by_its_queue_and_channel(client: Client) -> None:
    """DISPLAY QSTATUS and RESET QSTATS items name the queue `queue`, DISPLAY CHSTATUS
    the channel `channel`, as IBM's REST API clients read them (the console titles the
    blocks QSTATUS(...), QSTATS(...), CHSTATUS(...))."""
    client.run("DEFINE QLOCAL(ST.Q)")
    client.run("ALTER QMGR PERFMEV(ENABLED)")
    body = {"type": "runCommandJSON", "command": "display", "qualifier": "qstatus", "name": "ST.Q"}
    (item,) = client.mqsc(body)["commandResponse"]
    assert item["parameters"]["queue"] == "ST.Q" and "qstatus" not in item["parameters"]
    body = {"type": "runCommandJSON", "command": "reset", "qualifier": "qstats", "name": "ST.Q"}
    (item,) = client.mqsc(body)["commandResponse"]
    assert item["parameters"]["queue"] == "ST.Q" and item["parameters"]["msgsin"] == 0
    client.run("DEFINE QLOCAL(ST.XMITQ) USAGE(XMITQ)")
    client.run("DEFINE CHANNEL(ST.SDR) CHLTYPE(SDR) CONNAME('127.0.0.1(1)') XMITQ(ST.XMITQ)")
    client.run("START CHANNEL(ST.SDR)")
    body = {"type": "runCommandJSON", "command": "display", "qualifier": "chstatus", "name": "ST.*"}
    items = client.mqsc(body)["commandResponse"]
    assert [item["parameters"]["channel"] for item in items] == ["ST.SDR"]
    assert "chstatus" not in items[0]["parameters"]


def test_run_command_returns_the_text_lines_z_os_with_the_command_server_count(client: Client) -> None:
    document = client.run("DEFINE QLOCAL(TEXT.Q)")
    assert document == {
        "commandResponse": [
            {
                "completionCode": 0,
                "reasonCode": 0,
                "text": [
                    "CSQN205I   COUNT=       2, RETURN=00000000, REASON=00000000",
                    "CSQ9022I -CSQ1 CSQMAQLC ' DEFINE QLOCAL' NORMAL COMPLETION",
                ],
            }
        ],
        "overallCompletionCode": 0,
        "overallReasonCode": 0,
    }
    failed = client.run("DELETE QLOCAL(NO.SUCH.Q)")
    assert failed["overallCompletionCode"] == 2
    item = failed["commandResponse"][0]
    assert (item["completionCode"], item["reasonCode"]) == (2, 2085)
    assert item["text"][0] == "CSQN205I   COUNT=       4, RETURN=0000000C, REASON=00000008"
    assert item["text"][1] == "CSQM125I -CSQ1 CSQMUQLC QLOCAL (NO.SUCH.Q) QSGDISP(QMGR) WAS NOT FOUND"


def test_z_tpf_commands_by_the_queue_manager_name(client: Client) -> None:
    defined = client.run("ZMQSC DEFINE QL-TPF.Q MAXDEPTH-10", TPF_MQSC)
    assert defined["overallCompletionCode"] == 0
    assert any("MQSC0001I" in line for line in defined["commandResponse"][0]["text"])
    shown = client.mqsc({"type": "runCommandJSON", "command": "display", "qualifier": "ql", "name": "TPF.Q"}, TPF_MQSC)
    assert shown["commandResponse"][0]["parameters"]["queue"] == "TPF.Q"
    assert shown["commandResponse"][0]["parameters"]["maxdepth"] == 10
    # An MQSC command sent to the z/TPF queue manager is refused by the dialect, not run elsewhere.
    wrong = client.run("DEFINE QLOCAL(Z.Q)", TPF_MQSC)
    assert wrong["overallCompletionCode"] == 2


# -------------------------------------------------------------- messaging API
def test_put_browse_get_with_the_ibm_mq_md_headers(client: Client) -> None:
    client.run("DEFINE QLOCAL(RQ)")
    correl = "ab" * 24
    status, headers, body = client.request(
        "POST",
        message_url(),
        "Grüße".encode(),
        user=APP,
        headers={
            "Content-Type": "text/plain;charset=utf-8",
            "ibm-mq-md-persistence": "persistent",
            "ibm-mq-md-expiry": "60000",
            "ibm-mq-md-correlationId": correl,
        },
    )
    assert (status, body) == (201, b"")
    message_id = headers["ibm-mq-md-messageid"]
    assert len(message_id) == 48 and int(message_id, 16) >= 0
    for method in ("GET", "DELETE"):
        status, headers, body = client.request(method, message_url(), user=APP)
        assert status == 200 and body == "Grüße".encode()
        assert headers["content-type"] == "text/plain;charset=utf-8"
        assert headers["ibm-mq-md-messageid"] == message_id
        assert headers["ibm-mq-md-correlationid"] == correl
        assert headers["ibm-mq-md-persistence"] == "persistent"
        assert headers["ibm-mq-md-expiry"] == "60000"  # the frozen clock has not moved
    status, _, body = client.request("DELETE", message_url(), user=APP)
    assert (status, body) == (204, b"")
    assert depth(client, "RQ") == 0


def test_get_selects_by_correlation_id_and_v3_ids_and_priority(client: Client) -> None:
    client.run("DEFINE QLOCAL(RQ)")
    for text, correl in (("first", "01" * 24), ("second", "02" * 24)):
        status, _, _ = client.request(
            "POST",
            message_url(),
            text,
            user=APP,
            headers={"Content-Type": "text/plain", "ibm-mq-md-correlationId": correl},
        )
        assert status == 201
    status, _, body = client.request("DELETE", message_url() + "?correlationId=" + "02" * 24, user=APP)
    assert (status, body) == (201 - 1, b"second")
    status, headers, _ = client.request(
        "POST",
        message_url(version="v3"),
        b"\x00\xffbinary",
        user=APP,
        headers={
            "Content-Type": "application/octet-stream",
            "ibm-mq-md-priority": "7",
            "ibm-mq-md-correlationId": "ORDER42",
        },
    )
    assert status == 201 and headers["ibm-mq-md-messageid"].startswith("ID:")
    status, headers, body = client.request("DELETE", message_url(version="v3"), user=APP)
    assert (status, body) == (200, b"\x00\xffbinary")  # priority 7 comes first
    assert headers["content-type"] == "application/octet-stream"
    assert headers["ibm-mq-md-priority"] == "7"
    assert headers["ibm-mq-md-correlationid"] == "ID:" + b"ORDER42".ljust(24, b"\0").hex()


def test_get_with_wait_returns_204_when_nothing_comes(client: Client) -> None:
    client.run("DEFINE QLOCAL(RQ)")
    status, _, body = client.request("DELETE", message_url() + "?wait=50", user=APP)
    assert (status, body) == (204, b"")


def test_a_got_message_that_cannot_be_delivered_is_put_back(state_dir: Path) -> None:
    from mqtool.rest.api import RestApi

    configure(state_dir)
    api = RestApi(state_dir, Clock.from_setting(FROZEN))
    try:
        api.session.current = "CSQ1"  # the API's session takes commands for one queue manager
        api.session.execute("-CSQ1 DEFINE QLOCAL(RQ)")
        api.put("CSQ1", "RQ", 2, {"content-type": "text/plain"}, b"keep me")
        got = api.get("CSQ1", "RQ", 2, {}, browse=False)
        assert got is not None and got.reply.body == b"keep me"
        assert api.get("CSQ1", "RQ", 2, {}, browse=False) is None  # committed: gone
        api.restore(got)
        again = api.get("CSQ1", "RQ", 2, {}, browse=True)
        assert again is not None and again.reply.body == b"keep me"
    finally:
        api.close()


# --------------------------------------------------------- bad input, security
def test_credentials_missing_wrong_or_of_another_scheme_get_401(client: Client) -> None:
    for user, extra in (
        (None, {}),
        (("admin", "wrong"), {}),
        (("nobody", "x"), {}),
        (None, {"Authorization": "Bearer x"}),
    ):
        status, headers, data = client.request("GET", f"{V2}/admin/qmgr", user=user, headers=extra)
        assert status == 401
        assert headers["www-authenticate"].startswith("Basic")
        assert error(json.loads(data))["msgId"] == "MQWB0104E"
        assert b"secret" not in data


def test_a_missing_csrf_header_gets_403_and_runs_nothing(client: Client) -> None:
    status, document = client.json(
        "POST", MQSC, {"type": "runCommand", "parameters": {"command": "DEFINE QLOCAL(CSRF.Q)"}}, csrf=False
    )
    assert status == 403 and error(document)["msgId"] == "MQWB0100E"
    status, _, _ = client.request("DELETE", message_url("SYSTEM.DEFAULT.LOCAL.QUEUE"), user=APP, csrf=False)
    assert status == 403
    shown = client.run("DISPLAY QLOCAL(CSRF.Q)")  # not defined: CSQM297I, nothing found
    assert "CSQM297I -CSQ1 CSQMDRTS NO QLOCAL FOUND MATCHING REQUEST CRITERIA" in shown["commandResponse"][0]["text"]


def test_roles_decide_what_a_user_may_do(client: Client) -> None:
    # MQWebAdminRO: displays only.
    assert client.mqsc({"type": "runCommand", "parameters": {"command": "DISPLAY QMGR"}}, user=READER)
    assert client.mqsc({"type": "runCommand", "parameters": {"command": "-CSQ1 DIS QL(*)"}}, user=READER)
    for body in (
        {"type": "runCommand", "parameters": {"command": "DEFINE QLOCAL(RO.Q)"}},
        {"type": "runCommandJSON", "command": "delete", "qualifier": "qlocal", "name": "SYSTEM.DEFAULT.LOCAL.QUEUE"},
    ):
        status, document = client.json("POST", MQSC, body, user=READER)
        assert status == 403 and error(document)["msgId"] == "MQWB0103E"
    status, document = client.json(
        "POST", TPF_MQSC, {"type": "runCommand", "parameters": {"command": "ZMQSC DEF QL-X"}}, user=READER
    )
    assert status == 403
    # The messaging API is MQWebUser's only (IBM: MQWebAdmin and MQWebAdminRO do not apply).
    for user in (ADMIN, READER):
        status, document = client.json("POST", message_url("SYSTEM.DEFAULT.LOCAL.QUEUE"), "x", user=user)
        assert status == 403 and error(document)["msgId"] == "MQWB0103E"
    # MQWebUser: displays, and other commands only with a grant (tests/test_rest_authority.py).
    shown = client.mqsc({"type": "runCommand", "parameters": {"command": "DISPLAY QMGR"}}, user=APP)
    assert shown["overallCompletionCode"] == 0
    refused = client.mqsc({"type": "runCommand", "parameters": {"command": "DEFINE QLOCAL(APP.Q)"}}, user=APP)
    assert (refused["overallCompletionCode"], refused["commandResponse"][0]["reasonCode"]) == (2, 2035)


def test_unknown_queue_manager_queue_and_uri_get_404(client: Client) -> None:
    status, document = client.json("POST", f"{V2}/admin/action/qmgr/NOPE/mqsc", {"type": "runCommand"})
    item = error(document)
    assert status == 404 and item["msgId"] == "MQWB0009E" and (item["completionCode"], item["reasonCode"]) == (2, 2058)
    assert item["message"] == "MQWB0009E: Could not query the queue manager 'NOPE'."
    status, document = client.json("GET", f"{V2}/admin/qmgr/csq1")  # names are case sensitive
    assert status == 404
    status, document = client.json("POST", message_url("NO.SUCH.QUEUE"), "x", user=APP)
    item = error(document)
    assert status == 404 and item["msgId"] == "MQT0364E" and item["reasonCode"] == 2085
    for path in ("/ibmmq/rest/v9/admin/qmgr", "/ibmmq/rest/v2/admin/queues", "/", "/ibmmq/rest/v2/../../etc/passwd"):
        status, document = client.json("GET", path)
        assert status == 404 and error(document)["msgId"] == "MQWB0116E"


@pytest.mark.parametrize(
    ("body", "msg_id", "text"),
    [
        (b"DEFINE QLOCAL(X)", "MQT0360E", "not valid JSON"),
        (b"\xff\xfe", "MQT0360E", "not UTF-8"),
        (b"[1, 2]", "MQT0361E", "not an array"),
        (b'"runCommand"', "MQT0361E", "not a string"),
        (b"{}", "MQT0362E", "type is missing"),
        (b'{"type": "runPCF"}', "MQT0362E", "'runPCF' is not runCommand"),
        (b'{"type": "runCommand"}', "MQT0362E", "parameters is missing"),
        (b'{"type": "runCommand", "parameters": {"command": 7}}', "MQT0362E", "command must be a string"),
        (b'{"type": "runCommand", "parameters": {"command": "  "}}', "MQT0362E", "is empty"),
        (b'{"type": "runCommandJSON", "qualifier": "qlocal"}', "MQT0362E", "command is missing"),
        (b'{"type": "runCommandJSON", "command": "display"}', "MQT0362E", "qualifier is missing"),
        (
            b'{"type": "runCommandJSON", "command": "display", "qualifier": "q", "parameters": []}',
            "MQT0362E",
            "parameters must be an object",
        ),
        (
            b'{"type": "runCommandJSON", "command": "display", "qualifier": "q", "responseParameters": "all"}',
            "MQT0362E",
            "responseParameters must be an array",
        ),
        (
            b'{"type": "runCommandJSON", "command": "define", "qualifier": "qlocal", "name": "B", '
            b'"parameters": {"descr": {"x": 1}}}',
            "MQT0366E",
            "DESCR holds an object where one value is wanted",
        ),
        (b"[" * 100000, "MQT0360E", "not valid JSON"),
        (
            b'{"type": "runCommand", "parameters": {"command": "DISPLAY QMGR\\nDEFINE QLOCAL(X)"}}',
            "MQT0362E",
            "must be one line",
        ),
        (
            b'{"type": "runCommandJSON", "command": "display", "qualifier": "qlocal(X) replace"}',
            "MQT0362E",
            "is not one word",
        ),
        (
            b'{"type": "runCommandJSON", "command": "define qlocal(Y)", "qualifier": "qlocal"}',
            "MQT0362E",
            "is not one word",
        ),
        (
            b'{"type": "runCommandJSON", "command": "display", "qualifier": "qlocal", "name": "a\\u0000b"}',
            "MQT0362E",
            "printable",
        ),
    ],
)
def test_bad_bodies_get_400_and_change_nothing(client: Client, body: bytes, msg_id: str, text: str) -> None:
    before = client.run("DISPLAY QLOCAL(*)")
    status, document = client.json("POST", MQSC, body, headers={"Content-Type": "application/json"})
    item = error(document)
    assert status == 400 and item["msgId"] == msg_id and text in item["message"], item
    assert client.run("DISPLAY QLOCAL(*)") == before


def test_a_body_over_the_bound_gets_413(client: Client) -> None:
    # Declared: refused at once, before the body comes (the server does not wait for it).
    with socket.create_connection(("127.0.0.1", client.port), timeout=30) as sock:
        sock.sendall(f"POST {MQSC} HTTP/1.1\r\nHost: t\r\nContent-Length: 10485760\r\n\r\n".encode())
        head, body = _response(sock)
    assert head.startswith(b"HTTP/1.1 413")
    assert error(json.loads(body))["msgId"] == "MQT0365E"
    # Chunked, so no length is declared: refused when the bound is passed.
    with socket.create_connection(("127.0.0.1", client.port), timeout=30) as sock:
        sock.sendall(f"POST {MQSC} HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
        sender = threading.Thread(target=_send_chunks, args=(sock, 10 * 1024 * 1024), daemon=True)
        sender.start()
        head, body = _response(sock)
        sender.join(30)
    assert head.startswith(b"HTTP/1.1 413")
    assert error(json.loads(body))["msgId"] == "MQT0365E"


def _send_chunks(sock: socket.socket, total: int) -> None:
    chunk = b"%x\r\n%s\r\n" % (65536, b" " * 65536)
    try:
        for _ in range(total // 65536):
            sock.sendall(chunk)
    except OSError:
        pass  # the server answered and closed: what the test expects


def _response(sock: socket.socket) -> tuple[bytes, bytes]:
    return read_response(sock.makefile("rb"))


def read_response(reader: Any) -> tuple[bytes, bytes]:
    """One response's head and body from a socket's file (Content-Length framing)."""
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        line = reader.readline()
        assert line, head
        head += line
    length = int(next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))[15:])
    return head, reader.read(length)


def test_wrong_methods_get_405_with_allow(client: Client) -> None:
    for method, path, allowed in (
        ("GET", MQSC, "POST"),
        ("DELETE", f"{V2}/admin/qmgr", "GET"),
        ("PUT", message_url(), "POST, DELETE, GET"),
    ):
        status, headers, data = client.request(method, path, user=APP if "messaging" in path else ADMIN)
        assert status == 405 and headers["allow"] == allowed
        assert error(json.loads(data))["msgId"] == "MQT0363E"


def test_bad_messaging_headers_and_media_types(client: Client) -> None:
    client.run("DEFINE QLOCAL(RQ)")
    for header, value in (
        ("ibm-mq-md-persistence", "sometimes"),
        ("ibm-mq-md-expiry", "-5"),
        ("ibm-mq-md-correlationId", "not-hex"),
    ):
        status, document = client.json(
            "POST", message_url(), "x", user=APP, headers={"Content-Type": "text/plain", header: value}
        )
        item = error(document)
        assert status == 400 and item["msgId"] == "MQWB0302E" and value in item["message"]
    status, document = client.json("POST", message_url(), "x", user=APP, headers={"Content-Type": "image/png"})
    assert status == 415 and error(document)["msgId"] == "MQWB0306E"
    status, document = client.json(
        "POST", message_url(), "x", user=APP, headers={"Content-Type": "text/plain;charset=latin-1"}
    )
    assert status == 415 and error(document)["msgId"] == "MQWB0305E"
    status, document = client.json("POST", MQSC, "{}", headers={"Content-Type": "text/plain"})
    assert status == 415
    status, document = client.json("DELETE", message_url() + "?wait=soon", user=APP)
    assert status == 400 and error(document)["msgId"] == "MQT0362E"
    assert depth(client, "RQ") == 0


def test_refused_put_carries_the_reason_code(client: Client) -> None:
    client.run("DEFINE QLOCAL(INHIBITED) PUT(DISABLED)")
    status, document = client.json(
        "POST", message_url("INHIBITED"), "x", user=APP, headers={"Content-Type": "text/plain"}
    )
    item = error(document)
    assert status == 500 and item["msgId"] == "MQWB0303E" and (item["completionCode"], item["reasonCode"]) == (2, 2051)


# ------------------------------------------------------------- configuration
def test_passwords_are_stored_hashed_and_the_listener_binds_127_0_0_1(state_dir: Path) -> None:
    configure(state_dir)
    text = (state_dir / "rest.yaml").read_text()
    assert "admin-secret" not in text and "scrypt$" in text
    assert (state_dir / "rest.yaml").stat().st_mode & 0o077 == 0
    config = load(state_dir)
    assert config is not None and config.host == "127.0.0.1"
    user = config.user("admin")
    assert user is not None and check_password(user.password, "admin-secret")
    assert not check_password(user.password, "admin-secreT")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("port: [", "not YAML"),
        ("- 1", "must be a mapping"),
        ("host: 127.0.0.1", "port is required"),
        ("port: 80\nhost: localhost.example", "not an IPv4 or IPv6 address"),
        ("port: 70000", "port must be from"),
        ("port: 1\nlisten: all", "unknown key listen"),
        ("port: 1\nusers: [{name: a, roles: [MQWebGod], password: x}]", "not a hash mqtool wrote"),
        ("port: 1\nusers: [{name: a, roles: [MQWebGod], password: 'scrypt$16384$8$1$AA==$AA=='}]", "not an mqweb role"),
    ],
)
def test_a_damaged_configuration_is_reported_and_nothing_listens(state_dir: Path, text: str, problem: str) -> None:
    state_dir.mkdir(parents=True)
    (state_dir / "rest.yaml").write_text(text)
    service = RestService(state_dir, Clock.from_setting(FROZEN))
    service.start()
    try:
        with pytest.raises(RuntimeError, match="MQT0352E") as raised:
            service.poll()
        assert problem in str(raised.value)
        service.poll()  # reported once; the loop goes on
        assert service.port is None
    finally:
        service.stop()


def test_a_port_in_use_is_reported_and_tried_again(state_dir: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        write(state_dir, RestConfig(port=port, users=()))
        service = RestService(state_dir, Clock.from_setting(FROZEN), retry_polls=1)
        service.start()
        try:
            with pytest.raises(RuntimeError, match="MQT0351E"):
                service.poll()
            service.poll()  # waits one poll before trying again
            with pytest.raises(RuntimeError, match="MQT0351E"):
                service.poll()
        finally:
            service.stop()


def test_a_document_becomes_the_parsed_command_one_value_per_parameter() -> None:
    from mqtool.parse.command import Param
    from mqtool.rest.build import build

    built = build(
        {
            "command": "define",
            "qualifier": "qlocal",
            "name": "lower.q",
            "parameters": {"descr": "It's mine", "defpsist": "yes", "replace": "no", "maxdepth": 5, "usage": "xmitq"},
        },
        "zos",
    )
    command = built.command
    assert (command.dialect, command.verb, command.object, command.name) == ("zos", "DEFINE", "QLOCAL", "lower.q")
    assert command.params == [
        Param("DESCR", "It's mine", True),
        Param("DEFPSIST", "yes", True),
        Param("NOREPLACE", None),
        Param("MAXDEPTH", "5", True),
        Param("USAGE", "xmitq", True),
    ]
    assert (
        command.text
        == "DEFINE QLOCAL('lower.q') DESCR('It''s mine') DEFPSIST('yes') NOREPLACE MAXDEPTH(5) USAGE('xmitq')"
    )
    tpf = build(
        {"command": "define", "qualifier": "ql", "name": "Q", "parameters": {"maxdepth": "5 USAGE-XMITQ"}}, "ztpf"
    )
    assert tpf.dialect == "ztpf_mq" and tpf.command.params == [Param("MAXDEPTH", "5 USAGE-XMITQ", True)]
    assert tpf.command.text == "ZMQSC DEFINE QL-Q MAXDEPTH-'5 USAGE-XMITQ'"


def test_the_verb_of_a_line_through_abbreviations_and_prefixes() -> None:
    from dataclasses import astuple

    from mqtool.rest.authority import verb_of_line as verb
    from mqtool.state import SystemRecord

    systems = [SystemRecord("CSQ1", "zos", {"cpf": "-CSQ1"})]
    assert astuple(verb("DIS QL(*)", systems))[:4] == ("zos", "DISPLAY", False, "QL")
    assert astuple(verb("-CSQ1DISPLAY QMGR", systems))[1:3] == ("DISPLAY", False)
    assert astuple(verb("ZMQSC DISPLAY QMGR", systems))[:3] == ("ztpf_mq", "DISPLAY", False)
    assert astuple(verb("-CSQ1 DEFINE QL(X)", systems))[:4] == ("zos", "DEFINE", True, "QL")
    assert astuple(verb("ZHTPS STATS S-HTTP81PORT RESET", systems))[:3] == ("ztpf_http", "STATS", True)
    assert astuple(verb("PING CHANNEL(X)", systems))[1:3] == ("PING", True)  # recognised, not implemented
    assert astuple(verb("HELLO", systems))[1:3] == (None, True)


def test_a_repeated_display_follows_every_change_of_the_store(client: Client, state_dir: Path) -> None:
    """Displays are answered again from the event loop while nothing changed; any
    commit, by the REST API itself or by another process's connection, is seen."""
    from mqtool.session import Session
    from mqtool.state import Store

    client.run("DEFINE QLOCAL(SEEN.Q)")
    display = {
        "type": "runCommandJSON",
        "command": "display",
        "qualifier": "qlocal",
        "name": "SEEN.Q",
        "responseParameters": ["curdepth", "descr"],
    }

    def shown() -> tuple[int, str]:
        parameters = client.mqsc(display)["commandResponse"][0]["parameters"]
        return parameters["curdepth"], parameters["descr"]

    assert shown() == shown() == (0, "")
    client.request("POST", message_url("SEEN.Q"), "x", user=APP, headers={"Content-Type": "text/plain"})
    assert shown() == (1, "")
    store = Store.open(state_dir)  # another connection, as another mqtool process has
    try:
        Session(store, Clock.from_setting(FROZEN), "CSQ1").execute("ALTER QLOCAL(SEEN.Q) DESCR('changed')")
    finally:
        store.close()
    assert shown() == (1, "changed")
    assert depth(client, "SEEN.Q") == 1


def test_directives_are_no_commands_of_the_rest_api(client: Client, state_dir: Path) -> None:
    """.advance, .system, .put file= act on the session and the machine: refused as
    unknown commands, nothing done."""
    for line in (".advance 1h", ".put RQ file=/etc/passwd", ".system TPF1"):
        document = client.run(line)
        item = document["commandResponse"][0]
        assert document["overallCompletionCode"] == 2 and item["completionCode"] == 2
        assert item["text"][1].startswith("MQT0001E Unknown command '.")
    client.run("DEFINE QLOCAL(AFTER.Q)")  # still on CSQ1, and the frozen clock has not moved
    text = client.run("DISPLAY QLOCAL(AFTER.Q) CRTIME")["commandResponse"][0]["text"]
    assert "CRTIME(15.41.22)" in text


def test_the_listener_binds_only_127_0_0_1_and_holds_connections_to_maxconn(state_dir: Path) -> None:
    users = (RestUser(ADMIN[0], ("MQWebAdmin",), hash_password(ADMIN[1])),)
    write(state_dir, RestConfig(port=0, maxconn=1, users=users))
    with RestService(state_dir, Clock.from_setting(FROZEN)) as service:
        assert service.server is not None and service.server.listening
        listener = service.server._listener
        assert listener is not None and listener.getsockname()[0] == "127.0.0.1"
        first = http.client.HTTPConnection("127.0.0.1", service.port, timeout=30)
        try:
            first.request("GET", f"{V2}/admin/qmgr", headers={"Authorization": Client(0).auth_header(ADMIN)})
            assert first.getresponse().read()  # the first connection is open (keep-alive)
            with socket.create_connection(("127.0.0.1", service.port), timeout=30) as second:
                assert second.recv(1024) == b""  # over maxconn: closed at once, unanswered
        finally:
            first.close()


def test_the_zowe_mq_plugin_request_as_it_sends_it(client: Client) -> None:
    """zowe mq run mqsc QMGR CMD: REST API v1, CSRF header "true", runCommand, and the
    answer's commandResponse[].text printed."""
    status, _, data = client.request(
        "POST",
        "/ibmmq/rest/v1/admin/action/qmgr/CSQ1/mqsc",
        json.dumps({"type": "runCommand", "parameters": {"command": "DISPLAY QLOCAL(SYSTEM.DEAD.QUEUE)"}}),
        csrf=False,
        headers={"Content-Type": "application/json", "ibm-mq-rest-csrf-token": "true"},
    )
    document = json.loads(data)
    assert status == 200 and document["overallCompletionCode"] == 0
    assert "QUEUE(SYSTEM.DEAD.QUEUE)" in document["commandResponse"][0]["text"]
    assert document["commandResponse"][0]["text"][-1].startswith("CSQ9022I -CSQ1 CSQMDRTS ' DISPLAY QLOCAL'")


def test_a_command_never_reaches_another_queue_manager_than_the_urls(client: Client) -> None:
    """The queue manager in the URL is the only target: an MQSC command sent to the z/TPF
    queue manager, or one with another system's CPF, is refused and changes nothing."""
    assert client.run("DEFINE QLOCAL(NOT.HERE)", TPF_MQSC)["overallCompletionCode"] == 2
    assert client.run("-CSQ1 DEFINE QLOCAL(NOT.THERE)", TPF_MQSC)["overallCompletionCode"] == 2
    shown = client.mqsc({"type": "runCommandJSON", "command": "display", "qualifier": "qlocal", "name": "NOT.*"})
    assert shown["commandResponse"] == [] and shown["overallCompletionCode"] == 0
