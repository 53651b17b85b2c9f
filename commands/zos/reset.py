"""RESET CHANNEL(name) [SEQNUM(n)]: a channel's message sequence number (channels.py)."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response

from . import active_only, everyday
from .channels import reset


@active_only
def handle(ctx: Any, req: Any) -> Response:
    routed = everyday.route(ctx, req)
    if routed is not None:
        return routed
    return reset(ctx, req)
