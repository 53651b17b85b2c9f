"""SET LOG, SET ARCHIVE and SET SYSTEM: change log, archive and system parameters until
the next restart; SET CHLAUTH: channel authentication records (chlauth.py)."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response

from . import active_only, chlauth, logs, manager, sysparms


@active_only
def handle(ctx: Any, req: Any) -> Response:
    record = manager(ctx.tx, ctx.system, ctx.now)
    if req.object.name == "CHLAUTH":
        return chlauth.set_record(ctx, req)
    if req.object.name == "LOG":
        return logs.set_log(ctx, req, record)
    if req.object.name == "SYSTEM":
        return sysparms.set_system(ctx, req, record)
    return logs.set_archive(ctx, req, record)
