"""TLS for channels: the SSL contexts a channel end uses, from its SSLCIPH, SSLCAUTH,
SSLPEER and CERTLABL and its queue manager's SSLKEYR and CERTLABL (the security package,
engine/security, makes them), and what a running channel shows of its session
(DISPLAY CHSTATUS SSLCIPH and SSLPEER)."""

from __future__ import annotations

import ssl
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mqtool.engine.channels.tcp.link import Link


def describe(link: Link) -> tuple[str, str]:
    """(SSLCIPH, SSLPEER) of a link: the CipherSpec in use and the partner's
    distinguished name; blank without TLS."""
    if link.tls is None:
        return "", ""
    return link.cipher, ""


def client_context(place: object, answer: object) -> ssl.SSLContext:
    """The initiating end's TLS context (its channel's CipherSpec and certificate)."""
    from mqtool.engine.channels.tcp.agents import Failure

    raise Failure("tls", detail="TLS channels need the security package (engine/security)")


def server_context(place: object, sslciph: str) -> ssl.SSLContext:
    """The listening end's TLS context for the channel named in the HELLO."""
    from mqtool.engine.channels.tcp.agents import Failure

    raise Failure("tls", detail="TLS channels need the security package (engine/security)")
