"""Idle time costs nothing (issue 16, item 4): catching up over a gap costs the work that
falls due, not one run per interval. Counted, never timed: the timer runs `tick`
reports, the records written, the retries of a channel, and the store's size."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine import tick
from mqtool.engine.channels.status import ChannelStatus
from mqtool.engine.timers import last_mark, next_mark
from mqtool.engine.zos.stats import log_records, queue_records
from mqtool.session import Session
from mqtool.state import Store
from mqtool.state.store import DB_NAME
from tests.conftest import FROZEN

DAY = 86400.0
YEARS_2_5 = 913 * DAY  # 2.5 years
QUEUES = ("PAYQ", "AUDIT")


class Lab:
    """A store driven in process with a frozen clock."""

    def __init__(self, state: Path) -> None:
        self.clock = Clock.from_setting(FROZEN)
        self.store = Store.open(state)
        ensure_complex(self.store, self.clock.timestamp())
        self.session = Session(self.store, self.clock)

    def run(self, *lines: str) -> list[str]:
        out: list[str] = []
        for line in lines:
            outcome = self.session.execute(line)
            assert outcome.status == "ok", (line, outcome.lines)
            out.extend(outcome.lines)
        return out

    def catch_up(self, seconds: float) -> int:
        """Moves the clock on and runs what fell due, as the first command after a gap does."""
        self.clock.advance(seconds)
        return tick.tick(self.store, self.clock, self.clock.timestamp())

    def records(self) -> tuple[list[Any], list[Any]]:
        with self.store.transaction(write=False) as tx:
            return queue_records(tx, "CSQ1"), log_records(tx, "CSQ1")


@pytest.fixture
def zos(tmp_path: Path) -> Iterator[Lab]:
    """CSQ1 with STATIME(1), a STAT trace of queue and log statistics, two queues with
    statistics on, EXPRYINT(5), and one minute of work."""
    lab = Lab(tmp_path / "state")
    lab.run(
        "-CSQ1 SET SYSTEM STATIME(1)",
        "-CSQ1 START TRACE(STAT) CLASS(1,5)",
        "-CSQ1 ALTER QMGR STATQ(ON) EXPRYINT(5)",
        *(f"-CSQ1 DEFINE QLOCAL({queue}) STATQ(ON)" for queue in QUEUES),
        ".system CSQ1",
        ".put PAYQ count=3 persistent=yes",
        ".get PAYQ",
    )
    yield lab
    lab.store.close()


def _statq_queues(lab: Lab) -> int:
    with lab.store.transaction(write=False) as tx:
        return len({figures["queue"] for _, _, figures in queue_records(tx, "CSQ1")} | set(QUEUES))


@pytest.mark.parametrize("gap", [3600.0, DAY, 7 * DAY, YEARS_2_5], ids=["1h", "1d", "7d", "2.5y"])
def test_an_idle_gap_costs_a_few_runs_and_one_record_per_queue(zos: Lab, gap: float) -> None:
    start = zos.clock.timestamp()
    runs = zos.catch_up(gap)
    # The interval of the work, the idle stretch after it, an expiry scan, a z/TPF monitor
    # and checkpoint that jump: a handful, whatever the gap (a run per interval was 1,440 a day).
    assert runs <= 8
    queue, log = zos.records()
    work = [r for r in queue if r[1] == start + 60]
    idle = [r for r in queue if r[1] != start + 60]
    end = last_mark(start, 60, start + gap)
    if gap > 7 * DAY:
        # Kept 7 days (smfretain): the record of the work is gone, the gap's ends now.
        assert work == [] and {f["queue"] for _, _, f in idle} >= set(QUEUES)
        assert [(s, e) for s, e, _ in log] == [(start + 60, end)]
        return
    assert {f["queue"] for _, _, f in work} >= set(QUEUES) and len(idle) == len(work)
    for interval_start, interval_end, figures in idle:
        assert (interval_start, interval_end) == (start + 60, end)
        assert figures["puts_total"] == figures["gets"] == figures["opens"] == figures["expired"] == 0
    payq = next(f for _, _, f in idle if f["queue"] == "PAYQ")
    assert payq["depth"] == payq["depth_high"] == payq["depth_low"] == 2  # the gauges at the gap's end
    assert payq["oldest_age"] == int(end - start)
    assert [(s, e) for s, e, _ in log] == [(start, start + 60), (start + 60, end)]
    assert log[1][2]["records"] == 0 and log[0][2]["records"] > 0
    # The next interval runs on the same grid of minutes, from the gap's end.
    with zos.store.transaction(write=False) as tx:
        due = tx.conn.execute("SELECT due FROM timers WHERE name = 'zos.stats'").fetchone()[0]
    assert due == end + 60


def test_in_real_time_every_interval_is_written(zos: Lab) -> None:
    """A loop that ticks as time passes (serve, the shell) writes a record per queue per
    interval, idle ones included, as IBM MQ does at each STATIME."""
    start = zos.clock.timestamp()
    for _ in range(5 * 6):
        zos.catch_up(10)
    queue, log = zos.records()
    ends = sorted({end for _, end, _ in queue})
    assert ends == [start + 60 * k for k in range(1, 6)]
    assert len(log) == 5


def test_activity_after_a_gap_starts_a_new_interval(zos: Lab) -> None:
    start = zos.clock.timestamp()
    zos.catch_up(7 * DAY)
    zos.run(".put PAYQ count=2")
    zos.catch_up(60)
    queue, _ = zos.records()
    payq = [(s - start, e - start, f["puts_total"]) for s, e, f in queue if f["queue"] == "PAYQ"]
    gap_end = last_mark(start, 60, start + 7 * DAY) - start
    assert payq == [(0, 60, 3), (60, gap_end, 0), (gap_end, gap_end + 60, 2)]


def test_expiry_scans_when_a_message_can_expire(zos: Lab) -> None:
    zos.run(".put AUDIT count=4 expiry=1h", ".put AUDIT count=1 expiry=3d")
    start = zos.clock.timestamp()
    runs = zos.catch_up(6 * DAY)
    assert runs <= 14  # each expiry, not 12 scans a minute for six days (103,680)
    with zos.store.transaction(write=False) as tx:
        depth = tx.conn.execute("SELECT depth FROM queue_figures WHERE system = 'CSQ1' AND queue = 'AUDIT'").fetchone()[
            0
        ]
    assert depth == 0
    queue, _ = zos.records()
    expired = [(s - start, e - start, f["expired"]) for s, e, f in queue if f["queue"] == "AUDIT" and f["expired"]]
    # Removed at the first 5-second scan at or after each expiry, counted in its interval.
    assert [count for _, _, count in expired] == [4, 1]
    assert expired[0][0] < 3600 <= expired[0][1] and expired[1][0] < 3 * DAY <= expired[1][1]


def test_the_expiry_task_with_nothing_to_expire_jumps(zos: Lab) -> None:
    runs = [zos.catch_up(gap) for gap in (DAY, 7 * DAY)]
    assert max(runs) <= 8
    with zos.store.transaction(write=False) as tx:
        due = tx.conn.execute("SELECT due FROM timers WHERE name = 'zos.expiry'").fetchone()[0]
    now = zos.clock.timestamp()
    assert now < due <= now + 5


def test_marks() -> None:
    assert last_mark(100, 60, 99) == 100 and last_mark(100, 60, 159) == 100 and last_mark(100, 60, 160) == 160
    assert next_mark(100, 5, 0) == 105 and next_mark(100, 5, 105) == 110 and next_mark(100, 5, 104.5) == 105


# -- channels ---------------------------------------------------------------------------------


def _retrying(state: Path) -> Lab:
    """A sender that retries in the store for ever: its CONNAME names CSQ1's listener,
    which has no channel of its name (over TCP, a serving loop would retry it instead)."""
    lab = Lab(state)
    _listen(lab, "CSQ1", "127.0.0.1(1498),127.0.0.1(1499)")
    _listen(lab, "TPF1", "127.0.0.1(1497)")
    lab.run(
        "ZMQSC DEFINE QL-XQ USAGE-XMITQ",
        "ZMQSC DEFINE CHL-NOWHERE CHLTYPE-SDR CONNAME-'127.0.0.1(1499)' XMITQ-XQ",
        "ZMQSC START CHL-NOWHERE",
    )
    return lab


def _listen(lab: Lab, name: str, addresses: str) -> None:
    with lab.store.transaction() as tx:
        system = tx.get_system(name)
        assert system is not None
        system.attrs["listener"] = addresses
        tx.put_system(system)


def _status(lab: Lab) -> tuple[str, int, float]:
    with lab.store.transaction(write=False) as tx:
        record = tx.get_object("TPF1", "CHL", "NOWHERE")
    assert record is not None
    status = ChannelStatus.load(record.status)
    return status.state, status.retries, status.retry_at - lab.clock.timestamp()


def _console(lab: Lab) -> list[str]:
    with lab.store.transaction(write=False) as tx:
        return [row[3] for row in tx.console_since(None, 0)]


def test_a_retrying_channel_counts_the_retries_of_a_gap(tmp_path: Path) -> None:
    """One catch-up over a day gives the status that ticking every ten minutes gives."""
    once, stepped = _retrying(tmp_path / "once"), _retrying(tmp_path / "stepped")
    runs = once.catch_up(DAY)
    assert runs <= 6  # 10 short retries and 69 long ones, counted in one run
    for _ in range(144):
        stepped.catch_up(600)
    assert _status(once) == _status(stepped)
    state, retries, wait = _status(once)
    assert state == "RETRYING" and retries > 70 and 0 < wait <= 1200
    assert _console(once) == _console(stepped)  # said once, when it began retrying
    assert once.catch_up(YEARS_2_5) <= 4
    assert _status(once)[1] > 65_000
    once.store.close()
    stepped.store.close()


def test_retrying_channels_of_several_systems_do_not_hold_each_other_back(tmp_path: Path) -> None:
    """Each retrying channel's timer is passive: the others' jumps do not stop at its
    retries (they stopped at each other's, and a month cost 2,000 runs)."""
    lab = _retrying(tmp_path / "state")
    lab.run(
        "ZMQSC DEFINE CHL-ELSEWHERE CHLTYPE-SDR CONNAME-'127.0.0.1(1498)' XMITQ-XQ",
        "ZMQSC START CHL-ELSEWHERE",
        "-CSQ1 DEFINE QLOCAL(XQ) USAGE(XMITQ)",
        "-CSQ1 DEFINE CHANNEL(AWAY) CHLTYPE(SDR) CONNAME('127.0.0.1(1497)') XMITQ(XQ) TRPTYPE(TCP)",
        "-CSQ1 START CHANNEL(AWAY)",
    )
    assert lab.catch_up(30 * DAY) <= 8
    assert lab.catch_up(YEARS_2_5) <= 6
    with lab.store.transaction(write=False) as tx:
        passive = tx.conn.execute("SELECT system, passive FROM timers WHERE name = 'mq-channels' ORDER BY system")
        assert passive.fetchall() == [("CSQ1", 1), ("TPF1", 1)]
    lab.store.close()


def test_a_channel_binds_at_its_next_retry_once_its_partner_appears(tmp_path: Path) -> None:
    """Retries counted over a week, then the partner is defined: the next retry (within
    LONGTMR of the catch-up) binds for real."""
    lab = Lab(tmp_path / "state")
    with lab.store.transaction() as tx:
        csq1 = tx.get_system("CSQ1")
        assert csq1 is not None
        csq1.attrs["listener"] = "127.0.0.1(1416)"
        tx.put_system(csq1)
    lab.run(
        "ZMQSC DEFINE QL-XQ USAGE-XMITQ",
        "ZMQSC DEFINE CHL-TO.CSQ1 CHLTYPE-SDR CONNAME-'127.0.0.1(1416)' XMITQ-XQ",
        "ZMQSC START CHL-TO.CSQ1",
    )
    lab.catch_up(7 * DAY)
    with lab.store.transaction(write=False) as tx:
        record = tx.get_object("TPF1", "CHL", "TO.CSQ1")
    assert record is not None and ChannelStatus.load(record.status).state == "RETRYING"
    lab.run("-CSQ1 DEFINE CHANNEL(TO.CSQ1) CHLTYPE(RCVR) TRPTYPE(TCP)")
    lab.catch_up(1200)
    with lab.store.transaction(write=False) as tx:
        record = tx.get_object("TPF1", "CHL", "TO.CSQ1")
    assert record is not None and ChannelStatus.load(record.status).state == "RUNNING"
    lab.store.close()


# -- the whole process: the first command after years ------------------------------------------


def _mqtool(state: Path, clock: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    return subprocess.run(
        [sys.executable, "-m", "mqtool", "--state", str(state), "--clock", clock, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def _size(state: Path) -> int:
    return sum(path.stat().st_size for path in state.glob(f"{DB_NAME}*"))


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["zos", "ztpf"])
def test_the_first_command_after_two_and_a_half_years(tmp_path: Path, platform: str) -> None:
    state = tmp_path / "state"
    if platform == "zos":
        setup = ["-CSQ1 SET SYSTEM STATIME(1)", "-CSQ1 START TRACE(STAT) CLASS(1,5)",
                 "-CSQ1 ALTER QMGR STATQ(ON) EXPRYINT(5)", "-CSQ1 DEFINE QLOCAL(PAYQ)", ".system CSQ1",
                 ".put PAYQ count=5 persistent=yes expiry=30d"]  # fmt: skip
        show = "-CSQ1 DISPLAY QSTATUS(PAYQ) CURDEPTH"
    else:
        setup = ["ZMQSC DEFINE QL-PAYQ", ".put PAYQ count=5 persistent=yes", ".get PAYQ",
                 "ZMQSC DEFINE QL-XQ USAGE-XMITQ",
                 "ZMQSC DEFINE CHL-NOWHERE CHLTYPE-SDR CONNAME-'127.0.0.1(1499)' XMITQ-XQ",
                 "ZMQSC START CHL-NOWHERE"]  # fmt: skip
        show = "ZMQSC DISPLAY QL-PAYQ"
    assert _mqtool(state, FROZEN, "cmd", *setup).returncode == 0
    conn = sqlite3.connect(state / DB_NAME)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    before = _size(state)
    done = _mqtool(state, "2023-09-08T03:41:22Z", "cmd", show)
    assert done.returncode == 0, done.stderr
    assert _size(state) - before < 256 * 1024  # a few records and pages, not 1.5 MB a queue a day
    listing = _mqtool(state, "2023-09-08T03:41:22Z", "smf", "qstat", "--format", "json", "--system", "CSQ1")
    if platform == "zos":
        records = json.loads(listing.stdout)
        assert len(records) <= 4 * 8  # queues x (work, expiry, gap) intervals
        assert "CURDEPTH(0)" in done.stdout  # expired in the gap


# -- the z/TPF sweeper that cannot sweep ---------------------------------------------------------


def _blocked_sweeper(state: Path) -> Lab:
    """A SWEEP-NO queue holds 90 of 100 SWBs: every monitor check (5 s) runs a sweep that
    aborts (MQSC0202W) and moves nothing."""
    lab = Lab(state)
    with lab.store.transaction() as tx:
        system = tx.get_system("TPF1")
        assert system is not None
        system.attrs["swbpool"] = 100
        tx.put_system(system)
    lab.run("ZMQSC DEFINE QL-Q SWEEP-NO", ".put Q count=90 size=1000")
    return lab


def _sweeps(lab: Lab) -> tuple[Any, ...]:
    with lab.store.transaction(write=False) as tx:
        state = tx.conn.execute("SELECT sweeps, aborted_sweeps FROM engine_state WHERE system = 'TPF1'").fetchone()
        queue = tx.conn.execute(
            "SELECT aborted_sweeps FROM queue_stats WHERE system = 'TPF1' AND queue = 'Q'"
        ).fetchone()
    return (*state, *queue)


def test_a_sweeper_that_cannot_sweep_counts_the_aborted_sweeps_of_a_gap(tmp_path: Path) -> None:
    once, stepped = _blocked_sweeper(tmp_path / "once"), _blocked_sweeper(tmp_path / "stepped")
    assert once.catch_up(2 * 3600) <= 6  # 1,440 monitor checks, one made
    for _ in range(12):
        stepped.catch_up(600)
    assert _sweeps(once) == _sweeps(stepped)
    assert _sweeps(once)[1] > 1_400
    assert once.catch_up(YEARS_2_5) <= 4
    # The console heard of it once per catch-up, not every 5 seconds.
    assert len([line for line in _console(once) if line.startswith("MQSC0202W")]) <= 4
    once.store.close()
    stepped.store.close()
