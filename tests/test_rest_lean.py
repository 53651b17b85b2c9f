"""The REST listener's per-request shortcuts (issue 19, third round) answer exactly as
the long ways they replace: the body parser's one decoder as json.loads with the same
hooks, the kept credential digests as HMAC-SHA256, the answer cache on the reader's
reading of the store's generation."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest

from mqtool.clock import Clock
from mqtool.rest import api
from mqtool.rest.config import load
from mqtool.rest.reply import RestError
from mqtool.rest.server import Authenticator, RestContext
from mqtool.session import Session
from mqtool.state import Store
from tests.conftest import FROZEN
from tests.test_rest_api import command_json, configure

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


def test_the_answer_cache_gives_an_answer_again_only_while_the_store_is_unchanged(state_dir: Path) -> None:
    """A display asked again is the kept answer (the same Reply, no command run) while no
    connection commits; after another process's commit it runs again and shows it; the
    generation is read once a request (on the reader's connection)."""
    configure(state_dir)
    admin = next(user for user in load(state_dir).users if user.name == "admin")
    body = json.dumps(command_json("DISPLAY", "QLOCAL", "KEPT.Q")).encode()

    async def scenario() -> None:
        rest = RestContext(state_dir, Clock.from_setting(FROZEN), load(state_dir))
        try:
            assert rest.generation() is None  # the store thread has not opened the store
            await rest.mqsc("CSQ1", json.dumps(command_json("DEFINE", "QLOCAL", "KEPT.Q")).encode(), admin)
            first = await rest.mqsc("CSQ1", body, admin)
            reads = _count_generations(rest)
            again = await rest.mqsc("CSQ1", body, admin)
            assert again is first and reads == [1]
            assert (await rest.mqsc("CSQ1", body + b" ", admin)) is not first  # another body
            other = Store.open(state_dir)
            try:
                Session(other, Clock.from_setting(FROZEN), "CSQ1").execute("ALTER QLOCAL(KEPT.Q) DESCR('changed')")
            finally:
                other.close()
            changed = await rest.mqsc("CSQ1", body, admin)
            assert changed is not first
            assert json.loads(changed.body)["commandResponse"][0]["parameters"]["descr"] == "changed"
            assert (await rest.mqsc("CSQ1", body, admin)) is changed
        finally:
            await rest.close()

    asyncio.run(scenario())


def _count_generations(rest: RestContext) -> list[int]:
    """Counts the reads of the store's generation by the next request (the list's one item)."""
    counted = [0]
    store = rest.reader.session.store
    original = store.generation

    def counting() -> tuple[int, int]:
        counted[0] += 1
        if counted[0] == 1:
            store.generation = original  # type: ignore[method-assign]
        return original()

    store.generation = counting  # type: ignore[method-assign]
    return counted
