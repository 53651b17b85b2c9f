"""ZMQSC definitions: inheritance, the rules between objects, and that every error
leaves the store as it was."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.response import FAILED, OK, SYNTAX
from mqtool.session import Session
from mqtool.state import Store
from mqtool.state import messages as runs

FROZEN = "2021-03-09T15:41:22Z"


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    store = Store.open(tmp_path / "state")
    clock = Clock.from_setting(FROZEN)
    ensure_complex(store, clock.timestamp())
    yield Session(store, clock)
    store.close()


def run(session: Session, *lines: str) -> list[str]:
    """Runs lines that must all complete; returns the output of the last."""
    out: list[str] = []
    for line in lines:
        outcome = session.execute(line)
        assert outcome.status == OK, outcome.lines
        out = outcome.lines
    return out


def attrs(session: Session, type_: str, name: str) -> dict[str, object]:
    with session.store.transaction(write=False) as tx:
        record = tx.get_object("TPF1", type_, name)
    assert record is not None, f"{type_}-{name} not defined"
    return record.attrs


def snapshot(session: Session) -> list[tuple[object, ...]]:
    with session.store.transaction(write=False) as tx:
        objects = tx.conn.execute("SELECT * FROM objects ORDER BY system, type, name").fetchall()
        systems = tx.conn.execute("SELECT * FROM systems ORDER BY name").fetchall()
        messages = tx.conn.execute("SELECT id, queue FROM messages ORDER BY id").fetchall()
    return [*objects, *systems, *messages]


def put_message(session: Session, queue: str, persistent: bool = True) -> None:
    """A stored message, written directly: these tests are about definitions, not puts."""
    with session.store.transaction() as tx:
        tx.conn.execute(
            "INSERT INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time, "
            "original_length, stored_length, payload) VALUES (?, 'TPF1', ?, 0, x'01', x'00', ?, 0, 1, 1, x'68')",
            (runs.next_id(tx.conn, "TPF1", queue, 0), queue, int(persistent)),
        )


def set_state(session: Session, type_: str, name: str, state: str) -> None:
    with session.store.transaction() as tx:
        record = tx.get_object("TPF1", type_, name)
        assert record is not None
        record.status["state"] = state
        tx.put_status(record)


def test_compsize_is_inherited_at_define_only(session: Session) -> None:
    run(session, "ZMQSC DEFINE QL-OLD", "ZMQSC ALTER QMGR COMPSIZE-16000", "ZMQSC DEFINE QL-NEW")
    assert attrs(session, "QL", "OLD")["COMPSIZE"] == 0
    assert attrs(session, "QL", "NEW")["COMPSIZE"] == 16000
    run(session, "ZMQSC ALTER QMGR COMPSIZE-0")
    assert attrs(session, "QL", "NEW")["COMPSIZE"] == 16000
    run(session, "ZMQSC DEFINE QL-GIVEN COMPSIZE-500")
    assert attrs(session, "QL", "GIVEN")["COMPSIZE"] == 500


def test_maxmsgl_and_batchsz_are_inherited(session: Session) -> None:
    run(session, "ZMQSC ALTER QMGR MAXMSGL-8000000 BATCHSZ-77", "ZMQSC DEFINE QL-Q", "ZMQSC DEFINE CHL-R CHLTYPE-RCVR")
    assert attrs(session, "QL", "Q")["MAXMSGL"] == 8000000
    assert attrs(session, "CHL", "R")["BATCHSZ"] == 77
    assert attrs(session, "CHL", "R")["MAXMSGL"] == 8000000


def test_define_qmgr_creates_the_system_queues_with_its_defaults(session: Session) -> None:
    run(session, "ZMQSC DELETE QMGR")
    lines = run(session, "ZMQSC DEFINE MQP-QM2 COMPSIZE-100 MAXMSGL-2000")
    assert lines[1:] == [
        "MQSC0001I 10.41.22 DEFINE QMGR-QM2 COMPLETED",
        "MQSC0006I 10.41.22 QL-DEAD.LETTER.QUEUE CREATED WITH QMGR-QM2",
        "MQSC0006I 10.41.22 QL-SPECIAL.RECOVERY.QUEUE CREATED WITH QMGR-QM2+",
    ]
    assert attrs(session, "QL", "DEAD.LETTER.QUEUE")["MAXMSGL"] == 2000
    assert attrs(session, "QL", "SPECIAL.RECOVERY.QUEUE")["COMPSIZE"] == 100


def test_the_system_setting_follows_the_queue_manager(session: Session) -> None:
    def setting() -> object:
        with session.store.transaction(write=False) as tx:
            system = tx.get_system("TPF1")
        assert system is not None
        return system.attrs.get("qmgr")

    assert setting() == "TPFQM"
    run(session, "ZMQSC DELETE QMGR")
    assert setting() is None
    run(session, "ZMQSC DEFINE QMGR-OTHER")
    assert setting() == "OTHER"


def test_mqp_is_the_queue_manager(session: Session) -> None:
    assert run(session, "ZMQSC DIS MQP")[2] == "QMGR TPFQM"
    assert run(session, "ZMQSC DISPLAY MQP-TPFQM")[2] == "QMGR TPFQM"
    run(session, "ZMQSC ALT MQP DESCR-'via MQP'")
    assert attrs(session, "QMGR", "TPFQM")["DESCR"] == "via MQP"


def test_generic_display_lists_matches_in_name_order(session: Session) -> None:
    run(session, "ZMQSC DEF QL-PAY.B", "ZMQSC DEF QL-PAY.A", "ZMQSC DEF QL-OTHER")
    lines = run(session, "ZMQSC DIS QL-PAY*")
    assert [line for line in lines if line.startswith("QUEUE ")] == ["QUEUE PAY.A", "QUEUE PAY.B"]
    lines = run(session, "ZMQSC DIS QL-*")
    assert len([line for line in lines if line.startswith("QUEUE ")]) == 5
    assert lines[-1] == "END OF DISPLAY+"


def test_display_block_layout(session: Session) -> None:
    run(session, "ZMQSC DEF QL-TPFQ COMPSIZE-16000")
    lines = run(session, "ZMQSC DISPLAY QL-TPFQ")
    assert lines == [
        "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01",
        "MQSC0002I 10.41.22 START OF QL DISPLAY",
        "QUEUE TPFQ",
        "COMPSIZE 16000",
        "COMMON NO",
        "USAGE NORMAL",
        "MAXDEPTH 0",
        "MAXMSGL 4194304",
        "PUT ENABLED",
        "GET ENABLED",
        "DEFPSIST NO",
        "QDEPTHHI 0",
        "SWEEP YES",
        "DESCR",
        "TRIGTYPE NONE",
        "PROCESS",
        "CURDEPTH 0",
        "SWBS 0",
        "COMPRESSED 0",
        "END OF DISPLAY+",
    ]


def test_receiver_display_leaves_out_sender_keywords(session: Session) -> None:
    lines = run(session, "ZMQSC DEF CHL-IN CHLTYPE-RCVR COMPMSG-ANY", "ZMQSC DIS CHL-IN")
    assert "CONNAME" not in " ".join(lines)
    assert "COMPMSG ANY" in lines


def test_sender_compmsg_keeps_its_priority_order(session: Session) -> None:
    run(
        session,
        "ZMQSC DEF QL-XQ USAGE-XMITQ",
        "ZMQSC DEF CHL-OUT CHLTYPE-SDR CONNAME-'127.0.0.1(1414)' XMITQ-XQ COMPMSG-ZLIBHIGH,ZLIBFAST",
    )
    assert attrs(session, "CHL", "OUT")["COMPMSG"] == ["ZLIBHIGH", "ZLIBFAST"]
    run(session, "ZMQSC ALT CHL-OUT COMPMSG-zlibfast,zlibhigh")
    assert attrs(session, "CHL", "OUT")["COMPMSG"] == ["ZLIBFAST", "ZLIBHIGH"]


def test_delete_needs_purge_when_the_queue_holds_messages(session: Session) -> None:
    run(session, "ZMQSC DEF QL-FULL")
    put_message(session, "FULL")
    put_message(session, "FULL")
    outcome = session.execute("ZMQSC DELETE QL-FULL")
    assert outcome.status == FAILED
    assert outcome.lines[1] == "MQSC0019E 10.41.22 QL-FULL NOT EMPTY - CURRENT DEPTH 2 - SPECIFY PURGE+"
    run(session, "ZMQSC DELETE QL-FULL PURGE")
    with session.store.transaction(write=False) as tx:
        assert tx.get_object("TPF1", "QL", "FULL") is None
        assert tx.conn.execute("SELECT count(*) FROM messages WHERE system = 'TPF1'").fetchone()[0] == 0


def test_delete_qmgr_needs_purge_when_a_system_queue_holds_messages(session: Session) -> None:
    put_message(session, "DEAD.LETTER.QUEUE")
    outcome = session.execute("ZMQSC DELETE QMGR")
    assert outcome.status == FAILED
    assert "QL-DEAD.LETTER.QUEUE NOT EMPTY - CURRENT DEPTH 1" in outcome.lines[1]
    run(session, "ZMQSC DELETE QMGR PURGE")
    with session.store.transaction(write=False) as tx:
        assert tx.objects("TPF1") == []
        assert tx.conn.execute("SELECT count(*) FROM messages WHERE system = 'TPF1'").fetchone()[0] == 0


def test_clear_removes_the_messages(session: Session) -> None:
    run(session, "ZMQSC DEF QL-Q")
    put_message(session, "Q")
    run(session, "ZMQSC CLEAR QL-Q")
    with session.store.transaction(write=False) as tx:
        assert tx.conn.execute("SELECT count(*) FROM messages WHERE system = 'TPF1'").fetchone()[0] == 0


def test_a_running_sender_protects_its_channel_and_transmission_queue(session: Session) -> None:
    run(
        session,
        "ZMQSC DEF QL-XQ USAGE-XMITQ",
        "ZMQSC DEF CHL-OUT CHLTYPE-SDR CONNAME-'127.0.0.1(1414)' XMITQ-XQ",
    )
    put_message(session, "XQ")
    set_state(session, "CHL", "OUT", "RUNNING")
    before = snapshot(session)
    for line, expected in (
        ("ZMQSC CLEAR QL-XQ", "MQSC0023E 10.41.22 CHL-OUT IS RUNNING - STOP THE CHANNEL FIRST+"),
        ("ZMQSC DELETE CHL-OUT", "MQSC0023E 10.41.22 CHL-OUT IS RUNNING - STOP THE CHANNEL FIRST+"),
    ):
        outcome = session.execute(line)
        assert (outcome.status, outcome.lines[1]) == (FAILED, expected)
    assert snapshot(session) == before
    set_state(session, "CHL", "OUT", "STOPPED")
    run(session, "ZMQSC CLEAR QL-XQ", "ZMQSC DELETE CHL-OUT", "ZMQSC DELETE QL-XQ")


ERRORS = [
    ("ZMQSC", SYNTAX, "MQSC0011E"),
    ("ZMQSC FROB QL-A", SYNTAX, "MQSC0011E"),
    ("ZMQSC DEFINE QX-A", SYNTAX, "MQSC0012E"),
    ("ZMQSC DEFINE QL-A FOO-1", SYNTAX, "MQSC0013E"),
    ("ZMQSC DEFINE QL-A MAXDEPTH-1000000000", SYNTAX, "MQSC0014E"),
    ("ZMQSC DEFINE QL-A MAXDEPTH-1 MAXDEPTH-2", SYNTAX, "MQSC0015E"),
    ("ZMQSC DEFINE QA-B", SYNTAX, "MQSC0016E"),
    ("ZMQSC DEFINE QL-EXISTING", FAILED, "MQSC0017E"),
    ("ZMQSC ALTER QL-NOPE MAXDEPTH-1", FAILED, "MQSC0018E"),
    ("ZMQSC ALTER QL-EXISTING COMMON-YES", SYNTAX, "MQSC0020E"),
    ("ZMQSC DEFINE QL-'A B'", SYNTAX, "MQSC0021E"),
    ("ZMQSC DEFINE QL-A PURGE", SYNTAX, "MQSC0022E"),
    ("ZMQSC DEFINE QL-A DESCR-'x", SYNTAX, "MQSC0024E"),
    ("ZMQSC DEFINE QL", SYNTAX, "MQSC0026E"),
    ("ZMQSC DEFINE QL-A B=C", SYNTAX, "MQSC0027E"),
    ("ZMQSC DEFINE QMGR-QM2", FAILED, "MQSC0028E"),
    ("ZMQSC DELETE QL-EXISTING", FAILED, "MQSC0029E"),
    ("ZMQSC DEFINE QA-SELF TARGQ-SELF", SYNTAX, "MQSC0030E"),
    ("ZMQSC DEFINE QL-C COMMON-YES USAGE-XMITQ", SYNTAX, "MQSC0030E"),
    ("ZMQSC DEFINE QR-R RNAME-X RQMNAME-Y XMITQ-EXISTING", FAILED, "MQSC0031E"),
    ("ZMQSC DEFINE QA-EXISTING TARGQ-EXISTING", FAILED, "MQSC0032E"),
    ("ZMQSC DEFINE QA-ALIAS TARGQ-EXISTING", FAILED, "MQSC0017E"),
    ("ZMQSC DEFINE QR-EXISTING RNAME-X RQMNAME-Y", FAILED, "MQSC0032E"),
    ("ZMQSC DELETE QMGR", FAILED, "MQSC0033E"),
    ("ZMQSC DEFINE QA-B TARGQ-NOPE", FAILED, "MQSC0036E"),
    ("ZMQSC DELETE QL-SPECIAL.RECOVERY.QUEUE", FAILED, "MQSC0037E"),
    ("ZMQSC ALTER QMGR MAXMSGL-100", FAILED, "MQSC0038E"),
    ("ZMQSC DEFINE QA-B TARGQ-ALIAS", FAILED, "MQSC0039E"),
    ("ZMQSC DEFINE QL-A MAXMSGL-5000000", SYNTAX, "MQSC0014E"),
    ("ZMQSC DEFINE QL-A QDEPTHHI-5 COMMON-YES", SYNTAX, "MQSC0022E"),
    ("ZMQSC DEFINE CHL-S CHLTYPE-SDR CONNAME-H(1) XMITQ-XQ", SYNTAX, "MQSC0014E"),
    ("ZMQSC DEFINE CHL-S CHLTYPE-SDR CONNAME-' h(1)' XMITQ-XQ", SYNTAX, "MQSC0014E"),
    ("ZMQSC DEFINE CHL-S CHLTYPE-SDR CONNAME-'h(1)' XMITQ-EXISTING", FAILED, "MQSC0031E"),
    ("ZMQSC DEFINE CHL-S CHLTYPE-SDR XMITQ-XQ COMPMSG-ANY", SYNTAX, "MQSC0016E"),
    ("ZMQSC DEFINE CHL-S CHLTYPE-SDR CONNAME-'h(1)' XMITQ-XQ COMPMSG-ANY", SYNTAX, "MQSC0022E"),
    ("ZMQSC DEFINE CHL-S CHLTYPE-RCVR COMPMSG-NONE,ZLIBFAST", SYNTAX, "MQSC0014E"),
    ("ZMQSC ALTER QL-XQ USAGE-NORMAL", FAILED, "MQSC0029E"),
    ("ZMQSC DELETE QL-A*", SYNTAX, "MQSC0021E"),
]


@pytest.mark.parametrize(("line", "status", "msg_id"), ERRORS, ids=[e[0] for e in ERRORS])
def test_every_error_has_an_id_and_changes_nothing(session: Session, line: str, status: str, msg_id: str) -> None:
    run(
        session,
        "ZMQSC DEF QL-EXISTING",
        "ZMQSC DEF QA-ALIAS TARGQ-EXISTING",
        "ZMQSC DEF QL-XQ USAGE-XMITQ",
        "ZMQSC DEF QR-REMOTE RNAME-X RQMNAME-Y XMITQ-XQ",
    )
    before = snapshot(session)
    outcome = session.execute(line)
    assert outcome.status == status, outcome.lines
    assert outcome.lines[0].startswith("CSMP0097I ")
    assert outcome.lines[1].startswith(f"{msg_id} 10.41.22 ")
    assert outcome.lines[-1].endswith("+")
    assert snapshot(session) == before


def test_zmqsc_on_a_zos_system_names_the_ztpf_systems(session: Session) -> None:
    run(session, ".system CSQ1")
    outcome = session.execute("ZMQSC DIS QMGR")
    assert outcome.status == FAILED
    assert outcome.lines == ["MQSC0025E SYSTEM CSQ1 IS A Z/OS SYSTEM - ZMQSC NEEDS A Z/TPF SYSTEM - ENTER .SYSTEM TPF1"]


def test_mqsc_on_a_ztpf_system_goes_to_the_only_zos_system(session: Session) -> None:
    outcome = session.execute("DISPLAY QLOCAL(*)")
    assert outcome.status == OK
    assert outcome.system == "CSQ1"


def test_zmqsc_without_any_ztpf_system(session: Session) -> None:
    with session.store.transaction() as tx:
        tx.conn.execute("DELETE FROM objects WHERE system = 'TPF1'")
        tx.delete_system("TPF1")
    session.current = "CSQ1"
    outcome = session.execute("ZMQSC DIS QMGR")
    assert outcome.lines == ["MQT0007E No z/TPF system in the complex for this command"]
