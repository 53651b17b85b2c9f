"""ZMQSC START QMGR: makes the queue manager active again. Its queues keep their
persistent messages across the stop and start and lose the non-persistent ones; the MQ
monitor and the checkpoint run again."""

from __future__ import annotations

from mqtool.engine.ztpf.model import schedule_timers
from mqtool.response import Response
from mqtool.session import Context
from mqtool.validate import Request

from . import failure, qmgr, response


def handle(ctx: Context, req: Request) -> Response:
    if req.object is not None and req.object.name == "CHL":
        from .channel import start

        return start(ctx, req)
    if req.object is not None and req.object.name == "LISTENER":
        from .listener import start as start_listener

        return start_listener(ctx, req)
    manager = qmgr(ctx.tx, ctx.system)
    if manager is None:
        return failure("MQSC0010E")
    if req.name and req.name != manager.name:
        return failure("MQSC0018E", object="QMGR", name=req.name)
    if manager.status.get("state", "STARTED") == "STARTED":
        return failure("MQSC0034E", qmgr=manager.name)
    conn, system = ctx.tx.conn, ctx.system.name
    kept = conn.execute("SELECT count(*) FROM messages WHERE system = ? AND persistent != 0", (system,)).fetchone()[0]
    dropped = conn.execute("DELETE FROM messages WHERE system = ? AND persistent = 0", (system,)).rowcount
    # Channel batches in flight ended with the stop.
    for queue in ctx.tx.objects(system, "QL"):
        if queue.status.pop("inflight", None) is not None:
            ctx.tx.put_status(queue)
    manager.status["state"] = "STARTED"
    ctx.tx.put_status(manager)
    schedule_timers(ctx.tx, system, ctx.now)
    result = response()
    result.add("MQSC0004I", qmgr=manager.name)
    result.add("MQSC0101I", kept=kept, dropped=dropped)
    return result
