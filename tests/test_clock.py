"""The one clock: frozen with --clock / MQTOOL_CLOCK, moved only by .advance; TOD values,
display offsets and durations; bad settings give one `mqtool: error:` line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from mqtool.clock import (
    Clock,
    ClockError,
    format_offset,
    format_tod,
    format_tod_value,
    from_tod,
    parse_duration,
    parse_instant,
    parse_offset,
    parse_tod,
    to_tod,
)
from tests.conftest import drop_creation_notice

SEED_TOD = 0xD962CAAA5BAAD838
SEED_INSTANT = datetime(2021, 3, 9, 15, 41, 22, 953901, tzinfo=UTC)
EST = timedelta(hours=-5)


# -- TOD -----------------------------------------------------------------------------


def test_tod_of_the_seed_is_its_instant() -> None:
    assert from_tod(SEED_TOD) == SEED_INSTANT


def test_instant_to_tod_keeps_every_microsecond() -> None:
    # Bits below the microsecond (the low 12) cannot come from an instant.
    assert to_tod(SEED_INSTANT) == SEED_TOD & ~0xFFF
    assert to_tod(SEED_INSTANT) >> 12 == SEED_TOD >> 12
    assert from_tod(to_tod(SEED_INSTANT)) == SEED_INSTANT


def test_seed_display_at_minus_five_hours() -> None:
    assert format_tod_value(SEED_TOD, EST) == "D962CAAA5BAAD838 (2021-03-09 10:41:22)"


def test_display_of_an_instant_truncates_the_fraction() -> None:
    assert format_tod(SEED_INSTANT, EST) == "D962CAAA5BAAD000 (2021-03-09 10:41:22)"
    almost = datetime(2021, 3, 9, 15, 41, 22, 999999, tzinfo=UTC)
    assert format_tod(almost, timedelta(0)).endswith("(2021-03-09 15:41:22)")


def test_tod_epoch_and_sixteen_digits() -> None:
    epoch = datetime(1900, 1, 1, tzinfo=UTC)
    assert to_tod(epoch) == 0
    assert format_tod(epoch, timedelta(0)) == "0000000000000000 (1900-01-01 00:00:00)"
    assert format_tod(datetime(1900, 1, 1, 0, 0, 1, tzinfo=UTC), timedelta(0)).startswith("00000000F4240000")


def test_tod_of_an_instant_in_another_zone() -> None:
    plus_one = SEED_INSTANT.astimezone(timezone_plus(1))
    assert to_tod(plus_one) == to_tod(SEED_INSTANT)


def timezone_plus(hours: int) -> Any:
    from datetime import timezone

    return timezone(timedelta(hours=hours))


def test_parse_tod() -> None:
    assert parse_tod("d962caaa5baad838") == SEED_TOD
    for bad in ("D962CAAA5BAAD83", "D962CAAA5BAAD838X", "XYZ", ""):
        with pytest.raises(ClockError, match="not a TOD value"):
            parse_tod(bad)


def test_a_clock_frozen_at_a_tod_keeps_its_bits() -> None:
    clock = Clock.from_setting("D962CAAA5BAAD838")
    assert clock.frozen and clock.now() == SEED_INSTANT
    assert clock.tod() == SEED_TOD
    assert format_tod_value(clock.tod(), EST) == "D962CAAA5BAAD838 (2021-03-09 10:41:22)"
    clock.advance(1)
    assert clock.tod() == SEED_TOD + (1_000_000 << 12)  # later, with the same last bits
    assert Clock.from_setting("2021-03-09T15:41:22.953901Z").tod() == SEED_TOD & ~0xFFF
    assert Clock.from_setting("0000000000000000").now() == datetime(1900, 1, 1, tzinfo=UTC)


def test_a_tod_setting_that_is_not_one() -> None:
    for bad in ("D962CAAA5BAAD83", "D962CAAA5BAAD838X", "D962CAAA5BAAD83G"):
        with pytest.raises(ClockError):
            Clock.from_setting(bad)


# -- instants, offsets, durations ----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "2021-03-09T15:41:22Z",
        "2021-03-09T15:41:22z",
        "2021-03-09T15:41:22+00:00",
        "2021-03-09T10:41:22-05:00",
        "2021-03-09T15:41:22",
        "2021-03-09 15:41:22",
    ],
)
def test_parse_instant(text: str) -> None:
    assert parse_instant(text) == datetime(2021, 3, 9, 15, 41, 22, tzinfo=UTC)


@pytest.mark.parametrize(
    "text", ["yesterday", "", "2021-13-01T00:00:00Z", "15:41", "1899-12-31T23:59:59Z", "9999-06-01T00:00:00Z"]
)
def test_bad_instants(text: str) -> None:
    with pytest.raises(ClockError):
        parse_instant(text)


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ("-05:00", EST),
        ("+0100", timedelta(hours=1)),
        ("+00:00", timedelta(0)),
        ("-0530", timedelta(hours=-5, minutes=-30)),
        (" +05:45 ", timedelta(hours=5, minutes=45)),
    ],
)
def test_parse_offset(text: str, offset: timedelta) -> None:
    assert parse_offset(text) == offset


@pytest.mark.parametrize("text", ["5", "-5", "+24:00", "-05:60", "EST", "05:00", "+5:00", ""])
def test_bad_offsets(text: str) -> None:
    with pytest.raises(ClockError, match="not a UTC offset"):
        parse_offset(text)


@pytest.mark.parametrize(
    ("offset", "text"),
    [
        (EST, "-05:00"),
        (timedelta(0), "+00:00"),
        (timedelta(hours=5, minutes=30), "+05:30"),
        (timedelta(hours=-9, minutes=-30), "-09:30"),
    ],
)
def test_format_offset(offset: timedelta, text: str) -> None:
    assert format_offset(offset) == text
    assert parse_offset(text) == offset


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("5s", 5.0),
        ("2m", 120.0),
        ("1h", 3600.0),
        ("250ms", 0.25),
        ("1d", 86400.0),
        ("10", 10.0),
        (" 1.5H ", 5400.0),
        ("0s", 0.0),
    ],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "5x", "-5s", "s", "5 s s", "1e3s", "9" * 400 + "s"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(ClockError, match="not a duration"):
        parse_duration(text)


# -- the Clock -----------------------------------------------------------------------


def test_frozen_clock_stands_still_until_advanced() -> None:
    clock = Clock.from_setting("2021-03-09T15:41:22Z")
    assert clock.frozen
    first = clock.now()
    assert clock.now() == first == datetime(2021, 3, 9, 15, 41, 22, tzinfo=UTC)
    assert clock.perf() == clock.perf() == 0.0
    clock.advance(5)
    assert clock.now() == first + timedelta(seconds=5)
    assert clock.timestamp() == first.timestamp() + 5
    assert clock.perf() == 0.0  # durations measured in frozen mode are zero


def test_local_time_at_an_offset() -> None:
    clock = Clock.from_setting("2021-03-09T15:41:22Z")
    assert clock.local(EST) == datetime(2021, 3, 9, 10, 41, 22)
    assert clock.local(timedelta(0), SEED_INSTANT) == datetime(2021, 3, 9, 15, 41, 22, 953901)


def test_wall_clock_runs() -> None:
    clock = Clock.from_setting(None)
    assert not clock.frozen
    before = datetime.now(UTC)
    now = clock.now()
    after = datetime.now(UTC)
    assert before <= now <= after
    clock.advance(3600)
    assert clock.now() >= after + timedelta(seconds=3600)
    assert Clock.from_setting("  ").frozen is False


def test_advance_refuses_backwards_nan_and_beyond_the_year_9998() -> None:
    clock = Clock.from_setting("2021-03-09T15:41:22Z")
    for seconds in (-1.0, float("nan"), 1e12, float("inf")):
        with pytest.raises(ClockError):
            clock.advance(seconds)
    assert clock.now() == datetime(2021, 3, 9, 15, 41, 22, tzinfo=UTC)


# -- through the command line --------------------------------------------------------


def test_clock_option_sets_the_console_time(mq: Any) -> None:
    result = mq("cmd", "ZMQSC DIS QMGR", clock="2021-03-09T15:41:22Z")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01"


def test_clock_from_the_environment(mq: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MQTOOL_CLOCK", "2021-03-09T17:00:05+01:00")
    result = mq("cmd", "ZMQSC DIS QMGR", ".advance 90s", "ZMQSC DIS QMGR", clock=None)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "CSMP0097I 11.00.05 CPU-B SS-BSS  SSU-HPN  IS-01"
    assert "MQT0006I Clock advanced 90s to 2021-03-09T16:01:35Z; " in result.output
    assert "CSMP0097I 11.01.35 CPU-B SS-BSS  SSU-HPN  IS-01" in lines


def test_option_wins_over_the_environment(mq: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MQTOOL_CLOCK", "2000-01-01T00:00:00Z")
    result = mq("cmd", "ZMQSC DIS QMGR", clock="2021-03-09T15:41:22Z")
    assert result.output.splitlines()[0].startswith("CSMP0097I 10.41.22 ")


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The real entry point (which turns errors into one line), in process."""
    from mqtool.cli.main import main

    with pytest.raises(SystemExit) as leaving:
        main(argv)
    captured = capsys.readouterr()
    return int(leaving.value.code or 0), captured.out, drop_creation_notice(captured.err)


