"""Configuration events on z/OS (CONFIGEV): each event kind, the Change pair, REFRESH
QMGR TYPE(CONFIGEV) with each filter, the unit of work (a failed command, a process
killed before its commit), CONFIGEV(DISABLED) writing nothing, a full or put-inhibited
event queue, and the PCF reader on hostile bytes."""

from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.engine.zos import events, pcf
from mqtool.state import Store
from tests.conftest import FROZEN, MQ, query

EVQ = events.EVENT_QUEUE
Q_NAME, NAMELIST_NAME, NAMES = 2016, 2010, 2020
MAXDEPTH = 15


def _rows(state: Path, columns: str) -> list[tuple[object, ...]]:
    """Columns of the messages on CSQ1's event queue, in order."""
    return query(state, f"SELECT {columns} FROM messages WHERE system = 'CSQ1' AND queue = ? ORDER BY id", (EVQ,))


def _events(state: Path) -> list[tuple[dict[str, object], pcf.PCFMessage]]:
    """The messages on CSQ1's event queue, in order: MQMD header and PCF message."""
    rows = _rows(state, "header, payload, codec")
    assert all(not codec for _, _, codec in rows)  # stored as put: no compression
    return [(json.loads(str(header)), pcf.read(payload)) for header, payload, _ in rows if isinstance(payload, bytes)]


def _value(message: pcf.PCFMessage, ident: int) -> object:
    return next(p.value for p in message.parameters if p.ident == ident)


def _run(mq, *lines: str) -> str:
    result = mq("--system", "CSQ1", "cmd", *lines)
    return str(result.output)


def test_disabled_writes_nothing(mq: MQ, state_dir: Path) -> None:
    out = _run(mq, "DEFINE QLOCAL(Q1)", "ALTER QLOCAL(Q1) MAXDEPTH(5)", "DELETE QLOCAL(Q1)")
    assert out.count("NORMAL COMPLETION") == 3
    assert _events(state_dir) == []
    store = Store.open(state_dir)
    try:  # the event queue was never made
        assert store.conn.execute("SELECT 1 FROM objects WHERE name = ?", (EVQ,)).fetchone() is None
    finally:
        store.close()
    refused = _run(mq, "REFRESH QMGR TYPE(CONFIGEV)")
    assert "MQT0462E" in refused


def test_create_change_delete(mq: MQ, state_dir: Path) -> None:
    out = _run(
        mq,
        "ALTER QMGR CONFIGEV(ENABLED)",
        "DEFINE QLOCAL(Q1) MAXDEPTH(10) DESCR('audit me')",
        "ALTER QLOCAL(Q1) MAXDEPTH(20)",
        "DEFINE NAMELIST(NL1) NAMES(A,BB)",
        "DELETE QLOCAL(Q1)",
    )
    assert out.count("NORMAL COMPLETION") == 5
    got = _events(state_dir)
    reasons = [m.header.reason for _, m in got]
    assert reasons == [events.CREATE, events.CHANGE, events.CHANGE, events.CREATE, events.DELETE]
    for header, message in got:
        assert header["format"] == pcf.MQFMT_EVENT and header["ccsid"] == 500 and header["encoding"] == 785
        assert message.header.command == events.MQCMD_CONFIG_EVENT and message.header.version == 2
        assert message.header.kind == pcf.MQCFT_EVENT and message.header.comp_code == 1
    create, before, after, namelist, delete = (m for _, m in got)
    assert _value(create, Q_NAME) == "Q1" and _value(create, MAXDEPTH) == 10
    assert _value(create, 2013) == "audit me"
    # The Change pair: before (1, NOT_LAST) then after (2, LAST), one correlation id.
    assert (before.header.seq, before.header.control, _value(before, MAXDEPTH)) == (1, pcf.MQCFC_NOT_LAST, 10)
    assert (after.header.seq, after.header.control, _value(after, MAXDEPTH)) == (2, pcf.MQCFC_LAST, 20)
    assert _value(namelist, NAMELIST_NAME) == "NL1" and _value(namelist, NAMES) == ("A", "BB")
    assert _value(delete, Q_NAME) == "Q1" and _value(delete, MAXDEPTH) == 20


def test_change_pair_shares_a_correlation_id(mq: MQ, state_dir: Path) -> None:
    _run(mq, "ALTER QMGR CONFIGEV(ENABLED)", "DEFINE PROCESS(P1) APPLICID('run me')", "ALTER PROCESS(P1) USERDATA(X)")
    rows = _rows(state_dir, "correlid")
    assert len(rows) == 3
    assert rows[1][0] == rows[2][0] and rows[1][0] != bytes(24)


