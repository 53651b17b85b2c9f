"""Connection names, in one place: a channel's CONNAME and a listener's address are
read here and nowhere else, so DEFINE, START, the in-store lookup, PING and the TCP
transport agree on what `host(port)` means. A CONNAME is read when its channel starts,
as IBM MQ reads it (not at DEFINE: a definition may hold a template such as
`CONNAME('<host>(1414)')`).

IBM's forms (MQ's CONNAME on z/OS): a host name or an IPv4 or IPv6 address, optionally
followed by a port in parentheses (1414 when none is given), and a connection list of
several such names separated by commas, tried in order until one connects:

    qm1.example.com           host name, port 1414
    192.0.2.7(1415)           IPv4 address and port
    fe80::1(1414)             IPv6 address (no brackets: the parentheses delimit the port;
                              mqtool also takes [fe80::1](1414))
    qm1(1414),qm2(1414)       a connection list

A listener's address may also be `*` (every address of the machine) and its port 0
(the system chooses one: mqtool's choice, for tests and for several stores on one
machine); a blank list of listener addresses is none.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

DEFAULT_PORT = 1414  # MQ's port when a CONNAME gives none
MAX_LENGTH = 264  # MQ's CONNAME length on z/OS
MAX_ADDRESSES = 16  # entries of one list (a longer list is refused, not truncated)
MAX_HOST = 255  # the longest DNS name
ANY_HOST = "*"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "0:0:0:0:0:0:0:1")

# A host name: labels of letters, digits, hyphens and underscores separated by dots.
_HOST = re.compile(
    r"^[A-Za-z0-9_](?:[A-Za-z0-9_\-]*[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_\-]*[A-Za-z0-9_])?)*\.?$"
)
_ITEM = re.compile(r"^(?P<host>\[[^\]]*\]|[^()]+?)\s*(?:\((?P<port>[^()]*)\))?$")


class ConnameError(ValueError):
    """A CONNAME or listener address that is not one; the text says why."""


@dataclass(frozen=True, order=True)
class Address:
    """One host and port (the host in lower case, IPv6 written one way; `*` for every
    address)."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.host}({self.port})"

    @property
    def key(self) -> tuple[str, int]:
        """What two addresses are compared by: the host without case, IPv6 written one
        way (fe80:0::1 is fe80::1), and the port."""
        return normal_host(self.host), self.port

    @property
    def any(self) -> bool:
        return self.host == ANY_HOST

    @property
    def bind_host(self) -> str:
        """What a listening socket binds: every address for `*`, else the host."""
        return "" if self.any else self.host

    def covers(self, other: Address) -> bool:
        """Whether two listener addresses overlap (IBM: the same, a subset or a
        superset of one already listened on): the same port, and the same host or
        either of them every address. Port 0 overlaps nothing (each gets its own)."""
        if self.port == 0 or other.port == 0 or self.port != other.port:
            return False
        return self.any or other.any or normal_host(self.host) == normal_host(other.host)


def parse_list(text: str, listener: bool = False) -> list[Address]:
    """The addresses of a CONNAME (or of a listener setting), in the order they are to be
    tried. ConnameError when a CONNAME is blank or starts with a blank, or one of its
    names is not a host name, IPv4 or IPv6 address with an optional port 1-65535; a
    blank listener setting is no address."""
    raw = text or ""
    if not raw.strip():
        if listener:
            return []
        raise ConnameError("the connection name is blank")
    if raw[0].isspace() and not listener:
        raise ConnameError("the connection name starts with a blank")
    raw = raw.strip()
    if len(raw) > MAX_LENGTH:
        raise ConnameError(f"{raw[:20]}...: longer than {MAX_LENGTH} characters")
    parts = [item.strip() for item in raw.split(",")]
    if len(parts) > MAX_ADDRESSES:
        raise ConnameError(f"more than {MAX_ADDRESSES} addresses")
    return [parse_one(part, listener, whole=raw) for part in parts]


def parse_one(text: str, listener: bool = False, whole: str | None = None) -> Address:
    """One `host(port)` (or `host`, port 1414). `listener` allows `*` and port 0."""
    item = (text or "").strip()
    if not item:
        raise ConnameError(f"{whole or text!r} has an empty name in its list")
    if "," in item:
        raise ConnameError(f"{item!r} is a list of {item.count(',') + 1} addresses, not one")
    match = _ITEM.match(item)
    if match is None:
        raise ConnameError(f"{item!r} is not host(port)")
    host = match.group("host").strip()
    if host.startswith("["):
        host = host[1:-1]
    port = DEFAULT_PORT
    port_text = match.group("port")
    low = 0 if listener else 1
    if port_text is not None:
        port_text = port_text.strip()
        if not (port_text.isascii() and port_text.isdigit()) or not low <= int(port_text[:6]) <= 65535:
            raise ConnameError(f"{item!r} has no port {low}-65535 in its parentheses")
        port = int(port_text)
    if host == ANY_HOST:
        if not listener:
            raise ConnameError(f"{item!r}: * is only for a listener's address")
        return Address(ANY_HOST, port)
    if ":" in host:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ConnameError(f"{host!r} is not an IPv6 address") from None
    elif len(host) > MAX_HOST or not _HOST.match(host):
        raise ConnameError(f"{host!r} is not a host name or IP address")
    return Address(host.lower(), port)


def normal_host(host: str) -> str:
    """A host as addresses are compared: an IP address written one way, a name in lower
    case without a final dot."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return host.lower().rstrip(".")


def format_list(addresses: list[Address]) -> str:
    return ",".join(str(address) for address in addresses)


def is_local(host: str) -> bool:
    """Whether a host names this machine's loopback (a CONNAME that reaches a `*`
    listener of the same store)."""
    return host.lower().strip("[]") in LOCAL_HOSTS or host.startswith("127.")
