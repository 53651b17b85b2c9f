"""DEFINE MAXSMSGS(n) and DISPLAY MAXSMSGS: the most messages a task may put or get in
one unit of recovery. IBM keeps the command for compatibility; the value is the queue
manager's MAXUMSGS (ALTER QMGR MAXUMSGS sets the same number), kept over a restart, and
the engine refuses the put or get past it with 2024 MQRC_SYNCPOINT_LIMIT_REACHED
(mqtool/engine/zos/model.py)."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response

from . import DETAIL_CSECT, active_only, manager, reply, syntax

MIN, MAX = 1, 999_999_999  # IBM: 1 through 999999999, default 10000
DEFAULT = 10_000


@active_only
def handle(ctx: Any, req: Any) -> Response:
    if req.verb.name == "DISPLAY":
        return display(ctx, req)
    return define(ctx, req)


def define(ctx: Any, req: Any) -> Response:
    """DEFINE MAXSMSGS(n): the queue manager's MAXUMSGS becomes n."""
    number = int(str(req.name))
    if not MIN <= number <= MAX:
        return syntax(req, "CSQ9030E", keyword="MAXSMSGS", value=str(req.name), allowed=f"{MIN}-{MAX}")
    record = manager(ctx.tx, ctx.system, ctx.now)
    record.attrs["MAXUMSGS"] = number
    record.altered = ctx.now
    ctx.tx.put_object(record)
    return reply(req)


def display(ctx: Any, req: Any) -> Response:
    """DISPLAY MAXSMSGS: the value in a detail block, as DISPLAY QMGR MAXUMSGS shows it."""
    if req.name:
        return syntax(req, "CSQ9030E", keyword="MAXSMSGS", value=str(req.name), allowed="no value")
    record = manager(ctx.tx, ctx.system, ctx.now)
    result = reply(req)
    block = result.add("CSQM201I", csect=DETAIL_CSECT, verb="DISPLAY", objtype="MAXSMSGS")
    block.attrs = [("MAXSMSGS", str(record.attrs.get("MAXUMSGS", DEFAULT)))]
    block.lines = ["END MAXSMSGS DETAILS"]
    return result
