"""The one clock: wall time by default, or frozen at an instant that only `.advance` moves.

Everything in mqtool that tells time asks an instance of `Clock`; nothing calls
`time.time()` or `datetime.now()` directly (DESIGN.md, "one clock").
"""

from __future__ import annotations

import functools
import re
import time
from datetime import UTC, datetime, timedelta

from mqtool.record import Record

TOD_EPOCH = datetime(1900, 1, 1, tzinfo=UTC)
# The clock stays below this so that local time at any display offset can still be shown.
LATEST = datetime(9999, 1, 1, tzinfo=UTC)
# Numbers are ASCII digits only (re.ASCII: \d and \s would also take ٣ and other scripts).
# (Patterns given to re.match, which compiles each once when first used: a command that
# reads no duration, TOD setting or new offset does not pay for compiling them.)
_DURATION = r"(?ai)^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$"
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_TOD_TEXT = r"^[0-9A-Fa-f]{16}$"  # an ISO time is never 16 hex digits
_OFFSET = r"(?a)^([+-])(\d{2}):?(\d{2})$"


class ClockError(ValueError):
    """A clock setting, offset or duration that cannot be read."""


def parse_instant(text: str) -> datetime:
    """Reads an ISO-8601 instant; a value without a zone is taken as UTC."""
    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    try:
        value = datetime.fromisoformat(raw)
    except ValueError as exc:
        raise ClockError(f"not an ISO-8601 time: {text!r} (example: 2021-03-09T15:41:22Z)") from exc
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    value = value.astimezone(UTC)
    if not TOD_EPOCH <= value < LATEST:
        raise ClockError(f"{text!r} is outside the years 1900-9998 that the TOD clock and displays can show")
    return value


def parse_duration(text: str) -> float:
    """Reads `5s`, `2m`, `1h`, `250ms`, `1d` or a bare number of seconds; returns seconds."""
    match = re.match(_DURATION, text)
    if not match:
        raise ClockError(f"not a duration: {text!r} (examples: 5s, 2m, 1h)")
    seconds = float(match.group(1)) * _UNIT_SECONDS[(match.group(2) or "s").lower()]
    if seconds == float("inf"):
        raise ClockError(f"not a duration: {text!r} (too long)")
    return seconds


@functools.lru_cache(maxsize=64)  # read for every response from the system's settings
def parse_offset(text: str) -> timedelta:
    """Reads a display offset such as `-05:00` or `+0100`."""
    match = re.match(_OFFSET, text.strip())
    if not match:
        raise ClockError(f"not a UTC offset: {text!r} (example: -05:00)")
    sign = -1 if match.group(1) == "-" else 1
    hours, minutes = int(match.group(2)), int(match.group(3))
    if hours > 23 or minutes > 59:
        raise ClockError(f"not a UTC offset: {text!r} (example: -05:00)")
    return sign * timedelta(hours=hours, minutes=minutes)


def format_offset(offset: timedelta) -> str:
    total = int(offset.total_seconds())
    sign = "-" if total < 0 else "+"
    total = abs(total)
    return f"{sign}{total // 3600:02d}:{total % 3600 // 60:02d}"


def to_tod(instant: datetime) -> int:
    """The 64-bit z/Architecture TOD value: microseconds since 1900 shifted left 12 bits."""
    delta = instant.astimezone(UTC) - TOD_EPOCH
    micros = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    return (micros << 12) & 0xFFFF_FFFF_FFFF_FFFF


def from_tod(tod: int) -> datetime:
    return TOD_EPOCH + timedelta(microseconds=tod >> 12)


def format_tod(instant: datetime, offset: timedelta) -> str:
    """`D962CAAA5BAAD000 (2021-03-09 10:41:22)`: hex TOD and local time, fraction truncated."""
    return format_tod_value(to_tod(instant), offset)


