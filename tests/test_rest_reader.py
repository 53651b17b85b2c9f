"""Reading commands answered on the REST listener's event loop (mqtool/rest/reader.py):
the same answer, byte for byte, as the store thread gives; every case the reader may
not answer goes to the store thread (NeedsWriter); the reader's connection can write
nothing; and through the listener, displays stop costing the store thread anything
while every change is still seen."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqtool.clock import Clock
from mqtool.rest.api import RestApi
from mqtool.rest.config import RestUser, load
from mqtool.rest.reader import NeedsWriter, ReadingApi
from mqtool.rest.reply import Reply, RestError
from mqtool.rest.server import RestContext
from mqtool.rest.service import RestService
from mqtool.session import Session
from mqtool.state import Store
from tests.conftest import FROZEN
from tests.test_rest_api import APP, READER, TPF_MQSC, Client, command_json, configure


def _json(command: str, qualifier: str, name: str | None = None, **more: Any) -> bytes:
    return json.dumps(command_json(command, qualifier, name, **more)).encode()


class Apis:
    """The store thread's RestApi and the event loop's ReadingApi of one store, both
    used from the test's thread (each opens its own connection here)."""

    def __init__(self, state_dir: Path) -> None:
        configure(state_dir)
        self.users = {user.name: user for user in load(state_dir).users}
        self.admin = self.users["admin"]
        self.writer = RestApi(state_dir, Clock.from_setting(FROZEN))
        # The first request: opens (and makes) the store, runs the due timers and
        # records the user's connection, as the listener's first request does.
        self.writer.mqsc("CSQ1", _json("DEFINE", "QLOCAL", "READ.Q", parameters={"descr": "read me"}), self.admin)
        self.writer.mqsc("TPFQM", _json("DISPLAY", "QLOCAL", "NONE.Q"), self.admin)
        self.reader = ReadingApi(self.writer)

    def both(self, qmgr: str, body: bytes, user: RestUser | None = None) -> tuple[Reply | str, Reply | str]:
        """The reader's and the writer's answers (a RestError as its reply's body)."""
        answers: list[Reply | str] = []
        for api in (self.reader, self.writer):
            try:
                answers.append(api.mqsc(qmgr, body, user or self.admin))
            except RestError as error:
                answers.append(f"{error.status} {error.reply().body.decode()}")
        return answers[0], answers[1]

    def close(self) -> None:
        self.reader.close()
        self.writer.close()


@pytest.fixture
def apis(state_dir: Path) -> Iterator[Apis]:
    made = Apis(state_dir)
    try:
        yield made
    finally:
        made.close()


READING = [
    ("CSQ1", _json("DISPLAY", "QLOCAL", "READ.Q")),
    ("CSQ1", _json("display", "qlocal", "READ.Q", responseParameters=["curdepth", "descr"])),
    ("CSQ1", _json("DISPLAY", "QUEUE", "READ.Q", responseParameters=["all"])),
    ("CSQ1", _json("DISPLAY", "QLOCAL", "NO.SUCH.Q")),
    ("CSQ1", _json("DISPLAY", "QSTATUS", "READ.Q")),
    ("CSQ1", _json("DISPLAY", "CHANNEL", "NO.SUCH.CHL")),
    ("CSQ1", _json("DISPLAY", "QLOCAL", "READ.Q", parameters={"curdepth": [1, 2]})),
    ("CSQ1", b'{"type": "runCommandJSON", "command": "DISPLAY", "qualifier": "QLOCAL", "name": "A", "name": "B"}'),
    ("CSQ1", b"not json"),
    ("NOQM", _json("DISPLAY", "QLOCAL", "READ.Q")),
    ("TPFQM", _json("DISPLAY", "QLOCAL", "NONE.Q")),
]


@pytest.mark.parametrize(("qmgr", "body"), READING)
def test_the_reader_answers_byte_for_byte_as_the_store_thread(apis: Apis, qmgr: str, body: bytes) -> None:
    read, written = apis.both(qmgr, body)
    assert read == written
    if isinstance(read, Reply):
        assert read.status == 200 and read.body.startswith(b'{"commandResponse":[')


def test_a_read_only_user_gets_the_same_answer_from_the_reader(apis: Apis) -> None:
    reader_user = apis.users[READER[0]]
    apis.writer.mqsc("CSQ1", _json("DISPLAY", "QLOCAL", "READ.Q"), reader_user)  # records its connection
    read, written = apis.both("CSQ1", _json("DISPLAY", "QLOCAL", "READ.Q"), reader_user)
    assert isinstance(read, Reply) and read == written


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (_json("DEFINE", "QLOCAL", "NEW.Q"), "may change"),
        (_json("ALTER", "QLOCAL", "READ.Q", parameters={"descr": "x"}), "may change"),
        (_json("DISPLAY", "QLOCAL", "READ.*"), "one named object"),
        (_json("DISPLAY", "QMGR"), "one named object"),
        (b'{"type": "runCommand", "parameters": {"command": "DISPLAY QLOCAL(READ.Q)"}}', "one named object"),
    ],
)
def test_commands_that_may_write_or_take_long_go_to_the_store_thread(apis: Apis, body: bytes, why: str) -> None:
    with pytest.raises(NeedsWriter, match=why):
        apis.reader.mqsc("CSQ1", body, apis.admin)


def test_a_user_whose_connection_is_not_recorded_goes_to_the_store_thread(apis: Apis) -> None:
    app = apis.users[APP[0]]
    body = _json("DISPLAY", "QLOCAL", "READ.Q")
    with pytest.raises(NeedsWriter, match="connection"):
        apis.reader.mqsc("CSQ1", body, app)
    apis.writer.mqsc("CSQ1", body, app)  # DISPLAY CONN's row is written there
    assert apis.reader.mqsc("CSQ1", body, app) == apis.writer.mqsc("CSQ1", body, app)


