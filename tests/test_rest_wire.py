"""The REST listener's lean reader (mqtool/rest/wire.py): it takes only plain requests,
parses them as h11 does, writes response heads byte for byte as h11 writes them, and
hands every other request to h11 with the bytes read so far; over a socket, a plain
request and the same request read by h11 get the same bytes back, pipelined requests
are answered in order, and the bounds (head, body, timeout) hold."""

from __future__ import annotations

import base64
import http
import socket
from collections.abc import Iterator
from pathlib import Path

import h11
import pytest

from mqtool.clock import Clock
from mqtool.rest import wire
from mqtool.rest.config import RestConfig, RestUser, hash_password, write
from mqtool.rest.service import RestService
from mqtool.rest.wire import head_end, plain_request, response_head
from tests.conftest import FROZEN
from tests.test_rest_api import ADMIN, MQSC, Client, read_response

DISPLAY = (
    b'{"type": "runCommandJSON", "command": "DISPLAY", "qualifier": "QLOCAL", "name": "SYSTEM.DEFAULT.LOCAL.QUEUE"}'
)
AUTH = ("Basic " + base64.b64encode(":".join(ADMIN).encode()).decode()).encode()


def _request(body: bytes = DISPLAY, method: bytes = b"POST", path: bytes = MQSC.encode(), extra: bytes = b"") -> bytes:
    head = (
        b"%s %s HTTP/1.1\r\nHost: t\r\nAuthorization: %s\r\nibm-mq-rest-csrf-token: x\r\n"
        b"Content-Type: application/json\r\n%sContent-Length: %d\r\n\r\n"
    ) % (method, path, AUTH, extra, len(body))
    return head + body


# ------------------------------------------------------------------ parsing
def test_a_plain_request_is_parsed_as_h11_parses_it() -> None:
    raw = _request(extra=b"X-Blanks:  \t spaced value \t\r\nConnection: Keep-Alive\r\n")
    end = head_end(raw)
    parsed = plain_request(raw[:end], 4096)
    assert parsed is not None
    request, length = parsed
    assert raw[end:] == DISPLAY and length == len(DISPLAY)
    protocol = h11.Connection(h11.SERVER)
    protocol.receive_data(raw)
    event = protocol.next_event()
    assert isinstance(event, h11.Request)
    assert (request.method, request.target, request.http_version) == (event.method, event.target, b"1.1")
    assert request.headers == list(event.headers)


@pytest.mark.parametrize(
    "raw",
    [
        _request(extra=b"Transfer-Encoding: chunked\r\n"),
        _request(extra=b"Expect: 100-continue\r\n"),
        _request(extra=b"Connection: close\r\n"),
        _request(extra=b"Upgrade: h2c\r\n"),
        _request(extra=b"Host: second\r\n"),
        _request(extra=b"Content-Length: 5\r\n"),
        _request(extra=b"X-Folded: a\r\n continued\r\n"),
        _request(extra=b"X-Latin: caf\xe9\r\n"),
        _request(extra=b"X-Control: a\x01b\r\n"),
        _request(extra=b"Bad Name: x\r\n"),
        _request(extra=b"NoColon\r\n"),
        _request(method=b"HEAD"),
        _request(method=b"PUT"),
        _request().replace(b"HTTP/1.1", b"HTTP/1.0", 1),
        _request().replace(b"Host: t\r\n", b""),
        _request().replace(b"Content-Length: ", b"Content-Length: +", 1),
        _request().replace(MQSC.encode(), MQSC.encode() + b"\xff", 1),
        _request(body=b" " * 5000),  # over the body bound given below
    ],
)
def test_anything_not_plain_is_left_to_h11(raw: bytes) -> None:
    end = head_end(raw)
    assert end > 0
    assert plain_request(raw[:end], 4096) is None


