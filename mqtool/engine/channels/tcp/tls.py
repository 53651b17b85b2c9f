"""TLS on a TCP channel: the transport's side of the security package
(mqtool/engine/security, which makes the contexts and knows IBM's rules).

A channel end whose definition has an SSLCIPH makes TLS right after the first exchange
(HELLO and its answer say both ends want it; when only one end has a CipherSpec the
listening end refuses the channel: CSQX639E at the end that has one, CSQX641E at the
other). Then, in this order:

1. `plan`: the context from the stored definitions (QMGR SSLKEYR, SSLTASKS, SSLFIPS,
   CERTLABL; the channel's SSLCIPH, SSLCAUTH, CERTLABL), made before the initiating end
   connects; a key ring, label or CipherSpec that cannot be used stops the channel
   (CSQX630E, CSQX645E, CSQX635E) and nothing goes on the wire.
2. `secure`: the handshake over the link (bounded in time like every read); a failure
   is classified as IBM classifies it (a certificate this end does not trust or that
   expired: CSQX633E here, CSQX634E at the partner; CipherSpecs that do not meet:
   CSQX631E / CSQX641E; no certificate under SSLCAUTH(REQUIRED): CSQX637E / CSQX642E).
3. The checks after the handshake (the negotiated CipherSpec against SSLCIPH, the
   partner's name against SSLPEER), then the verdict: each end sends its own in a TLS
   control frame, encrypted, {"ok": true} or {"ok": false, "id": the id the partner
   reports, "reason": why}, so a failure only one end can see (SSLPEER: CSQX636E here,
   CSQX643E there) is on both consoles.

Any of these is a `TLSStop`: the initiating channel STOPS (no retry: as IBM's CSQX63x
messages say, the channel is stopped; START CHANNEL tries again once the definitions
are put right), and the listening end reports its id and ends the connection. The
status of a channel that runs shows the session (`Link.security`: SSLCIPH, SSLPEER,
SSLCERTI ... of DISPLAY CHSTATUS)."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from typing import Any

from mqtool.engine.channels.ends import CSECT, End
from mqtool.engine.channels.partner import queue_manager
from mqtool.engine.channels.tcp.link import Link, LinkError
from mqtool.engine.console import console
from mqtool.engine.security import tls as security
from mqtool.state import SystemRecord, Transaction

CLIENT, SERVER = security.CLIENT, security.SERVER
LINGER_SECONDS = 2.0  # after a TLS failure, how long an end waits for its partner to read the last words
REASON_MAX = 200  # characters of a partner's reason shown on this console
# The ids a partner's verdict or refusal may name (the failure as this end reports it);
# another is shown as CSQX638E, a communications error.
PARTNER_IDS = frozenset(security.PARTNER_IDS.values()) | {"CSQX638E", "CSQX639E"}
COMMUNICATIONS = "CSQX638E"


class TLSStop(Exception):
    """The channel stops: `failure` is this end's CSQX message."""

    def __init__(self, failure: security.TLSFailure) -> None:
        super().__init__(failure.msg_id, failure.reason)
        self.failure = failure


@dataclass(frozen=True)
class Plan:
    """What one end of a TLS channel needs: its context and what it checks after the
    handshake."""

    context: ssl.SSLContext
    side: str
    sslciph: str
    sslpeer: str
    fips: bool


def sslciph_of(end: End) -> str:
    return str(end.record.attrs.get("SSLCIPH") or "").strip()


def plan(tx: Transaction, end: End, state_dir: Any, side: str) -> Plan:
    """The context of this end (`side`: CLIENT connects, SERVER is behind a listener);
    TLSStop when it cannot be made (CSQX630E, CSQX635E, CSQX645E)."""
    manager = queue_manager(tx, end.system)
    qmgr_attrs = dict(manager.attrs) if manager is not None else {}
    qmname = manager.name if manager is not None else end.system.name
    attrs = end.record.attrs
    try:
        context = security.for_channel(state_dir, qmname, qmgr_attrs, dict(attrs), side, end.name)
    except security.TLSSetupError as exc:
        raise TLSStop(exc.failure) from None
    fips = str(qmgr_attrs.get("SSLFIPS", "NO")) == "YES"
    return Plan(context, side, sslciph_of(end), str(attrs.get("SSLPEER") or ""), fips)


