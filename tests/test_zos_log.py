"""The z/OS log: initial values from the system's log parameters, SET LOG and its
zHyperWrite/zHyperLink rules, write sessions, the log records persistent work writes
(the RBA, data sets that fill, switch and are offloaded, COMPLOG, zHyperLink writes),
written in groups, the position that DISPLAY LOG shows and that survives a restart,
ARCHIVE LOG, and SET/DISPLAY ARCHIVE."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mqtool.clock import Clock
from mqtool.complex import LOG_DEFAULTS
from mqtool.engine.core.handle import QueueHandle
from mqtool.engine.core.message import PutOptions
from mqtool.engine.platforms import open_queue
from mqtool.engine.zos import log as logs
from mqtool.engine.zos import stats
from mqtool.engine.zos.logrecords import GET_RECORD, PUT_HEADER
from mqtool.state import ObjectRecord, Store, SystemRecord, Transaction
from tests.conftest import FROZEN

NEW_QMGR = ObjectRecord("CSQ1", "QMGR", "CSQ1", {}, {}, 0.0, 0.0)


def zos(mq: Any, *commands: str) -> str:
    result = mq("--system", "CSQ1", "cmd", *commands)
    return str(result.output)


def report(out: str, first: str, last: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith(last))
    return lines[start : end + 1]


def system(**log: Any) -> SystemRecord:
    return SystemRecord("CSQ1", "zos", {"cpu": log.pop("cpu", "z15"), "log": dict(LOG_DEFAULTS) | log})


def test_initial_values_come_from_the_system_log_parameters(mq: Any) -> None:
    assert mq("system", "alter", "CSQ1", "--log", "OUTBUFF=400", "--log", "MAXARCH=50").exit_code == 0
    rows = report(zos(mq, "DISPLAY LOG"), "Parameter", "End of LOG report")
    assert rows[3] == "OUTBUFF      400"
    assert rows[5] == "MAXARCH      50"


def test_initial_zhylink_overrides_zhywrite() -> None:
    assert logs.initial_log(system(ZHYLINK="YES", ZHYWRITE="NO"))["ZHYWRITE"] == "YES"
    assert logs.initial_log(system(ZHYLINK="NO", ZHYWRITE="NO"))["ZHYWRITE"] == "NO"


@pytest.mark.parametrize(
    ("settings", "sessions"),
    [
        ({}, 2),
        ({"TWOACTV": "NO"}, 1),
        ({"TWOACTV": "NO", "STRIPES": 4}, 4),
        ({"STRIPES": 4}, 8),
        ({"STRIPES": 4, "PPRC": "YES"}, 16),
    ],
)
def test_write_sessions_are_copies_times_stripes_doubled_with_pprc(settings: dict[str, Any], sessions: int) -> None:
    assert logs.write_sessions(dict(LOG_DEFAULTS) | settings) == sessions


@pytest.mark.parametrize(
    ("settings", "mode"),
    [
        ({"ZHYLINK": "NO"}, "OFF"),
        ({"ZHYLINK": "YES"}, "SYNC"),
        ({"ZHYLINK": "YES", "cpu": "z13"}, "NOTCAPABLE"),
        ({"ZHYLINK": "YES", "cpu": "z14"}, "SYNC"),
        ({"ZHYLINK": "YES", "STRIPES": 4, "PPRC": "YES", "ZHLFREE": 15}, "NOSESSIONS"),
        ({"ZHYLINK": "YES", "STRIPES": 4, "PPRC": "YES", "ZHLFREE": 16}, "SYNC"),
    ],
)
def test_how_log_writes_go(settings: dict[str, Any], mode: str) -> None:
    record = system(**settings)
    assert logs.zhyperlink(record, logs.initial_log(record)) == mode


def test_set_log_rules(mq: Any) -> None:
    assert zos(mq, "SET LOG ZHYLINK(YES)", "SET LOG ZHYWRITE(NO)", "SET LOG ZHYLINK(YES) ZHYWRITE(NO)") == (
        "CSQJ380I -CSQ1 ZHYWRITE SET TO YES BECAUSE ZHYLINK(YES) REQUIRES ZHYPERWRITE\n"
        "CSQ9022I -CSQ1 CSQJC001 ' SET LOG' NORMAL COMPLETION\n"
        "CSQJ381E -CSQ1 ZHYLINK(YES) REQUIRES ZHYWRITE(YES), ZHYLINK IS YES - LOG PARAMETERS NOT CHANGED\n"
        "CSQ9023E -CSQ1 CSQJC001 ' SET LOG' ABNORMAL COMPLETION\n"
        "CSQJ381E -CSQ1 ZHYLINK(YES) REQUIRES ZHYWRITE(YES), BOTH WERE SPECIFIED - LOG PARAMETERS NOT CHANGED\n"
        "CSQ9023E -CSQ1 CSQJC001 ' SET LOG' ABNORMAL COMPLETION\n"
    )
    rows = report(zos(mq, "DIS LOG"), "ZHYWRITE", "ZHYLINK")
    assert rows == [f"ZHYWRITE     NO{' ' * 24}YES", f"ZHYLINK      NO{' ' * 24}YES"]


def test_a_refused_set_log_changes_nothing_else(mq: Any) -> None:
    zos(mq, "SET LOG ZHYLINK(YES)")
    assert "ABNORMAL" in zos(mq, "SET LOG MAXARCH(700) ZHYWRITE(NO)")
    assert report(zos(mq, "DIS LOG"), "MAXARCH", "MAXARCH") == ["MAXARCH      500"]


def test_zhyperlink_on_a_z13_is_accepted_but_falls_back(mq: Any) -> None:
    assert mq("system", "alter", "CSQ1", "--cpu", "z13").exit_code == 0
    out = zos(mq, "SET LOG ZHYLINK(YES)", "DIS LOG")
    assert out.splitlines()[1] == (
        "CSQJ382I -CSQ1 ZHYLINK(YES) ACCEPTED BUT CPU z13 CANNOT USE ZHYPERLINK (Z14 OR LATER) - "
        "LOG WRITES USE ASYNCHRONOUS I/O"
    )
    # IBM's CSQJ370I copy table (APAR PH48657), then the status lines.
    assert report(out, "Copy", "Full logs") == [
        "Copy %Full zHyperWrite Encrypted DSName",
        " 1      0  YES         NO        CSQ1.LOGCOPY1.DS01",
        " 2      0  YES         NO        CSQ1.LOGCOPY2.DS01",
        "Restarted at 2021-03-09 15.41.22 using RBA=0000000000000000",
        "Latest RBA=0000000000000000",
        "zHyperLink log writes fell back to asynchronous I/O: a z13 cannot use zHyperLink (z14 or later)",
        "Offload task is AVAILABLE",
        "Full logs to offload - 0 of 6",
    ]


def test_persistent_puts_and_gets_write_log_records(mq: Any) -> None:
    zos(mq, "DEFINE QLOCAL(LOGQ)")
    assert put(mq, "LOGQ", "--count", "3", "--size", "1000", "--persistent")
    assert put(mq, "LOGQ", "--count", "2", "--size", "10", "--non-persistent")
    assert mq("--system", "CSQ1", "get", "LOGQ", "--all").exit_code == 0
    # 3 put records of 384 + 1000 bytes, 3 get records of 256; non-persistent work none.
    rba = 3 * (PUT_HEADER + 1000) + 3 * GET_RECORD
    assert rba == 0x1338
    assert report(zos(mq, "DIS LOG"), "Latest RBA", "Latest RBA") == ["Latest RBA=0000000000001338"]


def put(mq: Any, queue: str, *options: str) -> bool:
    return bool(mq("--system", "CSQ1", "put", queue, "-q", *options).exit_code == 0)


def depth(store: Store, queue: str) -> int:
    return int(
        store.conn.execute("SELECT count(*) FROM messages WHERE system = 'CSQ1' AND queue = ?", (queue,)).fetchone()[0]
    )


def open_store(state: Path) -> tuple[Store, Clock]:
    return Store.open(state), Clock.from_setting(FROZEN)


def log_row(store: Store, system: str = "CSQ1") -> tuple[int, int, int]:
    """(rba, records, written) of the log as the store holds it."""
    row = store.conn.execute("SELECT rba, i_records, i_written FROM zos_log WHERE system = ?", (system,)).fetchone()
    return (0, 0, 0) if row is None else (int(row[0]), int(row[1]), int(row[2]))


def open_handle(mq: Any, queue: str) -> tuple[Store, QueueHandle]:
    """A store of the mq fixture and an open handle on one of CSQ1's queues."""
    store, clock = open_store(mq.state_dir)
    handle = open_queue(store, clock, "CSQ1", queue, "zos")
    with store.transaction() as tx:
        handle.open(tx)
    return store, handle


