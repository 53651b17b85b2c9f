"""Connection names, in one place: a channel's CONNAME and a listener's address are
parsed here and nowhere else, so DEFINE, START, the in-store lookup and the TCP
transport agree on what `host(port)` means.

IBM's forms (MQ's CONNAME on z/OS): `host` (port 1414), `host(port)`, an IPv6 address
with its port in parentheses (`2001:db8::1(1414)`; mqtool also takes `[2001:db8::1]`),
and a comma-separated list of these, tried in order by a sender. A listener's address
may also be `*` (every address of the machine) and its port 0 (the system chooses one:
mqtool's choice, for tests and for several stores on one machine).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_PORT = 1414  # MQ's port when a CONNAME gives none
MAX_LENGTH = 264  # MQ's CONNAME length on z/OS
MAX_ADDRESSES = 16  # entries of one list (a longer list is refused, not truncated)
ANY_HOST = "*"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "0:0:0:0:0:0:0:1")

_HOST = re.compile(r"^(\*|[A-Za-z0-9][A-Za-z0-9.\-]*|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$")
_ENTRY = re.compile(r"^(?P<host>\[[^\]]*\]|[^()]*?)\s*(?:\(\s*(?P<port>[0-9]{1,5})\s*\))?$")


class ConnameError(ValueError):
    """A CONNAME or listener address that is not one; the text says why."""


@dataclass(frozen=True, order=True)
class Address:
    """One host and port (the host in lower case; `*` for every address)."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.host}({self.port})"

    @property
    def any(self) -> bool:
        return self.host == ANY_HOST

    @property
    def bind_host(self) -> str:
        """What a listening socket binds: every address for `*`, else the host."""
        return "" if self.any else self.host.strip("[]")

    def covers(self, other: Address) -> bool:
        """Whether two listener addresses overlap (IBM: the same, a subset or a
        superset of one already listened on): the same port, and the same host or
        either of them every address. Port 0 overlaps nothing (each gets its own)."""
        if self.port == 0 or other.port == 0 or self.port != other.port:
            return False
        return self.any or other.any or self.host == other.host


def parse(text: str, listener: bool = False) -> Address:
    """One `host(port)` (or `host`, port 1414). `listener` allows `*` and port 0."""
    raw = (text or "").strip()
    match = _ENTRY.match(raw)
    if not raw or match is None:
        raise ConnameError(f"{text!r} is not host(port)")
    host = match.group("host").strip()
    if host.startswith("["):
        host = host[1:-1]
    port_text = match.group("port")
    port = int(port_text) if port_text is not None else DEFAULT_PORT
    if not host or not _HOST.match(host) or len(host) > 255:
        raise ConnameError(f"{text!r}: {host or '(blank)'} is not a host name or IP address")
    if host == ANY_HOST and not listener:
        raise ConnameError(f"{text!r}: * is only for a listener's address")
    low = 0 if listener else 1
    if not low <= port <= 65535:
        raise ConnameError(f"{text!r}: the port must be {low}-65535")
    return Address(host.lower(), port)


def parse_list(text: str, listener: bool = False) -> list[Address]:
    """A comma-separated list of addresses (a sender tries them in order)."""
    raw = (text or "").strip()
    if len(raw) > MAX_LENGTH:
        raise ConnameError(f"{raw[:20]}...: longer than {MAX_LENGTH} characters")
    if not raw:
        return []
    parts = [part for part in (item.strip() for item in raw.split(",")) if part]
    if len(parts) > MAX_ADDRESSES:
        raise ConnameError(f"more than {MAX_ADDRESSES} addresses")
    return [parse(part, listener) for part in parts]


def format_list(addresses: list[Address]) -> str:
    return ",".join(str(address) for address in addresses)


def is_local(host: str) -> bool:
    """Whether a host names this machine's loopback (a CONNAME that reaches a `*`
    listener of the same store)."""
    return host.lower().strip("[]") in LOCAL_HOSTS or host.startswith("127.")
