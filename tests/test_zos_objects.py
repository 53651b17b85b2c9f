"""MQSC for z/OS objects: built-in objects, DEFINE defaults (system default objects,
LIKE, REPLACE), displays and attribute selection, page sets and their usage, queue and
channel status, queue manager stop and start, and the errors of each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.zos.pages import pages_for
from mqtool.session import Session
from mqtool.state import Store, SystemRecord
from mqtool.state import messages as runs

FROZEN = "2021-03-09T15:41:22Z"


def zos(mq: Any, *commands: str) -> str:
    result = mq("--system", "CSQ1", "cmd", *commands)
    return str(result.output)


def put_rows(state_dir: Path, queue: str, lengths: list[int], persistent: bool = True, at: float = 0.0) -> None:
    """Messages as the engine stores them, for the displays that count them."""
    store = Store.open(state_dir)
    with store.transaction() as tx:
        for index, length in enumerate(lengths):
            tx.conn.execute(
                "INSERT INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time, "
                "original_length, stored_length, payload, swbs) VALUES (?, 'CSQ1', ?, 0, ?, ?, ?, ?, ?, ?, ?, ?)",
                (runs.next_id(tx.conn, "CSQ1", queue, 0), queue, bytes([index]) * 24, b"\0" * 24, int(persistent),
                 at, length, length, b"x" * length, pages_for(length)),
            )  # fmt: skip
    store.close()


def block(out: str, title: str) -> list[str]:
    """The attribute lines of the display block whose first line is `title`."""
    lines = out.splitlines()
    start = lines.index(title)
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("END "))
    return lines[start:end]


def test_a_new_queue_manager_has_its_builtin_objects(mq: Any) -> None:
    out = zos(mq, "DIS Q(*) TYPE", "DIS STC(*) PSID", "DIS CHL(*)")
    names = [line for line in out.splitlines() if line.startswith(("QUEUE(", "STGCLASS(", "CHANNEL("))]
    assert names == [
        "QUEUE(SYSTEM.DEAD.QUEUE)",
        "QUEUE(SYSTEM.DEFAULT.ALIAS.QUEUE)",
        "QUEUE(SYSTEM.DEFAULT.LOCAL.QUEUE)",
        "QUEUE(SYSTEM.DEFAULT.MODEL.QUEUE)",
        "QUEUE(SYSTEM.DEFAULT.REMOTE.QUEUE)",
        "QUEUE(SYSTEM.DURABLE.MODEL.QUEUE)",
        "QUEUE(SYSTEM.NDURABLE.MODEL.QUEUE)",
        "STGCLASS(DEFAULT)",
        "STGCLASS(REMOTE)",
        "STGCLASS(SYSTEM)",
        "STGCLASS(SYSTEMST)",
        "CHANNEL(SYSTEM.DEF.RECEIVER)",
        "CHANNEL(SYSTEM.DEF.REQUESTER)",
        "CHANNEL(SYSTEM.DEF.SENDER)",
        "CHANNEL(SYSTEM.DEF.SERVER)",
        "CHANNEL(SYSTEM.DEF.SVRCONN)",
    ]


def test_a_system_stored_without_objects_gets_them_on_first_use(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    clock = Clock.from_setting(FROZEN)
    ensure_complex(store, clock.timestamp())
    with store.transaction() as tx:
        tx.put_system(SystemRecord("CSQ2", "zos", {"cpf": "+CSQ2"}))
    session = Session(store, clock)
    outcome = session.execute("+CSQ2 DEFINE QLOCAL(FIRST)")
    assert outcome.lines == ["CSQ9022I +CSQ2 CSQMAQLC ' DEFINE QLOCAL' NORMAL COMPLETION"]
    assert session.execute("+CSQ2 DIS QL(SYSTEM.DEAD.QUEUE) DEFPSIST").lines[5] == "DEFPSIST(YES)"
    store.close()


def test_display_all_for_a_name_identity_for_a_generic_name(mq: Any) -> None:
    zos(mq, "DEF QL(ONE)")
    specific = zos(mq, "DIS QL(ONE)").splitlines()
    generic = zos(mq, "DIS QL(ON*)").splitlines()
    every = zos(mq, "DIS QL(ON*) ALL").splitlines()
    assert len(specific) == 65 and specific[2:5] == ["QUEUE(ONE)", "TYPE(QLOCAL)", "QSGDISP(QMGR)"]
    assert generic[2:6] == ["QUEUE(ONE)", "TYPE(QLOCAL)", "QSGDISP(QMGR)", "END QLOCAL DETAILS"]
    assert every == specific


def test_selected_attributes_come_in_ibms_order(mq: Any) -> None:
    zos(mq, "DEF QL(ONE) MAXDEPTH(7)")
    assert zos(mq, "DIS QL(ONE) MAXDEPTH CURDEPTH TYPE") == (
        "CSQM293I -CSQ1 CSQMDRTC 1 QLOCAL FOUND MATCHING REQUEST CRITERIA\n"
        "CSQM201I -CSQ1 CSQMDRTC DISPLAY QLOCAL DETAILS\n"
        "QUEUE(ONE)\n"
        "TYPE(QLOCAL)\n"
        "QSGDISP(QMGR)\n"
        "CURDEPTH(0)\n"
        "MAXDEPTH(7)\n"
        "END QLOCAL DETAILS\n"
        "CSQ9022I -CSQ1 CSQMDRTS ' DISPLAY QLOCAL' NORMAL COMPLETION\n"
    )


def test_define_takes_defaults_from_the_system_default_object(mq: Any) -> None:
    zos(mq, "ALTER QL(SYSTEM.DEFAULT.LOCAL.QUEUE) MAXDEPTH(5000) DEFPSIST(YES)", "DEF QL(NEW) DEFPSIST(NO)")
    assert block(zos(mq, "DIS QL(NEW) MAXDEPTH DEFPSIST"), "QUEUE(NEW)")[3:] == ["DEFPSIST(NO)", "MAXDEPTH(5000)"]


def test_like_copies_and_replace_resets_to_defaults(mq: Any) -> None:
    out = zos(
        mq,
        "DEF QL(MODEL.Q) MAXDEPTH(10) DESCR('from like')",
        "DEF QL(COPY.Q) LIKE(MODEL.Q) MAXMSGL(100)",
        "DIS QL(COPY.Q) MAXDEPTH MAXMSGL DESCR",
        "DEF QL(COPY.Q) REPLACE MAXMSGL(200)",
        "DIS QL(COPY.Q) MAXDEPTH MAXMSGL DESCR",
    )
    first, second = out.split("CSQ9022I -CSQ1 CSQMAQLC ' DEFINE QLOCAL' NORMAL COMPLETION\n")[2:4]
    assert block(first, "QUEUE(COPY.Q)")[3:] == ["DESCR(from like)", "MAXDEPTH(10)", "MAXMSGL(100)"]
    assert block(second, "QUEUE(COPY.Q)")[3:] == ["DESCR( )", "MAXDEPTH(999999999)", "MAXMSGL(200)"]


def test_display_queue_across_types_and_type_filter(mq: Any) -> None:
    zos(mq, "DEF QL(P.LOCAL)", "DEF QA(P.ALIAS) TARGET(P.LOCAL)", "DEF QR(P.REMOTE) RNAME(X) RQMNAME(Y)")
    out = zos(mq, "DIS Q(P.*) TYPE(QA) TARGET")
    assert out == (
        "CSQM293I -CSQ1 CSQMDRTC 1 QUEUE FOUND MATCHING REQUEST CRITERIA\n"
        "CSQM201I -CSQ1 CSQMDRTC DISPLAY QUEUE DETAILS\n"
        "QUEUE(P.ALIAS)\n"
        "TYPE(QALIAS)\n"
        "QSGDISP(QMGR)\n"
        "TARGET(P.LOCAL)\n"
        "END QUEUE DETAILS\n"
        "CSQ9022I -CSQ1 CSQMDRTS ' DISPLAY QUEUE' NORMAL COMPLETION\n"
    )
    # MAXDEPTH belongs to local queues only: an alias shows its identity alone.
    assert "MAXDEPTH" not in block(zos(mq, "DIS Q(P.*) MAXDEPTH"), "QUEUE(P.ALIAS)")[3:]


def test_queue_names_are_shared_by_every_queue_type(mq: Any) -> None:
    assert zos(mq, "DEF QL(SHARED.NAME)", "DEF QA(SHARED.NAME) TARGET(X)").splitlines()[1:] == [
        "CSQM110I -CSQ1 CSQMAQAL QALIAS (SHARED.NAME) QSGDISP(QMGR) HAS INCORRECT TYPE, IT IS QLOCAL",
        "CSQM090E -CSQ1 CSQMAQAL FAILURE REASON CODE X'00D44005'",
        "CSQ9023E -CSQ1 CSQMAQAL ' DEFINE QALIAS' ABNORMAL COMPLETION",
    ]


def test_a_queue_holding_messages(mq: Any) -> None:
    zos(mq, "DEF QL(FULL)")
    put_rows(mq.state_dir, "FULL", [100, 200, 300])
    assert "CURDEPTH(3)" in zos(mq, "DIS QL(FULL) CURDEPTH").splitlines()
    assert zos(mq, "DEL QL(FULL)", "ALT QL(FULL) STGCLASS(REMOTE)") == (
        "CSQM127I -CSQ1 CSQMUQLC QLOCAL (FULL) QSGDISP(QMGR) IS NOT EMPTY, CURDEPTH(3) - SPECIFY PURGE\n"
        "CSQM090E -CSQ1 CSQMUQLC FAILURE REASON CODE X'00D44006'\n"
        "CSQ9023E -CSQ1 CSQMUQLC ' DELETE QLOCAL' ABNORMAL COMPLETION\n"
        "CSQM181E -CSQ1 CSQMAQLC STGCLASS(REMOTE) NOT ALLOWED - QUEUE FULL HOLDS 3 MESSAGES\n"
        "CSQ9023E -CSQ1 CSQMAQLC ' ALTER QLOCAL' ABNORMAL COMPLETION\n"
    )
    assert zos(mq, "ALT STC(DEFAULT) PSID(2)") == (
        "CSQM181E -CSQ1 CSQMASTG PSID(2) NOT ALLOWED - QUEUE FULL OF THIS STORAGE CLASS HOLDS 3 MESSAGES\n"
        "CSQ9023E -CSQ1 CSQMASTG ' ALTER STGCLASS' ABNORMAL COMPLETION\n"
    )
    zos(mq, "CLEAR QLOCAL(FULL)")
    assert "CURDEPTH(0)" in zos(mq, "DIS QL(FULL) CURDEPTH").splitlines()
    put_rows(mq.state_dir, "FULL", [10])
    assert zos(mq, "DEL QL(FULL) PURGE") == "CSQ9022I -CSQ1 CSQMUQLC ' DELETE QLOCAL' NORMAL COMPLETION\n"


def test_page_set_usage_counts_the_pages_of_messages(mq: Any) -> None:
    zos(mq, "DEF PSID(7) PAGES(100) EXPAND(NONE)", "DEF STC(SMALL) PSID(7)", "DEF QL(SMALLQ) STGCLASS(SMALL)")
    # ceil((length + 500) / 4096): 3596 bytes fill one page, 3597 need two
    put_rows(mq.state_dir, "SMALLQ", [3596, 3597, 40000])
    put_rows(mq.state_dir, "SMALLQ", [10000], persistent=False)
    assert [pages_for(n) for n in (0, 3596, 3597, 10000, 40000)] == [1, 1, 2, 3, 10]
    assert zos(mq, "DIS USAGE PSID(7) TYPE(PAGESET)").splitlines()[3] == (
        "    7      0       100        84         13          3 NONE       0"
    )
    assert zos(mq, "ALTER PSID(7) PAGES(10)") == (
        "CSQM181E -CSQ1 CSQIAPSD PAGES(10) NOT ALLOWED - PAGE SET 07 HOLDS 16 PAGES OF MESSAGES\n"
        "CSQ9023E -CSQ1 CSQIAPSD ' ALTER PSID' ABNORMAL COMPLETION\n"
    )


def test_queue_status_shows_depth_and_oldest_message_age(mq: Any) -> None:
    zos(mq, "DEF QL(AGED)")
    frozen = Clock.from_setting(FROZEN).timestamp()
    put_rows(mq.state_dir, "AGED", [10, 20], at=frozen - 90)
    out = zos(mq, "DIS QS(AGED) CURDEPTH MSGAGE UNCOM")
    assert block(out, "QSTATUS(AGED)") == [
        "QSTATUS(AGED)",
        "TYPE(QUEUE)",
        "QSGDISP(QMGR)",
        "CURDEPTH(2)",
        "UNCOM(NO)",
        "MSGAGE(90)",
    ]


def test_channel_status_of_a_channel_the_engine_runs(mq: Any) -> None:
    zos(mq, "DEF CHL(TO.QM2) CHLTYPE(SDR) CONNAME('127.0.0.1(1415)') XMITQ(QM2)")
    store = Store.open(mq.state_dir)
    with store.transaction() as tx:
        record = tx.get_object("CSQ1", "CHANNEL", "TO.QM2")
        assert record is not None
        record.status = {
            "state": "RUNNING",
            "msgs": 12,
            "bytssent": 1_234_567_890_123,
            "compmsg": ["ZLIBFAST", "ZLIBFAST"],
            "comprate": [62, 58],
        }
        tx.put_status(record)
    store.close()
    # The default fields, those named; COMPRATE needs channel monitoring (MONCHL).
    out = zos(mq, "ALTER QMGR MONCHL(LOW)", "DIS CHS(*) STATUS MSGS BYTSSENT COMPMSG COMPRATE", "DEL CHL(TO.QM2)")
    assert out == (
        "CSQ9022I -CSQ1 CSQMAQMG ' ALTER QMGR' NORMAL COMPLETION\n"
        "CSQM293I -CSQ1 CSQMDRTC 1 CHANNEL STATUS FOUND MATCHING REQUEST CRITERIA\n"
        "CSQM201I -CSQ1 CSQMDRTC DISPLAY CHSTATUS DETAILS\n"
        "CHSTATUS(TO.QM2)\n"
        "CHLDISP(PRIVATE)\n"
        "XMITQ(QM2)\n"
        "CONNAME(127.0.0.1(1415))\n"
        "CURRENT\n"
        "CHLTYPE(SDR)\n"
        "STATUS(RUNNING)\n"
        "SUBSTATE( )\n"
        "STOPREQ(NO)\n"
        "MSGS(12)\n"
        "BYTSSENT(999999999)\n"
        "COMPMSG(ZLIBFAST,ZLIBFAST)\n"
        "COMPRATE(62,58)\n"
        "END CHSTATUS DETAILS\n"
        "CSQ9022I -CSQ1 CSQMDRTS ' DISPLAY CHSTATUS' NORMAL COMPLETION\n"
        "CSQM101I -CSQ1 CSQMUCHL CHANNEL (TO.QM2) QSGDISP(QMGR) IS CURRENTLY IN USE, STATUS(RUNNING)\n"
        "CSQM090E -CSQ1 CSQMUCHL FAILURE REASON CODE X'00D44004'\n"
        "CSQ9023E -CSQ1 CSQMUCHL ' DELETE CHANNEL' ABNORMAL COMPLETION\n"
    )


def test_channel_keywords_follow_the_channel_type(mq: Any) -> None:
    out = zos(
        mq,
        "DEF CHL(SVR) CHLTYPE(SVRCONN) SHARECNV(0)",
        "DIS CHL(SVR) SHARECNV BATCHSZ CONNAME",
        "ALT CHL(SVR) CHLTYPE(SVRCONN) CONNAME('h(1)')",
    )
    assert out.splitlines()[6:] == [
        "SHARECNV(0)",
        "END CHANNEL DETAILS",
        "CSQ9022I -CSQ1 CSQMDRTS ' DISPLAY CHANNEL' NORMAL COMPLETION",
        "CSQM181E -CSQ1 CSQMACHL CONNAME(h(1)) NOT ALLOWED - NOT VALID FOR CHLTYPE(SVRCONN)",
        "CSQ9023E -CSQ1 CSQMACHL ' ALTER CHANNEL' ABNORMAL COMPLETION",
    ]


def test_stop_and_start_the_queue_manager(mq: Any) -> None:
    zos(mq, "DEF QL(KEEP)")
    put_rows(mq.state_dir, "KEEP", [10, 20])
    put_rows(mq.state_dir, "KEEP", [30], persistent=False)
    assert zos(mq, "STOP QMGR MODE(FORCE)", "DIS QL(KEEP)", "START QMGR") == (
        "CSQY002I -CSQ1 QUEUE MANAGER STOPPING\n"
        "CSQ9022I -CSQ1 CSQYASCP ' STOP QMGR' NORMAL COMPLETION\n"
        "CSQ3106E -CSQ1 CSQ3EC0X - QUEUE MANAGER STOPPED. COMMAND NOT PROCESSED - -CSQ1 DIS QL(KEEP)\n"
        "CSQY001I -CSQ1 QUEUE MANAGER STARTING, USING PARAMETER MODULE CSQZPARM\n"
        "CSQJ001I -CSQ1 CURRENT COPY 1 ACTIVE LOG DATA SET IS DSNAME=CSQ1.LOGCOPY1.DS01, STARTRBA=0000000000000000 "
        "ENDRBA=00000000FFFFFFFF\n"
        "CSQJ001I -CSQ1 CURRENT COPY 2 ACTIVE LOG DATA SET IS DSNAME=CSQ1.LOGCOPY2.DS01, STARTRBA=0000000000000000 "
        "ENDRBA=00000000FFFFFFFF\n"
        "CSQJ099I -CSQ1 LOG RECORDING TO COMMENCE WITH STARTRBA=0000000000000000\n"
        "CSQY022I -CSQ1 QUEUE MANAGER INITIALIZATION COMPLETE\n"
        "CSQ9022I -CSQ1 CSQYASCP ' START QMGR' NORMAL COMPLETION\n"
    )
    # Non-persistent messages do not survive the restart.
    assert "CURDEPTH(2)" in zos(mq, "DIS QL(KEEP) CURDEPTH").splitlines()


def test_stopped_queue_manager_is_reported_to_the_engine(tmp_path: Path) -> None:
    from mqtool.commands.zos import is_active

    store = Store.open(tmp_path)
    clock = Clock.from_setting(FROZEN)
    ensure_complex(store, clock.timestamp())
    session = Session(store, clock, "CSQ1")
    session.execute("STOP QMGR")
    with store.transaction(write=False) as tx:
        system = tx.get_system("CSQ1")
        assert system is not None and not is_active(tx, system)
    session.execute("START QMGR")
    with store.transaction(write=False) as tx:
        assert is_active(tx, system)
    store.close()


def test_display_dates_use_the_system_offset(mq: Any) -> None:
    assert mq("system", "alter", "CSQ1", "--offset", "-05:00").exit_code == 0
    zos(mq, "DEF QL(DATED)")
    assert block(zos(mq, "DIS QL(DATED) CRDATE CRTIME"), "QUEUE(DATED)")[3:] == [
        "CRDATE(2021-03-09)",
        "CRTIME(10.41.22)",
    ]


def test_expryint_schedules_the_engine_expiry_scan(mq: Any) -> None:
    from mqtool.engine.zos.expiry import EXPIRY_TIMER

    def timers() -> list[tuple[str, float]]:
        store = Store.open(mq.state_dir)
        with store.transaction(write=False) as tx:
            rows = tx.conn.execute("SELECT name, due FROM timers WHERE system = 'CSQ1'").fetchall()
        store.close()
        return [(str(name), float(due)) for name, due in rows]

    start = Clock.from_setting(FROZEN).timestamp()
    zos(mq, "ALTER QMGR EXPRYINT(300)")
    assert timers() == [(EXPIRY_TIMER, start + 300)]
    zos(mq, "ALTER QMGR EXPRYINT(600)")
    assert timers() == [(EXPIRY_TIMER, start + 600)]
    zos(mq, "ALTER QMGR EXPRYINT(OFF)")
    assert timers() == []
