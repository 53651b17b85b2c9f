"""The everyday z/OS commands beyond their golden transcripts (zos_qstats, zos_move,
zos_everyday): DISPLAY CONN and THREAD over real connections (a queue open in this
process, the registry's rows of ended processes, a reused pid), the command server and
the REST API, runCommandJSON's shapes (RESET QSTATS, DISPLAY CONN TYPE(ALL) with its
nested handles, the reason codes), MOVE QLOCAL refusing queues in use, the figures of
RESET QSTATS as IBM defines them, and STATIME in minutes and seconds."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqtool import application, processes
from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.core.message import PutOptions
from mqtool.engine.platforms import open_queue
from mqtool.engine.zos import connections
from mqtool.render.json import outcome_json
from mqtool.session import Session
from mqtool.state import Store
from tests.conftest import FROZEN


@pytest.fixture
def session(state_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Session]:
    monkeypatch.setattr(application, "NAME", ["mqtool test"])
    clock = Clock.from_setting(FROZEN)
    store = Store.open(state_dir)
    ensure_complex(store, clock.timestamp())
    found = Session(store, clock, "CSQ1")
    yield found
    store.close()


def run(session: Session, *lines: str) -> list[str]:
    out: list[str] = []
    for line in lines:
        out.extend(session.execute(line).lines)
    return out


def attributes(lines: list[str]) -> list[dict[str, str]]:
    """The KEYWORD(value) lines of each CSQM201I block."""
    blocks: list[dict[str, str]] = []
    for line in lines:
        if line.startswith("CSQM201I"):
            blocks.append({})
        elif blocks and "(" in line and line.endswith(")") and not line.startswith("CSQ"):
            key, _, value = line.partition("(")
            blocks[-1][key] = value[:-1]
    return blocks


def test_a_queue_open_in_this_process_is_a_connection_with_its_handle(session: Session) -> None:
    run(session, "DEFINE QLOCAL(Q1)", "DEFINE QLOCAL(Q2)")
    store, clock = session.store, session.clock
    getter = open_queue(store, clock, "CSQ1", "Q1", "zos")
    putter = open_queue(store, clock, "CSQ1", "Q2", "zos")
    with store.transaction() as tx:
        getter.open(tx, "get")
        putter.open(tx)
    try:
        conn = attributes(run(session, "DISPLAY CONN(*) ALL"))
        assert len(conn) == 1
        assert conn[0] | {"USERID": ""} == {
            "CONN": "D4D8E3D300000001",
            "EXTCONN": "C3E2D8C3C3E2D8F14040404040404040",
            "TYPE": "CONN",
            "CONNOPTS": "MQCNO_STANDARD_BINDING",
            "UOWLOGDA": " ",
            "UOWLOGTI": " ",
            "UOWSTDA": " ",
            "UOWSTTI": " ",
            "UOWSTATE": "NONE",
            "NID": " ",
            "EXTURID": " ",
            "QMURID": "000000000000",
            "URTYPE": "QMGR",
            "USERID": "",
            "APPLTAG": "mqtool test",
            "ASID": f"{os.getpid() & 0xFFFF:04X}",
            "APPLTYPE": "BATCH",
            "PID": str(os.getpid()),
            "TASKNO": " ",
            "TRANSID": " ",
            "PSTID": " ",
            "PSBNAME": " ",
            "CHANNEL": " ",
            "CONNAME": " ",
        }
        handles = attributes(run(session, "DISPLAY CONN(D4D8E3D3*) TYPE(HANDLE) ALL"))
        assert [(h["TYPE"], h["OBJNAME"], h["OPENOPTS"], h["HSTATE"]) for h in handles] == [
            ("HANDLE", "Q1", "MQOO_INPUT_SHARED", "INACTIVE"),
            ("HANDLE", "Q2", "MQOO_OUTPUT", "INACTIVE"),
        ]
        both = attributes(run(session, "DISPLAY CONN(*) TYPE(ALL) APPLTAG"))
        assert [block["TYPE"] for block in both] == ["CONN", "HANDLE", "HANDLE"]
        assert both[0]["APPLTAG"] == "mqtool test"
        # runCommandJSON: the handles inside their connection's item, as IBM nests them.
        outcome = session.execute("DISPLAY CONN(*) TYPE(ALL) ALL")
        items = outcome_json(session, outcome)["commandResponse"]
        assert len(items) == 1
        parameters = items[0]["parameters"]
        assert (parameters["conn"], parameters["type"], parameters["appltype"]) == ("D4D8E3D300000001", "CONN", "BATCH")
        assert [(h["objname"], h["openopts"]) for h in parameters["objects"]] == [
            ("Q1", "MQOO_INPUT_SHARED"),
            ("Q2", "MQOO_OUTPUT"),
        ]
        only_handles = outcome_json(session, session.execute("DISPLAY CONN(*) TYPE(HANDLE)"))["commandResponse"]
        assert [sorted(item["parameters"]) for item in only_handles] == [["conn", "extconn", "objects", "type"]]
        thread = run(session, "DISPLAY THREAD(*)")
        assert thread[2] == "NAME     ST A   REQ ID           AUTHID   ASID TOKEN"
        assert thread[3].startswith("MQTOOL   T  *     2 TEST         ")
    finally:
        with store.transaction() as tx:
            getter.close(tx)
            putter.close(tx)
    # Its handles closed, the process is no connection any more.
    assert "CSQM297I" in run(session, "DISPLAY CONN(*)")[0]


def test_rows_of_ended_processes_and_reused_pids_are_left_out_and_removed(session: Session) -> None:
    store = session.store
    with store.transaction() as tx:
        connections.connect(tx, "CSQ1", 0.0, connections.BATCH, "mqtool shell")
        ended = 2**22 + 12345  # above any pid Linux hands out
        tx.conn.execute(
            "INSERT INTO connections (system, pid, pstart, appltype, appltag, started) VALUES ('CSQ1', ?, '', 'BATCH', "
            "'gone', 0)",
            (ended,),
        )
        # Our own pid, but a process that started at another time: a reused pid.
        tx.conn.execute(
            "INSERT INTO connections (system, pid, pstart, appltype, appltag, started) VALUES ('CSQ1', ?, '1', "
            "'BATCH', 'reused', 0)",
            (os.getpid(),),
        )
    shown = attributes(run(session, "DISPLAY CONN(*) APPLTAG"))
    if processes.start(os.getpid()):
        assert [block["APPLTAG"] for block in shown] == ["mqtool shell"]
    else:  # no /proc: the pid alone decides
        assert [block["APPLTAG"] for block in shown] == ["mqtool shell", "reused"]
    with store.transaction() as tx:
        connections.connect(tx, "CSQ1", 0.0)
        left = [row[0] for row in tx.conn.execute("SELECT appltag FROM connections ORDER BY id")]
    assert "gone" not in left


def test_the_shell_is_a_connection_to_every_zos_queue_manager_while_it_runs(mq: Any, state_dir: Path) -> None:
    from mqtool.cli.shell import OperatorShell

    assert mq("system", "add", "CSQ2", "--platform", "zos").exit_code == 0
    store = Store.open(state_dir)
    session = Session(store, Clock.from_setting(FROZEN), "CSQ1")
    seen: list[str] = []

    class Shell(OperatorShell):
        def read_one(self) -> bool:
            seen.extend(self.session.execute("DISPLAY CONN(*) APPLTAG APPLTYPE").lines)
            seen.extend(self.session.execute("-CSQ2 DISPLAY THREAD(*)").lines)
            return False

    Shell(session, state_dir, realtime=None).run()
    assert "APPLTAG(mqtool shell)" in seen and "APPLTYPE(BATCH)" in seen
    assert any(line.startswith("MQTOOL   T        0 SHELL ") for line in seen)
    assert "CSQM297I" in session.execute("DISPLAY CONN(*)").lines[0]  # gone with the shell
    store.close()


def test_move_refuses_a_queue_open_in_a_live_process(session: Session) -> None:
    run(session, "DEFINE QLOCAL(FROM)", "DEFINE QLOCAL(TO)")
    handle = open_queue(session.store, session.clock, "CSQ1", "TO", "zos")
    with session.store.transaction() as tx:
        handle.open(tx, "get")
    try:
        assert run(session, "MOVE QLOCAL(FROM) TOQLOCAL(TO)")[:2] == [
            "CSQM101I -CSQ1 CSQMMQLC QLOCAL (TO) QSGDISP(QMGR) IS CURRENTLY IN USE, IPPROCS(1) OPPROCS(0)",
            "CSQM090E -CSQ1 CSQMMQLC FAILURE REASON CODE X'00D44004'",
        ]
    finally:
        with session.store.transaction() as tx:
            handle.close(tx)
    assert run(session, "MOVE QLOCAL(FROM) TOQLOCAL(TO)")[0].startswith("MQT0456I -CSQ1 0 MESSAGES MOVED")


def test_move_refuses_a_running_channels_transmission_queue(mq: Any) -> None:
    setup = [
        "ZMQSC DEFINE CHL-CSQ1.TO.TPF1 CHLTYPE-RCVR",
        "-CSQ1 DEFINE QLOCAL(TPFQM) USAGE(XMITQ)",
        "-CSQ1 DEFINE QLOCAL(SPARE) USAGE(XMITQ)",
        "-CSQ1 DEFINE CHANNEL(CSQ1.TO.TPF1) CHLTYPE(SDR) CONNAME('127.0.0.1(1414)') XMITQ(TPFQM)",
        "-CSQ1 START CHANNEL(CSQ1.TO.TPF1)",
    ]
    assert mq("system", "alter", "TPF1", "--listener", "127.0.0.1(1414)").exit_code == 0
    mq("cmd", *setup)
    mq("cmd", ".advance 1s")
    out = mq("cmd", "-CSQ1 MOVE QLOCAL(TPFQM) TOQLOCAL(SPARE)").output
    assert out.startswith(
        "CSQM101I -CSQ1 CSQMMQLC QLOCAL (TPFQM) QSGDISP(QMGR) IS CURRENTLY IN USE, CHANNEL(CSQ1.TO.TPF1) IS RUNNING"
    )


def test_reset_qstats_counts_what_ibm_counts(session: Session) -> None:
    run(session, "ALTER QMGR PERFMEV(ENABLED)", "DEFINE QLOCAL(Q) MAXDEPTH(100)", "DEFINE QLOCAL(Z)")
    store, clock = session.store, session.clock
    handle = open_queue(store, clock, "CSQ1", "Q", "zos")
    with store.transaction() as tx:
        handle.open(tx)
        for _ in range(5):
            handle.put(tx, b"x" * 10, PutOptions())
        handle.close(tx)
    # A put that rolls back is no message in (mqtool's units of work end with commands).
    with store.transaction() as tx:
        handle.open(tx)
        handle.put(tx, b"y", PutOptions())
        tx.fail()
    handle.rolled_back(tx)
    run(session, "MOVE QLOCAL(Q) TOQLOCAL(Z)")
    figures = attributes(run(session, "RESET QSTATS(Q)", "RESET QSTATS(Z)"))
    assert [(f["HIQDEPTH"], f["MSGSIN"], f["MSGSOUT"]) for f in figures] == [("5", "5", "5"), ("5", "5", "0")]
    # runCommandJSON: one item per queue, the figures as numbers.
    outcome = session.execute("RESET QSTATS(*)")
    items = outcome_json(session, outcome)["commandResponse"]
    assert {item["parameters"]["queue"]: item["parameters"]["msgsin"] for item in items} == {
        "Q": 0,
        "SYSTEM.DEAD.QUEUE": 0,
        "SYSTEM.DEFAULT.LOCAL.QUEUE": 0,
        "Z": 0,
    }
    assert items[0]["parameters"] == {
        "queue": "Q",
        "qsgdisp": "QMGR",
        "resetint": 0,
        "hiqdepth": 0,
        "msgsin": 0,
        "msgsout": 0,
    }


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("RESET QSTATS(Q)", 3224),
        ("DISPLAY GROUP", 3212),
        ("MOVE QLOCAL(Q) TOQLOCAL(Q2) QSGDISP(SHARED)", 3212),
        ("REFRESH QMGR TYPE(CONFIGEV)", 3224),
    ],
)
def test_run_command_json_reason_codes(session: Session, line: str, reason: int) -> None:
    run(session, "DEFINE QLOCAL(Q)", "DEFINE QLOCAL(Q2)")
    document = outcome_json(session, session.execute(line))
    assert (document["overallCompletionCode"], document["commandResponse"][0]["reasonCode"]) == (2, reason)


@pytest.mark.parametrize("line", ["DISPLAY CONN(*)", "DISPLAY CLUSQMGR(*)", "DISPLAY TCLUSTER(*)"])
def test_run_command_json_of_a_display_that_finds_nothing(session: Session, line: str) -> None:
    """CSQM297I with NORMAL COMPLETION: no object, and the codes 0 and 0."""
    document = outcome_json(session, session.execute(line))
    assert document == {"commandResponse": [], "overallCompletionCode": 0, "overallReasonCode": 0}


def test_display_cmdserv_through_the_command_server_is_running(session: Session) -> None:
    session.via_command_server = True
    assert run(session, "DISPLAY CMDSERV")[0] == "CSQN013I -CSQ1 COMMAND SERVER STATUS IS RUNNING"
    # STOP CMDSERV through the command server stops it after this command.
    assert run(session, "STOP CMDSERV")[0] == "CSQN005I -CSQ1 COMMAND SERVER STOPPED"
    session.via_command_server = False
    assert run(session, "DISPLAY CMDSERV")[0] == "CSQN015I -CSQ1 COMMAND SERVER STATUS IS STOPPED"
    # A restart starts the command server, resets ALTER SECURITY and RESET QSTATS' figures.
    run(session, "ALTER SECURITY TIMEOUT(1)", "STOP QMGR", "START QMGR")
    assert run(session, "DISPLAY CMDSERV", "DISPLAY SECURITY TIMEOUT")[::2] == [
        "CSQN014I -CSQ1 COMMAND SERVER STATUS IS WAITING",
        "CSQH015I -CSQ1 Security timeout = 30 minutes",
    ]


def test_display_security_takes_no_name_and_alter_keeps_values_not_given(session: Session) -> None:
    assert run(session, "DISPLAY SECURITY(X)")[0] == (
        "CSQ9030E -CSQ1 CSQ9SCND 'SECURITY' value 'X' is invalid, allowed: no value"
    )
    run(session, "ALTER SECURITY INTERVAL(0)")
    assert run(session, "DIS SEC ALL")[:2] == [
        "CSQH015I -CSQ1 Security timeout = 30 minutes",
        "CSQH016I -CSQ1 Security interval = 0 minutes",
    ]


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("2", 120), ("00:01", 1), ("1:30", 90), ("0", 30 * 60)],
)
def test_statime_in_minutes_or_minutes_and_seconds(session: Session, value: str, seconds: float) -> None:
    from mqtool.engine.zos import stats

    assert run(session, f"SET SYSTEM STATIME({value})")[-1].startswith("CSQ9022I")
    with session.store.transaction(write=False) as tx:
        manager = tx.get_object("CSQ1", "QMGR", "CSQ1")
        system = tx.get_system("CSQ1")
        assert manager is not None and system is not None
        assert stats.interval_seconds(system, manager) == seconds


@pytest.mark.parametrize("value", ["00:00", "1:60", "1441", "1440:01", "A:B", ":5", "00:001"])
def test_statime_values_out_of_range(session: Session, value: str) -> None:
    assert run(session, f"SET SYSTEM STATIME({value})")[0].startswith(
        f"CSQ9030E -CSQ1 CSQ9SCND 'STATIME' value '{value}' is invalid"
    )


def test_the_rest_api_goes_through_the_command_server(state_dir: Path) -> None:
    """mqweb passes MQSC commands to the command server: DISPLAY CMDSERV through it is
    RUNNING, and while it is stopped the REST API's MQSC commands are refused (503,
    reason 2322 MQRC_CMD_SERVER_NOT_AVAILABLE) and the console still works. Each REST
    user's session is a connection (DISPLAY CONN)."""
    from mqtool.rest.service import RestService
    from tests.test_rest_api import ADMIN, APP, MQSC, Client, configure, error, message_url

    configure(state_dir)
    with RestService(state_dir, Clock.from_setting(FROZEN)) as service:
        assert service.port
        client = Client(service.port)
        text = client.run("DISPLAY CMDSERV")["commandResponse"][0]["text"]
        assert text[1] == "CSQN013I -CSQ1 COMMAND SERVER STATUS IS RUNNING"
        assert client.request("POST", message_url("SYSTEM.DEFAULT.LOCAL.QUEUE"), b"hello", user=APP)[0] == 201
        body = {"type": "runCommandJSON", "command": "display", "qualifier": "conn", "name": "*",
                "responseParameters": ["all"]}  # fmt: skip
        items = client.mqsc(body)["commandResponse"]
        users = sorted((item["parameters"]["userid"], item["parameters"]["appltype"]) for item in items)
        assert users == [(ADMIN[0], "RRSBATCH"), (APP[0], "RRSBATCH")]
        assert client.run("STOP CMDSERV")["commandResponse"][0]["text"][1] == "CSQN005I -CSQ1 COMMAND SERVER STOPPED"
        status, document = client.json("POST", MQSC, {"type": "runCommand", "parameters": {"command": "DIS QMGR"}})
        refused = error(document)
        assert (status, refused["msgId"], refused["completionCode"], refused["reasonCode"]) == (
            503,
            "MQT0464E",
            2,
            2322,
        )
        # The console goes on, and starts the command server again.
        console = Session(Store.open(state_dir), Clock.from_setting(FROZEN), "CSQ1")
        assert run(console, "START CMDSERV")[0] == "CSQN001I -CSQ1 COMMAND SERVER STARTED"
        console.store.close()
        running = client.run("DIS CS")["commandResponse"][0]["text"][1]
        assert running == "CSQN013I -CSQ1 COMMAND SERVER STATUS IS RUNNING"
    # The server has ended: its sessions are no connections any more.
    after = Session(Store.open(state_dir), Clock.from_setting(FROZEN), "CSQ1")
    assert "CSQM297I" in run(after, "DISPLAY CONN(*)")[0]
    after.store.close()
