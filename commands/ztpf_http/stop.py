"""ZHTPS STOP SERVER-name: marks the server stopped; the loop that listens for it
closes the listener and every open connection within a poll."""

from __future__ import annotations

from mqtool.engine.http.records import STARTED, STOPPED, ServerStatus
from mqtool.response import Response
from mqtool.session import Context
from mqtool.validate import Request

from . import failure, response, server_record


def handle(ctx: Context, req: Request) -> Response:
    assert req.name is not None
    name = req.name
    record = server_record(ctx.tx, ctx.system.name, name)
    status = ServerStatus.of(record)
    if record is None or status.state != STARTED:
        return failure("HTTPS0103E", name=name)
    status.state = STOPPED
    status.stopped = ctx.now
    record.status = status.to_dict()
    ctx.tx.put_status(record)
    result = response()
    result.add("HTTPS0002I", name=name)
    return result