def close(store: Store, handle: QueueHandle) -> None:
    with store.transaction() as tx:
        handle.close(tx)  # MQCLOSE writes the counts not written yet


def roll_back(store: Store, handle: QueueHandle, action: Callable[[Transaction], object]) -> None:
    """Runs `action` in a unit of work that then fails, as put_stream handles it."""
    with pytest.raises(RuntimeError), store.transaction() as tx:
        try:
            action(tx)
            raise RuntimeError("the unit of work fails")
        except BaseException:
            handle.rolled_back(tx)
            raise


def test_log_records_reach_the_store_in_groups_not_per_message(mq: Any) -> None:
    zos(mq, "DEFINE QLOCAL(GROUPQ) DEFPSIST(YES)")
    store, handle = open_handle(mq, "GROUPQ")
    record = PUT_HEADER + 100
    for _ in range(stats.GROUP - 1):
        handle.put_committed(b"x" * 100, PutOptions(persistent=True))
    assert log_row(store) == (0, 0, 0)  # 31 persistent puts committed, their records not written yet
    handle.put_committed(b"x" * 100, PutOptions(persistent=True))
    assert log_row(store) == (stats.GROUP * record, stats.GROUP, stats.GROUP * record)
    handle.put_committed(b"x" * 100, PutOptions(persistent=True))
    close(store, handle)
    assert log_row(store)[0] == (stats.GROUP + 1) * record
    assert depth(store, "GROUPQ") == stats.GROUP + 1
    store.close()


