"""CLEAR QLOCAL: removes every message from a local queue; CLEAR TOPICSTR removes a
retained publication (pubsub.py)."""

from __future__ import annotations

from typing import Any

from mqtool.engine.zos import qstats
from mqtool.response import Response
from mqtool.state import messages as runs

from . import RC_WRONG_TYPE, active_only, find_named, not_found, pubsub, refuse, reply


@active_only
def handle(ctx: Any, req: Any) -> Response:
    if req.object.name == "TOPICSTR":
        return pubsub.clear(ctx, req)
    name, tx, system = req.name, ctx.tx, ctx.system
    record = find_named(tx, system, "QLOCAL", name)
    if record is None:
        return not_found(req, "QLOCAL", name)
    if record.type != "QLOCAL":
        return refuse(req, "CSQM110I", RC_WRONG_TYPE, objtype="QLOCAL", name=name, actual=record.type)
    qstats.removed(tx, system.name, name, runs.clear(tx.conn, system.name, name))
    return reply(req)
