"""ZMQSC CLEAR QL-name: removes every message from a local queue."""

from __future__ import annotations

from mqtool.response import Response
from mqtool.session import Context
from mqtool.state import messages as runs
from mqtool.validate import Request

from . import failure, qmgr, response
from .delete import ACTIVE_STATES


def handle(ctx: Context, req: Request) -> Response:
    assert req.name is not None
    system, tx = ctx.system, ctx.tx
    if qmgr(tx, system) is None:
        return failure("MQSC0010E")
    if tx.get_object(system.name, "QL", req.name) is None:
        return failure("MQSC0018E", object="QL", name=req.name)
    # A running sender channel owns the messages of its transmission queue (batch in flight).
    for channel in tx.objects_where(system.name, "XMITQ", req.name, ("CHL",)):
        state = channel.status.get("state", "INACTIVE")
        if state in ACTIVE_STATES:
            return failure("MQSC0023E", name=channel.name, state=state)
    runs.clear(tx.conn, system.name, req.name)
    result = response()
    result.add("MQSC0001I", command=f"CLEAR QL-{req.name}")
    return result