def test_a_rolled_back_transaction_takes_its_records_back(mq: Any) -> None:
    zos(mq, "DEFINE QLOCAL(ROLLQ) DEFPSIST(YES)")
    store, handle = open_handle(mq, "ROLLQ")
    handle.put_committed(b"kept", PutOptions(persistent=True))
    roll_back(store, handle, lambda tx: handle.put(tx, b"gone", PutOptions(persistent=True)))
    close(store, handle)
    assert log_row(store)[:2] == (PUT_HEADER + 4, 1)
    store.close()


def test_data_sets_fill_switch_and_are_offloaded(mq: Any) -> None:
    size = 1024 * 1024
    assert mq("system", "alter", "CSQ1", "--log", f"LOGSIZE={size}", "--log", "LOGDS=3").exit_code == 0
    zos(mq, "DEFINE QLOCAL(BIGQ) DEFPSIST(YES) MAXMSGL(200000)")
    assert put(mq, "BIGQ", "--count", "25", "--size", "100000")
    written = 25 * (PUT_HEADER + 100000)
    assert report(zos(mq, "DIS LOG"), "Copy", "Full logs")[1:] == [
        f" 1{(written - 2 * size) * 100 // size:>7}  NO          NO        CSQ1.LOGCOPY1.DS03",
        f" 2{(written - 2 * size) * 100 // size:>7}  NO          NO        CSQ1.LOGCOPY2.DS03",
        "Restarted at 2021-03-09 15.41.22 using RBA=0000000000000000",
        f"Latest RBA={written:016X}",
        "Offload task is BUSY",
        "Full logs to offload - 2 of 6",
    ]
    console = mq("console").output
    assert console.count("CSQJ002I") == 4 and console.count("CSQJ001I") == 4
    ended = "END OF ACTIVE LOG DATA SET DSNAME=CSQ1.LOGCOPY1.DS01, STARTRBA=0000000000000000 ENDRBA=00000000000FFFFF"
    assert ended in console
    # A second later (an offload copies 100 MB a second, at least a second) both are archived.
    later = mq("--system", "CSQ1", "cmd", "DIS LOG", clock="2021-03-09T15:41:23Z").output
    assert report(later, "Offload", "Full logs") == ["Offload task is AVAILABLE", "Full logs to offload - 0 of 6"]
    console = mq("console", clock="2021-03-09T15:41:23Z").output
    assert console.count("CSQJ003I") == 4 and "CSQARC2.A0000002" in console and "CSQJ139I" in console
    # A restart begins at the latest RBA, in the active data set it was writing.
    restarted = zos(mq, "STOP QMGR", "START QMGR")
    assert f"CSQJ099I -CSQ1 LOG RECORDING TO COMMENCE WITH STARTRBA={written:016X}" in restarted.splitlines()
    assert "CSQJ001I -CSQ1 CURRENT COPY 1 ACTIVE LOG DATA SET IS DSNAME=CSQ1.LOGCOPY1.DS03" in restarted
    assert report(zos(mq, "DIS USAGE TYPE(DATASET)"), "CSQI024I", "CSQI024I") == [
        f"CSQI024I -CSQ1 CSQIDUSE Restart RBA for system as configured={written:016X}"
    ]


