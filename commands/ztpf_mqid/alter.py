"""ZMQID ALTER CHannel-name KEYWORD-value ...: changes an entry of the MQI channel
directory (the attributes it does not name stay)."""

from __future__ import annotations

from mqtool.response import Response
from mqtool.session import Context
from mqtool.validate import Request

from . import TYPE, failure, response
from .define import settle


def handle(ctx: Context, req: Request) -> Response:
    assert req.name is not None
    record = ctx.tx.get_object(ctx.system.name, TYPE, req.name)
    if record is None:
        return failure("MQID0002E", name=req.name)
    attrs = record.attrs | req.params
    refused = settle(attrs)
    if refused is not None:
        return refused
    record.attrs = attrs
    record.altered = ctx.now
    ctx.tx.put_object(record)
    result = response()
    result.add("MQID0001I", command=f"ZMQID ALTER CHANNEL-{record.name}")
    return result
