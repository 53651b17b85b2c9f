"""ZMQSC DELETE: removes an object. A queue holding messages needs PURGE, an object
that others refer to cannot go, the system queues go only with the queue manager, and
the queue manager only when no queue or channel is left."""

from __future__ import annotations

from mqtool.response import Response
from mqtool.session import Context
from mqtool.state import messages as runs
from mqtool.validate import Request

from . import QMGR_TYPES, SYSTEM_QUEUES, failure, forget_qmgr, migration_refusal, qmgr, response
from .rules import references, system_queue

ACTIVE_STATES = ("RUNNING", "RETRYING", "BINDING")


def _depth(ctx: Context, queue: str) -> int:
    return runs.depth(ctx.tx.conn, ctx.system.name, queue)


def handle(ctx: Context, req: Request) -> Response:
    assert req.object is not None
    obj, system, tx = req.object.name, ctx.system, ctx.tx
    manager = qmgr(tx, system)
    if manager is None:
        return failure("MQSC0010E")
    refused = migration_refusal(manager, "DELETE", obj, req.name or manager.name)
    if refused is not None:
        return refused
    if obj == "QMGR":
        if req.name and req.name != manager.name:
            return failure("MQSC0018E", object="QMGR", name=req.name)
        others = [
            o
            for o in tx.objects(system.name)
            if o.type in QMGR_TYPES and o.type != "QMGR" and not (o.type == "QL" and o.name in SYSTEM_QUEUES)
        ]
        if others:
            return failure("MQSC0033E", qmgr=manager.name, count=len(others))
        if not req.get("PURGE"):
            for queue in SYSTEM_QUEUES:
                depth = _depth(ctx, queue)
                if depth:
                    return failure("MQSC0019E", name=queue, depth=depth)
        for queue in SYSTEM_QUEUES:
            tx.delete_object(system.name, "QL", queue)
        tx.conn.execute("DELETE FROM messages WHERE system = ?", (system.name,))
        tx.delete_object(system.name, "QMGR", manager.name)
        forget_qmgr(tx, system)
        result = response()
        result.add("MQSC0001I", command=f"DELETE QMGR-{manager.name}")
        return result
    assert req.name is not None
    record = tx.get_object(system.name, obj, req.name)
    if record is None:
        return failure("MQSC0018E", object=obj, name=req.name)
    refused = system_queue(obj, req.name)
    if refused is not None:
        return refused
    if obj == "CHL" and record.status.get("state", "INACTIVE") in ACTIVE_STATES:
        return failure("MQSC0023E", name=req.name, state=record.status["state"])
    refs = references(tx, system, obj, req.name)
    if refs:
        return failure("MQSC0029E", object=obj, name=req.name, refs=", ".join(refs))
    if obj == "CHL":
        from mqtool.engine.channels.mca import deleted

        deleted(tx, system, record)
    if obj == "QL":
        depth = _depth(ctx, req.name)
        if depth and not req.get("PURGE"):
            return failure("MQSC0019E", name=req.name, depth=depth)
        runs.clear(tx.conn, system.name, req.name)
    tx.delete_object(system.name, obj, req.name)
    result = response()
    result.add("MQSC0001I", command=f"DELETE {obj}-{req.name}")
    return result
