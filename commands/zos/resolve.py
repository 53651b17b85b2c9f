"""RESOLVE CHANNEL(name) ACTION(COMMIT|BACKOUT): a stopped sender's batch in doubt
(channels.py); RESOLVE INDOUBT: recovery.py."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response

from . import active_only, everyday
from .channels import resolve


@active_only
def handle(ctx: Any, req: Any) -> Response:
    routed = everyday.route(ctx, req)  # RESOLVE INDOUBT
    if routed is not None:
        return routed
    return resolve(ctx, req)
