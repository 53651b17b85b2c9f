"""The planner's question as one record: which reports, the size classes, and the
settings of the z/TPF system, its queues and channel, the HTTP server and the z/OS queue
manager that the figures are computed for. Sizes and rates are parsed here."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mqtool import sizes

MAX_MESSAGE = 100 * 1024 * 1024  # the largest MQ message (MAXMSGL 104857600)
REPORTS: tuple[str, ...] = ("ratios", "ztpf", "sweeper", "channel", "http", "zos", "cpu")
_RATE = re.compile(
    r"\s*([0-9]+(?:\.[0-9]+)?)\s*(?:/\s*(s|sec|second|m|min|minute|h|hour))?\s*", re.IGNORECASE | re.ASCII
)
_PER = {"s": 1.0, "sec": 1.0, "second": 1.0, "m": 60.0, "min": 60.0, "minute": 60.0, "h": 3600.0, "hour": 3600.0}
DEFAULT_LADDER = (0, 1024, 4096, 16384, 65536, 262144, 1024**2, 4 * 1024**2, 16 * 1024**2)


class SettingsError(ValueError):
    """A size, rate, class list or setting that cannot be used."""


def parse_size(text: str) -> int:
    """Bytes from `3000`, `32KB`, `4MB`, `1G` (1 KB = 1024 bytes): mqtool's one reader
    of sizes (mqtool/sizes.py), as `mqtool put --size` reads them."""
    try:
        return sizes.parse_size(text)
    except sizes.SizeError as exc:
        raise SettingsError(f"{text!r} is not a size ({exc})") from None


def parse_sizes(text: str) -> list[int]:
    """A comma-separated list of sizes, each as parse_size takes it."""
    parts = [part for part in text.split(",")]
    if not parts or any(not part.strip() for part in parts):
        raise SettingsError(f"{text!r} is not a list of sizes separated by commas")
    return [parse_size(part) for part in parts]


def parse_rate(text: str) -> float:
    """Messages per second from `100/s`, `6000/min`, `100` (per second)."""
    match = _RATE.fullmatch(text)
    if match is None or float(match.group(1)) <= 0:
        raise SettingsError(f"{text!r} is not a rate: messages per second or minute or hour, e.g. 100/s, 6000/min")
    return float(match.group(1)) / _PER[(match.group(2) or "s").lower()]


def human(size: int) -> str:
    """A size as a class label shows it: whole KB, MB or GB when it is one, else bytes."""
    for unit, factor in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if size >= factor and size % factor == 0:
            return f"{size // factor}{unit}"
    return str(size)


@dataclass(frozen=True)
class SizeClass:
    """Messages of lower <= length < upper (upper None: no limit)."""

    lower: int
    upper: int | None
    label: str


def classes_from(bounds: list[int], exact: bool = False) -> tuple[SizeClass, ...]:
    """Size classes from their lower bounds (sorted, a 0 class added below the first).
    `exact`: the bounds are the sizes of a generated corpus, each its own class labelled
    by its size."""
    unique = sorted(set(bounds))
    if not unique:
        raise SettingsError("no size classes given")
    if unique[0] > 0:
        unique.insert(0, 0)
        below = True
    else:
        below = False
    out: list[SizeClass] = []
    for index, lower in enumerate(unique):
        upper = unique[index + 1] if index + 1 < len(unique) else None
        if exact and not (below and index == 0):
            label = str(lower)
        elif upper is None:
            label = f"{human(lower)}+"
        else:
            label = f"{human(lower)}-{human(upper)}"
        out.append(SizeClass(lower, upper, label))
    return tuple(out)


@dataclass(frozen=True)
class Settings:
    """Everything a worker needs to measure a message, and the report needs to judge it."""

    reports: tuple[str, ...] = REPORTS
    classes: tuple[SizeClass, ...] = classes_from(list(DEFAULT_LADDER))
    # z/TPF system and queues
    cpu: str = "z15"
    accelerator: bool = True
    swbsize: int = 1024
    swbpool: int = 33000
    sweephi: int = 80
    sweeplo: int = 40
    compsize: int = 1  # the queue's COMPSIZE (1: every message; 0: off)
    xmitq_compsize: int = 1
    rate: float = 100.0  # messages per second
    outage: float = 60.0  # seconds
    goal: str = "swb"
    # channel
    compmsg: tuple[str, ...] = ("ZLIBFAST",)
    rcvr_compmsg: tuple[str, ...] = ("ANY",)
    rcvr_platform: str = "ztpf"
    # HTTP server
    compsizehw: int = 1
    compsizesw: int = 0
    # z/OS
    pages: int = 18000
    # input
    encoding: str | None = None
    timed: bool = True  # False with a frozen clock: no CPU figures

    @property
    def technique(self) -> str:
        """The channel technique the sender and receiver negotiate (NONE when none)."""
        from mqtool.engine.channels.wire import negotiate

        return negotiate(self.compmsg, self.rcvr_compmsg, self.rcvr_platform)

    def wants(self, *reports: str) -> bool:
        return any(report in self.reports for report in reports)
