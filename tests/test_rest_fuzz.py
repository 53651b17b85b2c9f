"""Malformed requests (issue 16, item 2): every malformed body is a 400 with IBM's error
JSON, and no body, document, method, path, query string or header gives a 500 or a
traceback. Hypothesis drives the body parser, runCommandJSON documents built from the
keyword tables (in process), and raw requests over a socket."""

from __future__ import annotations

import json
import socket
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool import tables
from mqtool.clock import Clock
from mqtool.rest.api import MAX_DEPTH, RestApi, parse_body
from mqtool.rest.config import RestUser
from mqtool.rest.reply import RestError
from mqtool.rest.service import RestService
from tests.conftest import FROZEN
from tests.test_rest_api import ADMIN, MQSC, Client, configure, error
from tests.test_rest_authority import api  # noqa: F401  (the fixture: a RestApi on a fresh store)

OPERATOR = RestUser("admin", ("MQWebAdmin",), "unused")


# -------------------------------------------------------------- the body parser
@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b'{"a": ' + b"9" * 5000 + b"}", "a number of more than 64 characters"),
        (b'{"a": 1e' + b"9" * 5000 + b"}", "a number of more than 64 characters"),
        (b'{"a": -' + b"1" * 100 + b"}", "a number of more than 64 characters"),
        (b'{"a": NaN}', "NaN is not a JSON value"),
        (b'{"a": Infinity}', "Infinity is not a JSON value"),
        (b'{"a": -Infinity}', "-Infinity is not a JSON value"),
        (b'{"type": "runCommand", "type": "runCommandJSON"}', "the key 'type' is given twice"),
        (b'{"a": {"b": 1, "b": 2}}', "the key 'b' is given twice"),
        (b"[" * 100 + b"]" * 100, f"nested more than {MAX_DEPTH} levels deep"),
        (b'{"a":' * 5000 + b"1" + b"}" * 5000, f"nested more than {MAX_DEPTH} levels deep"),
        (b"\xc3\x28", "not UTF-8"),
        (b'{"a": "\xed\xa0\x80"}', "not UTF-8"),  # an encoded surrogate
        (b"", "Expecting value"),
        (b"\xef\xbb\xbf{}", "Unexpected UTF-8 BOM"),
        (b'{"a": 1} {"b": 2}', "Extra data"),
    ],
)
def test_malformed_bodies_are_400(body: bytes, problem: str) -> None:
    with pytest.raises(RestError) as raised:
        parse_body(body)
    item = error(json.loads(raised.value.reply().body))
    assert raised.value.status == 400 and item["msgId"] == "MQT0360E" and problem in item["message"], item


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    assert parse_body(b'{"a": "' + b"[{" * 1000 + b'\\" ]"}') == {"a": "[{" * 1000 + '" ]'}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=200), json_values.map(lambda v: json.dumps(v).encode())))
def test_any_body_is_an_object_or_a_400(body: bytes) -> None:
    try:
        document = parse_body(body)
    except RestError as refused:
        assert refused.status == 400 and refused.msg_id in ("MQT0360E", "MQT0361E")
        return
    assert isinstance(document, dict)


