"""ZMQSC CLEAR QL-name: removes every message from a local queue."""

from __future__ import annotations

from mqtool.response import Response
from mqtool.session import Context
from mqtool.validate import Request

from . import failure, qmgr, response


def handle(ctx: Context, req: Request) -> Response:
    assert req.name is not None
    if qmgr(ctx.tx, ctx.system) is None:
        return failure("MQSC0010E")
    if ctx.tx.get_object(ctx.system.name, "QL", req.name) is None:
        return failure("MQSC0018E", object="QL", name=req.name)
    ctx.tx.conn.execute("DELETE FROM messages WHERE system = ? AND queue = ?", (ctx.system.name, req.name))
    result = response()
    result.add("MQSC0001I", command=f"CLEAR QL-{req.name}")
    return result
