"""Statistics records are kept for a retention a user can see and change (the z/OS
system's smfretain setting, 7 days by default; 0 keeps them) and removed sooner by
`mqtool smf purge --before TIME|AGE` or `--all` (`--dry-run` counts), like SMF data
sets that are offloaded."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import FROZEN

SETUP = [
    "-CSQ1 START TRACE(STAT) CLASS(1,5)",
    "-CSQ1 ALTER QMGR STATQ(ON)",
    "-CSQ1 DEFINE QLOCAL(PAYQ)",
    ".system CSQ1",
    ".put PAYQ count=2",
]


def _at(mq: Any, clock: str, *args: str) -> Any:
    return mq(*args, clock=clock)


def _ends(mq: Any, clock: str) -> list[str]:
    result = _at(mq, clock, "smf", "qstat", "--queue", "PAYQ", "--format", "json")
    assert result.exit_code == 0, result.output
    return [record["interval_end"][:19] for record in json.loads(result.stdout)]


def _work(mq: Any, *moments: str) -> None:
    """A put at each moment (each ends an idle stretch and starts an interval with work)."""
    for moment in moments:
        assert _at(mq, moment, "cmd", ".system CSQ1", ".put PAYQ").exit_code == 0


def test_records_are_kept_seven_days_by_default(mq: Any) -> None:
    assert mq("cmd", *SETUP).exit_code == 0
    _work(mq, "2021-03-12T00:00:10Z", "2021-03-20T00:00:10Z")
    ends = _ends(mq, "2021-03-20T00:05:00Z")
    # The records of the 9th and the 12th ended more than 7 days before the newest.
    assert ends[0] >= "2021-03-13" and len(ends) == 3, ends
    shown = json.loads(mq("system", "list", "--format", "json").stdout)
    assert next(s for s in shown if s["name"] == "CSQ1")["settings"]["smfretain"] == 7


def test_a_retention_of_0_keeps_every_record(mq: Any) -> None:
    assert mq("cmd", *SETUP).exit_code == 0
    assert mq("system", "alter", "CSQ1", "--smfretain", "0").output == "Altered system CSQ1: smfretain 7 -> 0.\n"
    _work(mq, "2021-03-12T00:00:10Z", "2021-04-20T00:00:10Z")
    ends = _ends(mq, "2021-04-20T00:05:00Z")
    assert ends[0] == "2021-03-09T15:42:22" and len(ends) == 6, ends  # work, gap, work, gap, work, idle


def test_purge(mq: Any) -> None:
    assert mq("cmd", *SETUP).exit_code == 0
    _work(mq, "2021-03-10T00:00:10Z", "2021-03-11T00:00:10Z")
    before = _ends(mq, "2021-03-11T00:05:00Z")
    assert len(before) == 6  # work, gap, work, gap, work, idle
    later = "2021-03-11T00:05:00Z"
    # PAYQ, SYSTEM.DEAD.QUEUE and SYSTEM.DEFAULT.LOCAL.QUEUE collect (STATQ(QMGR)): 3 records an interval.
    dry = _at(mq, later, "smf", "purge", "--before", "1d", "--dry-run")
    assert dry.exit_code == 0
    assert dry.stdout.splitlines() == [
        "MQT0711I Would purge 9 queue statistics records, 3 log statistics records and 3 topic manager records of CSQ1 "
        "(intervals ended "
        "before 2021-03-10T00:05:00Z); nothing was removed",
        "Records of CSQ1 are kept 7 days; mqtool system alter CSQ1 --smfretain DAYS",
    ]
    assert _ends(mq, later) == before
    done = _at(mq, later, "smf", "purge", "--before", "2021-03-10T00:05:00Z")
    assert done.stdout.startswith(
        "MQT0710I Purged 9 queue statistics records, 3 log statistics records and 3 topic manager records of CSQ1"
    )
    assert _ends(mq, later) == before[3:]
    everything = _at(mq, later, "smf", "purge", "--all")
    assert everything.stdout.startswith(
        "MQT0710I Purged 9 queue statistics records, 3 log statistics records and 3 topic manager records of CSQ1 "
        "(every interval)"
    )
    assert _ends(mq, later) == []
    nothing = _at(mq, later, "smf", "purge", "--all")
    assert nothing.stdout.startswith(
        "MQT0710I Purged 0 queue statistics records, 0 log statistics records and 0 topic manager records"
    )


def test_purge_refuses_what_it_cannot_read(mq: Any) -> None:
    for args, error in (
        ([], "give --before TIME (or an age such as 7d) or --all"),
        (["--all", "--before", "1d"], "give --before TIME (or an age such as 7d) or --all"),
        (["--before", "yesterday"], "--before: 'yesterday' is not a time (2021-03-09T15:41:22Z) or an age"),
        (["--before", "9" * 5000], "is not a time"),
        (["--system", "TPF1", "--all"], "system TPF1 is z/TPF"),
    ):
        result = mq("smf", "purge", *args)
        assert result.exit_code == 2, (args, result.output)
        assert error in result.output


def test_the_frozen_clock_names_the_purge_instant(mq: Any) -> None:
    result = mq("smf", "purge", "--before", "30m", "--dry-run")
    assert "(intervals ended before 2021-03-09T15:11:22Z)" in result.stdout
    assert FROZEN == "2021-03-09T15:41:22Z"