def test_a_due_timer_or_a_subscription_to_clean_up_goes_to_the_store_thread(apis: Apis, state_dir: Path) -> None:
    body = _json("DISPLAY", "QLOCAL", "READ.Q")
    store = Store.open(state_dir)
    try:
        now = Clock.from_setting(FROZEN).timestamp()
        with store.transaction() as tx:
            tx.conn.execute("INSERT INTO timers (system, name, due) VALUES ('CSQ1', 'test.gone', ?)", (now - 1,))
        with pytest.raises(NeedsWriter, match="timer"):
            apis.reader.mqsc("CSQ1", body, apis.admin)
        apis.writer.mqsc("CSQ1", body, apis.admin)  # its tick runs (here: drops) the timer
        assert isinstance(apis.reader.mqsc("CSQ1", body, apis.admin), Reply)
        with store.transaction() as tx:
            tx.conn.execute("INSERT INTO sub_owners VALUES ('CSQ1', 'SUB', 1, 'x', 1, ?)", (now,))
        with pytest.raises(NeedsWriter, match="subscriptions"):
            apis.reader.mqsc("CSQ1", body, apis.admin)
        with store.transaction() as tx:
            tx.conn.execute("DELETE FROM sub_owners")
        assert isinstance(apis.reader.mqsc("CSQ1", body, apis.admin), Reply)
    finally:
        store.close()


def test_a_commit_while_the_reader_reads_sends_the_request_to_the_store_thread(
    apis: Apis, state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another connection commits between the reader's first read and its last: its
    answer may mix two states of the store, so the store thread answers instead."""
    original = Session._run
    other = Store.open(state_dir)

    def run_after_a_commit(session: Session, *args: Any, **kwargs: Any) -> Any:
        if session is apis.reader.session:
            Session(other, Clock.from_setting(FROZEN), "CSQ1").execute("ALTER QLOCAL(READ.Q) DESCR('between')")
        return original(session, *args, **kwargs)

    monkeypatch.setattr(Session, "_run", run_after_a_commit)
    try:
        with pytest.raises(NeedsWriter, match="changed"):
            apis.reader.mqsc("CSQ1", _json("DISPLAY", "QLOCAL", "READ.Q"), apis.admin)
    finally:
        other.close()
    monkeypatch.setattr(Session, "_run", original)
    parameters = json.loads(apis.reader.mqsc("CSQ1", _json("DISPLAY", "QLOCAL", "READ.Q"), apis.admin).body)
    assert parameters["commandResponse"][0]["parameters"]["descr"] == "between"


def test_the_reader_connection_writes_nothing(apis: Apis, monkeypatch: pytest.MonkeyPatch) -> None:
    """query_only: a handler that tried to write on the event loop fails there (the store
    thread then runs the command), and no write reaches the store."""
    from mqtool.commands.zos import display

    conn = apis.reader.session.store.conn
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        conn.execute("UPDATE objects SET attrs = attrs")
    original = display.handle

    def writing_handle(context: Any, request: Any) -> Any:
        context.tx.conn.execute("DELETE FROM objects WHERE name = 'READ.Q'")
        return original(context, request)

    monkeypatch.setattr(display, "handle", writing_handle)
    with pytest.raises(NeedsWriter):
        apis.reader.mqsc("CSQ1", _json("DISPLAY", "QLOCAL", "READ.Q"), apis.admin)
    monkeypatch.setattr(display, "handle", original)
    shown = json.loads(apis.writer.mqsc("CSQ1", _json("DISPLAY", "QLOCAL", "READ.Q"), apis.admin).body)
    assert shown["commandResponse"][0]["parameters"]["queue"] == "READ.Q"


def test_through_the_listener_displays_skip_the_store_thread_and_see_every_change(
    state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    original = RestContext.call

    async def counted(self: RestContext, func: Any, *args: Any) -> Any:
        calls.append(getattr(func, "__name__", "?"))
        return await original(self, func, *args)

    monkeypatch.setattr(RestContext, "call", counted)
    configure(state_dir)
    with RestService(state_dir, Clock.from_setting(FROZEN)) as service:
        assert service.port
        client = Client(service.port)
        # The first request (it records the user's connection and runs the due timers).
        client.mqsc({"type": "runCommandJSON", "command": "define", "qualifier": "qlocal", "name": "SEEN.Q"})
        assert calls == ["mqsc"]
        display = json.dumps({"type": "runCommandJSON", "command": "display", "qualifier": "qlocal", "name": "SEEN.Q"})
        for blanks in range(4):  # every body new: no answer from the answer cache
            document = client.mqsc(display + " " * blanks, headers=_JSON)
            assert document["commandResponse"][0]["parameters"]["descr"] == ""
        assert calls == ["mqsc"]  # answered on the event loop
        alter = {"type": "runCommandJSON", "command": "alter", "qualifier": "qlocal", "name": "SEEN.Q"}
        client.mqsc({**alter, "parameters": {"descr": "changed"}})
        assert calls == ["mqsc", "mqsc"]
        document = client.mqsc(display + " " * 9, headers=_JSON)
        assert document["commandResponse"][0]["parameters"]["descr"] == "changed"
        assert calls == ["mqsc", "mqsc"]
        tpf_display = {"type": "runCommandJSON", "command": "display", "qualifier": "qlocal", "name": "X"}
        tpf = client.mqsc(tpf_display, TPF_MQSC)
        assert tpf["overallCompletionCode"] == 2


_JSON = {"Content-Type": "application/json"}
