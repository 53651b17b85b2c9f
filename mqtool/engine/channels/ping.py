"""PING CHANNEL over the channels of the complex kept in the store: the sender end
finds its partner as a start would (its CONNAME names a listener of the complex, that
queue manager and its channel initiator run, it has a receiver of the same name that is
not stopped nor bound to another sender) and the data comes back unchanged. A ping
never changes the channel's status; a TCP ping belongs to the TCP transport."""

from __future__ import annotations

from typing import Any

from mqtool.engine.channels.partner import channel, chinit_active, listening, queue_manager, started
from mqtool.state import ObjectRecord, SystemRecord, Transaction

PINGABLE = ("SDR", "SVR")  # IBM: sender and server channels (and cluster-senders)
ACTIVE = ("RUNNING", "BINDING", "STARTING")


def ping(tx: Transaction, system: SystemRecord, record: ObjectRecord) -> tuple[str, dict[str, Any]]:
    """("ok", {"qmgr": partner}) or why the ping fails: "chinit" (this channel
    initiator is not active), "chltype", "active" (the channel runs), or the partner's
    problem ("no_listener", "partner_stopped", "partner_chinit", "remote_undefined",
    "remote_type", "remote_stopped", "remote_busy") with the fields to say it."""
    if not chinit_active(system, queue_manager(tx, system)):
        return "chinit", {}
    chltype = str(record.attrs.get("CHLTYPE", ""))
    if chltype not in PINGABLE:
        return "chltype", {"chltype": chltype}
    if str(record.status.get("state") or "") in ACTIVE:
        return "active", {}
    conname = str(record.attrs.get("CONNAME", "") or "")
    partner_system = listening(tx, conname)  # None also for a CONNAME that names no address
    if partner_system is None:
        return "no_listener", {"conname": conname}
    manager = queue_manager(tx, partner_system)
    fields: dict[str, Any] = {"conname": conname, "qmgr": manager.name if manager is not None else partner_system.name}
    if not started(manager):
        return "partner_stopped", fields
    if not chinit_active(partner_system, manager):
        return "partner_chinit", fields
    remote = channel(tx, partner_system, record.name)
    if remote is None:
        return "remote_undefined", fields
    remote_type = str(remote.attrs.get("CHLTYPE", ""))
    if remote_type != "RCVR":
        return "remote_type", fields | {"chltype": remote_type}
    state = str(remote.status.get("state") or "")
    if state == "STOPPED":
        return "remote_stopped", fields
    if state == "RUNNING":
        return "remote_busy", fields
    return "ok", fields
