"""RESET CHANNEL(name) [SEQNUM(n)]: a channel's message sequence number (channels.py)."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response

from . import active_only
from .channels import reset


@active_only
def handle(ctx: Any, req: Any) -> Response:
    return reset(ctx, req)
