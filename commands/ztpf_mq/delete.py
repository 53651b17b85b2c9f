"""ZMQSC DELETE: removes an object; a queue holding messages needs PURGE, and an
object that others refer to cannot go."""

from __future__ import annotations

from mqtool.response import Response
from mqtool.session import Context
from mqtool.validate import Request

from . import SYSTEM_QUEUES, failure, qmgr, response


def _references(ctx: Context, name: str) -> list[str]:
    refs = []
    for alias in ctx.tx.objects(ctx.system.name, "QA"):
        if alias.attrs.get("TARGQ") == name:
            refs.append(f"QA-{alias.name}")
    for channel in ctx.tx.objects(ctx.system.name, "CHL"):
        if channel.attrs.get("XMITQ") == name:
            refs.append(f"CHL-{channel.name}")
    return refs


def handle(ctx: Context, req: Request) -> Response:
    assert req.object is not None
    obj, system, tx = req.object.name, ctx.system, ctx.tx
    manager = qmgr(tx, system)
    if manager is None:
        return failure("MQSC0010E")
    if obj == "QMGR":
        if req.name and req.name != manager.name:
            return failure("MQSC0018E", object="QMGR", name=req.name)
        others = [
            o for o in tx.objects(system.name) if o.type != "QMGR" and not (o.type == "QL" and o.name in SYSTEM_QUEUES)
        ]
        if others:
            return failure("MQSC0033E", qmgr=manager.name, count=len(others))
        depth = tx.conn.execute("SELECT count(*) FROM messages WHERE system = ?", (system.name,)).fetchone()[0]
        if depth and not req.get("PURGE"):
            return failure("MQSC0019E", name=" / ".join(SYSTEM_QUEUES), depth=depth)
        for queue in SYSTEM_QUEUES:
            tx.delete_object(system.name, "QL", queue)
        tx.conn.execute("DELETE FROM messages WHERE system = ?", (system.name,))
        tx.delete_object(system.name, "QMGR", manager.name)
        result = response()
        result.add("MQSC0001I", command=f"DELETE QMGR-{manager.name}")
        return result
    assert req.name is not None
    record = tx.get_object(system.name, obj, req.name)
    if record is None:
        return failure("MQSC0018E", object=obj, name=req.name)
    if obj == "CHL" and record.status.get("state", "INACTIVE") in ("RUNNING", "RETRYING", "BINDING"):
        return failure("MQSC0023E", name=req.name, state=record.status["state"])
    if obj == "QL":
        refs = _references(ctx, req.name)
        if refs:
            return failure("MQSC0029E", object=obj, name=req.name, refs=", ".join(refs))
        depth = tx.conn.execute(
            "SELECT count(*) FROM messages WHERE system = ? AND queue = ?", (system.name, req.name)
        ).fetchone()[0]
        if depth and not req.get("PURGE"):
            return failure("MQSC0019E", name=req.name, depth=depth)
        tx.conn.execute("DELETE FROM messages WHERE system = ? AND queue = ?", (system.name, req.name))
    tx.delete_object(system.name, obj, req.name)
    result = response()
    result.add("MQSC0001I", command=f"DELETE {obj}-{req.name}")
    return result