def test_when_every_active_data_set_is_full_logging_waits_for_the_offload(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    clock = Clock.from_setting(FROZEN)
    from mqtool.complex import ensure_complex

    ensure_complex(store, clock.timestamp())
    system = SystemRecord("CSQ1", "zos", {"cpu": "z15", "log": dict(LOG_DEFAULTS) | {"LOGDS": 2, "MAXCNOFF": 1}})
    with store.transaction() as tx:
        manager = tx.get_object("CSQ1", "QMGR", "CSQ1")
        assert manager is not None
        settings = logs.log_settings(system, manager)
        size = settings.size
        assert logs.advance(tx, system, settings, 3 * size, clock.timestamp()) == 3
        lines = [text for _, _, _, text in tx.console_since("CSQ1")]
        position = logs.position(tx, "CSQ1")
    assert [line.split()[0] for line in lines].count("CSQJ111A") == 2
    assert (position.rba, position.dataset, position.full, position.archives) == (3 * size, 2, 1, 2)
    store.close()


def test_complog_rle_compresses_the_record_data() -> None:
    data = (b"CUSTOMER 000123" + b" " * 85) * 20  # blank-padded fixed-width records
    figures = {}
    for complog in ("NONE", "RLE", "ANY"):
        group = [0] * logs.GROUP_FIELDS
        logs.add_put(group, data, logs.log_settings(system(COMPLOG=complog), NEW_QMGR))
        figures[complog] = group
    assert figures["NONE"][logs.WRITTEN] == figures["NONE"][logs.ORIGINAL] == PUT_HEADER + 2000
    assert figures["RLE"][logs.ORIGINAL] == PUT_HEADER + 2000
    # Each 100-byte record: 'CUSTOMER ' (10 bytes encoded), '000' (2), '123' (4), 85 blanks (2).
    assert figures["RLE"][logs.WRITTEN] == PUT_HEADER + 20 * 18
    assert figures["RLE"][logs.COMP_REQUESTS] == 1 and figures["NONE"][logs.COMP_REQUESTS] == 0
    assert figures["ANY"] == figures["RLE"]
    # Incompressible data is written as it is.
    group = [0] * logs.GROUP_FIELDS
    logs.add_put(group, bytes(range(256)), logs.log_settings(system(COMPLOG="RLE"), NEW_QMGR))
    assert group[logs.WRITTEN] == group[logs.ORIGINAL] == PUT_HEADER + 256


@pytest.mark.parametrize(
    ("settings", "switches", "writes", "expected"),
    [
        ({"ZHYLINK": "YES"}, 0, 10, (10, 0, 0)),
        ({"ZHYLINK": "YES"}, 2, 10, (8, 2, 2)),  # the first write after a switch goes asynchronously
        ({"ZHYLINK": "YES", "cpu": "z13"}, 0, 10, (0, 10, 0)),
        ({"ZHYLINK": "YES", "STRIPES": 4, "PPRC": "YES", "ZHLFREE": 8}, 1, 10, (0, 10, 0)),
        ({"ZHYLINK": "NO"}, 1, 10, (0, 0, 0)),
    ],
)
def test_zhyperlink_writes_synchronous_or_fallen_back(
    tmp_path: Path, settings: dict[str, Any], switches: int, writes: int, expected: tuple[int, int, int]
) -> None:
    """Log writes of a group: (synchronous, asynchronous, asynchronous at a switch)."""
    from mqtool.complex import ensure_complex

    store = Store.open(tmp_path)
    clock = Clock.from_setting(FROZEN)
    ensure_complex(store, clock.timestamp())
    record = system(**settings)
    record.attrs["log"]["LOGSIZE"] = 1024 * 1024
    group = [0] * logs.GROUP_FIELDS
    data = b"z" * (1024 * 1024 // writes)
    for _ in range(writes):
        logs.add_put(group, data, logs.log_settings(record, NEW_QMGR))
    # Grow the group to cross `switches` data set ends exactly.
    group[logs.WRITTEN] = switches * 1024 * 1024 + (100 if not switches else 0)
    with store.transaction() as tx:
        manager = tx.get_object("CSQ1", "QMGR", "CSQ1")
        assert manager is not None
        logs.write(tx, record, logs.log_settings(record, manager), group, clock.timestamp())
        figures = logs.take_interval(tx, "CSQ1")
    assert (figures["sync"], figures["async"], figures["switch_async"]) == expected
    assert figures["new_logs"] == switches
    store.close()


def test_archive_log_refusals(mq: Any) -> None:
    assert mq("system", "alter", "CSQ1", "--log", "OFFLOAD=NO").exit_code == 0
    assert zos(mq, "ARCHIVE LOG") == (
        "MQT0401E -CSQ1 CSQJC001 ARCHIVE LOG NOT PROCESSED - THE LOG PARAMETERS OF CSQ1 SAY OFFLOAD=NO\n"
        "CSQ9023E -CSQ1 CSQJC001 ' ARCHIVE LOG' ABNORMAL COMPLETION\n"
    )
    assert mq("system", "alter", "CSQ1", "--log", "OFFLOAD=YES", "--log", "LOGDS=2").exit_code == 0
    # The first ARCHIVE LOG switches to data set 2 and data set 1 waits for its offload
    # (a second): a second ARCHIVE LOG meanwhile would leave no active data set.
    assert zos(mq, "ARC LOG", "ARCHIVE LOG").splitlines() == [
        "CSQJ311I -CSQ1 CSQJC001 LOG ARCHIVE (OFFLOAD) TASK INITIATED",
        "CSQ9022I -CSQ1 CSQJC001 ' ARCHIVE LOG' NORMAL COMPLETION",
        "CSQJ319I -CSQ1 CSQJC001 CURRENT ACTIVE LOG DATA SET IS THE LAST AVAILABLE ACTIVE LOG DATA SET. ARCHIVE LOG "
        "PROCESSING WILL BE TERMINATED",
        "CSQ9023E -CSQ1 CSQJC001 ' ARCHIVE LOG' ABNORMAL COMPLETION",
    ]
    later = mq("--system", "CSQ1", "cmd", "ARCHIVE LOG", clock="2021-03-09T15:41:23Z")
    assert "CSQJ311I" in later.output
    assert zos(mq, "STOP QMGR", "ARCHIVE LOG").splitlines()[-1].startswith("CSQ3106E")


def test_a_store_of_schema_5_keeps_its_log_position(tmp_path: Path) -> None:
    """Before schema 6 the position was in the queue manager's status; the migration
    moves it to zos_log."""
    from store_versions import store_at

    conn = store_at(tmp_path / "mqtool.db", 5)
    conn.execute("INSERT INTO systems (name, platform, position, attrs) VALUES ('CSQ1', 'zos', 1, '{}')")
    status = '{"log": {"rba": 5000, "restart_rba": 3000, "dataset": 2, "used": 1000}, "state": "STARTED"}'
    conn.execute(
        "INSERT INTO objects (system, type, name, attrs, status, created, altered) "
        "VALUES ('CSQ1', 'QMGR', 'CSQ1', '{}', ?, 0, 0)",
        (status,),
    )
    conn.close()
    store = Store.open(tmp_path)
    with store.transaction(write=False) as tx:
        position = logs.position(tx, "CSQ1")
    assert (position.rba, position.restart_rba, position.dataset, position.used) == (5000, 3000, 2, 1000)
    store.close()


def test_set_values_are_kept_in_the_queue_manager_status(mq: Any) -> None:
    zos(mq, "SET LOG MAXARCH(800)", "SET ARCHIVE UNIT(DISK)")
    store = Store.open(mq.state_dir)
    with store.transaction(write=False) as tx:
        record = tx.get_object("CSQ1", "QMGR", "CSQ1")
        assert record is not None
        assert record.status["log_set"] == {"MAXARCH": 800}
        assert record.status["archive_set"] == {"UNIT": "DISK"}
    store.close()


def test_archive_parameters_from_the_system(mq: Any) -> None:
    assert mq("system", "alter", "CSQ1", "--archive", "UNIT=3390", "--archive", "ARCRETN=30").exit_code == 0
    out = zos(mq, "SET ARCHIVE UNIT(TAPE)", "DIS ARCHIVE")
    assert report(out, "ARCRETN", "ARCRETN") == ["ARCRETN      30"]
    assert report(out, "UNIT ", "UNIT ") == [f"UNIT         3390{' ' * 22}TAPE"]
