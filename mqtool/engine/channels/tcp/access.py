"""Channel authentication (CHLAUTH) where a connection comes in: the transport's side of
the security package's rules (mqtool/engine/security/chlauth.py decides; this module
reads the records and says what was decided).

Two checks, as z/OS makes them, on a queue manager whose QMGR CHLAUTH is ENABLED (a
z/TPF queue manager has no channel authentication records):

1. At the listener, before a byte is read: an address in the ADDRLIST of the BLOCKADDR
   record is closed at once (`address_blocked`, from a copy of the record the serving
   loop refreshes each poll, so the listener's thread never reads the store), counted
   in the listener's BLOCKED count, and the console hears CSQX782E (at most once a
   minute per listener and address).
2. After the first exchange and TLS, before the channel's definition or status is
   touched: the mapping and BLOCKUSER records (`decide`) with what is known of the
   partner: its address, its queue manager (the HELLO), its certificate's subject and
   issuer (TLS). A refused channel is told REFUSE (blocked) and the console hears
   CSQX777E (NOACCESS) or CSQX776E (the user id); WARN(YES) records let it run with
   CSQX787I. The user id it runs as is MCAUSER in DISPLAY CHSTATUS.

With CHLAUTH(DISABLED) every channel runs, as its MCAUSER (blank: the channel
initiator's user id, as on z/OS)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqtool.engine.channels.ends import CSECT, End
from mqtool.engine.channels.partner import queue_manager
from mqtool.engine.console import console
from mqtool.engine.security import chlauth, dn
from mqtool.engine.security import tls as security
from mqtool.state import SystemRecord, Transaction

# How the command layer stores the records (commands/zos/chlauth.py; the engine does
# not import commands): objects of this type, named by Record.key(), attrs to_dict().
STORE_TYPE = "CHLAUTHREC"
BLOCKADDR_KEY = chlauth.Record("*", chlauth.BLOCKADDR).key()


def enabled(tx: Transaction, system: SystemRecord) -> bool:
    """Whether channel authentication records decide this system's inbound channels."""
    if system.platform != "zos":
        return False
    manager = queue_manager(tx, system)
    return manager is None or str(manager.attrs.get("CHLAUTH", "ENABLED")).upper() != "DISABLED"


def address_record(tx: Transaction, system: SystemRecord) -> chlauth.Record | None:
    """The system's BLOCKADDR record when CHLAUTH is enabled (None: no address is blocked)."""
    if not enabled(tx, system):
        return None
    found = tx.get_object(system.name, STORE_TYPE, BLOCKADDR_KEY)
    return chlauth.Record.from_dict(found.attrs) if found is not None else None


def address_blocked(record: chlauth.Record | None, host: str) -> bool:
    """Whether the BLOCKADDR record refuses a connection from `host` (WARN(YES) lets it in)."""
    if record is None or record.warn == "YES":
        return False
    return chlauth.blocked_address([record], host) is not None


def blocked_line(tx: Transaction, system: SystemRecord, when: float, record: chlauth.Record, conname: str) -> None:
    """CSQX782E: a connection the listener closed for its address."""
    console(tx, system, when, "CSQX782E", CSECT, conname=conname, record=chlauth.describe(record))


@dataclass(frozen=True)
class Admission:
    """What the check of an inbound channel found: whether it runs, the user id it runs
    as, and the console messages to write ((id, fields), the refusal's last)."""

    allowed: bool
    mcauser: str = ""
    certificate_user: str = ""  # SSLCERTU: the user id an SSLPEERMAP record mapped the certificate to
    lines: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    reason: str = ""


def decide(tx: Transaction, end: End, host: str, conname: str, remote_qmgr: str, tls: Any) -> Admission:
    """The CHLAUTH decision of an inbound channel (see the module docstring); `tls` is the
    link's TLS session (None without TLS)."""
    attrs = end.record.attrs
    own = str(attrs.get("MCAUSER") or "").strip()
    manager = queue_manager(tx, end.system)
    qmname = manager.name if manager is not None else end.system.name
    if not enabled(tx, end.system):
        return Admission(True, own or (chlauth.chinit_user(qmname) if end.system.platform == "zos" else ""))
    records = [chlauth.Record.from_dict(r.attrs) for r in tx.objects(end.system.name, STORE_TYPE)]
    peer = issuer = None
    cert = security.peer_certificate(tls) if tls is not None else None
    if cert is not None:
        peer = dn.of_certificate(cert.subject, cert.serial_text)
        issuer = dn.of_certificate(cert.issuer)
    connection = chlauth.Connection(
        channel=end.name, address=host, remote_qmgr=remote_qmgr, peer=peer, issuer=issuer,
        channel_mcauser=own, qmname=qmname,
    )  # fmt: skip
    decision = chlauth.decide(records, connection)
    mapped = decision.record
    certificate_user = decision.mcauser if mapped is not None and mapped.type == chlauth.SSLPEERMAP else ""
    return Admission(decision.allowed, decision.mcauser, certificate_user, decision.console(end.name, conname),
                     decision.msg_id)  # fmt: skip


def say(tx: Transaction, system: SystemRecord, when: float, admission: Admission) -> None:
    """The console messages of a decision (z/OS)."""
    for msg_id, fields in admission.lines:
        console(tx, system, when, msg_id, CSECT, **({"user": ""} | fields))
