"""The REST listener's per-request shortcuts (issue 19, third round) answer exactly as
the long ways they replace: the body parser's one decoder as json.loads with the same
hooks, the kept credential digests as HMAC-SHA256."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import pytest

from mqtool.rest import api
from mqtool.rest.reply import RestError
from mqtool.rest.server import Authenticator

BODIES = [
    b'{"type": "runCommandJSON", "command": "DISPLAY", "qualifier": "QLOCAL", "name": "Q"}',
    b'\xef\xbb\xbf{"a": 1}',
    b'{"a": 1, "a": 2}',
    b'{"a": {"b": 1, "b": 2}}',
    b"[1]",
    b'"text"',
    b"null",
    b'{"a": NaN}',
    b'{"a": -Infinity}',
    b'{"a": 1e999}',
    b'{"a": 1.5, "b": -0, "c": 10}',
    b'  {"a": 1}  x',
    b'{"a": ' + b"1" * 70 + b"}",
    b'{"a": "\\ud800"}',
    b"",
    b"   ",
    b"{" * 40 + b"}" * 40,
    b'{"a": [' + b"[" * 40 + b"]" * 40 + b"]}",
]


def _reference(body: bytes) -> Any:
    """parse_body as it was: json.loads with the hooks given on every call."""
    text = body.decode("utf-8")
    if text.count("[") + text.count("{") > api.MAX_DEPTH and api._depth(text) > api.MAX_DEPTH:
        raise RestError(400, "MQT0360E", problem=f"nested more than {api.MAX_DEPTH} levels deep")
    try:
        document = json.loads(
            text,
            parse_int=api._number,
            parse_float=api._number,
            parse_constant=api._constant,
            object_pairs_hook=api._unique,
        )
    except api._BadJson as exc:
        raise RestError(400, "MQT0360E", problem=str(exc)) from None
    except json.JSONDecodeError as exc:
        raise RestError(400, "MQT0360E", problem=f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(document, dict):
        return "not an object"
    return document


def _outcome(parse: Any, body: bytes) -> Any:
    try:
        return parse(body)
    except RestError as error:
        return (error.status, error.reply().body)


@pytest.mark.parametrize("body", BODIES)
def test_the_body_parser_answers_as_json_loads_with_its_hooks(body: bytes) -> None:
    found = _outcome(api.parse_body, body)
    expected = _outcome(_reference, body)
    if expected == "not an object":
        assert isinstance(found, tuple) and found[0] == 400 and b"MQT0361E" in found[1]
    else:
        assert found == expected


def test_kept_credentials_are_hmac_sha256_digests() -> None:
    auth = Authenticator(())
    header = "Basic YWRtaW46c2VjcmV0"
    assert auth._digest(header) == hmac.new(auth._key, header.encode("latin-1"), hashlib.sha256).digest()
