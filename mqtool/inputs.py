"""What a user types or points mqtool at, read within bounds: whole numbers and decimals
written in ASCII digits, and files that must be regular files of a bounded size.

One rule for every option, directive and file: a number is ASCII digits (never `٣`,
`+5`, `1_000`, `1e3`, NaN or infinity), at most a few digits longer than the largest
value allowed, so that no conversion meets Python's 4,300-digit limit or an infinity;
a file is opened without waiting (a FIFO with no writer would block for ever), must be
a regular file (a device such as /dev/zero never ends, a folder is no document), and is
read only up to its bound (a file that grows while it is read is cut there and refused).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

# Bounds shared by `mqtool put`/`get` and the `.put`/`.get` directives.
MAX_COUNT = 999_999_999  # messages one put or get handles
MAX_SEED = 2**32 - 1  # seed of generated payloads
MAX_EXPIRY = 2_147_483_647  # tenths of a second: the MQMD's Expiry is an MQLONG
MAX_MESSAGE = 100 * 1024 * 1024  # the largest MQ message (MAXMSGL 104857600): a file put whole
MAX_WAIT = 2_147_483.647  # seconds: the MQGMO's WaitInterval is an MQLONG of milliseconds
# Digits read at the most, whatever the bound (leading zeros aside): far below the
# 4,300 digits Python's int() refuses, far above any value mqtool takes.
MAX_DIGITS = 30
_WHOLE = re.compile(r"[0-9]+", re.ASCII)
_DECIMAL = re.compile(r"([0-9]*)(?:\.([0-9]+))?", re.ASCII)


class InputError(ValueError):
    """A value or file that cannot be used: `value` is the value as an error message
    shows it (a long one cut), `reason` what is wrong and what is accepted; str() is
    both ("count=٣ is not a number" reads `{key}={value} {reason}`)."""

    def __init__(self, reason: str, value: str = "", errno: int | None = None) -> None:
        super().__init__(f"{value} {reason}" if value else reason)
        self.value = value
        self.reason = reason
        self.errno = errno  # the system's error number, when opening or reading failed

    @classmethod
    def of(cls, exc: OSError) -> InputError:
        return cls(exc.strerror or str(exc), errno=exc.errno)


def shown(text: str, limit: int = 40) -> str:
    """A value as an error message shows it: a long one cut, with its length."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def span(low: float, high: float | None, unit: str = "") -> str:
    """`0-9`, `1 or more`, `0.05-5s`: a range as the messages give it."""
    if high is None:
        return f"{_number(low)}{unit} or more"
    return f"{_number(low)}-{_number(high)}{unit}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def whole(text: str, low: int = 0, high: int | None = None) -> int:
    """A whole number of ASCII digits, low..high (no bound above when `high` is None,
    still at most MAX_DIGITS digits). Blanks around it are allowed."""
    value = text.strip()
    if not _WHOLE.fullmatch(value):
        raise InputError("is not a number (digits 0-9)", shown(text))
    digits = value.lstrip("0") or "0"
    limit = MAX_DIGITS if high is None else min(MAX_DIGITS, len(str(high)))
    if len(digits) > limit or not (low <= int(digits) and (high is None or int(digits) <= high)):
        raise InputError(f"is out of range ({span(low, high)})", shown(text))
    return int(digits)


def decimal(text: str, low: float = 0.0, high: float | None = None, unit: str = "") -> float:
    """A number of ASCII digits with an optional fraction (`2`, `0.25`, `.5`), low..high;
    never an exponent, NaN or infinity."""
    value = text.strip()
    match = _DECIMAL.fullmatch(value)
    if match is None or not (match.group(1) or match.group(2)):
        raise InputError("is not a number (digits 0-9, a fraction after a point)", shown(text))
    whole_part = match.group(1).lstrip("0")
    fraction = match.group(2) or ""
    limit = MAX_DIGITS if high is None else min(MAX_DIGITS, len(str(int(high))))
    number = float(f"{whole_part or '0'}.{fraction[:MAX_DIGITS] or '0'}") if len(whole_part) <= limit else None
    if number is None or number < low or (high is not None and number > high):
        raise InputError(f"is out of range ({span(low, high, unit)})", shown(text))
    return number


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _open(path: str | Path) -> int:
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        return os.open(path, flags)
    except OSError as exc:
        raise InputError.of(exc) from None


def _regular(descriptor: int) -> os.stat_result:
    try:
        info = os.fstat(descriptor)
    except OSError as exc:
        raise InputError.of(exc) from None
    if not stat.S_ISREG(info.st_mode):
        kind = _kind(info.st_mode)
        raise InputError(kind if kind.startswith("not") else f"{kind}, not a regular file")
    return info


def file_size(path: str | Path) -> int:
    """The size of a regular file that can be opened for reading (nothing is read);
    InputError as read_file gives it."""
    descriptor = _open(path)
    try:
        return _regular(descriptor).st_size
    finally:
        os.close(descriptor)


def read_file(path: str | Path, limit: int, what: str = "") -> bytes:
    """The bytes of a regular file of at most `limit` bytes. InputError with the reason
    (no such file, a folder, a FIFO, a device, a symbolic link loop, unreadable, too
    large); `what` names the bound in the message (e.g. "the largest document")."""
    descriptor = _open(path)
    bound = f" ({what})" if what else ""
    try:
        info = _regular(descriptor)
    except BaseException:
        os.close(descriptor)
        raise
    if info.st_size > limit:
        os.close(descriptor)
        raise InputError(f"{info.st_size:,} bytes is more than {limit:,}{bound}")
    chunks: list[bytes] = []
    size = 0
    with os.fdopen(descriptor, "rb", buffering=0) as handle:
        try:
            while size <= limit:
                chunk = handle.read(min(1 << 20, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        except OSError as exc:
            raise InputError.of(exc) from None
    if size > limit:
        raise InputError(f"more than {limit:,} bytes{bound}")
    return b"".join(chunks)
