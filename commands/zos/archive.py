"""ARCHIVE LOG (synonym ARC LOG): switch the active log data sets now and offload them
to archive; CANCEL OFFLOAD restarts the offloads in progress (logs.py)."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response

from . import active_only, logs, manager


@active_only
def handle(ctx: Any, req: Any) -> Response:
    return logs.archive_log(ctx, req, manager(ctx.tx, ctx.system, ctx.now))
