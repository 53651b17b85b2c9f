"""ZMQSC STOP QMGR: stops the queue manager; puts and gets are refused (MQRC 2059) until
START QMGR, which discards the non-persistent messages."""

from __future__ import annotations

from mqtool.response import Response
from mqtool.session import Context
from mqtool.validate import Request

from . import failure, qmgr, response


def handle(ctx: Context, req: Request) -> Response:
    if req.object is not None and req.object.name == "CHL":
        from .channel import stop

        return stop(ctx, req)
    if req.object is not None and req.object.name == "LISTENER":
        from .listener import stop as stop_listener

        return stop_listener(ctx, req)
    manager = qmgr(ctx.tx, ctx.system)
    if manager is None:
        return failure("MQSC0010E")
    if req.name and req.name != manager.name:
        return failure("MQSC0018E", object="QMGR", name=req.name)
    if manager.status.get("state", "STARTED") == "STOPPED":
        return failure("MQSC0035E", qmgr=manager.name)
    manager.status["state"] = "STOPPED"
    ctx.tx.put_status(manager)
    result = response()
    result.add("MQSC0005I", qmgr=manager.name)
    return result
