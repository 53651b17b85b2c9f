"""`mqtool smf`: the statistics records of tests/golden/zos_stats.mqsc read back as the
QSTAT report (text, CSV, JSON) and the log manager's report, compared byte for byte
with tests/golden/zos_stats.* (`pytest --update-golden` rewrites them; read the diff);
the same records on a fresh store give the same bytes; and the errors of the command."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.test_golden import GOLDEN, check_golden, run_golden

SCRIPT = GOLDEN / "zos_stats.mqsc"
REPORTS = {
    "qstat.txt": ["smf", "qstat"],
    "qstat.csv": ["smf", "qstat", "--format", "csv"],
    "qstat.json": ["smf", "qstat", "--format", "json"],
    "log.txt": ["smf", "log"],
}
END = "2021-03-09T15:50:10Z"  # the script's clock at its end


def reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> dict[str, str]:
    from click.testing import CliRunner

    from mqtool.cli.main import main_group

    state = tmp_path / name
    _output, code = run_golden(SCRIPT, state, monkeypatch)
    assert code == 10  # the script's error forms
    found = {}
    for suffix, args in REPORTS.items():
        result = CliRunner().invoke(main_group, ["--state", str(state), "--clock", END, *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        found[suffix] = result.output
    return found


def test_reports_match_the_golden_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    found = reports(tmp_path, monkeypatch, "state")
    for suffix, text in found.items():
        check_golden(GOLDEN / f"zos_stats.{suffix}", text, request)


def test_a_frozen_clock_gives_the_same_bytes_on_a_fresh_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert reports(tmp_path, monkeypatch, "one") == reports(tmp_path, monkeypatch, "two")


def test_the_formats_hold_the_same_figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = reports(tmp_path, monkeypatch, "state")
    records: list[dict[str, Any]] = json.loads(found["qstat.json"])
    rows = list(csv.DictReader(io.StringIO(found["qstat.csv"])))
    assert len(records) == len(rows) == found["qstat.txt"].count("VRM:940,")
    first = records[0]
    assert (first["queue"], first["interval_start"], first["interval_end"]) == (
        "AUDIT",
        "2021-03-09T15:41:22+00:00",
        "2021-03-09T15:42:22+00:00",
    )
    for record, row in zip(records, rows, strict=True):
        assert row["Queue Name"] == record["queue"]
        assert int(row["MQPUTs"]) == record["puts"]
        assert int(row["Total Put Bytes"]) == record["put_bytes_total"]
        assert int(row["MQGETs"]) == record["gets"]


def test_interval_one_of_payq(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten persistent puts of 1000 bytes, five non-persistent of 200, three gets (the
    persistent ones first), two browses, an MQPUT1 of 6 bytes, seven puts of 100 bytes
    until MAXDEPTH 20 (then 2053), a get by a missing msgid (2033): seven handles."""
    records = json.loads(reports(tmp_path, monkeypatch, "state")["qstat.json"])
    payq = next(r for r in records if r["queue"] == "PAYQ")
    expected = {
        "depth": 20,
        "depth_high": 20,
        "depth_low": 0,
        "puts": 22,
        "puts_p": 17,
        "puts_np": 5,
        "put1s": 1,
        "put1s_p": 1,
        "put_bytes": 11700,
        "put_bytes_p": 10700,
        "put1_bytes": 6,
        "put_bytes_total": 11706,
        "put_fails": 1,
        "put_fail_reasons": {"2053": 1},
        "size_min": 6,
        "size_max": 1000,
        "size_avg": 11706 // 23,
        "gets": 3,
        "gets_p": 3,
        "get_bytes": 3000,
        "browses": 2,
        "browses_p": 2,
        "browse_bytes": 2000,
        "get_fails": 1,
        "get_fail_reasons": {"2033": 1},
        "opens": 6,  # an MQPUT1 opens and closes no handle
        "closes": 6,
        "streamed": 0,
        "oldest_age": 60,
    }
    assert {key: payq[key] for key in expected} == expected


def test_streamed_copies_and_expiry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = json.loads(reports(tmp_path, monkeypatch, "state")["qstat.json"])
    audit = [r for r in records if r["queue"] == "AUDIT"]
    # Interval 1: the four copies streamed from ORDERS (no statistics of its own).
    assert (audit[0]["puts"], audit[0]["put_bytes"], audit[0]["opens"]) == (4, 2000, 0)
    assert not [r for r in records if r["queue"] in ("ORDERS", "QUIET")]
    # Interval 2: two puts with a 10 s expiry, removed by the get that passed over them.
    assert (audit[1]["puts"], audit[1]["gets"], audit[1]["expired"], audit[1]["depth"]) == (2, 4, 2, 0)
    assert [(r["interval_start"][11:19], r["interval_end"][11:19]) for r in audit] == [
        ("15:41:22", "15:42:22"),
        ("15:42:22", "15:43:22"),
        ("15:43:22", "15:43:52"),
        ("15:43:52", "15:44:52"),
        ("15:44:52", "15:45:10"),
    ]


def test_no_records_and_bad_systems(mq: Any) -> None:
    result = mq("smf", "qstat", "--system", "CSQ1")
    assert result.exit_code == 0
    assert result.output == (
        "No queue statistics records on CSQ1: START TRACE(STAT) CLASS(5) and STATQ collect them, one per queue each "
        "STATIME.\n"
    )
    assert mq("smf", "qstat", "--format", "csv").output.count("\n") == 1  # the heading row
    assert mq("smf", "log", "--format", "json").output == "[]\n"
    wrong = mq("smf", "log", "--system", "TPF1")
    assert wrong.exit_code == 2
    assert "system TPF1 is z/TPF; SMF statistics belong to z/OS queue managers" in wrong.output
    assert mq("smf", "qstat", "--system", "NOPE").exit_code == 2
    assert mq("smf", "qstat", "--format", "xml").exit_code == 2


def test_a_damaged_record_is_one_error_line_naming_the_queue_manager(
    mq: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from mqtool.cli.main import main
    from mqtool.state import Store

    mq("--system", "CSQ1", "cmd", "ALTER QMGR STATQ(ON)", "START TRACE(STAT) CLASS(1,5)")
    mq("--system", "CSQ1", "cmd", "DIS QMGR", clock="2021-03-09T15:42:22Z")
    store = Store.open(mq.state_dir)
    with store.transaction() as tx:
        tx.conn.execute("UPDATE zos_log_records SET data = 'not json'")
    store.close()
    with pytest.raises(SystemExit) as ended:
        main(["--state", str(mq.state_dir), "--clock", "2021-03-09T15:42:22Z", "smf", "log"])
    assert ended.value.code == 2
    assert capsys.readouterr().err == (
        "mqtool: error: log statistics record 1 of queue manager CSQ1 in the store is damaged\n"
    )
    assert mq("smf", "qstat", clock="2021-03-09T15:42:22Z").exit_code == 0
