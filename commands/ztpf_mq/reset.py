"""ZMQSC RESET QL-name STAT: clears a queue's statistics and starts a new reset period."""

from __future__ import annotations

from mqtool.response import SYNTAX, Response
from mqtool.session import Context
from mqtool.validate import Request

from . import failure, qmgr, response


def handle(ctx: Context, req: Request) -> Response:
    assert req.name is not None
    if not req.get("STAT"):
        return failure("MQSC0016E", SYNTAX, keyword="STAT", detail="FOR RESET QL")
    if qmgr(ctx.tx, ctx.system) is None:
        return failure("MQSC0010E")
    record = ctx.tx.get_object(ctx.system.name, "QL", req.name)
    if record is None:
        return failure("MQSC0018E", object="QL", name=req.name)
    record.status["stats"] = {"reset": ctx.now}
    ctx.tx.put_status(record)
    result = response()
    result.add("MQSC0001I", command=f"RESET QL-{req.name} STAT")
    return result
