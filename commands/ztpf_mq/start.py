"""ZMQSC START QMGR: makes the queue manager active. Memory queues keep their
persistent messages across a stop and start, and lose the non-persistent ones."""

from __future__ import annotations

from mqtool.response import Response
from mqtool.session import Context
from mqtool.validate import Request

from . import failure, qmgr, response


def handle(ctx: Context, req: Request) -> Response:
    manager = qmgr(ctx.tx, ctx.system)
    if manager is None:
        return failure("MQSC0010E")
    if req.name and req.name != manager.name:
        return failure("MQSC0018E", object="QMGR", name=req.name)
    if manager.status.get("state", "STARTED") == "STARTED":
        return failure("MQSC0034E", qmgr=manager.name)
    ctx.tx.conn.execute("DELETE FROM messages WHERE system = ? AND persistent = 0", (ctx.system.name,))
    manager.status["state"] = "STARTED"
    ctx.tx.put_status(manager)
    result = response()
    result.add("MQSC0004I", qmgr=manager.name)
    return result
