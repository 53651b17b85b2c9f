"""SUSPEND QMGR LOG and RESUME QMGR LOG (issue 18) beyond their golden transcript
(zos_suspend_log): the suspension is stored and outlives the process that made it; each
command the keyword table's log_suspend block names is refused and changes nothing, the
others run; puts and gets that remove are refused (MQRC 2059) for new handles and for
handles opened before the suspension, browses are not; a publication reaches no
subscriber; the REST API (the command server) may not suspend, and its puts get 503;
STOP QMGR ends a suspension. And DISPLAY THREAD TYPE(REGIONS)'s summary over real
connections."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mqtool import tables
from mqtool.clock import Clock
from mqtool.engine.core.message import PutOptions
from mqtool.engine.core.reasons import Q_MGR_NOT_AVAILABLE, MQError
from mqtool.engine.platforms import open_queue
from mqtool.engine.zos import logsuspend
from mqtool.rest.service import RestService
from mqtool.session import Session
from tests import test_zos_everyday as everyday
from tests.conftest import FROZEN
from tests.test_rest_api import APP, Client, configure, error, message_url
from tests.test_zos_everyday import run

SUSPENDED = "CSQJ372I -CSQ1 UPDATE ACTIVITY HAS BEEN SUSPENDED FOR CSQ1 AT RBA "
REFUSED = "log update activity of CSQ1 is suspended (SUSPEND QMGR LOG) until RESUME QMGR LOG"


def zos(mq: Any, *commands: str) -> list[str]:
    return list(mq("--system", "CSQ1", "cmd", *commands).output.splitlines())


def depth(mq: Any, queue: str) -> int:
    lines = zos(mq, f"DISPLAY QLOCAL({queue}) CURDEPTH")
    return int(next(line for line in lines if line.startswith("CURDEPTH("))[9:-1])


def test_suspension_is_stored_and_ends_with_resume(mq: Any) -> None:
    zos(mq, "DEFINE QLOCAL(Q1)")
    first = zos(mq, "SUSPEND QMGR LOG")
    assert first[0].startswith(SUSPENDED) and first[1].startswith("CSQ9022I")
    rba = first[0].rsplit(" ", 1)[1]
    # Another process (each mq call is one): still suspended, at the same RBA.
    assert SUSPENDED + rba in zos(mq, "DISPLAY LOG")
    assert zos(mq, "SUSPEND QMGR LOG")[0] == (
        f"MQT0490E -CSQ1 CSQMSSQM SUSPEND QMGR LOG NOT PROCESSED - UPDATE ACTIVITY OF CSQ1 IS ALREADY SUSPENDED AT "
        f"RBA {rba}"
    )
    assert zos(mq, "RESUME QMGR LOG")[0] == "CSQJ373I -CSQ1 UPDATE ACTIVITY HAS BEEN RESUMED FOR CSQ1"
    assert not [line for line in zos(mq, "DISPLAY LOG") if line.startswith("CSQJ372I")]
    result = mq("--system", "CSQ1", "cmd", "RESUME QMGR LOG")
    assert result.output.splitlines()[0] == (
        "MQT0491E -CSQ1 CSQMSSQM RESUME QMGR LOG NOT PROCESSED - UPDATE ACTIVITY OF CSQ1 IS NOT SUSPENDED"
    )
    assert result.exit_code == 10


def test_the_suspension_takes_a_checkpoint_and_the_rba_moves_on_it(mq: Any) -> None:
    before = next(line for line in zos(mq, "DISPLAY LOG") if line.startswith("Latest RBA="))[11:]
    rba = zos(mq, "SUSPEND QMGR LOG")[0].rsplit(" ", 1)[1]
    assert int(rba, 16) == int(before, 16) + 512  # one checkpoint record (log.CHECKPOINT_RECORD)


# Each command of the log_suspend block, in a form that would change something, and the
# display that shows it did not.
REFUSED_COMMANDS = [
    ("DEFINE QLOCAL(NEW.Q)", "DISPLAY QLOCAL(NEW.Q)", "CSQM297I"),
    ("ALTER QLOCAL(Q1) MAXDEPTH(7)", "DISPLAY QLOCAL(Q1) MAXDEPTH", "MAXDEPTH(999999999)"),
    ("DELETE QLOCAL(Q1) PURGE", "DISPLAY QLOCAL(Q1) CURDEPTH", "CURDEPTH(1)"),
    ("CLEAR QLOCAL(Q1)", "DISPLAY QLOCAL(Q1) CURDEPTH", "CURDEPTH(1)"),
    ("MOVE QLOCAL(Q1) TOQLOCAL(Q2) TYPE(ADD)", "DISPLAY QLOCAL(Q2) CURDEPTH", "CURDEPTH(0)"),
    ("ARCHIVE LOG", "DISPLAY LOG", "CSQ1.LOGCOPY1.DS01"),
    ("SET CHLAUTH('X.*') TYPE(BLOCKUSER) USERLIST('nobody')", "DISPLAY CHLAUTH('X.*')", "CSQM297I"),
    ("RESET CHANNEL(TO.TPF) SEQNUM(9)", "DISPLAY CHSTATUS(TO.TPF) SAVED CURSEQNO", "CSQM297I"),
    ("RESOLVE CHANNEL(TO.TPF) ACTION(COMMIT)", "DISPLAY QLOCAL(XQ) CURDEPTH", "CURDEPTH(0)"),
    ("DEFINE LOG(CSQ1.LOGCOPY1.DS09) COPY(1)", "DISPLAY LOG", "Full logs to offload - 0 of 6"),
    ("DEFINE MAXSMSGS(77)", "DISPLAY MAXSMSGS", "MAXSMSGS(10000)"),
]


@pytest.fixture
def suspended(mq: Any) -> Any:
    zos(mq, "DEFINE QLOCAL(Q1)", "DEFINE QLOCAL(Q2)", "DEFINE QLOCAL(XQ) USAGE(XMITQ)")
    zos(mq, "DEFINE CHANNEL(TO.TPF) CHLTYPE(SDR) CONNAME('127.0.0.1(1414)') XMITQ(XQ)")
    assert mq("--system", "CSQ1", "put", "Q1", "--data", "kept").exit_code == 0
    assert zos(mq, "SUSPEND QMGR LOG")[0].startswith(SUSPENDED)
    return mq


@pytest.mark.parametrize(("command", "display", "shown"), REFUSED_COMMANDS, ids=[c for c, _, _ in REFUSED_COMMANDS])
def test_each_logged_command_is_refused_and_changes_nothing(
    suspended: Any, command: str, display: str, shown: str
) -> None:
    result = suspended("--system", "CSQ1", "cmd", command)
    lines = result.output.splitlines()
    assert lines[0].startswith("MQT0492E -CSQ1 ") and lines[0].endswith(
        "NOT PROCESSED - LOG UPDATE ACTIVITY OF CSQ1 IS SUSPENDED; RESUME QMGR LOG AT THE CONSOLE"
    ), lines
    assert lines[-1].startswith("CSQ9023E") and result.exit_code == 10
    assert any(shown in line for line in zos(suspended, display)), zos(suspended, display)


def test_the_table_names_what_is_refused() -> None:
    block = tables.load("zos").raw["log_suspend"]
    assert set(block["refused"]) == {"DEFINE", "ALTER", "DELETE", "CLEAR", "MOVE", "ARCHIVE", "SET", "RESET", "RESOLVE"}
    assert block["allowed"] == {"ALTER": ["TRACE", "SECURITY"]}
    tested = {command.split()[0] for command, _, _ in REFUSED_COMMANDS}
    assert tested == set(block["refused"])


@pytest.mark.parametrize(
    "command",
    [
        "DISPLAY QLOCAL(Q1) ALL",
        "DISPLAY QMGR",
        "ALTER TRACE(STAT) TNO(1) CLASS(1)",
        "ALTER SECURITY TIMEOUT(30)",
        "SET LOG WRTHRSH(30)",
        "SET SYSTEM LOGLOAD(600000)",
        "START TRACE(STAT) CLASS(1)",
        "DISPLAY THREAD(*) TYPE(*)",
        "STOP CMDSERV",
    ],
)
def test_what_is_not_logged_runs(suspended: Any, command: str) -> None:
    result = suspended("--system", "CSQ1", "cmd", command)
    assert "MQT0492E" not in result.output
    assert result.output.splitlines()[-1].startswith("CSQ9022I"), result.output


def test_puts_and_gets_are_refused_browses_are_not(suspended: Any) -> None:
    put = suspended("--system", "CSQ1", "put", "Q1", "--data", "more")
    assert put.exit_code == 1 and REFUSED in put.output and "MQRC 2059" in put.output
    got = suspended("--system", "CSQ1", "get", "Q1")
    assert got.exit_code == 1 and "MQGET refused: " + REFUSED in got.output
    browsed = suspended("--system", "CSQ1", "get", "Q1", "--browse")
    assert browsed.exit_code == 0 and "kept" in browsed.output
    assert depth(suspended, "Q1") == 1
    # A remote queue's put (to its transmission queue) is refused the same way.
    zos(suspended, "RESUME QMGR LOG")
    zos(suspended, "DEFINE QREMOTE(FAR) RNAME(R) RQMNAME(XQ)", "SUSPEND QMGR LOG")
    assert suspended("--system", "CSQ1", "put", "FAR", "--data", "x").exit_code == 1
    assert depth(suspended, "XQ") == 0
    zos(suspended, "RESUME QMGR LOG")
    assert suspended("--system", "CSQ1", "get", "Q1").exit_code == 0
    assert depth(suspended, "Q1") == 0


def test_a_publication_reaches_no_subscriber_while_suspended(mq: Any) -> None:
    zos(mq, "DEFINE QLOCAL(S1)", "DEFINE QLOCAL(S2)")
    zos(mq, "DEFINE SUB(A) TOPICSTR('prices/x') DEST(S1)", "DEFINE SUB(B) TOPICSTR('prices/#') DEST(S2)")
    zos(mq, "SUSPEND QMGR LOG")
    published = mq("--system", "CSQ1", "put", "--topic", "prices/x", "--data", "9.99")
    assert published.exit_code == 1 and REFUSED in published.output
    assert (depth(mq, "S1"), depth(mq, "S2")) == (0, 0)
    zos(mq, "RESUME QMGR LOG")
    assert mq("--system", "CSQ1", "put", "--topic", "prices/x", "--data", "9.99").exit_code == 0
    assert (depth(mq, "S1"), depth(mq, "S2")) == (1, 1)


def test_no_subscription_is_made_while_suspended(mq: Any) -> None:
    """MQSUB is an update too: `get --topic` is refused before its non-durable
    subscription is made, and leaves no SUB behind; after RESUME it subscribes."""
    zos(mq, "DEFINE SUB(A) TOPICSTR('prices/x') DEST(SYSTEM.DEFAULT.LOCAL.QUEUE)")
    zos(mq, "SUSPEND QMGR LOG")
    got = mq("--system", "CSQ1", "get", "--topic", "prices/x")
    assert got.exit_code == 1 and "MQSUB refused: " + REFUSED in got.output
    assert [line for line in zos(mq, "DISPLAY SUB(*)") if line.startswith("SUB(")] == [
        "SUB(A)",
        "SUB(SYSTEM.DEFAULT.SUB)",
    ]
    zos(mq, "RESUME QMGR LOG")
    got = mq("--system", "CSQ1", "get", "--topic", "prices/x")
    assert "MQSUB refused" not in got.output


session = everyday.session  # the fixture: a session on CSQ1 in this process


def test_handles_opened_before_the_suspension_are_held_too(session: Session) -> None:
    """The suspension changes the queue manager's status, so every open handle resolves
    its queue again: a getter and a putter opened before it are refused, a browser is
    not, and all of them work again after RESUME."""
    run(session, "DEFINE QLOCAL(Q1)")
    store, clock = session.store, session.clock
    getter = open_queue(store, clock, "CSQ1", "Q1", "zos")
    putter = open_queue(store, clock, "CSQ1", "Q1", "zos")
    browser = open_queue(store, clock, "CSQ1", "Q1", "zos")
    with store.transaction() as tx:
        getter.open(tx, "get")
        putter.open(tx)
        browser.open(tx, "browse")
        putter.put(tx, b"one", PutOptions(persistent=True))
    try:
        assert run(session, "SUSPEND QMGR LOG")[0].startswith(SUSPENDED)
        with store.transaction() as tx:
            with pytest.raises(MQError) as refused_get:
                getter.get(tx)
            with pytest.raises(MQError) as refused_put:
                putter.put(tx, b"two", PutOptions())
            seen = browser.get(tx, browse=True)
        assert refused_get.value.reason == refused_put.value.reason == Q_MGR_NOT_AVAILABLE
        assert str(refused_get.value).endswith("MQGET refused: " + REFUSED)
        assert seen is not None and seen.payload == b"one"
        assert "CURDEPTH(1)" in run(session, "DISPLAY QLOCAL(Q1) CURDEPTH")
        run(session, "RESUME QMGR LOG")
        with store.transaction() as tx:
            putter.put(tx, b"two", PutOptions())
            # The getter was refused with the queue resolved while suspended; RESUME moved
            # the definitions version, so its next get resolves again and gets.
            got = getter.get(tx)
        assert got is not None and got.payload == b"one"
    finally:
        with store.transaction() as tx:
            for handle in (getter, putter, browser):
                handle.close(tx)


def test_console_only_the_command_server_may_not_suspend(session: Session) -> None:
    session.via_command_server = True
    for verb in ("SUSPEND", "RESUME"):
        assert run(session, f"{verb} QMGR LOG")[0] == (
            f"MQT0493E -CSQ1 CSQMSSQM '{verb} QMGR LOG' CAN BE ISSUED ONLY FROM THE Z/OS CONSOLE"
        )
    session.via_command_server = False
    assert not [line for line in run(session, "DISPLAY LOG") if line.startswith("CSQJ372I")]


def test_the_rest_api_is_refused_with_503_and_browses(state_dir: Path, mq: Any) -> None:
    configure(state_dir)
    zos(mq, "DEFINE QLOCAL(RQ)")
    assert mq("--system", "CSQ1", "put", "RQ", "--data", "kept").exit_code == 0
    with RestService(state_dir, Clock.from_setting(FROZEN)) as service:
        client = Client(service.port)
        document = client.run("SUSPEND QMGR LOG")
        assert "MQT0493E" in document["commandResponse"][0]["text"][1]
        zos(mq, "SUSPEND QMGR LOG")  # at the console
        status, put = client.json("POST", message_url(), "x", user=APP, headers={"Content-Type": "text/plain"})
        assert status == 503 and (error(put)["completionCode"], error(put)["reasonCode"]) == (2, 2059)
        status, got = client.json("DELETE", message_url(), user=APP)
        assert status == 503 and error(got)["reasonCode"] == 2059
        status, _, body = client.request("GET", message_url(), user=APP)
        assert (status, body) == (200, b"kept")
        zos(mq, "RESUME QMGR LOG")
        status, _, body = client.request("DELETE", message_url(), user=APP)
        assert (status, body) == (200, b"kept")


def test_stop_qmgr_ends_a_suspension(mq: Any) -> None:
    zos(mq, "SUSPEND QMGR LOG", "STOP QMGR")
    assert zos(mq, "RESUME QMGR LOG")[0].startswith("CSQ3106E")  # stopped: only START QMGR runs
    zos(mq, "START QMGR")
    assert zos(mq, "DEFINE QLOCAL(AFTER)")[-1].startswith("CSQ9022I")
    assert zos(mq, "RESUME QMGR LOG")[0].startswith("MQT0491E")


def test_channels_wait_while_either_end_is_suspended() -> None:
    running = type("Manager", (), {"status": {"state": "STARTED"}})()
    held = type("Manager", (), {"status": {logsuspend.KEY: 512}})()
    assert not logsuspend.waits(running, None, running)
    assert logsuspend.waits(running, held) and logsuspend.waits(held, None)


# -- DISPLAY THREAD TYPE(REGIONS) ---------------------------------------------------------


def test_regions_summarise_the_threads_of_each_connection_name_and_address_space(session: Session) -> None:
    run(session, "DEFINE QLOCAL(Q1)", "DEFINE QLOCAL(Q2)")
    store, clock = session.store, session.clock
    first = open_queue(store, clock, "CSQ1", "Q1", "zos")
    with store.transaction() as tx:
        first.open(tx, "get")
        from mqtool.engine.zos import connections

        connections.connect(tx, "CSQ1", 0.0, connections.BATCH, "mqtool shell")
    try:
        lines = run(session, "DISPLAY THREAD(*) TYPE(REGIONS)")
        assert lines[0] == "CSQV401I -CSQ1 DISPLAY THREAD REPORT FOLLOWS -"
        assert lines[1] == "CSQV432I -CSQ1 ACTIVE REGIONS -"
        assert lines[2] == "NAME     ST THREADS ACTIVE AUTHID   ASID"
        # Both connections are this process: one region, two threads, one with a queue open.
        assert lines[3].startswith("MQTOOL   T        2      1 ")
        assert lines[4:] == [
            "DISPLAY REGIONS REPORT COMPLETE",
            "CSQ9022I -CSQ1 CSQVDT ' DISPLAY THREAD' NORMAL COMPLETION",
        ]
        assert run(session, "DISPLAY THREAD(NOSUCH*) TYPE(REGIONS)")[1] == "CSQV419I -CSQ1 NO ACTIVE CONNECTIONS FOUND"
        every = run(session, "DISPLAY THREAD(MQTOOL) TYPE(*)")
        assert [line.split()[0] for line in every if line.startswith("CSQV")] == [
            "CSQV401I",
            "CSQV402I",
            "CSQV420I",
            "CSQV432I",
        ]
    finally:
        with store.transaction() as tx:
            first.close(tx)


def test_regions_group_by_name_and_address_space() -> None:
    from commands.zos.conn import _regions, _Thread

    def thread(name: str, asid: str, active: bool) -> _Thread:
        return _Thread(name, name, active, int(active), "OPER", asid, 1)

    threads = [
        thread("CSQ1CHIN", "", False),
        thread("MQTOOL", "00A1", True),
        thread("CSQ1CHIN", "", True),
        thread("MQTOOL", "00B2", False),
        thread("MQTOOL", "00A1", False),
    ]
    assert _regions(threads) == [
        "CSQ1CHIN T        2      1 OPER",
        "MQTOOL   T        2      1 OPER     00A1",
        "MQTOOL   T        1      0 OPER     00B2",
    ]


# -- channels wait ------------------------------------------------------------------------


def test_an_in_store_channel_waits_for_its_suspended_receiver(mq: Any, session: Session) -> None:
    """TPF1 sends to CSQ1, whose log is suspended: the channel runs and sends nothing
    (no batch refused, nothing dead-lettered) until RESUME QMGR LOG."""
    assert mq("system", "alter", "CSQ1", "--listener", "127.0.0.1(1415)").exit_code == 0
    run(session, "DEFINE QLOCAL(IN.Q)", "DEFINE CHANNEL(TPF1.TO.CSQ1) CHLTYPE(RCVR)")
    run(
        session,
        ".system TPF1",
        "ZMQSC DEFINE QL-CSQ1 USAGE-XMITQ",
        "ZMQSC DEFINE QR-IN RNAME-IN.Q RQMNAME-CSQ1 XMITQ-CSQ1",
        "ZMQSC DEFINE CHL-TPF1.TO.CSQ1 CHLTYPE-SDR CONNAME-'127.0.0.1(1415)' XMITQ-CSQ1",
        ".put IN count=3 size=50 pattern=text",
        "-CSQ1 SUSPEND QMGR LOG",
        "ZMQSC START CHL-TPF1.TO.CSQ1",
        ".advance 1s",
        ".advance 1s",
        ".system CSQ1",
    )
    shown = run(session, "DISPLAY CHSTATUS(TPF1.TO.CSQ1) STATUS MSGS", "DISPLAY QLOCAL(IN.Q) CURDEPTH")
    assert "STATUS(RUNNING)" in shown and "MSGS(0)" in shown and "CURDEPTH(0)" in shown, shown
    assert "CURDEPTH(0)" in run(session, "DISPLAY QLOCAL(SYSTEM.DEAD.QUEUE) CURDEPTH")
    run(session, "RESUME QMGR LOG", ".advance 1s", ".advance 1s")
    assert "CURDEPTH(3)" in run(session, "DISPLAY QLOCAL(IN.Q) CURDEPTH")


def test_a_tcp_sender_waits_while_its_own_log_is_suspended(tmp_path: Path) -> None:
    """CSQ1 in one store sends over TCP to TPF1 in another: started while CSQ1's log is
    suspended, the channel binds and runs but sends no batch; after RESUME it moves every
    message. (A bounded look that something does not happen: it passes however slow.)"""
    from tests.tcp_sites import pair, settle

    with pair(tmp_path, "CSQ1", "TPF1") as (a, b):
        port = b.listen("ZMQSC DEFINE QL-ORDERS.IN", "ZMQSC DEFINE CHL-CSQ1.TO.TPF1 CHLTYPE-RCVR")
        a.sender("CSQ1.TO.TPF1", port, "TPFQM")
        a.cmd(".put ORDERS count=5 size=200 pattern=text", "SUSPEND QMGR LOG", "START CHANNEL(CSQ1.TO.TPF1)")
        assert settle([a, b], lambda: a.status("CSQ1", "CSQ1.TO.TPF1").state == "RUNNING")
        assert not settle([a, b], lambda: b.depth("TPF1", "ORDERS.IN") > 0, patience=1.0)
        assert a.depth("CSQ1", "TO.TPFQM") == 5 and a.status("CSQ1", "CSQ1.TO.TPF1").state == "RUNNING"
        a.cmd("RESUME QMGR LOG")
        assert settle([a, b], lambda: b.depth("TPF1", "ORDERS.IN") == 5 and a.depth("CSQ1", "TO.TPFQM") == 0)


def test_a_tcp_batch_to_a_suspended_receiver_is_refused_and_retried(tmp_path: Path) -> None:
    """TPF1 sends over TCP to CSQ1, whose log is suspended: the receiver cannot put the
    messages nor dead-letter them, so the batch fails and the sender retries; nothing is
    lost, and after RESUME every message arrives once."""
    from tests.tcp_sites import pair, settle

    with pair(tmp_path, "TPF1", "CSQ1") as (a, b):
        port = b.listen("DEFINE QLOCAL(ORDERS.IN)", "DEFINE CHANNEL(TPF1.TO.CSQ1) CHLTYPE(RCVR) MCAUSER(TPFMQ)")
        a.cmd(
            "ZMQSC DEFINE QL-CSQ1 USAGE-XMITQ",
            "ZMQSC DEFINE QR-ORDERS RNAME-ORDERS.IN RQMNAME-CSQ1 XMITQ-CSQ1",
            f"ZMQSC DEFINE CHL-TPF1.TO.CSQ1 CHLTYPE-SDR CONNAME-'127.0.0.1({port})' XMITQ-CSQ1 SHORTTMR-1",
            ".put ORDERS count=4 size=200 pattern=text",
        )
        sent = a.msgids("TPF1", "CSQ1")
        b.cmd("SUSPEND QMGR LOG")
        a.cmd("ZMQSC START CHL-TPF1.TO.CSQ1")
        assert settle([a, b], lambda: a.status("TPF1", "TPF1.TO.CSQ1").state == "RETRYING")
        assert a.depth("TPF1", "CSQ1") == 4 and b.depth("CSQ1", "ORDERS.IN") == 0
        assert any("refused: deadq" in line for line in b.console())  # neither put nor dead letter
        b.cmd("RESUME QMGR LOG")
        ok = settle([a, b], lambda: b.depth("CSQ1", "ORDERS.IN") == 4 and a.depth("TPF1", "CSQ1") == 0, patience=8)
        assert ok, (a.status("TPF1", "TPF1.TO.CSQ1"), a.console()[-6:], b.console()[-6:])
        assert b.msgids("CSQ1", "ORDERS.IN") == sent
