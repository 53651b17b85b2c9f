"""STOP QMGR: stops the queue manager (the statistics of the interval running are
written, a SUSPEND QMGR LOG ends); until START QMGR every other command gets CSQ3106E. STOP TRACE is trace.py's,
STOP CHINIT and STOP CHANNEL channels.py's."""

from __future__ import annotations

from typing import Any

from mqtool.engine.zos import logsuspend
from mqtool.response import NO_CSECT, Response

from . import active_only, everyday, manager, reply, trace


@active_only
def handle(ctx: Any, req: Any) -> Response:
    routed = everyday.route(ctx, req)
    if routed is not None:
        return routed
    if req.object.name == "TRACE":
        return trace.stop(ctx, req)
    if req.object.name != "QMGR":
        from .channels import stop

        return stop(ctx, req)
    record = manager(ctx.tx, ctx.system, ctx.now)
    trace.stopping(ctx, record)
    record.status["state"] = "STOPPED"
    logsuspend.resume(record)  # IBM: the suspension lasts until RESUME QMGR LOG or STOP QMGR
    ctx.tx.put_status(record)
    result = reply(req)
    result.add("CSQY002I", csect=NO_CSECT)
    return result
