"""STOP QMGR: stops the queue manager; until START QMGR every other command gets
CSQ3106E (STOP CHINIT and STOP CHANNEL are in channels.py)."""

from __future__ import annotations

from typing import Any

from mqtool.response import NO_CSECT, Response

from . import active_only, manager, reply


@active_only
def handle(ctx: Any, req: Any) -> Response:
    if req.object.name != "QMGR":
        from .channels import stop

        return stop(ctx, req)
    record = manager(ctx.tx, ctx.system, ctx.now)
    record.status["state"] = "STOPPED"
    ctx.tx.put_status(record)
    result = reply(req)
    result.add("CSQY002I", csect=NO_CSECT)
    return result
