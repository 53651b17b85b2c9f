"""runCommandJSON bodies written straight from a display's blocks (mqtool/rest/display.py):
byte for byte what json.dumps writes of mqtool.render.json's document, for every z/OS
object type, generic names, chosen attributes, lists, switches, odd characters; and
None (the caller renders the long way) for everything the direct writer does not do."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.render.json import response_json
from mqtool.response import Message, Response
from mqtool.rest.display import display_body
from mqtool.rest.reply import json_reply
from mqtool.session import Session
from mqtool.state import Store
from tests.conftest import FROZEN

SETUP = [
    "-CSQ1 DEFINE QLOCAL(ORDERS) MAXDEPTH(5000) DESCR('Orders, \"quoted\" and caf\u00e9') TRIGGER",
    "-CSQ1 DEFINE QLOCAL(OTHER.Q) NOTRIGGER USAGE(XMITQ) DESCR(' blanks around ')",
    "-CSQ1 DEFINE QALIAS(ALIAS.Q) TARGET(ORDERS)",
    "-CSQ1 DEFINE QREMOTE(REMOTE.Q) RNAME(THERE) RQMNAME(QM2) XMITQ(OTHER.Q)",
    "-CSQ1 DEFINE QMODEL(MODEL.Q)",
    "-CSQ1 DEFINE NAMELIST(NL1) NAMES(A,B,C)",
    "-CSQ1 DEFINE PROCESS(PROC1) APPLICID('app')",
    "-CSQ1 DEFINE CHANNEL(TO.QM2) CHLTYPE(SDR) CONNAME('host(1414)') XMITQ(OTHER.Q)",
    "-CSQ1 DEFINE CHANNEL(SVR.CONN) CHLTYPE(SVRCONN)",
    "-CSQ1 DEFINE TOPIC(SPORTS) TOPICSTR('sports')",
    "-CSQ1 DEFINE STGCLASS(SC1) PSID(1)",
    "-CSQ1 DEFINE AUTHINFO(AI1) AUTHTYPE(IDPWOS)",
]

DISPLAYS = [
    "-CSQ1 DISPLAY QLOCAL(ORDERS)",
    "-CSQ1 DISPLAY QLOCAL(ORDERS) ALL",
    "-CSQ1 DISPLAY QLOCAL(*)",
    "-CSQ1 DISPLAY QLOCAL(ORDERS) CURDEPTH DESCR TRIGGER",
    "-CSQ1 DISPLAY QUEUE(*)",
    "-CSQ1 DISPLAY QUEUE(*) ALL",
    "-CSQ1 DISPLAY QALIAS(ALIAS.Q)",
    "-CSQ1 DISPLAY QREMOTE(REMOTE.Q)",
    "-CSQ1 DISPLAY QMODEL(*)",
    "-CSQ1 DISPLAY NAMELIST(NL1)",
    "-CSQ1 DISPLAY PROCESS(*)",
    "-CSQ1 DISPLAY CHANNEL(*)",
    "-CSQ1 DISPLAY CHANNEL(TO.QM2) ALL",
    "-CSQ1 DISPLAY TOPIC(*)",
    "-CSQ1 DISPLAY STGCLASS(*)",
    "-CSQ1 DISPLAY AUTHINFO(*)",
    "-CSQ1 DISPLAY QMGR",
    "-CSQ1 DISPLAY QMGR ALL",
    "-CSQ1 DISPLAY QSTATUS(ORDERS)",
    "-CSQ1 DISPLAY QSTATUS(*) TYPE(HANDLE)",
    "-CSQ1 DISPLAY CHSTATUS(*)",
    "-CSQ1 DISPLAY SUB(*)",
    "-CSQ1 DISPLAY CONN(*)",
    "-CSQ1 DISPLAY CONN(*) TYPE(HANDLE)",
    "-CSQ1 DISPLAY QLOCAL(*) WHERE(MAXDEPTH GT 100)",
    "-CSQ1 DISPLAY QLOCAL(NO.SUCH.Q)",
    "-CSQ1 DISPLAY QLOCAL(ORDERS) NOSUCHKEYWORD",
    "-CSQ1 DEFINE QLOCAL(ORDERS)",
    "ZMQSC DISPLAY QL-*",
]


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    store = Store.open(tmp_path_factory.mktemp("display") / "state")
    clock = Clock.from_setting(FROZEN)
    ensure_complex(store, clock.timestamp())
    session = Session(store, clock)
    for line in SETUP:
        outcome = session.execute(line)
        assert outcome.status == "ok", outcome.lines
    yield session
    store.close()


def _long_way(response: Response, session: Session | None = None, system: str | None = None) -> bytes:
    """The body as json_reply writes mqtool.render.json's document."""
    known = None if session is None else next((s for s in session.systems() if s.name == system), None)
    return json_reply(200, response_json(response, known)).body


@pytest.mark.parametrize("line", DISPLAYS)
def test_the_direct_body_is_the_long_ways_byte_for_byte(session: Session, line: str) -> None:
    outcome = session.execute(line)
    assert outcome.response is not None
    body = display_body(outcome.response)
    if body is not None:
        assert body == _long_way(outcome.response, session, outcome.system)
        assert outcome.response.ok