def test_define_replace_is_a_change_and_failed_command_writes_nothing(mq: MQ, state_dir: Path) -> None:
    _run(mq, "ALTER QMGR CONFIGEV(ENABLED)", "DEFINE QLOCAL(Q1)")
    out = _run(mq, "DEFINE QLOCAL(Q1)", "ALTER QLOCAL(NOPE) MAXDEPTH(1)", "DEFINE QLOCAL(Q1) REPLACE MAXDEPTH(7)")
    assert "CSQM095I" in out and "CSQM125I" in out
    reasons = [m.header.reason for _, m in _events(state_dir)]
    assert reasons == [events.CREATE, events.CHANGE, events.CHANGE]


def test_alter_qmgr_and_other_objects(mq: MQ, state_dir: Path) -> None:
    _run(
        mq,
        "ALTER QMGR CONFIGEV(ENABLED)",
        "ALTER QMGR DESCR('mine')",
        "DEFINE CHANNEL(C1) CHLTYPE(SDR) CONNAME('h(1)') XMITQ(X)",
        "DEFINE TOPIC(T1) TOPICSTR('a/b')",
        "DEFINE STGCLASS(S1) PSID(1)",
    )
    got = [m for _, m in _events(state_dir)]
    assert [_value(m, events.MQIACF_OBJECT_TYPE) for m in got] == [5, 5, 6, 8, 4]
    assert _value(got[1], 2014) == "mine" and _value(got[2], 1511) == 1  # MQCHT_SENDER
    assert _value(got[3], 2094) == "a/b"


def test_event_lost_when_queue_refuses_but_command_succeeds(mq: MQ, state_dir: Path) -> None:
    _run(mq, "ALTER QMGR CONFIGEV(ENABLED)", "DEFINE QLOCAL(Q1)")
    out = _run(mq, f"ALTER QLOCAL({EVQ}) PUT(DISABLED)", "DEFINE QLOCAL(Q2)", "DELETE QLOCAL(Q2)")
    assert out.count("NORMAL COMPLETION") == 3
    # Create Q1, and the pair of the ALTER of the event queue itself (put before PUT changed).
    reasons = [m.header.reason for _, m in _events(state_dir)]
    assert reasons[0] == events.CREATE and events.DELETE not in reasons
    out = _run(mq, f"ALTER QLOCAL({EVQ}) PUT(ENABLED) MAXDEPTH(4)", "REFRESH QMGR TYPE(CONFIGEV) OBJECT(QLOCAL)")
    assert "MQT0795I" in out and " OF " in out
    assert len(_events(state_dir)) == 4  # full: the rest were lost


def test_refresh_filters(mq: MQ, state_dir: Path) -> None:
    _run(mq, "DEFINE QLOCAL(PAY.A)", "DEFINE QLOCAL(PAY.B)", "DEFINE QALIAS(PAY.C) TARGET(PAY.A)", "DEFINE PROCESS(P1)")
    _run(mq, "ALTER QMGR CONFIGEV(ENABLED)")
    out = _run(mq, "REFRESH QMGR TYPE(CONFIGEV) OBJECT(QLOCAL) NAME(PAY*)")
    assert "MQT0795I -CSQ1 2 OF 2 REFRESH OBJECT EVENTS" in out
    out = _run(mq, "REFRESH QMGR TYPE(CONFIGEV) OBJECT(QUEUE) NAME(PAY*)")
    assert "3 OF 3" in out
    out = _run(mq, "REFRESH QMGR TYPE(CONFIGEV) OBJECT(PROCESS)")
    assert "1 OF 1" in out
    out = _run(mq, "REFRESH QMGR TYPE(CONFIGEV) OBJECT(QMGR)")
    assert "1 OF 1" in out
    refreshed = [m for _, m in _events(state_dir) if m.header.reason == events.REFRESH]
    names = [_value(m, Q_NAME) for m in refreshed if _value(m, events.MQIACF_OBJECT_TYPE) == 1]
    assert names == ["PAY.A", "PAY.B", "PAY.A", "PAY.B", "PAY.C"]
    # INCLINT: only objects altered within that many minutes of mqtool's clock.
    later = "2021-03-09T16:41:22Z"
    at_later = ("--system", "CSQ1", "--clock", later, "cmd")
    mq(*at_later, "ALTER QLOCAL(PAY.B) MAXDEPTH(9)")
    out = mq(*at_later, "REFRESH QMGR TYPE(CONFIGEV) OBJECT(QUEUE) INCLINT(30)").output
    assert "1 OF 1" in out
    out = mq(*at_later, "REFRESH QMGR TYPE(CONFIGEV) OBJECT(QUEUE) NAME(PAY*) INCLINT(90)").output
    assert "3 OF 3" in out
    assert "CSQ9030E" in _run(mq, "REFRESH QMGR TYPE(EXPIRY) OBJECT(QLOCAL)")


