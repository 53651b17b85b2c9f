"""RESET QSTATS(q): reports each local queue's performance data since its last reset
(one CSQM201I block: QSTATS, QSGDISP, RESETINT, HIQDEPTH, MSGSIN, MSGSOUT, in the layout
of the DISPLAY commands, as IBM says) and resets it; a generic name takes every local
queue it matches. The figures are the engine's (mqtool/engine/zos/qstats.py). IBM: the
command fails while the queue manager's PERFMEV is DISABLED."""

from __future__ import annotations

from typing import Any

from mqtool.engine.zos import qstats
from mqtool.response import Response

from . import RC_WRONG_TYPE, find_queue, manager, not_found, refuse, reply

DETAIL_CSECT = "CSQMRQST"


def reset_qstats(ctx: Any, req: Any) -> Response:
    tx, system, name = ctx.tx, ctx.system, str(req.name)
    record = manager(tx, system, ctx.now)
    if str(record.attrs.get("PERFMEV", "DISABLED")) != "ENABLED":
        return refuse(req, "MQT0455E")
    if name.endswith("*"):
        queues = sorted(queue.name for queue in tx.objects(system.name, "QLOCAL", name))
        if not queues:
            result = reply(req)
            result.add("CSQM297I", objtype="QSTATS")
            return result
    else:
        found = find_queue(tx, system, name)
        if found is None:
            return not_found(req, "QLOCAL", name)
        if found.type != "QLOCAL":
            return refuse(req, "CSQM110I", RC_WRONG_TYPE, objtype="QLOCAL", name=name, actual=found.type)
        queues = [name]
    result = reply(req)
    for queue in queues:
        figures = qstats.figures(tx, system.name, queue, ctx.now)
        if figures is None:
            continue
        qstats.reset(tx, system.name, queue, ctx.now)
        block = result.add("CSQM201I", csect=DETAIL_CSECT, verb="RESET", objtype="QSTATS")
        block.attrs = [
            ("QSTATS", queue),
            ("QSGDISP", "QMGR"),
            ("RESETINT", figures.resetint),
            ("HIQDEPTH", figures.hiqdepth),
            ("MSGSIN", figures.msgsin),
            ("MSGSOUT", figures.msgsout),
        ]
        block.lines = ["END QSTATS DETAILS"]
    return result
