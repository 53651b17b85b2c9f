"""The z/TPF HTTP server configuration file NAME.conf: reading, validation, template.

One `KEYWORD-value` per line, `#` starts a comment, blank lines are ignored
(ztpf-http.md section 1). Every problem is reported with the file and line.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqtool import inputs

__all__ = [
    "DEFAULT_IP",
    "DEFAULT_MAXCONN",
    "DEFAULT_TIMEOUT",
    "KEYWORDS",
    "RESERVED_DESCRIPTORS",
    "ConfigError",
    "ServerOptions",
    "connection_bound",
    "descriptor_limit",
    "load_options",
    "parse_options",
    "template",
]

DEFAULT_IP = "127.0.0.1"
DEFAULT_MAXCONN = 100
DEFAULT_TIMEOUT = 30.0
# Ranges are mqtool's choices (no IBM source gives them): a TCP port, a connection
# count a workstation can hold in file descriptors, a day of idle time, and a
# fullword for the size thresholds.
PORT_RANGE = (0, 65535)  # 0: the system chooses a free port (DISPLAY shows it)
MAXCONN_RANGE = (1, 65535)
TIMEOUT_RANGE = (0.001, 86400.0)
COMPSIZE_RANGE = (0, 2147483647)
COMP_CODINGS = ("deflate", "gzip")
# The largest NAME.conf read: a file of eight keywords and comments is a few KB; a
# device that never ends, or a huge file, is refused.
MAX_CONFIG = 1024 * 1024
#: Descriptors a serving process keeps for itself (the store and its journal, the
#: event loop, listeners, files being sent) when MAXCONN is held against its
#: RLIMIT_NOFILE: a server takes at most limit - RESERVED_DESCRIPTORS connections.
RESERVED_DESCRIPTORS = 32

#: Every keyword of NAME.conf with its one-line meaning, in file order.
KEYWORDS: dict[str, str] = {
    "PORT": "TCP port the server listens on, 1-65535, or 0 for a free one the system chooses (required)",
    "IP": f"address to bind, IPv4 or IPv6 [{DEFAULT_IP}]",
    "DOCROOT": "folder of static files, relative to this file's folder or absolute [www/NAME]",
    "MAXCONN": f"most connections open at once; more are refused, 1-65535 [{DEFAULT_MAXCONN}]",
    "TIMEOUT": (
        "seconds a connection may take to send a complete request (idle or not) before it is closed,"
        f" 0.001-86400 [{DEFAULT_TIMEOUT:g}]"
    ),
    "COMP": "content codings in priority order: deflate, gzip or both, comma-separated; empty = none [empty]",
    "COMPSIZEHW": "smallest body compressed by the zEDC accelerator (z15 and later); 0 = never in hardware [0]",
    "COMPSIZESW": (
        "smallest body compressed in software when there is no accelerator or COMPSIZEHW is 0;"
        " 0 = never in software [0]"
    ),
}

_DIGITS = re.compile(r"[0-9]+")
# Values longer than this are cut in error messages.
_SHOWN_CHARACTERS = 40
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]{1,3})?")


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names file and line."""

    def __init__(self, message: str, path: Path | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class ServerOptions:
    """The options of one HTTP server as read from its NAME.conf."""

    name: str
    port: int
    ip: str
    docroot: Path
    maxconn: int
    timeout: float
    comp: tuple[str, ...]
    compsizehw: int
    compsizesw: int
    path: Path


def descriptor_limit() -> int | None:
    """This process's soft limit of open file descriptors; None when unlimited or
    unknown (a platform without the resource module)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def connection_bound(maxconn: int, limit: int | None) -> int:
    """The connections a server can really hold open: MAXCONN, unless the file
    descriptor `limit` (see descriptor_limit) allows fewer; never below 1."""
    if limit is None:
        return maxconn
    return max(1, min(maxconn, limit - RESERVED_DESCRIPTORS))


class _BadValue(ValueError):
    """A value outside its keyword's rules; the text says what is allowed."""


def _whole_number(low: int, high: int) -> Callable[[str], int]:
    def convert(value: str) -> int:
        # int() would also take "+5", "1_000" and non-ASCII digits, and refuses
        # more than 4300 digits with a ValueError of its own: the length is
        # checked first, so a number is only converted when it can be in range.
        digits = value.lstrip("0") or "0"
        if not _DIGITS.fullmatch(value) or len(digits) > len(str(high)) or not low <= int(digits) <= high:
            raise _BadValue(f"must be a whole number from {low} to {high}")
        return int(digits)

    return convert


def _seconds(value: str) -> float:
    low, high = TIMEOUT_RANGE
    whole = value.partition(".")[0].lstrip("0")
    if not _DECIMAL.fullmatch(value) or len(whole) > len(f"{high:.0f}") or not low <= float(value) <= high:
        raise _BadValue(f"must be a number of seconds from {low:g} to {high:g} with at most 3 decimals")
    return float(value)


def _ip(value: str) -> str:
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise _BadValue("must be an IPv4 or IPv6 address, e.g. 127.0.0.1") from None


def _comp(value: str) -> tuple[str, ...]:
    if not value:
        return ()
    codings: list[str] = []
    for item in value.split(","):
        coding = item.strip().lower()
        if coding not in COMP_CODINGS:
            raise _BadValue(
                f"{_shown(item.strip())!r} is not a coding: use deflate, gzip or both, comma-separated, "
                "in priority order"
            )
        if coding in codings:
            raise _BadValue(f"{coding} is listed twice")
        codings.append(coding)
    return tuple(codings)


def _docroot(value: str) -> str:
    if not value:
        raise _BadValue("must name a folder")
    if "\x00" in value:
        raise _BadValue("must not contain a NUL character")
    return value


_CONVERTERS: dict[str, Callable[[str], Any]] = {
    "PORT": _whole_number(*PORT_RANGE),
    "IP": _ip,
    "DOCROOT": _docroot,
    "MAXCONN": _whole_number(*MAXCONN_RANGE),
    "TIMEOUT": _seconds,
    "COMP": _comp,
    "COMPSIZEHW": _whole_number(*COMPSIZE_RANGE),
    "COMPSIZESW": _whole_number(*COMPSIZE_RANGE),
}


def _shown(value: str) -> str:
    """A value as an error message quotes it: a long one is cut, with its length."""
    if len(value) <= _SHOWN_CHARACTERS:
        return value
    return f"{value[:_SHOWN_CHARACTERS]}... ({len(value)} characters)"


def parse_options(text: str, path: Path, name: str) -> ServerOptions:
    """Reads the text of NAME.conf; `path` locates relative DOCROOTs and errors.

    Keywords are case-insensitive; the value is everything after the first `-`,
    with surrounding blanks removed (so `COMP-` sets an empty list). A `#` anywhere
    starts a comment, so a DOCROOT cannot contain `#`.
    """
    values: dict[str, Any] = {}
    first_line: dict[str, int] = {}
    # Only LF (and CR before it) ends a line: str.splitlines() would also split on
    # form feeds and Unicode separators and make line numbers disagree with editors.
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{path}:{number}"
        keyword, sep, value = line.partition("-")
        keyword, value = keyword.strip().upper(), value.strip()
        if not sep or not keyword:
            raise ConfigError(f"{where}: expected KEYWORD-value, found {line!r}", path, number)
        if keyword not in _CONVERTERS:
            raise ConfigError(
                f"{where}: unknown keyword {keyword} (known: {', '.join(KEYWORDS)})",
                path,
                number,
            )
        if keyword in values:
            raise ConfigError(
                f"{where}: duplicate keyword {keyword} (first given on line {first_line[keyword]})",
                path,
                number,
            )
        try:
            values[keyword] = _CONVERTERS[keyword](value)
        except (ValueError, OverflowError) as exc:  # _BadValue, or anything a converter missed
            raise ConfigError(f"{where}: {keyword}-{_shown(value)}: {exc}", path, number) from None
        first_line[keyword] = number
    if "PORT" not in values:
        end = max(len(lines), 1)
        raise ConfigError(
            f"{path}:{end}: end of file without a PORT line (PORT is required, {PORT_RANGE[0]}-{PORT_RANGE[1]})",
            path,
            end,
        )
    docroot = Path(values.get("DOCROOT", f"www/{name}"))
    if not docroot.is_absolute():
        docroot = path.parent / docroot
    return ServerOptions(
        name=name,
        port=values["PORT"],
        ip=values.get("IP", DEFAULT_IP),
        docroot=docroot,
        maxconn=values.get("MAXCONN", DEFAULT_MAXCONN),
        timeout=values.get("TIMEOUT", DEFAULT_TIMEOUT),
        comp=values.get("COMP", ()),
        compsizehw=values.get("COMPSIZEHW", 0),
        compsizesw=values.get("COMPSIZESW", 0),
        path=path,
    )


def load_options(path: Path, name: str) -> ServerOptions:
    """Reads and validates NAME.conf; raises ConfigError naming file and line."""
    try:
        data = inputs.read_file(path, MAX_CONFIG, "the largest configuration file")
    except inputs.InputError as exc:
        raise ConfigError(f"{path}: cannot read the file: {exc}", path) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # editors on some platforms add a UTF-8 byte order mark
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(
            f"{path}:{line}: not UTF-8 (byte 0x{data[exc.start]:02X} at column {column})",
            path,
            line,
        ) from None
    return parse_options(text, path, name)


def template(
    name: str,
    port: int | str,
    comp: Sequence[str] = (),
    compsizehw: int | str = 0,
    compsizesw: int | str = 0,
) -> str:
    """A commented NAME.conf with every keyword, for `mqtool http init NAME`.

    Numbers may be given as the text typed (checked by the file's own rules:
    ASCII digits in range). Raises ValueError for values load_options would
    reject, so a written template always loads.
    """
    given = {
        "PORT": str(port),
        "COMP": ",".join(comp),
        "COMPSIZEHW": str(compsizehw),
        "COMPSIZESW": str(compsizesw),
    }
    for keyword, value in given.items():
        try:
            converted = _CONVERTERS[keyword](value)
        except _BadValue as exc:
            raise ValueError(f"{keyword}-{_shown(value)}: {exc}") from None
        if isinstance(converted, int):
            given[keyword] = str(converted)  # without leading zeros
    settings = {
        "PORT": given["PORT"],
        "IP": DEFAULT_IP,
        "DOCROOT": f"www/{name}",
        "MAXCONN": str(DEFAULT_MAXCONN),
        "TIMEOUT": f"{DEFAULT_TIMEOUT:g}",
        "COMP": given["COMP"],
        "COMPSIZEHW": given["COMPSIZEHW"],
        "COMPSIZESW": given["COMPSIZESW"],
    }
    out = [
        f"# z/TPF HTTP server {name}: configuration read by ZHTPS START and REFRESH.",
        "# One KEYWORD-value per line; '#' starts a comment; blank lines are ignored.",
        "# REFRESH applies new values to new connections only.",
    ]
    for keyword, meaning in KEYWORDS.items():
        out += ["", f"# {keyword}: {meaning}", f"{keyword}-{settings[keyword]}"]
    return "\n".join(out) + "\n"
