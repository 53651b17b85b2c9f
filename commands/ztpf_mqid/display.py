"""ZMQID DISPLAY CHannel-name: the detail form (MQID0012I) lists every attribute of one
entry, one `KEYWORD value` line each, an empty value as the keyword alone; a generic
name (CH-*, CH-PAY*) gives the summary form (MQID0013I): the channel, connection and
queue manager of each entry. The layout is the one TPF's newsletter on PUT 13 shows."""

from __future__ import annotations

from mqtool.response import Response
from mqtool.session import Context
from mqtool.validate import Request

from . import TYPE, failure, response

SUMMARY = ("CONNECTION", "QMNAME")


def handle(ctx: Context, req: Request) -> Response:
    assert req.name is not None
    records = ctx.tx.objects(ctx.system.name, TYPE, req.name)
    generic = req.name.endswith("*")
    if not records:
        if not generic:
            return failure("MQID0002E", name=req.name)
        result = response(display=True)
        result.add("MQID0014I", name=req.name)
        return result
    result = response(display=True)
    title = result.add("MQID0013I" if generic else "MQID0012I")
    keywords = [spec.name for spec in ctx.table.objects[TYPE].keywords.values() if spec.display]
    for record in records:
        shown = SUMMARY if generic else keywords
        title.attrs.append(("CHANNEL", record.name))
        title.attrs.extend((keyword, record.attrs.get(keyword, "")) for keyword in shown)
    return result
