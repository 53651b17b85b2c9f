"""ZMQSC ALTER: changes attributes of an existing object (later puts see the change;
a channel sees it at its next start)."""

from __future__ import annotations

from mqtool.response import SYNTAX, Response
from mqtool.session import Context
from mqtool.validate import Request

from . import failure, migration_refusal, qmgr, response
from .rules import check, unquoted_parentheses


def handle(ctx: Context, req: Request) -> Response:
    assert req.object is not None
    obj, system, tx = req.object.name, ctx.system, ctx.tx
    quoting = unquoted_parentheses(req)
    if quoting is not None:
        return quoting
    manager = qmgr(tx, system)
    if manager is None:
        return failure("MQSC0010E")
    refused = migration_refusal(manager, "ALTER", obj, req.name)
    if refused is not None:
        return refused
    if obj == "QMGR":
        if req.name and req.name != manager.name:
            return failure("MQSC0018E", object="QMGR", name=req.name)
        record = manager
    else:
        assert req.name is not None
        found = tx.get_object(system.name, obj, req.name)
        if found is None:
            return failure("MQSC0018E", object=obj, name=req.name)
        record = found
    for keyword in req.order:
        spec = ctx.table.keyword(req.object, keyword)
        if spec is not None and spec.alter_same and req.params[keyword] != record.attrs.get(keyword):
            # TPF's ALT CHL names the channel's type; it cannot change it.
            return failure("MQSC0020E", SYNTAX, keyword=keyword, object=obj, name=record.name)
    attrs = record.attrs | req.params
    error = check(tx, system, obj, record.name, attrs, req.order)
    if error is not None:
        return error
    record.attrs = attrs
    record.altered = ctx.now
    tx.put_object(record)
    result = response()
    result.add("MQSC0001I", command=f"ALTER {obj}-{record.name}")
    return result
