"""z/OS statistics: which queues collect (class 5 and STATQ), START/STOP/DISPLAY TRACE,
SET and DISPLAY SYSTEM with STATIME, the statistics interval run by tick, and what a
handle's figures add up to (MQPUT1, failures by reason, rollbacks, a process's counts
written by the interval's end)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mqtool.clock import Clock
from mqtool.engine.core.message import PutOptions
from mqtool.engine.zos import stats
from mqtool.state import ObjectRecord, Store
from tests.conftest import FROZEN
from tests.test_zos_log import close, open_handle, roll_back


def zos(mq: Any, *commands: str, clock: str = FROZEN) -> str:
    return str(mq("--system", "CSQ1", "cmd", *commands, clock=clock).output)


def manager(statq: str = "NONE", classes: list[int] | None = None, state: str = "STARTED") -> ObjectRecord:
    traces = [*stats.STARTUP_TRACES]
    if classes is not None:
        traces.append({"tno": 2, "type": "STAT", "classes": classes, "dest": ["SMF"], "userid": "*", "rmid": "*"})
    return ObjectRecord("CSQ1", "QMGR", "CSQ1", {"STATQ": statq}, {"traces": traces, "state": state}, 0.0, 0.0)


def queue(statq: str) -> ObjectRecord:
    return ObjectRecord("CSQ1", "QLOCAL", "Q", {"STATQ": statq}, {}, 0.0, 0.0)


@pytest.mark.parametrize(
    ("qmgr", "own", "classes", "collects"),
    [
        ("NONE", "ON", [5], False),  # the queue manager's NONE: no queue at all
        ("OFF", "ON", [5], True),
        ("OFF", "QMGR", [5], False),
        ("ON", "QMGR", [5], True),
        ("ON", "OFF", [5], False),
        ("ON", "ON", [1, 2], False),  # class 5 is not active
        ("ON", "ON", None, False),
    ],
)
def test_which_queues_collect(qmgr: str, own: str, classes: list[int] | None, collects: bool) -> None:
    assert stats.queue_statistics(manager(qmgr, classes), queue(own)) is collects


def test_classes_and_kinds() -> None:
    assert stats.stat_classes(manager("ON", [1, 5])) == {1, 5}
    assert stats.kinds({1, 5}) == (True, True)
    assert stats.kinds({3}) == (False, True)
    assert stats.kinds({2, 4}) == (False, False)
    assert stats.stat_classes(manager("ON", [5], state="STOPPED")) == set()


def test_start_stop_and_display_trace(mq: Any) -> None:
    assert zos(mq, "START TRACE(STAT) CLASS(5) DEST(SMF)", "STA TRACE(S) CLASS(1,2,3)", "START TRACE(G) CLASS(2)") == (
        "CSQW130I -CSQ1 CSQWVCM1 'STAT' TRACE STARTED, ASSIGNED TRACE NUMBER 02\n"
        "CSQ9022I -CSQ1 CSQWVCM1 ' START TRACE' NORMAL COMPLETION\n"
        "CSQW130I -CSQ1 CSQWVCM1 'STAT' TRACE STARTED, ASSIGNED TRACE NUMBER 03\n"
        "CSQ9022I -CSQ1 CSQWVCM1 ' START TRACE' NORMAL COMPLETION\n"
        "CSQW130I -CSQ1 CSQWVCM1 'GLOBAL' TRACE STARTED, ASSIGNED TRACE NUMBER 04\n"
        "CSQ9022I -CSQ1 CSQWVCM1 ' START TRACE' NORMAL COMPLETION\n"
    )
    assert zos(mq, "DIS TRACE(*)").splitlines() == [
        "CSQW127I -CSQ1 CSQWVCM1 CURRENT TRACE ACTIVITY IS -",
        "TNO TYPE  CLASS        DEST        USERID  RMID",
        "01  GLOBAL 01           RES          *      *",
        "02  STAT  05           SMF          *      *",
        "03  STAT  01,02,03     SMF          *      *",
        "04  GLOBAL 02           RES          *      *",
        "END OF TRACE REPORT",
        "CSQ9022I -CSQ1 CSQWVCM1 ' DISPLAY TRACE' NORMAL COMPLETION",
    ]
    # DISPLAY TRACE CLASS(n) shows the traces that include it; STOP needs the same classes.
    assert [line[:2] for line in zos(mq, "DIS TRACE CLASS(2)").splitlines()[2:-2]] == ["03", "04"]
    assert zos(mq, "STOP TRACE(STAT) CLASS(1)").splitlines()[0] == "CSQW137I -CSQ1 CSQWVCM1 SPECIFIED TRACE NOT ACTIVE"
    assert zos(mq, "STOP TRACE(*) TNO(2,04)").splitlines()[0] == (
        "CSQW131I -CSQ1 CSQWVCM1 STOP TRACE SUCCESSFUL FOR TRACE NUMBER(S) 02,04"
    )
    assert zos(mq, "STOP TRACE(*)").splitlines()[0] == (
        "CSQW131I -CSQ1 CSQWVCM1 STOP TRACE SUCCESSFUL FOR TRACE NUMBER(S) 01,03"
    )
    assert zos(mq, "DIS TRACE").splitlines()[0] == "CSQW137I -CSQ1 CSQWVCM1 SPECIFIED TRACE NOT ACTIVE"
    # The next START takes the lowest free number.
    assert "ASSIGNED TRACE NUMBER 01" in zos(mq, "START TRACE")


def test_trace_numbers_run_out(mq: Any) -> None:
    starts = [f"START TRACE(A) CLASS(1) RMID({n})" for n in range(31)]
    zos(mq, *starts)  # 01 is the global trace, so these use 02-32 ... RMID differs, DEST not
    out = zos(mq, "START TRACE(CHI)")
    assert "CSQW135I" not in out
    assert out.splitlines() == [
        "MQT0402E -CSQ1 CSQWVCM1 TRACE NOT STARTED - ALL 32 TRACE NUMBERS ARE IN USE",
        "CSQ9023E -CSQ1 CSQWVCM1 ' START TRACE' ABNORMAL COMPLETION",
    ]


def test_statistics_interval_follows_statime(mq: Any) -> None:
    zos(mq, "ALTER QMGR STATQ(ON)", "DEFINE QLOCAL(S1)", "ALTER QLOCAL(SYSTEM.DEAD.QUEUE) STATQ(OFF)")
    zos(mq, "ALTER QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) STATQ(OFF)", "START TRACE(STAT) CLASS(5)")
    store = Store.open(mq.state_dir)

    def due() -> float:
        row = store.conn.execute("SELECT due FROM timers WHERE name = ?", (stats.STATS_TIMER,)).fetchone()
        return float(row[0]) - Clock.from_setting(FROZEN).timestamp()

    def records() -> list[tuple[float, float]]:
        with store.transaction(write=False) as tx:
            return [(start, end) for start, end, _ in stats.queue_records(tx, "CSQ1", "S1")]

    assert due() == 60.0
    zos(mq, "SET SYSTEM STATIME(3)", clock="2021-03-09T15:41:52Z")
    assert due() == 60.0  # longer than what is left: from the next interval
    zos(mq, "DIS QL(S1)", clock="2021-03-09T15:42:22Z")
    assert due() == 240.0 and len(records()) == 1
    zos(mq, "SET SYSTEM STATIME(0)", clock="2021-03-09T15:43:22Z")  # 0: the SMF interval, 30 minutes here
    assert due() == 240.0
    zos(mq, "SET SYSTEM STATIME(1)", clock="2021-03-09T15:43:22Z")  # shorter: gathered now
    assert due() == 180.0 and records()[-1] == (
        Clock.from_setting("2021-03-09T15:42:22Z").timestamp(),
        Clock.from_setting("2021-03-09T15:43:22Z").timestamp(),
    )
    # STOP QMGR writes the interval running; START QMGR starts no STAT trace.
    zos(mq, "STOP QMGR", "START QMGR", clock="2021-03-09T15:43:32Z")
    assert len(records()) == 3
    assert store.conn.execute("SELECT count(*) FROM timers WHERE name = ?", (stats.STATS_TIMER,)).fetchone()[0] == 0
    assert "SET value" in zos(mq, "DIS SYSTEM") and "STATIME      1\n" in zos(mq, "DIS SYSTEM")
    store.close()


def stats_row(store: Store, queue_name: str) -> dict[str, Any]:
    cursor = store.conn.execute("SELECT * FROM zos_queue_stats WHERE queue = ?", (queue_name,))
    row = cursor.fetchone()
    return {} if row is None else dict(zip([d[0] for d in cursor.description], row, strict=True))


def test_figures_are_written_in_groups_and_at_close(mq: Any) -> None:
    zos(mq, "ALTER QMGR STATQ(OFF)", "DEFINE QLOCAL(GQ) STATQ(ON) MAXDEPTH(40)", "START TRACE(STAT) CLASS(5)")
    store, handle = open_handle(mq, "GQ")
    for _ in range(stats.GROUP - 2):  # the MQOPEN counts as one
        handle.put_committed(b"n" * 10, PutOptions(persistent=False))
    assert stats_row(store, "GQ")["puts"] == 0
    handle.put_committed(b"p" * 20, PutOptions(persistent=True))
    row = stats_row(store, "GQ")
    assert (row["puts"], row["puts_p"], row["put_bytes"], row["opens"], row["size_min"], row["size_max"]) == (
        stats.GROUP - 1, 1, 10 * (stats.GROUP - 2) + 20, 1, 10, 20
    )  # fmt: skip
    close(store, handle)
    assert stats_row(store, "GQ")["closes"] == 1
    store.close()


def test_failures_by_reason_and_rollbacks(mq: Any) -> None:
    zos(mq, "ALTER QMGR STATQ(OFF)", "DEFINE QLOCAL(FQ) STATQ(ON) MAXDEPTH(1) MAXMSGL(10)")
    zos(mq, "START TRACE(STAT) CLASS(5)")
    store, handle = open_handle(mq, "FQ")
    from mqtool.engine.core.reasons import MQError

    handle.put_committed(b"ok", PutOptions(persistent=False))
    for payload in (b"full", b"far too long"):
        with pytest.raises(MQError):
            handle.put_committed(payload, PutOptions(persistent=False))
    roll_back(store, handle, lambda tx: handle.get(tx))
    close(store, handle)
    row = stats_row(store, "FQ")
    assert json.loads(row["put_fails"]) == {"2030": 1, "2053": 1}
    assert (row["puts"], row["gets"], row["rolled_gets"]) == (1, 0, 1)
    store.close()


def test_only_mqput1_is_an_mqput1(mq: Any) -> None:
    """A put of one message on an open queue is an MQPUT, as MQSMF counts the seed's
    single 1 KB put; `put --put1` puts each message by MQPUT1 (no MQOPEN nor MQCLOSE
    counted), and its failures are failed MQPUT1s."""
    zos(mq, "ALTER QMGR STATQ(OFF)", "DEFINE QLOCAL(P1) STATQ(ON) MAXDEPTH(4)", "START TRACE(STAT) CLASS(5)")
    assert mq("--system", "CSQ1", "put", "P1", "--data", "one", "--persistent", "-q").exit_code == 0
    assert mq("--system", "CSQ1", "put", "P1", "--data", "two", "--count", "2", "--put1", "-q").exit_code == 0
    assert mq("--system", "CSQ1", "put", "P1", "--data", "many", "--count", "2", "--put1", "-q").exit_code == 1
    store = Store.open(mq.state_dir)
    row = stats_row(store, "P1")
    assert (row["puts"], row["puts_p"], row["put_bytes"], row["put1s"], row["put1s_p"], row["put1_bytes"]) == (
        1,
        1,
        3,
        3,
        0,
        10,
    )
    assert (row["opens"], row["closes"], json.loads(row["put1_fails"]), json.loads(row["put_fails"])) == (
        1,
        1,
        {"2053": 1},
        {},
    )
    store.close()


def test_counts_of_a_running_put_reach_the_interval_they_belong_to(mq: Any, tmp_path: Path) -> None:
    """`.put every=` moves the clock across the interval's end while its handle is
    open: the interval's timer writes what the handle counted before the end."""
    script = tmp_path / "every.mqsc"
    script.write_text(
        "ALTER QMGR STATQ(OFF)\nDEFINE QLOCAL(EVQ) STATQ(ON)\nSTART TRACE(STAT) CLASS(5)\n"
        ".put EVQ count=5 size=10 every=20s\n.advance 60s\n",
        encoding="utf-8",
    )
    assert mq("--system", "CSQ1", "run", str(script)).exit_code == 0
    store = Store.open(mq.state_dir)
    with store.transaction(write=False) as tx:
        found = [(end - start, figures["puts"]) for start, end, figures in stats.queue_records(tx, "CSQ1", "EVQ")]
    # Puts at 0, 20, 40 s fall in the first minute; at 60 and 80 s in the second.
    assert found == [(60.0, 3), (60.0, 2)]
    store.close()


