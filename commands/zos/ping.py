"""PING CHANNEL(name) [DATALEN(16-32768)]: tests an inactive sender (or server) channel
with its partner in the complex (mqtool/engine/channels/ping.py): MQT0452I when the
data came back, else why not. IBM: not for a running channel (CSQX514E), only for
sender and server channels, and on z/OS the channel initiator must run (CSQM131I)."""

from __future__ import annotations

from typing import Any

from mqtool.engine.channels.ping import ping
from mqtool.response import NO_CSECT, Response

from . import active_only, not_found, refuse, reply

REASONS = {
    "no_listener": "NO QUEUE MANAGER LISTENS AT {conname}",
    "partner_stopped": "QUEUE MANAGER {qmgr} AT {conname} IS NOT ACTIVE",
    "partner_chinit": "THE CHANNEL INITIATOR OF {qmgr} AT {conname} IS NOT ACTIVE",
    "remote_type": "CHANNEL {name} ON {qmgr} IS CHLTYPE({chltype}), NOT A RECEIVER",
    "remote_busy": "CHANNEL {name} ON {qmgr} IS IN USE BY ANOTHER SENDER",
}


@active_only
def handle(ctx: Any, req: Any) -> Response:
    record = ctx.tx.get_object(ctx.system.name, "CHANNEL", req.name)
    if record is None:
        return not_found(req, "CHANNEL", req.name)
    outcome, fields = ping(ctx.tx, ctx.system, record)
    if outcome == "ok":
        result = reply(req)
        result.add("MQT0452I", csect=NO_CSECT, name=record.name, length=int(req.get("DATALEN", 16)),
                   qmgr=fields["qmgr"])  # fmt: skip
        return result
    if outcome == "chinit":
        return refuse(req, "CSQM131I")
    if outcome == "active":
        return refuse(req, "CSQX514E", name=record.name)
    if outcome == "chltype":
        return refuse(req, "MQT0520E", name=record.name, verb="PING", chltype=fields["chltype"])
    if outcome == "remote_undefined":
        return refuse(req, "CSQX520E", name=record.name)
    if outcome == "remote_stopped":
        return refuse(req, "CSQX558E", name=record.name)
    return refuse(req, "MQT0466E", name=record.name, reason=REASONS[outcome].format(name=record.name, **fields))
