"""ZMQID DELETE CHannel-name: removes an entry from the MQI channel directory."""

from __future__ import annotations

from mqtool.response import Response
from mqtool.session import Context
from mqtool.validate import Request

from . import TYPE, failure, response


def handle(ctx: Context, req: Request) -> Response:
    assert req.name is not None
    if ctx.tx.get_object(ctx.system.name, TYPE, req.name) is None:
        return failure("MQID0002E", name=req.name)
    ctx.tx.delete_object(ctx.system.name, TYPE, req.name)
    result = response()
    result.add("MQID0001I", command=f"ZMQID DELETE CHANNEL-{req.name}")
    return result
