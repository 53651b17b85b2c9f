"""The z/OS log: initial values from the system's log parameters, SET LOG and its
zHyperWrite/zHyperLink rules, write sessions, the log position that DISPLAY LOG shows
and that survives a restart, and SET/DISPLAY ARCHIVE."""

from __future__ import annotations

from typing import Any

import pytest

from mqtool.commands.zos import logs
from mqtool.complex import LOG_DEFAULTS
from mqtool.state import Store, SystemRecord


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


def test_zhyperlink_on_a_z13_is_accepted_but_not_capable(mq: Any) -> None:
    assert mq("system", "alter", "CSQ1", "--cpu", "z13").exit_code == 0
    out = zos(mq, "SET LOG ZHYLINK(YES)", "DIS LOG")
    assert out.splitlines()[1] == (
        "CSQJ382I -CSQ1 ZHYLINK(YES) ACCEPTED BUT CPU z13 CANNOT USE ZHYPERLINK (Z14 OR LATER) - "
        "LOG WRITES USE ASYNCHRONOUS I/O"
    )
    assert report(out, "Copy", "zHyperLink")[1:] == [
        "  1      0   YES          NOT CAPABLE NO         CSQ1.LOGCOPY1.DS01",
        "  2      0   YES          NOT CAPABLE NO         CSQ1.LOGCOPY2.DS01",
        "Restarted at 2021-03-09 15.41.22 using RBA=0000000000000000",
        "Latest RBA=0000000000000000",
        "zHyperLink not available on a z13 - log writes use asynchronous I/O",
    ]


def test_log_writes_move_the_rba_fill_and_switch_data_sets(mq: Any) -> None:
    megabyte = 1024 * 1024
    assert mq("system", "alter", "CSQ1", "--log", f"LOGSIZE={megabyte}", "--log", "LOGDS=3").exit_code == 0
    zos(mq, "DIS QMGR")
    store = Store.open(mq.state_dir)
    with store.transaction() as tx:
        record = tx.get_object("CSQ1", "QMGR", "CSQ1")
        target = tx.get_system("CSQ1")
        assert record is not None and target is not None
        assert logs.advance(target, record, megabyte // 2) == 0
        assert logs.advance(target, record, megabyte) == 1
        tx.put_status(record)
    store.close()
    out = zos(mq, "DIS LOG")
    assert report(out, "Copy", "Full logs")[1:] == [
        "  1     50   NO           NO          NO         CSQ1.LOGCOPY1.DS02",
        "  2     50   NO           NO          NO         CSQ1.LOGCOPY2.DS02",
        "Restarted at 2021-03-09 15.41.22 using RBA=0000000000000000",
        "Latest RBA=0000000000180000",
        "Offload task is BUSY",
        "Full logs to offload - 1 of 6",
    ]
    # A restart begins at the latest RBA; the data sets stay where they are.
    restarted = zos(mq, "STOP QMGR", "START QMGR", "DIS LOG")
    assert "CSQJ099I -CSQ1 LOG RECORDING TO COMMENCE WITH STARTRBA=0000000000180000" in restarted.splitlines()
    assert report(restarted, "Restarted", "Latest")[0:2] == [
        "Restarted at 2021-03-09 15.41.22 using RBA=0000000000180000",
        "Latest RBA=0000000000180000",
    ]


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
