"""A channel's CONNAME for TCP, read as IBM MQ reads it when the channel starts (not at
DEFINE: a definition may hold a template such as `CONNAME('<host>(1414)')`).

IBM's forms: a host name or an IPv4 or IPv6 address, optionally followed by a port in
parentheses (1414 when none is given), and a connection list of several such names
separated by commas, tried in order until one connects:

    qm1.example.com           host name, port 1414
    192.0.2.7(1415)           IPv4 address and port
    fe80::1(1414)             IPv6 address (no brackets: the parentheses delimit the port)
    qm1(1414),qm2(1414)       a connection list

`parse` is the one reader: the channel agent calls it when a channel binds, and the
`--listener` setting of a system uses it for a single address.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

DEFAULT_PORT = 1414  # MQ's port when a CONNAME gives none
# A host name: labels of letters, digits, hyphens and underscores separated by dots.
_HOST = re.compile(
    r"^[A-Za-z0-9_](?:[A-Za-z0-9_\-]*[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_\-]*[A-Za-z0-9_])?)*\.?$"
)
_ITEM = re.compile(r"^(?P<host>[^()]+?)(?:\((?P<port>[^()]*)\))?$")
MAX_HOST = 255  # the longest DNS name


class ConnameError(ValueError):
    """A CONNAME that is no TCP connection name (the text of the error says why)."""


@dataclass(frozen=True)
class Address:
    """One connection name: a host (a name, or an IPv4 or IPv6 address) and a port."""

    host: str
    port: int

    @property
    def key(self) -> tuple[str, int]:
        """What two addresses are compared by: the host without case, IPv6 written one
        way (fe80:0::1 is fe80::1), and the port."""
        try:
            return str(ipaddress.ip_address(self.host)), self.port
        except ValueError:
            return self.host.lower().rstrip("."), self.port

    def __str__(self) -> str:
        return f"{self.host}({self.port})"


def parse(text: str) -> list[Address]:
    """The addresses of a CONNAME, in the order they are to be tried. ConnameError when
    it is blank or one of its names is not a host name, IPv4 or IPv6 address with an
    optional port 1-65535."""
    if not text or not text.strip():
        raise ConnameError("the connection name is blank")
    if text[0].isspace():
        raise ConnameError("the connection name starts with a blank")
    return [_address(item.strip(), text) for item in text.split(",")]


def parse_one(text: str) -> Address:
    """A single address (a listener): as `parse`, but not a list."""
    addresses = parse(text)
    if len(addresses) != 1:
        raise ConnameError(f"{text!r} is a list of {len(addresses)} addresses, not one")
    return addresses[0]


def _address(item: str, whole: str) -> Address:
    if not item:
        raise ConnameError(f"{whole!r} has an empty name in its list")
    match = _ITEM.match(item)
    if match is None:
        raise ConnameError(f"{item!r} is not host(port)")
    host = match.group("host").strip()
    port_text = match.group("port")
    port = DEFAULT_PORT
    if port_text is not None:
        port_text = port_text.strip()
        if not (port_text.isascii() and port_text.isdigit()) or not 1 <= int(port_text[:6]) <= 65535:
            raise ConnameError(f"{item!r} has no port 1-65535 in its parentheses")
        port = int(port_text)
    if ":" in host:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ConnameError(f"{host!r} is not an IPv6 address") from None
    elif len(host) > MAX_HOST or not _HOST.match(host):
        raise ConnameError(f"{host!r} is not a host name or IP address")
    return Address(host, port)