@pytest.mark.parametrize("value", ["yesterday", "2021-02-30T00:00:00Z", "1066-10-14T09:00:00Z"])
def test_bad_clock_is_one_error_line(value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["--state", str(tmp_path), "--clock", value, "cmd", "ZMQSC DIS QMGR"], capsys)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("mqtool: error: --clock: ")
    assert repr(value) in lines[0]
    assert not (tmp_path / "mqtool.db").exists()  # nothing was opened or created


def test_bad_clock_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MQTOOL_CLOCK", "not a time")
    code, out, err = run_main(["--state", str(tmp_path), "cmd", "ZMQSC DIS QMGR"], capsys)
    assert (code, out) == (2, "")
    assert err == "mqtool: error: --clock: not an ISO-8601 time: 'not a time' (example: 2021-03-09T15:41:22Z)\n"


def test_advance_errors_change_nothing(mq: Any) -> None:
    result = mq("cmd", ".advance -5s", ".advance 99999999d", ".advance", "ZMQSC DIS QMGR")
    assert result.exit_code == 10, result.output
    lines = result.output.splitlines()
    assert lines[:3] == [
        "MQT0003E Directive .advance: not a duration: '-5s'; give a number with a unit, ms, s, m, h or d, "
        "in one word (5s, 2m, 1h, 250ms; a bare number is seconds)",
        "MQT0003E Directive .advance: cannot move the clock 8.64e+12s: it would pass the year 9998",
        "MQT0003E Directive .advance: usage: .advance DURATION, a number with a unit, ms, s, m, h or d, "
        "in one word (5s, 2m, 1h, 250ms; a bare number is seconds)",
    ]
    assert lines[3].startswith("CSMP0097I 10.41.22 ")