def test_get_shows_events_decoded(mq: MQ, state_dir: Path, tmp_path: Path) -> None:
    _run(mq, "ALTER QMGR CONFIGEV(ENABLED)", "DEFINE QLOCAL(Q1) TRIGGER TRIGTYPE(DEPTH)")
    script = tmp_path / "get.mqsc"
    script.write_text(f".get {EVQ} browse=yes\n")
    out = mq("--system", "CSQ1", "run", str(script)).output
    assert "configuration event: Create object (2367), MsgSeqNumber 1 LAST" in out
    assert "ObjectType(Q) NAME(Q1) QType(1)" in out and "TRIGGER(YES) TRIGTYPE(DEPTH)" in out


@pytest.mark.slow
def test_kill_before_commit_leaves_no_event(state_dir: Path) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    base = [sys.executable, "-m", "mqtool", "--state", str(state_dir), "--system", "CSQ1", "cmd"]
    done = subprocess.run([*base, "ALTER QMGR CONFIGEV(ENABLED)"], env=clean, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    before = len(_events(state_dir))
    killed = subprocess.run(
        [*base, "DEFINE QLOCAL(KILLED)"], env=clean | {events.CRASH_VARIABLE: "1"}, capture_output=True, timeout=120
    )
    assert killed.returncode == -signal.SIGKILL and b"NORMAL COMPLETION" not in killed.stdout
    assert len(_events(state_dir)) == before
    store = Store.open(state_dir)
    try:
        assert store.conn.execute("SELECT 1 FROM objects WHERE name = 'KILLED'").fetchone() is None
    finally:
        store.close()


def test_reader_round_trip() -> None:
    params = [
        pcf.Parameter(pcf.MQCFT_INTEGER, 1, -5),
        pcf.Parameter(pcf.MQCFT_STRING, 2, "ABC"),
        pcf.Parameter(pcf.MQCFT_INTEGER_LIST, 3, (1, 2, 3)),
        pcf.Parameter(pcf.MQCFT_STRING_LIST, 4, ("X", "YYY")),
        pcf.Parameter(pcf.MQCFT_BYTE_STRING, 5, b"\x00\x01\x02"),
    ]
    message = pcf.PCFMessage(pcf.Header(43, 2367), params)
    for encoding in (785, 273):
        back = pcf.read(pcf.pack(message, encoding=encoding), encoding)
        assert back.parameters == params and back.header.reason == 2367 and back.header.count == 5


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_reader_on_hostile_bytes(data: bytes) -> None:
    try:
        pcf.read(data)
        events.describe(data)
    except ValueError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(2**31), max_value=2**31 - 1), st.integers(min_value=-(2**31), max_value=2**31 - 1))
def test_reader_on_hostile_lengths(count: int, length: int) -> None:
    header = struct.pack(">9i", 7, 36, 2, 43, 1, 1, 1, 2367, 1)
    for kind in (3, 4, 5, 6, 9):
        body = struct.pack(">6i", kind, 24, 2016, count, length, count) + b"\0" * 8
        with pytest.raises(ValueError):
            pcf.read(header + body + b"\0")
    with pytest.raises(ValueError):
        pcf.read(struct.pack(">9i", 7, 36, 2, 43, 1, 1, 1, 2367, count if count > 4096 or count < 0 else 10**6))


def test_apply_writes_events_as_its_commands_do(mq: MQ, state_dir: Path, tmp_path: Path) -> None:
    _run(mq, "ALTER QMGR CONFIGEV(ENABLED)", "DEFINE QLOCAL(APP.Q) MAXDEPTH(5)")
    exported = mq("--system", "CSQ1", "export", "--format", "yaml").output
    assert "CONFIGEV: ENABLED" in exported and "SYSTEM.ADMIN.CONFIG.EVENT:" in exported
    document = tmp_path / "complex.yaml"
    document.write_text(exported.replace("MAXDEPTH: 5", "MAXDEPTH: 7"), encoding="utf-8")
    applied = mq("apply", str(document))
    assert applied.exit_code == 0, applied.output
    got = [m for _, m in _events(state_dir)]
    assert [m.header.reason for m in got] == [events.CREATE, events.CHANGE, events.CHANGE]
    assert [_value(m, MAXDEPTH) for m in got] == [5, 5, 7]


