"""A z/OS put stream killed with SIGKILL keeps every acknowledged message; what it
loses is the log records and statistics counted in memory and not written yet (fewer
than one group), never a message."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from mqtool.engine.zos import stats
from mqtool.engine.zos.logrecords import PUT_HEADER
from mqtool.state import Store
from tests.test_engine_reliability import mqtool, run

pytestmark = pytest.mark.slow


def test_a_killed_putter_loses_unwritten_counts_never_messages(tmp_path: Path) -> None:
    state = tmp_path / "state"
    setup = run(state, "--system", "CSQ1", "cmd", "DEFINE QLOCAL(KILLQ) DEFPSIST(YES)", "ALTER QMGR STATQ(ON)",
                "SET SYSTEM STATIME(1440)", "START TRACE(STAT) CLASS(1,5)")  # fmt: skip
    assert setup.returncode == 0, setup.stdout
    args = ["--system", "CSQ1", "put", "KILLQ", "--data", "x" * 100, "--count", "1000000", "--persistent"]
    process = mqtool(state, *args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdout is not None
    acknowledged = 0
    while acknowledged < 2 * stats.GROUP + 5:  # past two groups, inside a third
        line = process.stdout.readline()
        assert line.startswith(b"MQT0102I"), line
        acknowledged += 1
    process.send_signal(signal.SIGKILL)
    process.stdout.read()
    process.wait()
    store = Store.open(state)
    try:
        stored = int(
            store.conn.execute("SELECT count(*) FROM messages WHERE system = 'CSQ1' AND queue = 'KILLQ'").fetchone()[0]
        )
        assert stored >= acknowledged
        rba = int(store.conn.execute("SELECT rba FROM zos_log WHERE system = 'CSQ1'").fetchone()[0])
        records = rba // (PUT_HEADER + 100)
        assert rba % (PUT_HEADER + 100) == 0  # whole records: a group is written with its message
        assert stored - stats.GROUP < records <= stored
        row = store.conn.execute("SELECT puts FROM zos_queue_stats WHERE queue = 'KILLQ'").fetchone()
        assert stored - stats.GROUP < int(row[0]) <= stored
    finally:
        store.close()
    # The queue manager goes on: a new put writes its record, and the records say so.
    assert run(state, "--system", "CSQ1", "put", "KILLQ", "--data", "y" * 100, "--persistent").returncode == 0
    store = Store.open(state)
    try:
        after = int(store.conn.execute("SELECT rba FROM zos_log WHERE system = 'CSQ1'").fetchone()[0])
        assert after == rba + PUT_HEADER + 100
    finally:
        store.close()