def test_expiry_task_counts_expired_messages(mq: Any) -> None:
    zos(mq, "ALTER QMGR STATQ(OFF) EXPRYINT(5)", "DEFINE QLOCAL(XQ) STATQ(ON)", "START TRACE(STAT) CLASS(5)")
    assert mq("--system", "CSQ1", "put", "XQ", "--data", "x", "--count", "3", "--expiry", "2s", "-q").exit_code == 0
    zos(mq, "DIS QL(XQ)", clock="2021-03-09T15:41:30Z")
    store = Store.open(mq.state_dir)
    assert stats_row(store, "XQ")["expired"] == 3
    store.close()


def test_a_handle_of_another_store_is_not_written_into_this_one(mq: Any, tmp_path: Path) -> None:
    """The interval's timer writes the counts of this process's handles on its own store
    only (tests and a shell may hold several stores)."""
    from tests.conftest import MQ

    other = MQ(tmp_path / "other")
    for each in (mq, other):
        zos(each, "ALTER QMGR STATQ(OFF)", "DEFINE QLOCAL(TQ) STATQ(ON)", "START TRACE(STAT) CLASS(5)")
    store, handle = open_handle(other, "TQ")
    handle.put_committed(b"pending", PutOptions(persistent=False))  # counted, not written
    zos(mq, "DIS QMGR", clock="2021-03-09T15:42:22Z")  # mq's interval ends
    mine = Store.open(mq.state_dir)
    with mine.transaction(write=False) as tx:
        assert [figures["puts"] for _, _, figures in stats.queue_records(tx, "CSQ1", "TQ")] == [0]
    mine.close()
    close(store, handle)
    assert stats_row(store, "TQ")["puts"] == 1  # in its own store, at MQCLOSE
    store.close()