def test_run_command_json_of_refresh_qmgr(mq: MQ, state_dir: Path) -> None:
    from mqtool.clock import Clock
    from mqtool.complex import ensure_complex
    from mqtool.render.json import outcome_json
    from mqtool.session import Session

    _run(mq, "ALTER QMGR CONFIGEV(ENABLED)", "DEFINE QLOCAL(R.Q)")
    store = Store.open(state_dir)
    try:
        clock = Clock.from_setting(FROZEN)
        ensure_complex(store, clock.timestamp())
        session = Session(store, clock, "CSQ1")
        line = "REFRESH QMGR TYPE(CONFIGEV) OBJECT(QLOCAL) NAME(R.*)"
        document = outcome_json(session, session.execute(line))
    finally:
        store.close()
    assert (document["overallCompletionCode"], document["overallReasonCode"]) == (0, 0)
    assert any("MQT0795I" in text for text in document["commandResponse"][0]["message"])
    assert [m.header.reason for _, m in _events(state_dir)][-1] == events.REFRESH


def test_cli_get_decode(mq: MQ, state_dir: Path) -> None:
    _run(mq, "ALTER QMGR CONFIGEV(ENABLED)", "DEFINE NAMELIST(NL9) NAMES(X,Y)", "DELETE NAMELIST(NL9)")
    result = mq("--system", "CSQ1", "get", EVQ, "--browse", "--all", "--decode")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("configuration event: Create object (2367), MsgSeqNumber 1 LAST, 11 parameters:")
    assert "ObjectType(NAMELIST) NAME(NL9) QSGDISP(0) DESCR() NAMES(X,Y) NLTYPE(NONE)" in lines[0]
    assert lines[1].startswith("configuration event: Delete object (2369)")
    # An MQEVENT message whose bytes are not PCF is reported, never decoded blindly.
    store = Store.open(state_dir)
    try:
        from mqtool.clock import Clock
        from mqtool.engine.core.message import PutOptions
        from mqtool.engine.platforms import open_queue

        handle = open_queue(store, Clock(), "CSQ1", EVQ, "zos")
        with store.transaction() as tx:
            handle.open(tx)
            hostile = struct.pack(">9i", 7, 36, 2, 43, 1, 1, 1, 2367, 1) + struct.pack(">5i", 4, 20, 2016, 500, 10**9)
            handle.put(tx, hostile, PutOptions(header=events.HEADER))
            handle.close(tx)
    finally:
        store.close()
    result = mq("--system", "CSQ1", "get", EVQ, "--browse", "--all", "--decode")
    assert result.stdout.splitlines()[2] == (
        "event message that does not read: parameter 1: StringLength 1000000000 does not fit"
    )
    assert mq("--system", "CSQ1", "get", EVQ, "--decode", "--out", str(state_dir / "o")).exit_code == 2


def test_set_chlauth_events_and_refresh_by_profile(mq: MQ, state_dir: Path) -> None:
    _run(
        mq,
        "ALTER QMGR CONFIGEV(ENABLED)",
        "SET CHLAUTH('APP.*') TYPE(BLOCKUSER) USERLIST(BAD1,BAD2)",
        "SET CHLAUTH('APP.*') TYPE(BLOCKUSER) USERLIST(BAD3) ACTION(REPLACE)",
        "SET CHLAUTH('APP.*') TYPE(BLOCKUSER) ACTION(REMOVE)",
    )
    got = [m for _, m in _events(state_dir)]
    assert [m.header.reason for m in got] == [events.CREATE, events.CHANGE, events.CHANGE, events.DELETE]
    assert {_value(m, events.MQIACF_OBJECT_TYPE) for m in got} == {1016}  # MQOT_CHLAUTH
    assert [_value(m, 3501) for m in got] == ["APP.*"] * 4  # the profile, MQCACH_CHANNEL_NAME
    assert [_value(m, 3568) for m in got] == [("BAD1", "BAD2"), ("BAD1", "BAD2"), ("BAD3",), ("BAD3",)]
    out = _run(mq, "REFRESH QMGR TYPE(CONFIGEV) OBJECT(CHLAUTH) NAME(SYSTEM.ADMIN.SVRCONN)")
    assert "1 OF 1" in out  # IBM's default rule for that profile
    out = _run(mq, "REFRESH QMGR TYPE(CONFIGEV) OBJECT(CHLAUTH)")
    assert "3 OF 3" in out  # the three default rules
