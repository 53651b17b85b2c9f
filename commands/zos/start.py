"""START QMGR: starts a stopped queue manager. The parameter module is read again, so
SET LOG, SET ARCHIVE and SET SYSTEM values are gone, the log restarts at the latest RBA,
the traces are the startup ones again, and non-persistent messages do not survive the
restart. START TRACE is trace.py's, START CHINIT and START CHANNEL channels.py's."""

from __future__ import annotations

from typing import Any

from mqtool.response import NO_CSECT, Response

from . import everyday, logs, manager, refuse, reply, stopped, trace


def handle(ctx: Any, req: Any) -> Response:
    if req.object.name == "TRACE":
        return trace.start(ctx, req)
    if req.object.name != "QMGR":
        routed = stopped(ctx, req) or everyday.route(ctx, req)
        if routed is not None:
            return routed
    if req.object.name != "QMGR":
        from .channels import start

        return stopped(ctx, req) or start(ctx, req)
    tx, system = ctx.tx, ctx.system
    record = manager(tx, system, ctx.now)
    if record.status.get("state", "STARTED") != "STOPPED":
        result = refuse(req, "CSQY003I")
        result.messages[0].csect = NO_CSECT
        return result
    tx.conn.execute("DELETE FROM messages WHERE system = ? AND persistent = 0", (system.name,))
    # Temporary dynamic queues of processes that have ended go at restart, as on z/OS.
    from mqtool.engine.core.dynamic import remove_orphans
    from mqtool.engine.platforms import model

    remove_orphans(tx, model("zos"), system.name)
    record.status["state"] = "STARTED"
    result = reply(req)
    result.add("CSQY001I", csect=NO_CSECT, zparm=str(system.attrs.get("zparm", "CSQZPARM")))
    logs.restart(tx, system, record, ctx.now, result)
    trace.restart(record)
    everyday.restart(ctx, record)
    tx.put_status(record)
    configured = dict(system.attrs.get("log") or {})
    if str(configured.get("ZHYLINK")) == "YES" and str(configured.get("ZHYWRITE", "NO")) != "YES":
        result.add("CSQJ380I", csect=NO_CSECT)
    result.add("CSQY022I", csect=NO_CSECT)
    return result
