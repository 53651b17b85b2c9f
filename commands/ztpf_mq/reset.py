"""ZMQSC RESET QL-name STAT: clears a queue's statistics and starts a new reset period
(RESET CHL-name SEQNUM-n is in channel.py)."""

from __future__ import annotations

from mqtool.engine.ztpf.stats import reset_statistics
from mqtool.response import SYNTAX, Response
from mqtool.session import Context
from mqtool.validate import Request

from . import failure, qmgr, response


def handle(ctx: Context, req: Request) -> Response:
    assert req.name is not None
    if req.object is not None and req.object.name == "CHL":
        from .channel import reset

        return reset(ctx, req)
    if not req.get("STAT"):
        return failure("MQSC0016E", SYNTAX, keyword="STAT", detail="FOR RESET QL")
    if qmgr(ctx.tx, ctx.system) is None:
        return failure("MQSC0010E")
    if ctx.tx.get_object(ctx.system.name, "QL", req.name) is None:
        return failure("MQSC0018E", object="QL", name=req.name)
    reset_statistics(ctx.tx, ctx.system.name, req.name, ctx.now)
    result = response()
    result.add("MQSC0001I", command=f"RESET QL-{req.name} STAT")
    return result