def format_tod_value(tod: int, offset: timedelta) -> str:
    """A TOD value as the console shows it: `D962CAAA5BAAD838 (2021-03-09 10:41:22)` at
    -05:00. The value keeps its bits below the microsecond, which an instant cannot hold."""
    local = from_tod(tod) + offset
    return f"{tod:016X} ({local:%Y-%m-%d %H:%M:%S})"


def parse_tod(text: str) -> int:
    """Reads 16 hex digits of a TOD value."""
    raw = text.strip()
    if len(raw) != 16 or any(c not in "0123456789abcdefABCDEF" for c in raw):
        raise ClockError(f"not a TOD value: {text!r} (16 hex digits, e.g. D962CAAA5BAAD838)")
    return int(raw, 16)


class Clock(Record):
    """Wall clock, or a frozen one when `frozen_at` is set.

    `perf()` is what the engine uses to measure durations (compression time,
    checkpoint time): with a frozen clock it never moves, so measured durations are
    zero and transcripts repeat byte for byte. (A written-out record, not a dataclass:
    mqtool/record.py says why.)
    """

    _FIELDS = ("frozen_at", "tod_fraction", "_advanced")

    def __init__(self, frozen_at: datetime | None = None, tod_fraction: int = 0, _advanced: float = 0.0) -> None:
        self.frozen_at = frozen_at
        # The bits below the microsecond of a clock frozen at a TOD value (--clock
        # D962CAAA5BAAD838): an instant cannot hold them, so TOD values made from this
        # clock get them back and show exactly the TOD that was given.
        self.tod_fraction = tod_fraction
        self._advanced = _advanced  # seconds .advance has moved it

    @classmethod
    def from_setting(cls, setting: str | None) -> Clock:
        """`--clock`: an ISO-8601 instant, or 16 hex digits of a z/Architecture TOD value."""
        if setting is None or not setting.strip():
            return cls()
        if re.match(_TOD_TEXT, setting.strip()):
            tod = parse_tod(setting)
            instant = from_tod(tod)
            if instant >= LATEST:
                raise ClockError(f"{setting!r} is after the year 9998 that the displays can show")
            return cls(frozen_at=instant, tod_fraction=tod & 0xFFF)
        return cls(frozen_at=parse_instant(setting))

    @property
    def frozen(self) -> bool:
        return self.frozen_at is not None

    def now(self) -> datetime:
        if self.frozen_at is not None:
            return self.frozen_at + timedelta(seconds=self._advanced)
        return datetime.now(UTC) + timedelta(seconds=self._advanced)

    def timestamp(self) -> float:
        """Seconds since the Unix epoch, as stored in the state store. Read without
        building a datetime: the put and get paths ask for it on every message."""
        if self.frozen_at is not None:
            return self.frozen_at.timestamp() + self._advanced
        return time.time() + self._advanced

    def tod(self) -> int:
        """Now as a TOD value, with the sub-microsecond bits of a TOD setting."""
        return to_tod(self.now()) | self.tod_fraction

    def perf(self) -> float:
        if self.frozen_at is not None:
            return 0.0
        return time.perf_counter()

    def can_advance(self, seconds: float) -> bool:
        """Whether `advance(seconds)` would be accepted (forward, before the year 9998)."""
        if not seconds >= 0:
            return False
        try:
            return self.now() + timedelta(seconds=seconds) < LATEST
        except OverflowError:
            return False

    def advance(self, seconds: float) -> None:
        """Moves the clock forward: a frozen clock stays frozen at the later instant; a
        wall clock runs on from the later instant (for the rest of this process)."""
        if not seconds >= 0:  # also refuses NaN
            raise ClockError("the clock only moves forward")
        try:
            later = self.now() + timedelta(seconds=seconds)
        except OverflowError:
            later = LATEST
        if later >= LATEST:
            raise ClockError(f"cannot move the clock {seconds:g}s: it would pass the year 9998")
        self._advanced += seconds

    def local(self, offset: timedelta, instant: datetime | None = None) -> datetime:
        """The instant as naive local time at `offset` (what consoles display)."""
        moment = self.now() if instant is None else instant
        return (moment.astimezone(UTC) + offset).replace(tzinfo=None)
