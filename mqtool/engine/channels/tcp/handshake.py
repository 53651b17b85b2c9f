"""The first exchange of a channel connection, both ways: the initiating end's preamble
and HELLO (which channel, which role, whether TLS follows), the listening end's preamble
and its answer (HELLO-OK with the role it takes, or REFUSE), then TLS when the channels
have a CipherSpec, all before the agents' INIT (agents.py).

Roles: an initiating sender or server says "send" and the listening end receives; a
requester says "request" and the listening end sends (a server), or refuses with
"callback" and starts its sender, which connects back (a sender)."""

from __future__ import annotations

import re
import time
from typing import Any

from mqtool.engine.channels.tcp import frames
from mqtool.engine.channels.tcp.agents import CONTROL_SECONDS, Failure
from mqtool.engine.channels.tcp.link import Link, LinkError

HELLO_MAX = 4096  # bytes of a HELLO frame's body
CHANNEL_NAME = re.compile(r"^[A-Za-z0-9./_%]{1,20}$")


def hello(link: Link, channel: str, qmgr: str, role: str, tls: bool) -> dict[str, Any]:
    """The initiating end's side: preamble and HELLO out, the listener's preamble and
    answer in. Returns the HELLO-OK; Failure for a refusal, a peer that is not mqtool,
    a peer of another wire version."""
    link.send(frames.preamble() + frames.control("HELLO", channel=channel, qmgr=qmgr, role=role, tls=tls))
    deadline = time.monotonic() + CONTROL_SECONDS
    try:
        version = link.read_preamble(deadline)
    except LinkError as exc:
        if exc.kind in ("closed", "network") and link.socket_received == 0:
            detail = (
                f"the listener closed the connection before answering ({exc.detail}; is this address blocked there?)"
            )
            raise Failure("lost", detail=detail) from None
        if exc.kind == "closed":
            raise Failure("peer", detail="the listener closed the connection without an mqtool answer") from None
        raise
    if version != frames.VERSION:
        raise Failure("version", theirs=version, ours=frames.VERSION)
    answer = link.read_control(deadline)
    if answer["op"] == "REFUSE":
        raise Failure(str(answer.get("cause", "protocol")), **dict(answer.get("fields") or {}))
    if answer["op"] != "HELLO-OK":
        raise Failure("protocol", detail=f"{answer['op']} where HELLO-OK was due")
    return answer


def check_hello(found: dict[str, Any]) -> tuple[str, str, str, bool] | str:
    """(channel, qmgr, role, tls) of a HELLO; a reason when it does not hold together."""
    if found.get("op") != "HELLO":
        return f"{found.get('op')} where HELLO was due"
    channel, qmgr, role = found.get("channel"), found.get("qmgr"), found.get("role")
    if not isinstance(channel, str) or not CHANNEL_NAME.match(channel):
        return "a channel name that is not one"
    if not isinstance(qmgr, str) or not 0 < len(qmgr) <= 48:
        return "a queue manager name that is not one"
    if role not in ("send", "request"):
        return f"role {role!r}"
    return channel, qmgr, str(role), bool(found.get("tls"))


def answer(link: Link, op: str, **fields: Any) -> None:
    """The listening end's preamble and answer (HELLO-OK or REFUSE)."""
    link.send(frames.preamble() + frames.control(op, **fields))