# ------------------------------------------------ runCommandJSON documents
def _documents() -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    """Documents naming the verbs, objects and keywords of the tables, with values of
    every JSON kind, for both platforms."""
    words = {}
    for dialect in tables.DIALECTS:
        table = tables.load(dialect)
        keywords = sorted({k for obj in table.objects.values() for k in obj.keywords})
        words[dialect] = (sorted(table.verbs), sorted(table.objects), keywords)
    values = st.one_of(
        st.text(max_size=30),
        st.sampled_from(["", " ", "*", "YES", "NO", "0", "-1", "99999999999999", "ALL", "'", "(", "A,B"]),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.booleans(),
        st.none(),
        st.lists(st.text(max_size=8), max_size=3),
        st.floats(allow_nan=False, allow_infinity=False),
    )

    @st.composite
    def document(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
        dialect = draw(st.sampled_from(tables.DIALECTS))
        verbs, objects, keywords = words[dialect]
        qmgr = "CSQ1" if dialect == "zos" else "TPFQM"
        qualifier = draw(st.sampled_from(objects))
        if dialect == "ztpf_http":
            qualifier = "SERVER"
        body: dict[str, Any] = {
            "type": "runCommandJSON",
            "command": draw(st.sampled_from(verbs)),
            "qualifier": qualifier,
        }
        if draw(st.booleans()):
            body["name"] = draw(
                st.sampled_from(["FUZZ.Q", "*", "HTTP81PORT", "SYSTEM.DEAD.QUEUE", "a b"]) | st.text(max_size=10)
            )
        body["parameters"] = draw(st.dictionaries(st.sampled_from(keywords), values, max_size=4))
        if draw(st.booleans()):
            body["responseParameters"] = draw(st.lists(st.sampled_from([*keywords, "all"]), max_size=3))
        if dialect == "zos" and draw(st.booleans()):
            body["where"] = draw(
                st.sampled_from(["curdepth gt 0", "descr eq 'x'", "maxdepth", "x y z w"]) | st.text(max_size=12)
            )
        return qmgr, body

    return document()


def test_documents_from_the_tables_never_fail_inside(api: RestApi) -> None:  # noqa: F811
    """Whatever a document names and holds: an answer (200) or IBM's error JSON (400),
    never an exception from the session, a handler or the JSON renderer."""

    @settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_documents())
    def check(case: tuple[str, dict[str, Any]]) -> None:
        qmgr, document = case
        try:
            reply = api.mqsc(qmgr, json.dumps(document).encode(), OPERATOR)
        except RestError as refused:
            # 404: an earlier document deleted the queue manager (DELETE QMGR is a command too).
            assert (refused.status, refused.msg_id) in (
                (400, "MQT0362E"),
                (400, "MQT0366E"),
                (400, "MQT0369E"),  # a DISPLAY runCommandJSON does not take
                (404, "MQWB0009E"),
            )
            return
        answer = json.loads(reply.body)
        assert reply.status == 200 and answer["overallCompletionCode"] in (0, 2)

    check()


# ------------------------------------------------------ the request over a socket
@pytest.fixture
def served(state_dir: Path) -> Iterator[RestService]:
    configure(state_dir)
    with RestService(state_dir, Clock.from_setting(FROZEN)) as service:
        yield service


segment = st.one_of(
    st.sampled_from(["ibmmq", "rest", "v1", "v2", "v3", "admin", "qmgr", "action", "CSQ1", "TPFQM", "mqsc"]),
    st.sampled_from(["messaging", "queue", "message", "%2F", "%00", "%ff", "..", ".", "%2e%2e", "~", "%"]),
    st.text(alphabet=string.ascii_letters + string.digits + "%._-~!$&'()*+,;=:@", max_size=12),
)
header_name = st.sampled_from(
    ["Authorization", "Content-Type", "ibm-mq-rest-csrf-token", "ibm-mq-md-expiry", "ibm-mq-md-persistence",
     "ibm-mq-md-correlationId", "ibm-mq-md-priority", "Accept", "X-Any", "Transfer-Encoding", "Expect"]
)  # fmt: skip
header_value = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    method=st.sampled_from(["GET", "POST", "DELETE", "PUT", "HEAD", "OPTIONS", "PATCH", "G\x7fT"]),
    segments=st.lists(segment, max_size=8),
    prefix=st.booleans(),
    query=st.text(alphabet=string.ascii_letters + string.digits + "=&%+;?/", max_size=30),
    headers=st.lists(st.tuples(header_name, header_value), max_size=5),
    body=st.binary(max_size=60),
)
def test_no_request_gets_a_500(
    served: RestService,
    method: str,
    segments: list[str],
    prefix: bool,
    query: str,
    headers: list[tuple[str, str]],
    body: bytes,
) -> None:
    path = "/" + "/".join((["ibmmq", "rest", "v2"] if prefix else []) + segments)
    target = path + ("?" + query if query else "")
    head = [f"{method} {target} HTTP/1.1", "Host: fuzz", f"Authorization: {Client.auth_header(ADMIN)}"]
    head += [f"{name}: {value}" for name, value in headers if name not in ("Transfer-Encoding",)]
    head.append(f"Content-Length: {len(body)}")
    raw = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1", "replace") + body
    assert served.port is not None
    with socket.create_connection(("127.0.0.1", served.port), timeout=30) as sock:
        sock.sendall(raw)
        sock.shutdown(socket.SHUT_WR)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    status = reply.split(b" ", 2)[1] if reply.startswith(b"HTTP/1.1 ") else b""
    assert status and not status.startswith(b"5"), reply[:300]
    assert served.server is not None and served.server.internal_errors == 0


def test_a_huge_number_through_http_is_400(served: RestService) -> None:
    assert served.port is not None
    status, document = Client(served.port).json(
        "POST", MQSC, b'{"type": "runCommand", "n": ' + b"7" * 5000 + b"}", headers={"Content-Type": "application/json"}
    )
    assert status == 400 and error(document)["msgId"] == "MQT0360E"
