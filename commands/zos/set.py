"""SET LOG and SET ARCHIVE: change log and archive parameters until the next restart."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response

from . import active_only, logs, manager


@active_only
def handle(ctx: Any, req: Any) -> Response:
    record = manager(ctx.tx, ctx.system, ctx.now)
    if req.object.name == "LOG":
        return logs.set_log(ctx, req, record)
    return logs.set_archive(ctx, req, record)
