"""ZMQSC DBREBUILD: rebuilds the queue manager's database (mqtool/engine/ztpf/rebuild.py)
and reports what it corrected: a console line per queue whose directory entry was
wrong, the messages of undefined queues removed, the damaged messages found, then the
totals. Refused in migration mode."""

from __future__ import annotations

from mqtool.engine.ztpf.rebuild import rebuild
from mqtool.response import Response
from mqtool.session import Context
from mqtool.validate import Request

from . import QMGR_TYPES, failure, migration_refusal, qmgr, response


def handle(ctx: Context, req: Request) -> Response:
    tx, system = ctx.tx, ctx.system
    manager = qmgr(tx, system)
    if manager is None:
        return failure("MQSC0010E")
    if req.name and req.name != manager.name:
        return failure("MQSC0018E", object="QMGR", name=req.name)
    refused = migration_refusal(manager, "DBREBUILD", None, None)
    if refused is not None:
        return refused
    queues = [record.name for record in tx.objects(system.name, "QL")]
    rebuilt = rebuild(tx, system.name, queues)
    result = response()
    for repair in rebuilt.repairs:
        changes = ", ".join(f"{name} {was} TO {now}" for name, was, now in repair.changes)
        result.add("MQSC0422W", queue=repair.queue, changes=changes)
    if rebuilt.orphan_messages or rebuilt.orphan_queues:
        result.add("MQSC0423W", count=rebuilt.orphan_messages, queues=rebuilt.orphan_queues)
    for queue, count in sorted(rebuilt.damaged.items()):
        result.add("MQSC0424W", queue=queue, count=count)
    result.add(
        "MQSC0421I",
        qmgr=manager.name,
        queues=rebuilt.queues,
        definitions=sum(1 for record in tx.objects(system.name) if record.type in QMGR_TYPES),
        messages=rebuilt.messages,
    )
    return result