def test_header_lines_read_before_are_judged_the_same_again() -> None:
    """The lines kept (wire._LINES) give the answer parsing gives: a refused line is
    refused again, a long line is judged each time and never kept."""
    wire._LINES.clear()
    for _ in range(2):
        test_a_plain_request_is_parsed_as_h11_parses_it()
        for raw in (_request(extra=b"X-Control: a\x01b\r\n"), _request(extra=b"X-Long: " + b"a\x01" * 200 + b"\r\n")):
            assert plain_request(raw[: head_end(raw)], 4096) is None
    assert wire._LINES[b"X-Control: a\x01b"] == ()
    assert not any(len(line) > 256 for line in wire._LINES)
    for number in range(wire._LINES_KEPT + 10):  # bounded: emptied when full
        raw = _request(extra=b"X-N: %d\r\n" % number)
        assert plain_request(raw[: head_end(raw)], 4096) is not None
    assert len(wire._LINES) <= wire._LINES_KEPT


def test_lines_that_carry_secrets_are_never_kept() -> None:
    """Credentials and session cookies, read or written, are judged every time and kept
    nowhere: no password or token outlives the request that brought it."""
    wire._LINES.clear()
    wire._OUT_LINES.clear()
    secrets = (
        b"Authorization: Basic bXFhZG1pbjpzZWNyZXQ=",
        b"authorization: Basic d3Jvbmc6Z3Vlc3M=",
        b"Cookie: LtpaToken2=abc123",
        b"Proxy-Authorization: Basic eDp5",
    )
    for _ in range(2):
        for line in secrets:
            raw = _request(extra=line + b"\r\n")
            parsed = plain_request(raw[: head_end(raw)], 4096)
            assert parsed is not None
            assert (line.partition(b":")[0].lower(), line.partition(b":")[2].strip()) in parsed[0].headers
        response_head(200, [("Set-Cookie", "LtpaToken2=abc123; Secure"), ("Content-Length", "0")])
    assert not any(line in wire._LINES for line in secrets)
    assert not any(line.lower().startswith(b"authorization") for line in wire._LINES)
    assert b"Host: t" in wire._LINES  # the other lines are still kept
    assert not any(name.lower() == "set-cookie" for name, _ in wire._OUT_LINES)
    assert ("Content-Length", "0") in wire._OUT_LINES


def test_a_head_that_ends_with_a_bare_lf_is_left_to_h11() -> None:
    assert head_end(b"POST / HTTP/1.1\nHost: t\n\n") == -1
    assert head_end(b"POST / HTTP/1.1\r\nHost: t\r\n") == 0  # not complete yet


@pytest.mark.parametrize(
    ("status", "headers"),
    [
        (200, [("Content-Type", "application/json;charset=utf-8"), ("Content-Length", "12")]),
        (
            401,
            [
                ("Content-Type", "application/json"),
                ("WWW-Authenticate", 'Basic realm="mqtool"'),
                ("Content-Length", "2"),
            ],
        ),
        (405, [("Allow", "POST"), ("Content-Length", "0"), ("Connection", "close")]),
        (204, [("Content-Length", "0")]),
        (201, [("ibm-mq-md-messageId", "414d51"), ("Content-Length", "0"), ("X-Empty", "")]),
    ],
)
def test_a_response_head_is_written_as_h11_writes_it(status: int, headers: list[tuple[str, str]]) -> None:
    protocol = h11.Connection(h11.SERVER)
    protocol.receive_data(_request())
    assert isinstance(protocol.next_event(), h11.Request)
    expected = protocol.send(h11.Response(status_code=status, headers=headers, reason=http.HTTPStatus(status).phrase))
    assert response_head(status, headers) == expected
    assert response_head(status, headers) == expected  # again, from the lines kept


@pytest.mark.parametrize("header", [("X-Bad", "a\r\nInjected: yes"), ("Bad Name", "x"), ("X-Blank", " padded")])
def test_a_header_h11_would_refuse_is_refused(header: tuple[str, str]) -> None:
    for _ in range(2):  # never kept
        with pytest.raises(h11.LocalProtocolError):
            response_head(200, [header, ("Content-Length", "0")])
    with pytest.raises(h11.LocalProtocolError, match="Content-Length"):
        response_head(200, [])