def classified(error: LinkError, side: str) -> security.TLSFailure:
    """IBM's message for a link that failed during the handshake or the verdicts."""
    if error.error is not None and error.kind in ("tls", "network"):
        return security.classify(error.error, side)
    if error.kind == "timeout":
        return security.classify(TimeoutError(), side)
    return security.TLSFailure(COMMUNICATIONS, f"the connection ended during TLS: {error.detail}")


def secure(link: Link, made: Plan, deadline: float) -> None:
    """The handshake, the checks and the verdicts (see the module docstring); the
    link's `security` holds the session's status fields after. TLSStop on a failure,
    after this end's last words (an alert, its verdict) went to the partner."""
    try:
        link.start_tls(made.context, made.side == SERVER, deadline)
    except LinkError as error:
        link.linger(LINGER_SECONDS)
        raise TLSStop(classified(error, made.side)) from None
    assert link.tls is not None
    own = security.check_cipher(made.sslciph, link.tls, made.fips) or security.check_peer(made.sslpeer, link.tls)
    verdict: dict[str, Any] = {"ok": own is None}
    if own is not None:
        verdict |= {"id": own.partner_id or COMMUNICATIONS, "reason": own.reason}
    try:
        link.send_control("TLS", **verdict)
        if own is not None:
            link.linger(LINGER_SECONDS)
            raise TLSStop(own)
        theirs = link.read_control(deadline)
    except LinkError as error:
        link.linger(LINGER_SECONDS)
        raise TLSStop(own or classified(error, made.side)) from None
    if theirs.get("op") != "TLS":
        raise TLSStop(security.TLSFailure(COMMUNICATIONS, f"{theirs.get('op')} where the TLS verdict was due"))
    if theirs.get("ok") is not True:
        raise TLSStop(partner_failure(theirs.get("id"), theirs.get("reason")))
    link.security = security.chstatus_fields(link.tls)


def partner_failure(msg_id: Any, reason: Any, verdict: bool = True) -> security.TLSFailure:
    """The failure a partner reported, as this end reports it: the id it named when it
    is one of IBM's remote forms, its reason (a verdict's is the partner's own finding:
    "the remote end: ..."; a refusal's is phrased for this end already)."""
    found = str(msg_id or "")
    text = "".join(ch if ch.isprintable() else "?" for ch in str(reason or ""))[:REASON_MAX]
    return security.TLSFailure(found if found in PARTNER_IDS else COMMUNICATIONS,
                               f"the remote end: {text}" if verdict else text)  # fmt: skip


def report(tx: Transaction, system: SystemRecord, name: str, when: float, failure: security.TLSFailure,
           conname: str) -> None:  # fmt: skip
    """The console message of a TLS failure: IBM's CSQX id on z/OS, MQSC0380E on z/TPF."""
    if system.platform == "zos":
        console(tx, system, when, failure.msg_id, CSECT, **failure.message_fields(name, conname))
    else:
        console(tx, system, when, "MQSC0380E", "", **failure.ztpf_fields(name))


def presence(mine: bool, initiator: bool) -> tuple[security.TLSFailure, security.TLSFailure] | None:
    """When only one end of a channel has a CipherSpec: (the listening end's failure, the
    initiating end's), the end with one reporting CSQX639E and the other CSQX641E."""
    if mine == initiator:
        return None
    with_one = security.TLSFailure(
        msg_id="CSQX639E", reason="the remote end has no CipherSpec (SSLCIPH is blank there)"
    )
    without = security.TLSFailure(msg_id="CSQX641E", reason="the remote end has a CipherSpec and this end none")
    return (with_one, without) if mine else (without, with_one)
