"""ZMQSC DEFINE: creates the queue manager (with its system queues), a queue or a channel."""

from __future__ import annotations

from mqtool.response import Response
from mqtool.session import Context
from mqtool.state import ObjectRecord
from mqtool.validate import Request

from . import defaults_for, define_qmgr, failure, migration_refusal, processor_id, qmgr, response
from .rules import check, name_taken, unquoted_parentheses


def handle(ctx: Context, req: Request) -> Response:
    assert req.object is not None and req.name is not None
    obj, name, system, tx = req.object.name, req.name, ctx.system, ctx.tx
    quoting = unquoted_parentheses(req)
    if quoting is not None:
        return quoting
    manager = qmgr(tx, system)
    if obj == "QMGR":
        if manager is not None:
            return failure("MQSC0028E", qmgr=manager.name)
        error = check(tx, system, obj, name, defaults_for(ctx.table, obj, None) | req.params, req.order)
        if error is not None:
            return error
        created = define_qmgr(tx, system, name, dict(req.params), ctx.now)
        result = response()
        result.add("MQSC0001I", command=f"DEFINE QMGR-{name}")
        for queue in created:
            result.add("MQSC0006I", name=queue, qmgr=name)
        return result
    if manager is None:
        return failure("MQSC0010E")
    refused = migration_refusal(manager, "DEFINE", obj, name)
    if refused is not None:
        return refused
    taken = name_taken(tx, system, obj, name)
    if taken is not None:
        return taken
    # Inherited defaults (`=QMGR.COMPSIZE` ...) are copied now: a later change of the
    # queue manager does not reach existing objects.
    attrs = defaults_for(ctx.table, obj, manager) | req.params
    if obj == "CHL" and "CPU" not in attrs:
        # TPF: a channel definition is for the processor where it is defined unless CPU says.
        attrs["CPU"] = processor_id(system)
    error = check(tx, system, obj, name, attrs, req.order, manager)
    if error is not None:
        return error
    status = {"state": "INACTIVE"} if obj == "CHL" else {}
    tx.put_object(ObjectRecord(system.name, obj, name, attrs, status, ctx.now, ctx.now))
    result = response()
    result.add("MQSC0001I", command=f"DEFINE {obj}-{name}")
    return result
