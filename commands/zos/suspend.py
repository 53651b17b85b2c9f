"""SUSPEND QMGR and RESUME QMGR, CLUSTER(name)|CLUSNL(name)|FACILITY(DB2|IMSBRIDGE):
answered as a queue manager in no cluster and no queue-sharing group answers them
(everyday.py)."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response

from . import active_only
from .everyday import suspend_resume


@active_only
def handle(ctx: Any, req: Any) -> Response:
    return suspend_resume(ctx, req)