@pytest.mark.parametrize(
    "line", ["-CSQ1 DISPLAY QLOCAL(ORDERS)", "-CSQ1 DISPLAY QUEUE(*) ALL", "-CSQ1 DISPLAY CHANNEL(*)"]
)
def test_the_common_displays_take_the_direct_way(session: Session, line: str) -> None:
    outcome = session.execute(line)
    assert outcome.response is not None and display_body(outcome.response) is not None


@pytest.mark.parametrize(
    "line",
    [
        "-CSQ1 DISPLAY QLOCAL(NO.SUCH.Q)",  # nothing found: no block
        "-CSQ1 DISPLAY QLOCAL(ORDERS) NOSUCHKEYWORD",  # a failure
        "-CSQ1 DEFINE QLOCAL(ORDERS)",  # a failure
        "ZMQSC DISPLAY QL-*",  # z/TPF: its own blocks
    ],
)
def test_other_answers_take_the_long_way(session: Session, line: str) -> None:
    outcome = session.execute(line)
    assert outcome.response is not None and display_body(outcome.response) is None


def _block(attrs: list[tuple[str, object]], objtype: str = "QLOCAL", **fields: object) -> Response:
    response = Response()
    response.add("CSQM201I", verb="DISPLAY", objtype=objtype, **fields).attrs = attrs
    return response


@pytest.mark.parametrize(
    "attrs",
    [
        [("QUEUE", "Q1"), ("CURDEPTH", "007"), ("MAXDEPTH", "12x"), ("DESCR", '  tab\there \u2603 \\ "  ')],
        [("QUEUE", "Q1"), ("CURDEPTH", 5), ("DESCR", None), ("NOTRIGGER", None)],
        [("QUEUE", "Q1"), ("CURRENT", None), ("DESCR", ("a", "b")), ("MAXDEPTH", True), ("ALTDATE", 1.5)],
        [("QUEUE", "Q1"), ("CLUSNL", " , A ,, B "), ("CLUSTER", "")],
    ],
)
def test_odd_values_are_written_as_json_dumps_writes_them(attrs: list[tuple[str, object]]) -> None:
    response = _block(attrs)
    assert display_body(response) == _long_way(response)


def test_a_block_naming_a_parameter_twice_takes_the_long_way() -> None:
    # TRIGGER and NOTRIGGER both give `trigger`: the dictionary keeps one of them.
    response = _block([("QUEUE", "Q1"), ("TRIGGER", None), ("NOTRIGGER", None)])
    assert display_body(response) is None
    assert json.loads(_long_way(response))  # type: ignore[arg-type]


def test_a_nested_block_takes_the_long_way() -> None:
    response = _block([("CONN", "X")], objtype="CONN", nested={"conn": "X"})
    assert display_body(response) is None


def test_another_message_between_blocks_is_left_out_as_the_long_way_leaves_it() -> None:
    response = _block([("QUEUE", "Q1")])
    response.messages.insert(0, Message("CSQM293I", {"csect": "CSQMDRTS", "count": 1, "objtype": "QLOCAL"}))
    assert display_body(response) == _long_way(response)


def test_a_failed_response_takes_the_long_way() -> None:
    response = _block([("QUEUE", "Q1")])
    response.status = "failed"
    assert display_body(response) is None


def test_the_listener_gives_the_direct_body(tmp_path: Path) -> None:
    """Through RestApi: a display's reply is the direct body with IBM's content type."""
    from mqtool.rest.api import RestApi
    from mqtool.rest.config import load
    from tests.test_rest_api import command_json, configure

    state_dir = tmp_path / "state"
    configure(state_dir)
    admin = next(user for user in load(state_dir).users if user.name == "admin")
    api = RestApi(state_dir, Clock.from_setting(FROZEN))
    try:
        api.mqsc("CSQ1", json.dumps(command_json("DEFINE", "QLOCAL", "R.Q")).encode(), admin)
        reply = api.mqsc("CSQ1", json.dumps(command_json("DISPLAY", "QLOCAL", "R.Q")).encode(), admin)
        outcome = api.session.execute("-CSQ1 DISPLAY QLOCAL(R.Q)")
        assert reply.status == 200 and reply.headers == [("Content-Type", "application/json;charset=utf-8")]
        assert reply.body == display_body(outcome.response) == _long_way(outcome.response, api.session, "CSQ1")
    finally:
        api.close()


def test_the_lines_kept_are_bounded_and_change_nothing(session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    from mqtool.rest import display

    monkeypatch.setattr(display, "_LINES_KEPT", 5)
    monkeypatch.setattr(display, "_WRITTEN", {})
    for line in ("-CSQ1 DISPLAY QUEUE(*) ALL", "-CSQ1 DISPLAY QLOCAL(ORDERS)", "-CSQ1 DISPLAY QUEUE(*) ALL"):
        outcome = session.execute(line)
        assert outcome.response is not None
        assert display_body(outcome.response) == _long_way(outcome.response, session, outcome.system)
        assert all(len(lines) <= 5 for lines in display._WRITTEN.values())


def test_a_long_value_is_written_every_time_and_never_kept() -> None:
    from mqtool.rest import display

    long = "N" * 300
    response = _block([("QUEUE", "Q1"), ("DESCR", long)])
    for _ in range(2):
        assert display_body(response) == _long_way(response)
    assert not any(key[1] == long for lines in display._WRITTEN.values() for key in lines)