# ------------------------------------------------------------------ over a socket
@pytest.fixture
def port(state_dir: Path) -> Iterator[int]:
    user = RestUser(ADMIN[0], ("MQWebAdmin",), hash_password(ADMIN[1]))
    write(state_dir, RestConfig(port=0, maxbody=4096, timeout=0.5, users=(user,)))
    with RestService(state_dir, Clock.from_setting(FROZEN)) as service:
        assert service.port
        yield service.port


def _exchange(port: int, raw: bytes, answers: int = 1) -> list[bytes]:
    """Sends `raw` at once and reads `answers` whole responses (head and body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(raw)
        return _read(sock, answers)


def _read(sock: socket.socket, answers: int) -> list[bytes]:
    reader = sock.makefile("rb")
    return [b"".join(read_response(reader)) for _ in range(answers)]


@pytest.mark.parametrize(
    "raw",
    [
        _request(),
        _request(body=b"not json"),
        _request(path=b"/ibmmq/rest/v2/nowhere"),
        _request(method=b"GET"),
        _request().replace(b"ibm-mq-rest-csrf-token: x\r\n", b""),
        _request().replace(b"Content-Type: application/json", b"Content-Type: text/plain"),
        _request().replace(b"Authorization: " + AUTH + b"\r\n", b""),
        _request(method=b"DELETE", path=b"/ibmmq/rest/v2/messaging/qmgr/CSQ1/queue/NO.SUCH.Q/message", body=b""),
    ],
)
def test_the_plain_path_answers_byte_for_byte_as_h11s(port: int, raw: bytes) -> None:
    # A header value with a Latin-1 byte: h11 takes it, the lean reader leaves it to h11.
    by_h11 = raw.replace(b"Host: t\r\n", b"Host: t\r\nX-Note: caf\xe9\r\n")
    assert plain_request(by_h11[: head_end(by_h11)], 4096) is None
    assert _exchange(port, raw) == _exchange(port, by_h11)


def test_pipelined_requests_plain_and_not_are_answered_in_order(port: int) -> None:
    second = _request(body=b"not json")
    third = _request(extra=b"X-Note: caf\xe9\r\n", path=b"/ibmmq/rest/v2/nowhere")
    answers = _exchange(port, _request() + second + third + _request(), 4)
    assert [answer.split(b" ", 2)[1] for answer in answers] == [b"200", b"400", b"404", b"200"]
    assert answers[0] == answers[3]


def test_a_request_in_pieces_is_answered_whole(port: int) -> None:
    raw = _request()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        for start in range(0, len(raw), 37):
            sock.sendall(raw[start : start + 37])
        (answer,) = _read(sock, 1)
    assert answer == _exchange(port, raw)[0]


def test_the_bounds_hold_on_the_plain_path(port: int) -> None:
    # A body over maxbody: 413 at once (h11's path, which the lean reader hands it to).
    (answer,) = _exchange(port, _request(body=b" " * 5000))
    assert answer.startswith(b"HTTP/1.1 413 ")
    # A head over the limit without its end: 431.
    (answer,) = _exchange(port, b"POST / HTTP/1.1\r\nX-Long: " + b"a" * 70000)
    assert answer.startswith(b"HTTP/1.1 431 ")
    # A head that never ends, a body that never comes: 408 at the timeout, then closed.
    for partial in (b"POST / HTTP/1.1\r\nHost: t\r\n", _request()[:-10]):
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(partial)
            (answer,) = _read(sock, 1)
            assert answer.startswith(b"HTTP/1.1 408 ") and b"Connection: close" in answer
            assert sock.recv(1) == b""


def test_a_client_that_leaves_mid_request_gets_no_answer(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(_request()[:-10])
        sock.shutdown(socket.SHUT_WR)
        assert sock.recv(65536) == b""
    assert Client(port).json("POST", MQSC, DISPLAY, headers={"Content-Type": "application/json"})[0] == 200
